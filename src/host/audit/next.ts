// The next fire time of a cron or launchd entry, computed from the plan the entry was
// rendered from (plan(spec).hostEntries), read in the host zone, from now.
import { pad2 } from '../../formats.ts';
import type { CalEntry, Plan } from '../../schedule.ts';
import { offsetAt } from '../../zone-offsets.ts';

const MIN = 60_000;

function matches(e: CalEntry, day: number, hour: number, minute: number): boolean {
  return e.days.includes(day) && e.hours.includes(hour) && e.minutes.includes(minute);
}

/** The first whole minute after `now` at which an entry fires, or null within 8 days. */
export function nextFire(entries: CalEntry[], zone: string, now: Date): Date | null {
  let t = Math.floor(now.getTime() / MIN) * MIN + MIN;
  const end = t + 8 * 1440 * MIN;
  for (; t < end; t += MIN) {
    const local = new Date(t + offsetAt(zone, t) * MIN);
    const d = local.getUTCDay();
    const h = local.getUTCHours();
    const m = local.getUTCMinutes();
    if (entries.some((e) => matches(e, d, h, m))) return new Date(t);
  }
  return null;
}


/** "2026-12-01 08:07 Europe/Berlin (07:07Z)" */
export function localText(at: Date, zone: string): string {
  const local = new Date(at.getTime() + offsetAt(zone, at.getTime()) * MIN);
  return `${local.getUTCFullYear()}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())} ${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())} ${zone} (${at.toISOString().replace(/:00\.000Z$/, 'Z')})`;
}

export function nextFireText(plan: Plan, now: Date): string {
  const at = nextFire(plan.hostEntries, plan.hostTimezone, now);
  if (!at) return 'none in the next 8 days';
  return `${localText(at, plan.hostTimezone)}${plan.widened ? '; the host clock differs from the working zone, so the gate may skip it' : ''}`;
}
