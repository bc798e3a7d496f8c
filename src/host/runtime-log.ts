// What runtime.log says last, for status and list.
import { type LogLine, parseLog } from '../formats.ts';
import { lstatOrNull, readOrNull } from './fsx.ts';

/**
 * The last outcome in runtime.log: not "start", and not the install check's own lines
 * ("start smoke", "quiet smoke" and the skip-locked of its second run).
 */
export function lastOutcome(all: LogLine[]): LogLine | null {
  const smoke = (i: number) => all[i]?.detail === 'smoke';
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.outcome === 'start' || l.detail === 'smoke') continue;
    if (l.outcome === 'skip-locked' && (smoke(i - 1) || smoke(i + 1))) continue;
    return l;
  }
  return null;
}

/** The last outcome of `name` in the log file `log`; null without one, and for a log that is a symbolic link (never read through). */
export function lastOutcomeIn(log: string, name: string): LogLine | null {
  if (lstatOrNull(log)?.isSymbolicLink()) return null;
  return lastOutcome(parseLog(readOrNull(log)?.toString('utf8') ?? '', name));
}
