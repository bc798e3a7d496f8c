// When the heartbeat fires. Everything here is pure: the same spec gives the same entries
// on any host, in any time zone, at any time. Host facts never enter.
//
// The model: the working hours and the interval define a weekly pattern of wall-clock
// minutes in `hours.timezone` (the "expected wakes"). Each scheduler gets that pattern as a
// list of calendar entries (days × hours × minutes products):
// - systemd reads them in the working zone itself (OnCalendar's zone suffix), so they are
//   exact;
// - launchd and cron read the host clock in `hostTimezone`. When that is the working zone,
//   the same entries are exact. Otherwise the pattern is shifted by every offset difference
//   the two zones have over the years the plan covers (src/zone-offsets.ts), and the union
//   is the smallest set of host minutes that never misses an expected wake; window.sh then
//   skips the extra ones.
import { DAY_NAMES, pad2 } from './formats.ts';
import { clockMinutes, digestOf, seconds, type Spec } from './spec.ts';
import { DAY_MS, offsetAt, segments, transitions, type Segment } from './zone-offsets.ts';
import type { SchedulerFacts } from './scheduler-facts.ts';

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

const mod = (a: number, n: number) => ((a % n) + n) % n;

/** Minute of the week (0 = Sunday 00:00) of a wall-clock minute count since the epoch. */
const weekMinute = (localMinutes: number) => mod(localMinutes + 4 * 1440, WEEK); // 1970-01-01 was a Thursday

/**
 * How many whole minutes in [from, to) (ms) a clock `offset` minutes east of UTC shows as
 * minute `w` of the week. Counted by residue, so a year costs no more than a minute.
 */
function minutesAt(w: number, offset: number, from: number, to: number): number {
  if (from >= to) return 0;
  const r = mod(w - offset - 4 * 1440, WEEK); // weekMinute(t + offset) = w exactly when t ≡ r (mod WEEK)
  const below = (n: number) => Math.max(0, Math.ceil((n - r) / WEEK)); // such t in [0, n)
  return below(Math.ceil(to / 60_000)) - below(Math.ceil(from / 60_000));
}

function hostPattern(pattern: number[], segs: Segment[]): Set<number> {
  const out = new Set<number>();
  const shifted = new Set<number>();
  for (const s of segs) {
    const delta = s.host - s.work;
    if (s.to - s.from >= 7 * DAY_MS) {
      // A whole week or more: every wake, shifted by the offset difference.
      if (shifted.has(delta)) continue;
      shifted.add(delta);
      for (const w of pattern) out.add(mod(w + delta, WEEK));
    } else {
      // A short stretch (the days between two zones' DST changes): only its own wakes.
      for (const w of pattern) if (minutesAt(w, s.work, s.from, s.to) > 0) out.add(mod(w + delta, WEEK));
    }
  }
  return out;
}

// The reference year for the waste figure printed by `hbgen render`.
const WASTE_FROM = Date.UTC(2027, 0, 1);
const WASTE_TO = Date.UTC(2028, 0, 1);

/** Share of the host-clock fires in the reference year at which no wake is expected. */
function wasteShare(pattern: number[], host: Set<number>, segs: Segment[]): number {
  const inPattern = new Set(pattern);
  let fires = 0;
  let skipped = 0;
  for (const s of segs) {
    const from = Math.max(s.from, WASTE_FROM);
    const to = Math.min(s.to, WASTE_TO);
    if (from >= to) continue;
    for (const h of host) {
      const n = minutesAt(h, s.host, from, to);
      fires += n;
      if (!inPattern.has(mod(h - s.host + s.work, WEEK))) skipped += n;
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
  return `${pad2(first)}–${pad2(last)}`;
}

/** One line on when the heartbeat fires; `scheduler` says whether the entry reads the host clock. */
export function summary(spec: Spec, p: Plan, scheduler: Pick<SchedulerFacts, 'id' | 'hostClock'>): string {
  const h = spec.schedule.hours;
  const mins = [...new Set(p.pattern.map((w) => w % 60))].sort((a, b) => a - b);
  const fires =
    p.everyMinutes <= 60
      ? `fires at ${mins.map((x) => `:${pad2(x)}`).join(mins.length === 2 ? ' and ' : ', ')} past each hour`
      : `fires every ${p.everyMinutes / 60}h at :${pad2(p.minute)}`;
  // "in the window": the hours bound the fires; they are no fire times themselves.
  let line = `${fires}, in the window ${h.start}–${h.end} ${h.timezone}, ${daysLabel(openDays(spec))}`;
  if (p.pattern.length === 0) line += '; the window holds no fire time: widen it or change the minute';
  const late = lateFires(spec, p);
  if (late.length) {
    const at = [...new Set(late.map((w) => clock(w % 1440)))];
    const one = at.length === 1;
    line += `; the fire${one ? '' : 's'} at ${at.join(', ')} ${one ? 'has' : 'have'} less than minRun (${spec.minRun}) of the window left and ${one ? 'is' : 'are'} always skipped (${late.length} of the ${p.pattern.length} fires a week)`;
  }
  if (p.widened && scheduler.hostClock) {
    line += `; ${scheduler.id} widened to ${hourRange(p.hostEntries)} host time (${p.hostTimezone}): ~${Math.round(p.waste * 100)}% of wakes skipped by the gate`;
  }
  return line;
}

/**
 * The expected wakes (minutes of the week) with less than minRun of the window left: the
 * wrapper skips each of them every time (skip-window), so they are fires, never wakes.
 * Wall-clock minutes of the working zone, as the pattern is.
 */
export function lateFires(spec: Pick<Spec, 'schedule' | 'minRun'>, p: Pick<Plan, 'pattern'>): number[] {
  const end = clockMinutes(spec.schedule.hours.end);
  const need = Math.ceil(seconds(spec.minRun) / 60);
  // An in-window minute is never the end itself: 0 left means the whole day (00:00–24:00).
  return p.pattern.filter((w) => ((end - (w % 1440) + 1440) % 1440 || 1440) < need);
}

// ---- warnings: a window edge inside a DST change ----

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const clock = (min: number) => `${pad2(Math.floor(min / 60) % 24)}:${pad2(min % 60)}`;

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

/**
 * When the daily digest actually goes: the wrapper sends it at a fire, and the scheduler
 * fires only inside the window, so at the first fire at or after the digest time, or, when
 * the window holds none then, at the next day's first fire.
 */
export function digestWhen(spec: Pick<Spec, 'name' | 'schedule' | 'digest'>): string {
  const at = clockMinutes(digestOf(spec)!.at);
  const fires = weeklyPattern(spec).map((w) => w % 1440);
  const same = fires.filter((m) => m >= at).sort((a, b) => a - b)[0];
  const hm = (m: number) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`;
  return same !== undefined ? `at the first fire at or after it, ${hm(same)}` : `at the next fire, the next day's first (${hm(Math.min(...fires))}): the window has none at or after it`;
}
