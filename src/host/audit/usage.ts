// The wakes' token usage as status shows it: the usage lines of runtime.log (the
// wrapper writes one per preset wake, heartbeat/64-stream), today's sum in the working
// zone (on the day each wake started, as the wrapper's budget counts), the budget, and
// the latest wake that logged one.
import { type LogLine, type Usage, WINDOW_NAMES, type WindowReading, windowsText } from '../../formats.ts';
import { addUsage, localParts, noUsage, usageOfWakes, windowsOfWakes } from './history.ts';

export interface UsageFindings {
  /** The working zone's date of today. */
  day: string;
  today: Usage;
  /** The spec's budget, tokens a day; null without one. */
  budget: number | null;
  /** The latest wake with a usage line, and its number. */
  lastWake: (Usage & { wake: number }) | null;
  /** The plan's windows as the latest wake that read any saw them (its `windows` line), and that wake's number. */
  windows: { wake: number; readings: WindowReading[] } | null;
}

export function usageFindings(lines: LogLine[], zone: string, now: Date, budget: number | undefined): UsageFindings {
  const day = localParts(now.getTime(), zone).date;
  const today = noUsage();
  let lastWake: UsageFindings['lastWake'] = null;
  for (const [start, u] of usageOfWakes(lines)) {
    if (localParts(Date.parse(start.time), zone).date === day) addUsage(today, u);
    lastWake = { wake: Number(/^wake (\d+)/.exec(start.detail)?.[1] ?? 0), ...u };
  }
  let windows: UsageFindings['windows'] = null;
  for (const [start, readings] of windowsOfWakes(lines)) if (readings.length) windows = { wake: Number(/^wake (\d+)/.exec(start.detail)?.[1] ?? 0), readings };
  return { day, today, budget: budget ?? null, lastWake, windows };
}

/**
 * status's line of the plan's windows: each one's last seen utilization and reset, and the
 * reserve the wakes keep of it (whole percents, 0 for none). Null where no wake read any and
 * there is no reserve.
 */
export function windowsLine(u: UsageFindings, reserve: { fiveHour: number; weekly: number }): string | null {
  const keeps = [['five_hour', reserve.fiveHour], ['seven_day', reserve.weekly]].filter(([, k]) => (k as number) > 0).map(([w, k]) => `${k}% of the ${WINDOW_NAMES[w as string]} window`);
  const kept = keeps.length ? `; the reserve keeps ${keeps.join(' and ')} for you` : '';
  if (!u.windows) return keeps.length ? `plan windows: not read yet (the client's stream gives them from the first wake on)${kept}` : null;
  return `plan windows: ${windowsText(u.windows.readings)}, as wake ${u.windows.wake} read them${kept}`;
}

/** status's line: today's tokens, against the budget where there is one. */
export function usageLine(u: UsageFindings): string | null {
  if (!u.lastWake && u.budget === null) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const spent = `${n(u.today.total)} tokens today (${u.day}; in ${n(u.today.in)}, out ${n(u.today.out)}, cache ${n(u.today.cache)}${u.today.cost === null ? '' : `, cost\u2248$${u.today.cost.toFixed(4)}`})`;
  if (u.budget === null) return `usage: ${spent}`;
  return `usage: ${spent} of a budget of ${n(u.budget)} a day${u.today.total >= u.budget ? ': reached, the day\'s further wakes are skipped (skip-budget)' : ''}`;
}
