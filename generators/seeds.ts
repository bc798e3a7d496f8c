// The wrapper's context for the seed rows: the allowance line of the context
// block and the model fallback. Fields another change adds to the spec (`budget`, issue
// 24) are read defensively, so this file works with or without them.
import { sh } from '../src/escape.ts';
import { presetOf } from '../src/harness/registry.ts';
import type { RenderContext } from './types.ts';

export interface SeedsContext {
  /** Tokens per working day (the spec's `budget`), 0 without one. */
  budget: number;
  /** A preset harness: a failed wake's output is read for the client's refusal of the model. */
  modelWatch: boolean;
  /** The fixed strings (grep -F) that say the model was refused. */
  refusals: string[];
  model: string;
  /** agent.fallbackModel, '' without one. */
  fallbackModel: string;
  /** The agent's arguments as shell words: the model's two values are variables when a fallback is set. */
  agentWords: string[];
  /** What the per-wake look at the scheduler entry searches for (58-entry.hbs). */
  wrapperPath: string;
  cronBegin: string;
  cronEnd: string;
}

/** `budget` as a positive whole number of tokens, or 0 when the spec has none. */
export function budgetOf(spec: unknown): number {
  const b = (spec as { budget?: unknown }).budget;
  return typeof b === 'number' && Number.isSafeInteger(b) && b > 0 ? b : 0;
}

/**
 * The agent's argv words. With a fallback, the value after the preset's `--model` is
 * "$hb_model" and claude's `--fallback-model` pair is there only while hb_model_alt is
 * set: the wrapper sets hb_model to the fallback and empties hb_model_alt once the model
 * was refused. `presetLength`: how many of `args` the preset made.
 */
function agentWords(args: string[], presetLength: number, fallback: boolean): string[] {
  const words = args.map((a) => sh(a));
  if (!fallback) return words;
  const preset = args.slice(0, presetLength);
  const m = preset.indexOf('--model');
  if (m >= 0) words[m + 1] = '"$hb_model"';
  // Claude Code also falls back within the run when the model is not found: once on the
  // fallback, the flag is left out (an empty hb_model_alt expands to no word at all), or
  // the refused model would be asked for again as the fallback's fallback.
  const f = preset.indexOf('--fallback-model');
  if (f >= 0) words.splice(f, 2, '${hb_model_alt:+--fallback-model} ${hb_model_alt:+"$hb_model_alt"}');
  return words;
}

export function seedsContext(ctx: RenderContext, agentArgs: string[], presetLength: number): SeedsContext {
  const a = ctx.spec.agent;
  const preset = presetOf(a.harness);
  const fallback = preset !== undefined && !!a.fallbackModel && !!a.model;
  return {
    budget: budgetOf(ctx.spec),
    modelWatch: preset !== undefined,
    refusals: preset ? [...preset.model.refusals] : [],
    model: a.model ?? '',
    fallbackModel: fallback ? a.fallbackModel! : '',
    agentWords: agentWords(agentArgs, presetLength, fallback),
    wrapperPath: ctx.names.wrapper,
    cronBegin: ctx.names.cronBegin,
    cronEnd: ctx.names.cronEnd,
  };
}
