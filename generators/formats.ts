// The state files' and log details' sh forms, handed to the wrapper's templates from the
// one definition in src/formats.ts (as the log line's format is, step 1): the outcome
// words, the `wake N`, `smoke` and `until` details, and the printf(1) formats of the pause
// and the wake counter.
// A template writes none of them as a literal (test/state-formats.test.ts reads what each
// shell wrote back with src/formats.ts's parsers).
import { OUTCOME_WORDS, PAUSE_PRINTF, SMOKE_DETAIL, TAMPERED_GIT, UNTIL_WORD, WAKES_PRINTF, AGENT_RECORD_PRINTF, ASIDE_DIR, logLineShell, wakeDetailShell } from '../src/formats.ts';
import { jailOn } from '../src/jail.ts';
import type { RenderContext } from './types.ts';

export interface FormatsContext {
  /** The outcome words by name: `{{out.skipCap}}`. */
  out: typeof OUTCOME_WORDS;
  /** The `start` line's detail as the body of a double-quoted sh word (hb_n, hb_now). */
  wakeDetailSh: string;
  /** This wake's whole `start` line, as the body of a double-quoted sh word (hb_stamp, hb_name). */
  startLineSh: string;
  /** The install check's detail, and the word before a `limit`/`skip-limit` line's time. */
  smokeDetail: string;
  untilWord: string;
  /** The detail after `error` of a wake that left git a program to run (heartbeat/81-gitcheck). */
  tamperedGit: string;
  pausePrintf: string;
  wakesPrintf: string;
  /** The agent record, as hb_gate writes it, and the folder where the gate writes aside. */
  agentPrintf: string;
  asideDir: string;
}

export function formatsContext(ctx: RenderContext): FormatsContext {
  const wakeDetailSh = wakeDetailShell('hb_n', 'hb_now', jailOn(ctx.spec));
  return {
    out: OUTCOME_WORDS,
    wakeDetailSh,
    startLineSh: logLineShell('$hb_stamp', '$hb_name', `${OUTCOME_WORDS.start} ${wakeDetailSh}`),
    smokeDetail: SMOKE_DETAIL,
    untilWord: UNTIL_WORD,
    tamperedGit: TAMPERED_GIT,
    pausePrintf: PAUSE_PRINTF,
    wakesPrintf: WAKES_PRINTF,
    agentPrintf: AGENT_RECORD_PRINTF,
    asideDir: ASIDE_DIR,
  };
}

const HB_UTC_FIELDS: Record<string, string> = { Y: 'Y', m: 'm', d: 'd', H: 'H', M: 'M', S: 'S' };

/** LOG_DATE_FORMAT as a double-quoted sh word of hb_utc's fields, so that the wrapper can
 * stamp a line from an epoch it already has, in exactly the format date(1) would print. */
export function logDateShell(format: string): string {
  const body = format.replace(/^\+/, '').replace(/%(.)|([^%]+)/g, (_, f: string | undefined, lit: string | undefined) => {
    if (lit !== undefined) {
      if (!/^[A-Za-z0-9 :_.-]*$/.test(lit)) throw new Error(`LOG_DATE_FORMAT: "${lit}" is not plain text`);
      return lit;
    }
    const field = HB_UTC_FIELDS[f!];
    if (!field) throw new Error(`LOG_DATE_FORMAT: %${f} has no hb_utc field`);
    return `\${hb_utc_${field}}`;
  });
  return `"${body}"`;
}
