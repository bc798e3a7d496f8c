// The host clock's zone, for the schedulers that read it (cron, launchd): their entries are
// rendered for `schedule.hostTimezone` (default: the working zone), and a host whose clock
// runs in another zone would fire them at other hours. install refuses that; status says
// how many of today's wakes it would miss (laptops travel).
import { readFileSync, readlinkSync } from 'node:fs';
import type { Plan } from '../../schedule.ts';
import type { Spec } from '../../spec.ts';
import { zoneRow } from '../../zone-offsets.ts';
import { isKnownZone } from '../../zones.ts';
import { firesBetween } from './health.ts';

/**
 * The zone the host clock runs in, as an IANA name, or null when it cannot be told:
 * /etc/localtime's link target after `zoneinfo/` (Linux, and macOS's
 * /var/db/timezone/zoneinfo/…), else Debian's /etc/timezone.
 */
export function hostZone(etc = '/etc'): string | null {
  let name: string | null = null;
  try {
    const target = readlinkSync(`${etc}/localtime`);
    const at = target.indexOf('zoneinfo/');
    if (at >= 0) name = target.slice(at + 'zoneinfo/'.length);
  } catch {
    // not a link: a copied zone file
  }
  if (name === null) {
    try {
      name = readFileSync(`${etc}/timezone`, 'utf8').trim() || null;
    } catch {
      return null;
    }
  }
  return name && isKnownZone(name) ? name : null;
}

/** Two zone names that keep the same clock over the plan's span of years (Etc/UTC and UTC, say). */
export function sameClock(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return zoneRow(a).join(',') === zoneRow(b).join(',');
  } catch {
    return false;
  }
}

/** The spec's expected host zone: the one its cron/launchd entries were rendered for. */
export const plannedHostZone = (spec: Spec): string => spec.schedule.hostTimezone ?? spec.schedule.hours.timezone;

/** The refusal for a host clock in another zone than the plan's, or null. */
export function hostZoneProblem(spec: Spec, actual: string | null): string | null {
  const planned = plannedHostZone(spec);
  if (actual === null || sameClock(actual, planned)) return null;
  const field = spec.schedule.hostTimezone ? 'schedule.hostTimezone' : 'schedule.hours.timezone (no schedule.hostTimezone set)';
  return `schedule: this host's clock runs in ${actual}, but the ${spec.schedule.scheduler} entries are planned for ${planned} (${field}), so they would fire at other hours; set "hostTimezone": "${actual}" in the spec's schedule (the gate keeps the working hours exact), or set the host's zone to ${planned}`;
}

/** Of the wakes expected in the 24 hours from `from`, those the entries miss when read in `actual` instead of the planned zone. */
export function wakesMissedIn(p: Plan, workZone: string, actual: string, from: number): number {
  const to = from + 86_400_000;
  const expected = firesBetween(p.zoneEntries, workZone, from, to);
  const fired = new Set(firesBetween(p.hostEntries, actual, from, to));
  return expected.filter((t) => !fired.has(t)).length;
}

