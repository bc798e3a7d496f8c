// When the heartbeat fires (PRODUCT.md §6). Everything here is pure: the same spec gives
// the same entries on any host, in any time zone, at any time. Host facts never enter.
//
// The model: the working hours and the interval define a weekly pattern of wall-clock
// minutes in `hours.timezone` (the "expected wakes"). Each scheduler gets that pattern as a
// list of calendar entries (days × hours × minutes products):
// - systemd reads them in the working zone itself (OnCalendar's zone suffix), so they are
//   exact;
// - launchd and cron read the host clock in `hostTimezone`. When that is the working zone,
//   the same entries are exact. Otherwise the pattern is shifted by every offset difference
//   the two zones have over the years below, and the union is the smallest set of host
//   minutes that never misses an expected wake; window.sh then skips the extra ones.
import { ZONE_TABLE } from './gen/zones.ts';
import { EVERY, clockMinutes, seconds, type Spec } from './spec.ts';

export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const WEEK = 7 * 1440;

/** One calendar entry: fire at every (day, hour, minute) of the product. Days 0 = Sunday. */
export interface CalEntry {
  days: number[];
  hours: number[];
  minutes: number[];
}

export interface Plan {
  minute: number;
  everyMinutes: number;
  /** Minutes of the week (0 = Sunday 00:00) in the working zone at which a wake is expected. */
  pattern: number[];
  /** Entries in the working zone's wall clock (systemd). */
  zoneEntries: CalEntry[];
  /** Entries in the host clock (launchd, cron). */
  hostEntries: CalEntry[];
  hostTimezone: string;
  /** True when the host entries are a superset of the pattern (foreign host zone). */
  widened: boolean;
  /** Share of host-clock fires in the reference year that the gate skips (0 when exact). */
  waste: number;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Minutes that keep every fire of the grid off :00 and :30 for this interval. */
export function minuteChoices(everyMinutes: number): number[] {
  const span = Math.min(everyMinutes, 60);
  const out: number[] = [];
  // With every dividing 60, a fire lands on :30 exactly when m ≡ 30 (mod every).
  for (let m = 1; m < span; m++) if (m !== 30 % span) out.push(m);
  return out;
}

/** The off-:00 minute: the spec's, else a stable hash of the name (the same on every machine). */
export function fireMinute(spec: Pick<Spec, 'name' | 'schedule'>): number {
  if (spec.schedule.minute !== undefined) return spec.schedule.minute;
  const choices = minuteChoices(seconds(spec.schedule.every) / 60);
  return choices[fnv1a(spec.name) % choices.length]!;
}

/** Day numbers (0 = Sunday) on which a window opens. */
export function openDays(spec: Pick<Spec, 'schedule'>): number[] {
  const days = spec.schedule.hours.days;
  if (!days) return [0, 1, 2, 3, 4, 5, 6];
  return days.map((d) => DAY_NAMES.indexOf(d)).sort((a, b) => a - b);
}

/** The expected wakes as sorted minutes of the week, in the working zone's wall clock. */
export function weeklyPattern(spec: Pick<Spec, 'name' | 'schedule'>): number[] {
  const every = seconds(spec.schedule.every) / 60;
  const m = fireMinute(spec);
  const start = clockMinutes(spec.schedule.hours.start);
  let end = clockMinutes(spec.schedule.hours.end);
  if (end <= start) end += 1440;
  const set = new Set<number>();
  for (const d of openDays(spec)) {
    const open = d * 1440 + start;
    const close = d * 1440 + end;
    if (every <= 60) {
      // A fixed grid: every minute ≡ m (mod every); every divides 60, so hours do not matter.
      let t = open + ((((m - open) % every) + every) % every);
      for (; t < close; t += every) set.add(t % WEEK);
    } else {
      // Every k hours from the first :m at or after the window opens.
      let t = open + ((((m - open) % 60) + 60) % 60);
      for (; t < close; t += every) set.add(t % WEEK);
    }
  }
  return [...set].sort((a, b) => a - b);
}

/** Compress a set of minutes of the week into few calendar entries, deterministically. */
export function toEntries(pattern: Iterable<number>): CalEntry[] {
  // day -> hour -> minutes
  const byDay = new Map<number, Map<number, number[]>>();
  for (const w of pattern) {
    const d = Math.floor(w / 1440);
    const h = Math.floor((w % 1440) / 60);
    const mi = w % 60;
    let hours = byDay.get(d);
    if (!hours) byDay.set(d, (hours = new Map()));
    let mins = hours.get(h);
    if (!mins) hours.set(h, (mins = []));
    mins.push(mi);
  }
  // (day, minutes) -> hours, then (hours, minutes) -> days
  const byHoursMinutes = new Map<string, CalEntry>();
  for (const d of [...byDay.keys()].sort((a, b) => a - b)) {
    const groups = new Map<string, number[]>();
    const hours = byDay.get(d)!;
    for (const h of [...hours.keys()].sort((a, b) => a - b)) {
      const key = hours.get(h)!.sort((a, b) => a - b).join(',');
      let hs = groups.get(key);
      if (!hs) groups.set(key, (hs = []));
      hs.push(h);
    }
    for (const [mk, hs] of groups) {
      const key = `${hs.join(',')}|${mk}`;
      let e = byHoursMinutes.get(key);
      if (!e) byHoursMinutes.set(key, (e = { days: [], hours: hs, minutes: mk.split(',').map(Number) }));
      e.days.push(d);
    }
  }
  return [...byHoursMinutes.values()].sort(
    (a, b) => a.hours[0]! - b.hours[0]! || a.minutes[0]! - b.minutes[0]! || a.days[0]! - b.days[0]! || a.hours.length - b.hours.length,
  );
}

// ---- time-zone arithmetic (ICU through Intl; only for cross-zone plans) ----

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

// Loading ICU's zone data costs about 14 ms at every start, so the build computes, with the
// same ICU and the same code below, each zone's offsets over the span into src/gen/zones.ts
// ([offset at the span's start, minute of a change, offset after it, …]). Rendering reads
// that table and asks ICU only about names it does not hold; the bytes are the same either
// way (test/schedule.test.ts compares the two).
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

/** UTC offset of `zone` at `ms`, in minutes east of UTC. */
export function offsetAt(zone: string, ms: number): number {
  const row = useTable ? ZONE_TABLE[zone] : undefined;
  if (!row || ms < SPAN_START || ms >= SPAN_END) return icuOffsetAt(zone, ms);
  const minute = Math.floor(ms / 60_000);
  let lo = 0; // row[1 + 2k] are change minutes, ascending; find the last one ≤ minute
  let hi = (row.length - 1) / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row[1 + 2 * mid]! <= minute) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? row[0]! : row[2 * lo]!;
}

