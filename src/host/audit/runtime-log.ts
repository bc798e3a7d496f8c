// What runtime.log says last, for status and list; and a failing wake's last lines in agent.log.
import { UserError } from '../../errors.ts';
import { NOT_OUTCOMES, isOneOf, type LogLine, formatLogLine, parseLog, SMOKE_DETAIL, parseWakes } from '../../formats.ts';
import { noteSkipped, readSoft, readTail } from '../fsx.ts';

/**
 * How much of each generation of runtime.log status, log and list read: its last 16 MiB.
 * The wrapper rotates the log past logMaxBytes (default 10 MiB), so this is all of it
 * unless logMaxBytes is larger or one wake wrote more; a year of hbgen's own lines at every
 * 5 minutes fits several times over. More would only slow the commands (a 3 GiB log once
 * made `hbgen list` fail as a whole).
 */
export const LOG_READ_MAX = 16 * 1024 * 1024;

/**
 * The last outcome in runtime.log: not "start", and not the install check's own lines
 * ("start smoke", "quiet smoke", "skip-locked smoke"; before the check tagged its skip, the
 * skip-locked next to a smoke line).
 */
export function lastOutcome(all: LogLine[]): LogLine | null {
  const smoke = (i: number) => all[i]?.detail === SMOKE_DETAIL;
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (isOneOf(NOT_OUTCOMES, l.outcome) || l.detail === SMOKE_DETAIL) continue;
    if (l.outcome === 'skip-locked' && (smoke(i - 1) || smoke(i + 1))) continue;
    return l;
  }
  return null;
}

/**
 * runtime.log's text, at most its last LOG_READ_MAX bytes (from a whole line; the cut is
 * recorded, see fsx.ts takeSkipped); '' when it is missing, and for a log that is a symbolic
 * link (never read through) or not a regular file (a FIFO would block the read: recorded).
 */
export function logText(log: string): string {
  let t: ReturnType<typeof readTail>;
  try {
    t = readTail(log, LOG_READ_MAX);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    noteSkipped(log, e.lines[0]!);
    return '';
  }
  if (!t) return '';
  if (t.cut) noteSkipped(log, `${log} is ${mib(t.size)}, more than hbgen reads: only its last ${mib(LOG_READ_MAX)} were read (the wrapper rotates it past logMaxBytes, so something else made it this large)`, true);
  return t.bytes.toString('utf8');
}

const mib = (n: number) => `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MiB`;

/**
 * Both generations of runtime.log, the rotated one (runtime.log.1, see the wrapper's step
 * 4b) first, as one text; either is '' when missing or a symbolic link (never read through).
 */
export function logHistory(log: string): string {
  const old = logText(`${log}.1`);
  // The old generation may end without a newline (the agent's last write): end it, so that
  // its last line and the new log's first stay two lines.
  return old && !old.endsWith('\n') ? `${old}\n${logText(log)}` : old + logText(log);
}

/** The last outcome of `name` in the log file `log`; null without one, and for a log that is a symbolic link. */
export function lastOutcomeIn(log: string, name: string): LogLine | null {
  return lastOutcome(parseLog(logText(log), name));
}

/** The wakes counted so far (the wrapper's counter file), null when it is absent or holds no number. */
export function wakesDone(wakes: string): number | null {
  // The counter is a few digits: 4 KiB is more than it ever holds.
  return parseWakes(readSoft(wakes, 4096, { noFollow: true })?.toString('utf8') ?? '');
}

/**
 * How much of agent.log status reads for a failing wake's last lines: its tail only. One
 * wake's agent may print more than logMaxBytes (the wrapper rotates agent.log at a wake's
 * start), and only the lines after that wake's start line are wanted.
 */
const AGENT_READ_MAX = 1024 * 1024;

/**
 * The last `max` lines (not blank, each at most 200 characters) the agent of the wake that
 * `start` opened printed: agent.log after the wrapper's copy of that start line (its step 5).
 * The agent may print a copy of it too; the last copy counts, so a copy only hides some of
 * its own lines, never shows an earlier wake's. Nothing when agent.log's tail lacks the
 * line, or agent.log is missing, a link or not a regular file (recorded, as logText does).
 * These are the agent's bytes, never records: the caller shows them as the agent's, escaped.
 */
export function agentLines(agentLog: string, start: LogLine, max: number): string[] {
  const mark = formatLogLine(start);
  let t: ReturnType<typeof readTail>;
  try {
    t = readTail(agentLog, AGENT_READ_MAX);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    noteSkipped(agentLog, e.lines[0]!);
    return [];
  }
  const all = (t?.bytes.toString('utf8') ?? '').split('\n');
  let at = -1;
  // As the wrapper matches it (heartbeat/51-wake-output): at a line's end, after a torn line.
  for (let i = all.length - 1; i >= 0 && at < 0; i--) if (all[i]!.endsWith(mark)) at = i;
  if (at < 0) return [];
  return all
    .slice(at + 1)
    .filter((l) => l.trim())
    .slice(-max)
    .map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
}
