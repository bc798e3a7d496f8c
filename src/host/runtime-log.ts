// What runtime.log says last, for status and list.
import { type LogLine, parseLog } from '../formats.ts';
import { lstatOrNull, readOrNull } from './fsx.ts';

/**
 * The last outcome in runtime.log: not "start", and not the install check's own lines
 * ("start smoke", "quiet smoke", "skip-locked smoke"; before the check tagged its skip, the
 * skip-locked next to a smoke line).
 */
export function lastOutcome(all: LogLine[]): LogLine | null {
  const smoke = (i: number) => all[i]?.detail === 'smoke';
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.outcome === 'start' || l.outcome === 'note' || l.detail === 'smoke') continue;
    if (l.outcome === 'skip-locked' && (smoke(i - 1) || smoke(i + 1))) continue;
    return l;
  }
  return null;
}

/** runtime.log's text; '' when it is missing, and for a log that is a symbolic link (never read through). */
export function logText(log: string): string {
  if (lstatOrNull(log)?.isSymbolicLink()) return '';
  return readOrNull(log)?.toString('utf8') ?? '';
}

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
  const t = readOrNull(wakes)?.toString('utf8').trim() ?? '';
  return /^\d+$/.test(t) ? Number(t) : null;
}