/** The table row of `zone`, for bin/build.mjs. */
export function zoneRow(zone: string): number[] {
  return withoutZoneTable(() => {
    const row = [offsetAt(zone, SPAN_START)];
    for (const t of findTransitions(zone)) row.push(t / 60_000, offsetAt(zone, t));
    return row;
  });
}

// The span over which a cross-zone superset must hold. It is fixed, not "this year", so
// that rendering does not depend on the clock; it covers the years an install can live.
const SPAN_START = Date.UTC(2025, 0, 1);
const SPAN_END = Date.UTC(2037, 0, 1);
const DAY_MS = 86_400_000;

// Offsets are sampled every STEP and each change is then bisected to the minute. No zone
// in the tz database changes its offset twice within a week (the closest pairs, such as
// Morocco's Ramadan suspensions, are weeks apart); test/schedule.test.ts checks that
// against a day-by-day scan of every zone.
const STEP = 7 * DAY_MS;

const transitionCache = new Map<string, number[]>();
const tableTransitions = new Map<string, number[]>();

/** Instants in [SPAN_START, SPAN_END) at which the zone's offset changes, exact to the minute. */
export function transitions(zone: string): number[] {
  const row = useTable ? ZONE_TABLE[zone] : undefined;
  if (row) {
    // Read from the table once per zone; the cache below is ICU's answer, the same values.
    let fromTable = tableTransitions.get(zone);
    if (!fromTable) tableTransitions.set(zone, (fromTable = row.filter((_, i) => i % 2 === 1).map((m) => m * 60_000)));
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
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
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
  return transitions(zone).some((t) => offsetAt(zone, t) < offsetAt(zone, t - 60_000));
}

/** Minute of the week (0 = Sunday 00:00) of a wall-clock minute count since the epoch. */
const weekMinute = (localMinutes: number) => (((localMinutes + 4 * 1440) % WEEK) + WEEK) % WEEK; // 1970-01-01 was a Thursday

interface Segment {
  from: number; // ms
  to: number;
  work: number; // offset minutes
  host: number;
}

function segments(work: string, host: string): Segment[] {
  const cuts = [...new Set([SPAN_START, ...transitions(work), ...transitions(host), SPAN_END])].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    out.push({ from: cuts[i]!, to: cuts[i + 1]!, work: offsetAt(work, cuts[i]!), host: offsetAt(host, cuts[i]!) });
  }
  return out;
}

