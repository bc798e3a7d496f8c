// Time-zone arithmetic: a zone's UTC offset at an instant, the instants at which it changes,
// and the stretches over which two zones keep the same offsets. The wake plan
// (src/schedule.ts) needs it for a host clock in another zone than the working hours, the
// DST warnings need it for the working zone, and `hbgen status` for the next fire time.
// (src/zones.ts is the other question: whether a zone name is one this host can honour.)
//
// The answers come from Node's ICU, through a table the build computes (src/gen/zones.ts)
// because loading ICU's zone data costs about 14 ms at every start. The table holds, per
// zone, [offset at SPAN_START, minute of a change, offset after it, …], computed by
// zoneRow() below with the same ICU; a name without a row is asked of ICU at run time, and
// the bytes rendered are the same either way.
import { ZONE_TABLE } from './gen/zones.ts';

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

// The span over which a cross-zone plan must hold. It is fixed, not "this year", so that
// rendering does not depend on the clock; it covers the years an install can live.
export const SPAN_START = Date.UTC(2025, 0, 1);
export const SPAN_END = Date.UTC(2037, 0, 1);

// Offsets are sampled every STEP and each change is then bisected to the minute. No zone
// in the tz database changes its offset twice within a week (the closest pairs, such as
// Morocco's Ramadan suspensions, are weeks apart); test/schedule.test.ts checks every
// zone's changes against the system's zoneinfo, read by zdump(8).
const STEP = 7 * DAY_MS;

// ------------------------------------------------------------------ ICU

const formatters = new Map<string, Intl.DateTimeFormat>();

/** UTC offset of `zone` at `ms` from ICU itself, in minutes east of UTC. */
function icuOffsetAt(zone: string, ms: number): number {
  let f = formatters.get(zone);
  if (!f) formatters.set(zone, (f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })));
  const name = f.formatToParts(ms).find((p) => p.type === 'timeZoneName')!.value; // "GMT+05:45" or "GMT"
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!m) return 0;
  const v = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -v : v;
}

// ------------------------------------------------------------------ the build-time table

let useTable = true;

/** For the build and the tests: compute everything from ICU, ignoring the table. */
export function withoutZoneTable<T>(fn: () => T): T {
  useTable = false;
  try {
    return fn();
  } finally {
    useTable = true;
  }
}

const tableRow = (zone: string): number[] | undefined => (useTable && Object.hasOwn(ZONE_TABLE, zone) ? ZONE_TABLE[zone] : undefined);

/** The table row of `zone`, for bin/build.mjs: what ICU says, in the table's shape. */
export function zoneRow(zone: string): number[] {
  return withoutZoneTable(() => {
    const row = [offsetAt(zone, SPAN_START)];
    for (const t of findTransitions(zone)) row.push(t / MINUTE_MS, offsetAt(zone, t));
    return row;
  });
}

// ------------------------------------------------------------------ offsets and changes

/** UTC offset of `zone` at `ms`, in minutes east of UTC. */
export function offsetAt(zone: string, ms: number): number {
  const row = tableRow(zone);
  if (!row || ms < SPAN_START || ms >= SPAN_END) return icuOffsetAt(zone, ms);
  const minute = Math.floor(ms / MINUTE_MS);
  let lo = 0; // row[1 + 2k] are change minutes, ascending; find the last one ≤ minute
  let hi = (row.length - 1) / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row[1 + 2 * mid]! <= minute) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? row[0]! : row[2 * lo]!;
}

const transitionCache = new Map<string, number[]>();
const tableTransitions = new Map<string, number[]>();

/** Instants in [SPAN_START, SPAN_END) at which the zone's offset changes, exact to the minute. */
export function transitions(zone: string): number[] {
  const row = tableRow(zone);
  if (row) {
    // Read from the table once per zone; the cache below is ICU's answer, the same values.
    let fromTable = tableTransitions.get(zone);
    if (!fromTable) tableTransitions.set(zone, (fromTable = row.filter((_, i) => i % 2 === 1).map((m) => m * MINUTE_MS)));
    return fromTable;
  }
  let out = transitionCache.get(zone);
  if (!out) transitionCache.set(zone, (out = findTransitions(zone)));
  return out;
}

function findTransitions(zone: string): number[] {
  const out: number[] = [];
  let prev = offsetAt(zone, SPAN_START);
  for (let t = SPAN_START + STEP; t < SPAN_END + STEP; t += STEP) {
    const cur = offsetAt(zone, t);
    if (cur !== prev) {
      let lo = t - STEP;
      let hi = t; // offset at lo is prev, at hi is cur
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.floor((hi - lo) / (2 * MINUTE_MS)) * MINUTE_MS;
        if (offsetAt(zone, mid) === prev) lo = mid;
        else hi = mid;
      }
      out.push(hi);
      prev = cur;
    }
  }
  return out;
}

/** Whether the zone's clocks go back at some change in the span (a wall-clock time repeats). */
export function repeatsWallClock(zone: string): boolean {
  return transitions(zone).some((t) => offsetAt(zone, t) < offsetAt(zone, t - MINUTE_MS));
}

// ------------------------------------------------------------------ two zones side by side

/** A stretch of time in which both zones keep their offsets (minutes east of UTC). */
export interface Segment {
  from: number; // ms
  to: number;
  work: number;
  host: number;
}

/** The span cut at every change of either zone, in order. */
export function segments(work: string, host: string): Segment[] {
  const cuts = [...new Set([SPAN_START, ...transitions(work), ...transitions(host), SPAN_END])].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    out.push({ from: cuts[i]!, to: cuts[i + 1]!, work: offsetAt(work, cuts[i]!), host: offsetAt(host, cuts[i]!) });
  }
  return out;
}
