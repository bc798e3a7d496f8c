// agent.fallbackModel: "when a model is rejected, fall back once and update
// state". The wrapper reads a failed wake's output for the client's own words that the
// model was refused, logs `error model …`, and, with a fallback, records it in
// <stateDir>/model.fallback so that the next wake runs the fallback; status says so.
// Claude Code's own --fallback-model (passed too) switches within the run.
import { COMMAND, PRESETS, presetList, type PresetId } from './harness/registry.ts';

/** What each preset's client prints when the model is refused, as fixed strings (grep -F): its descriptor's model.refusals. */
export const REFUSALS = Object.fromEntries(PRESETS.map((p) => [p.id, p.model.refusals])) as Record<PresetId, readonly string[]>;

export const FALLBACK_FILE = 'model.fallback';

/** The spec's rules for agent.fallbackModel, as messages (the path is the caller's). */
export function fallbackIssues(a: object): string[] {
  const { harness, model, fallbackModel } = a as { harness?: unknown; model?: unknown; fallbackModel?: unknown };
  if (typeof fallbackModel !== 'string' || fallbackModel === '') return [];
  if (harness === COMMAND) return [`applies to the ${presetList()} presets only; for harness "command" your own client decides (e.g. claude --fallback-model in agent.args)`];
  if (typeof model !== 'string') return ['needs agent.model: the fallback replaces that model when the client refuses it; set agent.model too, or leave fallbackModel out'];
  if (model === fallbackModel) return [`is the same as agent.model ("${model}"); name another model, or leave fallbackModel out`];
  return [];
}

