// install's look at what the agent will read and which model it asks for, for
// the panel: the repo's own instruction files (CLAUDE.md, AGENTS.md) and the client's
// settings, whether they point at PROTOCOL.md and HEART.md and whether they contradict
// them; agent.model against the client's own list where it has one (no paid probe: codex's
// bundled catalog is read offline, Claude Code's aliases are the ones its docs and bundle
// name); and the rows "agent budget" and "token policy".
import { spawnSync } from 'node:child_process';
import { posix } from 'node:path';
import type { Spec } from '../../spec.ts';
import { readSoft } from '../fsx.ts';
import { presetOf } from '../../harness/registry.ts';
import type { CatalogModel, HarnessPreset } from '../../harness/types.ts';

export interface SeedLook {
  rows: [string, string][];
  caveats: string[];
}

/** The instruction files the client reads from the repo: its descriptor's, or for a command the two common ones. */
const instructionFiles = (spec: Spec): readonly string[] => presetOf(spec.agent.harness)?.instructionFiles ?? ['CLAUDE.md', 'AGENTS.md'];

const MAX = 256 * 1024;
const text = (path: string): string | null => readSoft(path, MAX, { noFollow: true })?.toString('utf8') ?? null;

/**
 * Contradictions a plain reading can find between the agent's instructions and the
 * protocol it is woken with: each a pattern of the instruction file, what of the
 * protocol (PROTOCOL.md and HEART.md of the repo, or hbgen's rule) it contradicts, and
 * the sentence said.
 */