function hostPattern(pattern: number[], segs: Segment[]): Set<number> {
  const inPattern = new Set(pattern);
  const out = new Set<number>();
  const shifted = new Set<number>();
  for (const s of segs) {
    const delta = s.host - s.work;
    if (s.to - s.from >= 7 * DAY_MS) {
      if (shifted.has(delta)) continue;
      shifted.add(delta);
      for (const w of pattern) out.add((((w + delta) % WEEK) + WEEK) % WEEK);
    } else {
      // A short stretch (the days between two zones' DST changes): only its own wakes.
      for (let t = Math.ceil(s.from / 60_000); t * 60_000 < s.to; t++) {
        if (inPattern.has(weekMinute(t + s.work))) out.add(weekMinute(t + s.host));
      }
    }
  }
  return out;
}

// The reference year for the waste figure printed by `hbgen render`.
const WASTE_FROM = Date.UTC(2027, 0, 1);
const WASTE_TO = Date.UTC(2028, 0, 1);

function wasteShare(pattern: number[], host: Set<number>, segs: Segment[]): number {
  const inPattern = new Set(pattern);
  let fires = 0;
  let skipped = 0;
  for (const s of segs) {
    const from = Math.max(s.from, WASTE_FROM);
    const to = Math.min(s.to, WASTE_TO);
    for (let t = Math.ceil(from / 60_000); t * 60_000 < to; t++) {
      if (!host.has(weekMinute(t + s.host))) continue;
      fires++;
      if (!inPattern.has(weekMinute(t + s.work))) skipped++;
    }
  }
  return fires === 0 ? 0 : skipped / fires;
}

export function plan(spec: Pick<Spec, 'name' | 'schedule'>): Plan {
  const pattern = weeklyPattern(spec);
  const zoneEntries = toEntries(pattern);
  const work = spec.schedule.hours.timezone;
  const host = spec.schedule.hostTimezone ?? work;
  const base = { minute: fireMinute(spec), everyMinutes: seconds(spec.schedule.every) / 60, pattern, zoneEntries, hostTimezone: host };
  if (host === work) return { ...base, hostEntries: zoneEntries, widened: false, waste: 0 };
  const segs = segments(work, host);
  const hp = hostPattern(pattern, segs);
  return { ...base, hostEntries: toEntries(hp), widened: true, waste: wasteShare(pattern, hp, segs) };
}

// ---- the one-line summary `hbgen render` prints on stderr ----

const pad = (n: number) => String(n).padStart(2, '0');
const DAY_LABEL = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function daysLabel(days: number[]): string {
  if (days.length === 7) return 'every day';
  // Render runs of consecutive days Monday-first, as people read a week.
  const order = [1, 2, 3, 4, 5, 6, 0].filter((d) => days.includes(d));
  const runs: number[][] = [];
  for (const d of order) {
    const last = runs[runs.length - 1];
    if (last && (last[last.length - 1]! + 1) % 7 === d && last[last.length - 1] !== 0) last.push(d);
    else runs.push([d]);
  }
  return runs.map((r) => (r.length >= 3 ? `${DAY_LABEL[r[0]!]}–${DAY_LABEL[r[r.length - 1]!]}` : r.map((d) => DAY_LABEL[d]).join(', '))).join(', ');
}

function hourRange(entries: CalEntry[]): string {
  const hours = [...new Set(entries.flatMap((e) => e.hours))].sort((a, b) => a - b);
  if (hours.length === 0) return 'never';
  if (hours.length === 24) return '00–23';
  // Find the largest gap so a range across midnight reads 22–01, not 00–23.
  let gapAt = 0;
  let gap = -1;
  for (let i = 0; i < hours.length; i++) {
    const next = i + 1 < hours.length ? hours[i + 1]! : hours[0]! + 24;
    if (next - hours[i]! > gap) {
      gap = next - hours[i]!;
      gapAt = i;
    }
  }
  const first = hours[(gapAt + 1) % hours.length]!;
  const last = hours[gapAt]!;
  return `${pad(first)}–${pad(last)}`;
}

