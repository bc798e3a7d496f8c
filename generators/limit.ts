// The plan's limit: what the wrapper's steps 3b (the pause check, partial
// heartbeat/35-limit) and 8b (recognising the client's limit message, heartbeat/85-limit)
// read from the spec. Which message forms count depends on the harness, known at render.
import { durations } from '../src/spec.ts';
import { PAUSE_MAX_SECONDS } from '../src/formats.ts';
import { COMMAND, presetOf } from '../src/harness/registry.ts';
import type { RenderContext } from './types.ts';

/** A pause whose reset is further away than this is "far": only a weekly limit needs one
 * (a session limit resets within 5 hours). A far pause right after another, with no
 * successful wake between, is not believed (heartbeat/85-limit, hb_limitfar), and
 * `hbgen status` reports two in a row (src/host/audit/health.ts farPauses). */
export const LIMIT_FAR = 86400;

export interface LimitContext {
  /**
   * The runtime's grammar of the preset client's limit message (its descriptor's `limit`:
   * Claude Code's "You've hit your session limit · resets 4:20am (Europe/Warsaw)", codex's
   * "You’ve hit your usage limit. Try again at 4:20 PM."); '' for a command.
   */
  limitGrammar: string;
  /** A `command` agent asks for a pause itself: exit 75, last line `retry-after: …`. */
  limitCommand: boolean;
  /** Seconds to pause when the message names no reset time. */
  limitBackoff: number;
  limitBackoffText: string;
  limitMaxPause: number;
  limitFar: number;
  /** The pause instead of a far one not believed: limitBackoff, at most LIMIT_FAR. */
  limitDistrust: number;
  limitDistrustText: string;
}

export function limitContext(ctx: RenderContext): LimitContext {
  const h = ctx.spec.agent.harness;
  const grammar = presetOf(h)?.limit;
  const backoff = ctx.spec.limitBackoff;
  const s = durations(ctx.spec).limitBackoff;
  return {
    limitGrammar: grammar ?? '',
    limitCommand: h === COMMAND,
    limitBackoff: Math.min(s, PAUSE_MAX_SECONDS),
    limitBackoffText: backoff,
    limitMaxPause: PAUSE_MAX_SECONDS,
    limitFar: LIMIT_FAR,
    limitDistrust: Math.min(s, LIMIT_FAR),
    limitDistrustText: s > LIMIT_FAR ? '1d' : backoff,
  };
}
