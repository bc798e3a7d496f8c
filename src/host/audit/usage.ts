// The wakes' token usage as status shows it: the usage lines of runtime.log (the
// wrapper writes one per preset wake, heartbeat/64-stream), today's sum in the working
// zone (on the day each wake started, as the wrapper's budget counts), the budget, and
// the latest wake that logged one.
import type { LogLine, Usage } from '../../formats.ts';
import { addUsage, localParts, noUsage, usageOfWakes } from './history.ts';

export interface UsageFindings {
  /** The working zone's date of today. */
  day: string;
  today: Usage;
  /** The spec's budget, tokens a day; null without one. */
  budget: number | null;
  /** The latest wake with a usage line, and its number. */
  lastWake: (Usage & { wake: number }) | null;
}

export function usageFindings(lines: LogLine[], zone: string, now: Date, budget: number | undefined): UsageFindings {
  const day = localParts(now.getTime(), zone).date;
  const today = noUsage();
  let lastWake: UsageFindings['lastWake'] = null;
  for (const [start, u] of usageOfWakes(lines)) {
    if (localParts(Date.parse(start.time), zone).date === day) addUsage(today, u);
    lastWake = { wake: Number(/^wake (\d+)/.exec(start.detail)?.[1] ?? 0), ...u };
  }
  return { day, today, budget: budget ?? null, lastWake };
}

/** status's line: today's tokens, against the budget where there is one. */
export function usageLine(u: UsageFindings): string | null {
  if (!u.lastWake && u.budget === null) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const spent = `${n(u.today.total)} tokens today (${u.day}; in ${n(u.today.in)}, out ${n(u.today.out)}, cache ${n(u.today.cache)}${u.today.cost === null ? '' : `, cost\u2248$${u.today.cost.toFixed(4)}`})`;
  if (u.budget === null) return `usage: ${spent}`;
  return `usage: ${spent} of a budget of ${n(u.budget)} a day${u.today.total >= u.budget ? ': reached, the day\'s further wakes are skipped (skip-budget)' : ''}`;
}
