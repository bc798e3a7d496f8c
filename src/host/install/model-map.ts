// The model map `hbgen init` writes (agent.model, agent.models' fast/general/strong tiers,
// agent.fallbackModel), from what the client itself says of its models without a paid call:
// - codex prints the catalog shipped with its binary (`codex debug models --bundled`, read
//   offline): each model's `priority` (its own order of recommendation, 1 first), whether it
//   is listed (`visibility`), whether it is superseded (`upgrade` names its successor), and a
//   one-line description. It ranks by recommendation only, not by strength or speed: the
//   general tier is its first recommendation, and the fast and strong tiers are written only
//   where a current model's own description says it ("fast … affordable/easier/simpler",
//   "most capable"), never guessed from a name.
// - Claude Code prints no list of models; its aliases (haiku, sonnet, opus) are its own names
//   for the fast, general and strong models (https://docs.anthropic.com/en/docs/claude-code/model-config),
//   and an alias follows the newest model of its kind, so init writes those.
// No `inherit` tier is written: neither client's headless run has subagents that inherit
// the lead's model through hbgen's prompt (Claude Code's own subagent files may say
// `model: inherit`, which is theirs to write).
import { spawnSync } from 'node:child_process';
import { PRESET_PINS } from '../../harness.ts';
import { presetOf } from '../../harness/registry.ts';

export interface ModelMap {
  model: string;
  fallbackModel?: string;
  models?: Record<string, string>;
  /** Where the map came from, for init's report (one line). */
  from: string;
}

interface CatalogModel {
  slug: string;
  priority: number;
  listed: boolean;
  current: boolean;
  description: string;
}

/** The current, listed models of a printed catalog, in the client's order of recommendation. */
export function catalogModels(json: string): CatalogModel[] {
  let models: unknown[] = [];
  try {
    models = (JSON.parse(json) as { models?: unknown[] }).models ?? [];
  } catch {
    return [];
  }
  return models
    .map((m) => m as { slug?: unknown; priority?: unknown; visibility?: unknown; upgrade?: unknown; description?: unknown })
    .filter((m) => typeof m.slug === 'string' && typeof m.priority === 'number')
    .map((m) => ({ slug: m.slug as string, priority: m.priority as number, listed: m.visibility === 'list', current: m.upgrade === null || m.upgrade === undefined, description: typeof m.description === 'string' ? m.description : '' }))
    .filter((m) => m.listed && m.current)
    .sort((a, b) => a.priority - b.priority);
}

/** The map from a codex catalog: null when it lists no current model. */
export function codexMap(json: string, from: string): ModelMap | null {
  const ms = catalogModels(json);
  if (ms.length === 0) return null;
  const general = ms[0]!;
  const strong = ms.find((m) => /\bmost capable\b/i.test(m.description));
  const fast = ms.find((m) => /\bfast\b/i.test(m.description) && /\b(affordable|easier|simpler)\b/i.test(m.description));
  const models: Record<string, string> = {};
  if (fast && fast !== general) models.fast = fast.slug;
  models.general = general.slug;
  if (strong && strong !== general) models.strong = strong.slug;
  // The fallback: the next recommendation, for when the first is refused.
  const fallback = ms.find((m) => m !== general);
  return { model: general.slug, ...(fallback ? { fallbackModel: fallback.slug } : {}), models, from };
}

/** The map init writes for a preset: the client's own catalog where it prints one, else its aliases, else the preset's pin. */
export function modelMap(harness: string, bin: string, env: Record<string, string>): ModelMap {
  const p = presetOf(harness);
  const pin = PRESET_PINS[harness as keyof typeof PRESET_PINS];
  if (!p || !pin) return { model: '', from: '' };
  const c = p.model.catalog;
  if ('argv' in c) {
    const r = spawnSync(bin, [...c.argv], { env: { HOME: env.HOME ?? '/', PATH: env.PATH ?? '/usr/bin:/bin' }, encoding: 'utf8', timeout: 20_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    const m = r.status === 0 ? codexMap(r.stdout, c.from) : null;
    if (m) return { ...m, from: `${c.from} (its first recommendation general, the fallback its second; a tier only where its own description says fast or most capable)` };
    return { model: pin.model, from: `the preset's pin: ${c.from} gave no catalog (${r.error ? r.error.message : `exit ${r.status}`}), so no tiers` };
  }
  const tiers = { fast: 'haiku', general: 'sonnet', strong: 'opus' };
  if (!Object.values(tiers).every((t) => c.list.includes(t))) return { model: pin.model, from: `the preset's pin (${c.from} lack haiku, sonnet or opus), so no tiers` };
  return { model: tiers.general, fallbackModel: tiers.fast, models: tiers, from: `${c.from}: haiku, sonnet and opus name its fast, general and strong models (it prints no list); the fallback the fast one` };
}
