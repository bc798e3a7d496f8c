// What runtime.log says last, for status and list.
import { type LogLine, parseLog } from '../formats.ts';
import { readOrNull } from './fsx.ts';

/**
 * The last outcome in runtime.log: not "start", and not the install check's own lines
 * ("start smoke", "quiet smoke" and the skip-locked of its second run).
 */
export function lastOutcome(log: string, name: string): LogLine | null {
  const b = readOrNull(log);
  if (!b) return null;
  const all = parseLog(b.toString('utf8'), name);
  const smoke = (i: number) => all[i]?.detail === 'smoke';
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.outcome === 'start' || l.detail === 'smoke') continue;
    if (l.outcome === 'skip-locked' && (smoke(i - 1) || smoke(i + 1))) continue;
    return l;
  }
  return null;
}
