// The wrapper's context for the seed rows of issue 28: the allowance line of the context
// block. Fields another change adds to the spec (`budget`, issue 24) are read defensively,
// so this file works with or without them.
import type { RenderContext } from './types.ts';

export interface SeedsContext {
  /** Tokens per working day (the spec's `budget`, issue 24), 0 without one. */
  budget: number;
}

/** `budget` as a positive whole number of tokens, or 0 when the spec has none. */
export function budgetOf(spec: unknown): number {
  const b = (spec as { budget?: unknown }).budget;
  return typeof b === 'number' && Number.isSafeInteger(b) && b > 0 ? b : 0;
}

export function seedsContext(ctx: RenderContext): SeedsContext {
  return { budget: budgetOf(ctx.spec) };
}