export function summary(spec: Spec, p: Plan, scheduler: Spec['schedule']['scheduler']): string {
  const h = spec.schedule.hours;
  const mins = [...new Set(p.pattern.map((w) => w % 60))].sort((a, b) => a - b);
  const fires =
    p.everyMinutes <= 60
      ? `fires at ${mins.map((x) => `:${pad(x)}`).join(mins.length === 2 ? ' and ' : ', ')}`
      : `fires every ${p.everyMinutes / 60}h at :${pad(p.minute)}`;
  let line = `${fires}, ${h.start}–${h.end} ${h.timezone}, ${daysLabel(openDays(spec))}`;
  if (p.pattern.length === 0) line += '; the window holds no fire time: widen it or change the minute';
  if (p.widened && scheduler !== 'systemd-user') {
    line += `; ${scheduler} widened to ${hourRange(p.hostEntries)} host time (${p.hostTimezone}): ~${Math.round(p.waste * 100)}% of wakes skipped by the gate`;
  }
  return line;
}

export { EVERY };

// ---- warnings: a window edge inside a DST change ----

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const clock = (min: number) => `${pad(Math.floor(min / 60) % 24)}:${pad(min % 60)}`;

/**
 * A window edge in the hour a DST change skips or repeats works, but not as the spec
 * reads: say what happens. Each kind of change is reported once, with its first date in
 * the reference year (or the first in the span).
 */
export function dstWarnings(spec: Pick<Spec, 'schedule'>): string[] {
  const zone = spec.schedule.hours.timezone;
  const out = new Map<string, string>();
  const edges: ['start' | 'end', number][] = [
    ['start', clockMinutes(spec.schedule.hours.start)],
    ['end', clockMinutes(spec.schedule.hours.end) % 1440],
  ];
  const ts = transitions(zone);
  const ordered = [...ts.filter((t) => t >= WASTE_FROM), ...ts.filter((t) => t < WASTE_FROM)];
  for (const t of ordered) {
    const before = offsetAt(zone, t - 60_000);
    const after = offsetAt(zone, t);
    const localBefore = Math.round(t / 60_000) + before; // wall clock just as it changes
    let from = ((localBefore % 1440) + 1440) % 1440;
    let to = from + (after - before); // wall clock right after the change
    if (to < 0) {
      // Going back across midnight (00:00 → 23:00): count both on the previous day's clock.
      from += 1440;
      to += 1440;
    }
    for (const [edge, m] of edges) {
      const lo = Math.min(from, to);
      // Ranges may cross midnight; an end edge of 00:00 is the end of the day before.
      const e = m < lo || (edge === 'end' && m === lo % 1440 && m !== lo) ? m + 1440 : m;
      // The start counts from its own minute on, the end up to the minute before it.
      const inside = (a: number, b: number) => (edge === 'start' ? e >= a && e < b : e > a && e <= b);
      if (after > before && (edge === 'start' ? inside(from, to) : e > from && e < to)) {
        const key = `${edge}-gap-${from}-${to}`;
        if (!out.has(key)) {
          out.set(
            key,
            `schedule.hours.${edge}: ${clock(m)} falls in the time ${zone} skips when its clocks jump from ${clock(from)} to ${clock(to)} (e.g. ${isoDay(t + after * 60_000)}); that day the window ${edge === 'start' ? `opens late, at ${clock(to)}` : `closes early, at ${clock(from)}`}`,
          );
        }
      } else if (after < before && inside(to, from)) {
        const key = `${edge}-repeat-${from}-${to}`;
        if (!out.has(key)) {
          out.set(
            key,
            `schedule.hours.${edge}: ${clock(m)} falls in the time ${zone} repeats when its clocks go back from ${clock(from)} to ${clock(to)} (e.g. ${isoDay(t + after * 60_000)}); each wake time in the repeated part fires once, at its first pass`,
          );
        }
      }
    }
  }
  return [...out.values()];
}