const CONTRADICTIONS: { says: RegExp; when: (protocol: string) => boolean; why: string }[] = [
  {
    says: /\b(never|do not|don't|must not|no)\s+(git\s+)?commit/i,
    when: (p) => /\b(git commit|commit (it|them|the|your|each|every|all|changes|the chunk))\b/i.test(p),
    why: 'says not to commit, while PROTOCOL.md or HEART.md asks for commits',
  },
  {
    says: /\b(always\s+)?ask\s+(me|the user|for (permission|confirmation|approval))\b|\bwait for (my|the user'?s?) (approval|confirmation|answer)/i,
    when: () => true,
    why: 'asks the agent to ask a person first, and nobody answers an unattended wake: it would stop there every time',
  },
  {
    says: /\b(never|do not|don't|must not)\s+(edit|modify|touch|change|write)\b[^.\n]*\b(STATE\.md|LOG\.md|journal)/i,
    when: () => true,
    why: 'forbids writing STATE.md, LOG.md or journal/, which PROTOCOL.md has the agent write every wake',
  },
];

/** The instruction files of the repo: which name PROTOCOL.md and HEART.md, and what contradicts them. */
function instructions(spec: Spec): { row: string; caveats: string[] } {
  const protocol = ['PROTOCOL.md', 'HEART.md'].map((f) => text(posix.join(spec.repo, f)) ?? '').join('\n');
  const parts: string[] = [];
  const caveats: string[] = [];
  for (const f of instructionFiles(spec)) {
    const t = text(posix.join(spec.repo, f));
    if (t === null) continue;
    const named = ['PROTOCOL.md', 'HEART.md'].filter((x) => t.includes(x));
    parts.push(`${f} ${named.length === 2 ? 'names PROTOCOL.md and HEART.md' : named.length === 1 ? `names ${named[0]} only` : 'names neither PROTOCOL.md nor HEART.md (the wake prompt does)'}`);
    for (const c of CONTRADICTIONS) {
      const m = c.says.exec(t);
      if (m && c.when(protocol)) caveats.push(`${posix.join(spec.repo, f)} ${c.why} ("${m[0]}"); change one of them`);
    }
  }
  return { row: parts.length ? parts.join('; ') : `none (no ${instructionFiles(spec).join(', ')} in the repo): the wake prompt and PROTOCOL.md are all it reads`, caveats };
}

/** The client's permissions.deny rules that stop what the protocol needs, from the settings files it reads (its descriptor's denyRuleFiles). */
function denyRules(spec: Spec): string[] {
  const files = presetOf(spec.agent.harness)?.denyRuleFiles?.(spec.repo, spec.env.HOME) ?? [];
  const out: string[] = [];
  for (const f of files) {
    let deny: unknown;
    try {
      deny = (JSON.parse(text(f) ?? 'null') as { permissions?: { deny?: unknown } } | null)?.permissions?.deny;
    } catch {
      continue;
    }
    if (!Array.isArray(deny)) continue;
    for (const r of deny.filter((x): x is string => typeof x === 'string')) {
      if (/^(Edit|Write|MultiEdit)(\((\*\*|\*|\.\/\*\*|.*(STATE|LOG)\.md.*|.*journal.*)\))?$/.test(r)) out.push(`${f} denies ${r}, so the agent cannot write STATE.md, LOG.md or journal/ as PROTOCOL.md says; narrow the rule`);
    }
  }
  return out;
}

/** The models the spec names, each checked against the client's own list where it has one. */
function catalog(spec: Spec, bin: string): { row: string | null; caveats: string[] } {
  const a = spec.agent;
  const p = presetOf(a.harness);
  // A tier that runs the subagent on the lead's model names no model of its own.
  const asked = [a.model, a.fallbackModel, ...Object.values(a.models ?? {})].filter((m): m is string => !!m && m !== p?.model.inherit);
  // A custom command has no list to check its args' model against: a row would say nothing.
  if (!p) return { row: null, caveats: [] };
  if (asked.length === 0) return { row: "the client's default (nothing to check)", caveats: [] };
  const known = modelCatalog(p.model.catalog, bin, spec.env, spec.repo);
  if ('why' in known) return { row: `unverified (${known.why})`, caveats: [] };
  const fullName = 'argv' in p.model.catalog ? undefined : p.model.catalog.fullName;
  const list = known.models.map((m) => m.slug);
  const caveats: string[] = [];
  const said = [...new Set(asked)].map((m) => {
    if (list.includes(m)) return `${m} listed`;
    if (fullName?.test(m)) return `${m} unverified (a full model name: ${p.label} lists none; the first wake's output says)`;
    caveats.push(`the model ${JSON.stringify(m)} is not in ${known.from} (${list.join(', ')}); the client will likely refuse it: check the name`);
    return `${m} NOT listed`;
  });
  // The effort against the lead model's own levels: codex 0.171 sends a level the model has
  // instead of one it lacks (gpt-5.5 lists low medium high xhigh; "ultra" went out as
  // xhigh), so the panel would show a level the wakes never use.
  const levelsOf = known.models.find((m) => m.slug === a.model)?.efforts;
  if (a.effort && a.model && levelsOf && !levelsOf.includes(a.effort)) {
    caveats.push(`agent.effort: "${a.effort}" is not a reasoning level of ${a.model} in ${known.from} (it has ${levelsOf.join(', ')}), so ${p.label} will not send it; set agent.effort to one of those`);
    said.push(`effort ${a.effort} NOT a level of ${a.model}`);
  }
  return { row: `${said.join(', ')} (by ${known.from})`, caveats };
}

/** A catalog entry's reasoning levels ([{effort}], as `codex debug models --bundled` prints them), when it lists any. */
function levels(v: unknown): { efforts?: string[] } {
  const e = Array.isArray(v) ? v.flatMap((l: { effort?: unknown } | null) => (typeof l?.effort === 'string' ? [l.effort] : [])) : [];
  return e.length ? { efforts: e } : {};
}

/**
 * A preset's model catalog: its own list, or the one its client prints as JSON
 * ({models: [{slug, upgrade: {model}}]}; `codex debug models --bundled`, the catalog shipped
 * with the binary, read offline: no network, no paid call). Install's check and init read it.
 */
export function modelCatalog(c: HarnessPreset['model']['catalog'], bin: string, env: { HOME?: string; PATH?: string }, cwd: string): { models: CatalogModel[]; from: string } | { why: string } {
  if (!('argv' in c)) return { models: c.list.map((slug) => ({ slug })), from: c.from };
  const r = spawnSync(bin, [...c.argv], { env: { HOME: env.HOME, PATH: env.PATH }, cwd, encoding: 'utf8', timeout: 20_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const printed = (JSON.parse(r.stdout) as { models?: { slug?: unknown; upgrade?: { model?: unknown } | null; supported_reasoning_levels?: unknown }[] }).models ?? [];
    const models = printed.flatMap((m) => (typeof m.slug === 'string' ? [{ slug: m.slug, ...(typeof m.upgrade?.model === 'string' ? { upgrade: m.upgrade.model } : {}), ...levels(m.supported_reasoning_levels) }] : []));
    if (models.length) return { models, from: c.from };
  } catch {}
  return { why: `${c.from} gave no catalog${r.error ? `: ${r.error.message}` : r.status !== 0 ? ` (exit ${r.status})` : ''}` };
}

/** The two rows of the seed, "agent budget" and "token policy". `budget` is read defensively (a state.json of an older hbgen has none). */
function budgetRows(spec: Spec): [string, string][] {
  const b = (spec as { budget?: unknown }).budget;
  const budget = typeof b === 'number' && b > 0 ? `${b} tokens per working day; the context block tells the agent what is left, and wakes skip once it is spent` : 'none: no daily token cap (set "budget", tokens per working day, to have one)';
  const tiers = spec.agent.models ? `; subagents on the cheapest fitting tier (${Object.keys(spec.agent.models).join(', ')})` : '';
  const fallback = spec.agent.fallbackModel ? `; ${spec.agent.fallbackModel} once ${spec.agent.model} is refused` : '';
  // No budget: the panel's own budget row says so (one row for the one field).
  return [
    ...(typeof b === 'number' && b > 0 ? ([['agent budget', budget]] as [string, string][]) : []),
    ['token policy', `plan only; fan-out when it helps, never recursive${tiers}${fallback} (PROTOCOL.md)`],
  ];
}

export function seedLook(spec: Spec, bin: string): SeedLook {
  const ins = instructions(spec);
  const cat = catalog(spec, bin);
  return {
    rows: [...budgetRows(spec), ['instructions', ins.row], ...(cat.row === null ? [] : ([['models', cat.row]] as [string, string][]))],
    caveats: [...ins.caveats, ...denyRules(spec), ...cat.caveats],
  };
}
