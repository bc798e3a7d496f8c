// The schedule plan, checked against expected wakes computed here independently, minute by
// minute, straight from the definition of the window; and the zone arithmetic under it,
// checked against ICU read by other code than src/zone-offsets.ts and without its table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dstWarnings, fireMinute, minuteChoices, plan, summary, toEntries, weeklyPattern } from '../src/schedule.ts';
import { offsetAt, transitions, withoutZoneTable } from '../src/zone-offsets.ts';
import { ZONE_TABLE } from '../src/gen/zones.ts';
import { EVERY } from '../src/spec.ts';
import { SCHEDULERS } from '../src/schedulers.ts';

const mk = (every: string, start: string, end: string, days?: string[], minute?: number, name = 'docs'): any => ({
  name,
  schedule: { scheduler: 'cron', every, minute, hours: { start, end, timezone: 'Europe/Berlin', days } },
  minRun: '5m',
});
const DAY = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const hm = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));

/** Independent oracle: walk every minute of the week and apply the definition. */
function expected(spec: any): number[] {
  const { every, hours } = spec.schedule;
  const e = { m: 1, h: 60 }[every.slice(-1) as 'm' | 'h']! * Number(every.slice(0, -1));
  const m = fireMinute(spec);
  const start = hm(hours.start);
  const end = hm(hours.end);
  const days: string[] = hours.days ?? DAY;
  const out: number[] = [];
  for (let w = 0; w < 7 * 1440; w++) {
    const day = Math.floor(w / 1440);
    const t = w % 1440;
    // Which opening does minute w belong to, and how far into it is it?
    let openedDay: number | undefined;
    if (start < end) {
      if (t >= start && t < end) openedDay = day;
    } else if (t >= start) openedDay = day;
    else if (t < end) openedDay = (day + 6) % 7;
    if (openedDay === undefined || !days.includes(DAY[openedDay]!)) continue;
    const since = (t - start + 1440) % 1440;
    if (e <= 60) {
      if (t % e === m % e) out.push(w);
    } else {
      const first = (m - (start % 60) + 60) % 60; // minutes from opening to the first :m
      if (since >= first && (since - first) % e === 0) out.push(w);
    }
  }
  return out;
}

test('the derived minute is stable, fits the interval and never lands a fire on :00 or :30', () => {
  assert.is(fireMinute(mk('30m', '08:00', '23:00')), fireMinute(mk('30m', '09:00', '10:00')));
  for (const every of EVERY) {
    const e = { m: 1, h: 60 }[every.slice(-1) as 'm' | 'h']! * Number(every.slice(0, -1));
    const span = Math.min(e, 60);
    assert.ok(minuteChoices(e).length > 0);
    for (let i = 0; i < 300; i++) {
      const m = fireMinute(mk(every, '00:00', '24:00', undefined, undefined, `spec-${i}`));
      assert.ok(m >= 1 && m < span, `${every}: ${m}`);
      for (let t = m; t < 60; t += span) assert.ok(t !== 0 && t !== 30, `${every} spec-${i} fires at :${t}`);
    }
  }
  const seen = new Set(Array.from({ length: 200 }, (_, i) => fireMinute(mk('1h', '00:00', '24:00', undefined, undefined, `n${i}`))));
  assert.ok(seen.size > 30, 'the hash spreads names over the hour');
  assert.is(fireMinute(mk('1h', '08:00', '09:00', undefined, 42)), 42, 'schedule.minute wins');
});

const shapes: [string, string, string, string[] | undefined, number | undefined][] = [
  ['30m', '08:00', '23:00', ['mon', 'tue', 'wed', 'thu', 'fri'], 7],
  ['15m', '08:30', '17:15', undefined, 4],
  ['5m', '09:00', '09:30', ['sat'], 2],
  ['20m', '22:00', '02:00', ['fri'], 11],
  ['1h', '22:00', '02:00', ['mon', 'tue', 'wed', 'thu', 'fri'], 51],
  ['2h', '08:30', '18:00', ['mon', 'wed'], 7],
  ['3h', '00:00', '24:00', undefined, 13],
  ['24h', '06:45', '07:30', ['sun'], 59],
  ['12h', '20:00', '20:30', undefined, 5],
  ['10m', '00:00', '24:00', undefined, 3],
  ['4h', '23:10', '23:00', undefined, 9],
];

for (const [every, start, end, days, minute] of shapes) {
  test(`pattern = definition: every ${every}, ${start}–${end}, ${days?.join(',') ?? 'all days'}, :${minute}`, () => {
    const spec = mk(every, start, end, days, minute);
    assert.equal(weeklyPattern(spec), expected(spec));
    // The entries say exactly the pattern: expand them back.
    const back: number[] = [];
    for (const e of toEntries(weeklyPattern(spec))) for (const d of e.days) for (const h of e.hours) for (const m of e.minutes) back.push(d * 1440 + h * 60 + m);
    assert.equal(back.sort((a, b) => a - b), expected(spec));
  });
}

test('a window across midnight fires on the day after the day it opened', () => {
  // Fri 22:00–02:00: Saturday 00:51 and 01:51 belong to Friday's window; Monday's early hours do not.
  const p = weeklyPattern(mk('1h', '22:00', '02:00', ['fri'], 51));
  assert.equal(p, [5 * 1440 + 22 * 60 + 51, 5 * 1440 + 23 * 60 + 51, 6 * 1440 + 51, 6 * 1440 + 60 + 51]);
});

test('same zone: host entries are the zone entries, nothing widened', () => {
  const p = plan(mk('30m', '08:00', '23:00', undefined, 7));
  assert.is(p.widened, false);
  assert.is(p.waste, 0);
  assert.equal(p.hostEntries, p.zoneEntries);
  assert.equal(p.zoneEntries, [{ days: [0, 1, 2, 3, 4, 5, 6], hours: [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22], minutes: [7, 37] }]);
});

test('odd-minute edges need several entries', () => {
  const p = plan(mk('30m', '08:30', '17:15', undefined, 7));
  assert.equal(p.zoneEntries, [
    { days: [0, 1, 2, 3, 4, 5, 6], hours: [8], minutes: [37] },
    { days: [0, 1, 2, 3, 4, 5, 6], hours: [9, 10, 11, 12, 13, 14, 15, 16], minutes: [7, 37] },
    { days: [0, 1, 2, 3, 4, 5, 6], hours: [17], minutes: [7] },
  ]);
});

const hoursIn = (timezone: string, start: string, end: string): any => ({ schedule: { hours: { start, end, timezone } } });

test('a window edge in a DST change gets a warning saying what happens that day', () => {
  assert.equal(dstWarnings(hoursIn('America/New_York', '02:30', '01:30')), [
    'schedule.hours.start: 02:30 falls in the time America/New_York skips when its clocks jump from 02:00 to 03:00 (e.g. 2027-03-14); that day the window opens late, at 03:00',
    'schedule.hours.end: 01:30 falls in the time America/New_York repeats when its clocks go back from 02:00 to 01:00 (e.g. 2027-11-07); each wake time in the repeated part fires once, at its first pass',
  ]);
  assert.equal(dstWarnings(hoursIn('Australia/Lord_Howe', '02:15', '09:00')), [
    'schedule.hours.start: 02:15 falls in the time Australia/Lord_Howe skips when its clocks jump from 02:00 to 02:30 (e.g. 2027-10-03); that day the window opens late, at 02:30',
  ]);
  assert.equal(dstWarnings(hoursIn('America/Santiago', '23:30', '06:00')), [
    'schedule.hours.start: 23:30 falls in the time America/Santiago repeats when its clocks go back from 00:00 to 23:00 (e.g. 2027-04-03); each wake time in the repeated part fires once, at its first pass',
  ]);
  // Edges that only touch a change: nothing inside the window is skipped or repeated.
  assert.equal(dstWarnings(hoursIn('America/Santiago', '08:00', '23:00')), []);
  assert.equal(dstWarnings(hoursIn('America/New_York', '03:00', '01:00')), []);
  assert.is(dstWarnings(hoursIn('America/New_York', '03:00', '02:00')).length, 1, 'its last hour repeats');
  assert.equal(dstWarnings(hoursIn('Asia/Kathmandu', '02:30', '03:30')), []);
});

test('the render summary names the times, the zone, the days and any widening', () => {
  const s = mk('30m', '08:00', '23:00', ['mon', 'tue', 'wed', 'thu', 'fri'], 7);
  s.schedule.hours.timezone = 'America/Santiago';
  assert.is(summary(s, plan(s), SCHEDULERS['systemd-user']), 'fires at :07 and :37 past each hour, in the window 08:00–23:00 America/Santiago, Mon–Fri');
  s.schedule.hostTimezone = 'Europe/Berlin';
  assert.is(summary(s, plan(s), SCHEDULERS['systemd-user']), 'fires at :07 and :37 past each hour, in the window 08:00–23:00 America/Santiago, Mon–Fri');
  assert.match(summary(s, plan(s), SCHEDULERS['cron']), /; cron widened to 12–04 host time \(Europe\/Berlin\): ~\d+% of wakes skipped by the gate$/);
  const w = mk('2h', '22:00', '06:00', ['fri', 'sat', 'sun'], 5);
  assert.is(summary(w, plan(w), SCHEDULERS['launchd']), 'fires every 2h at :05, in the window 22:00–06:00 Europe/Berlin, Fri–Sun');
});

// ---- the zone oracle: ICU's wall clock of an instant, as calendar fields, minus the instant.
// It shares no code and no data with src/zone-offsets.ts (which reads ICU's offset name,
// or the build's table), and it scans day by day where that code samples week by week.

const SCAN_FROM = Date.UTC(2025, 0, 1);
const SCAN_TO = Date.UTC(2037, 0, 1);
const MIN = 60_000;
const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC of `zone` at `ms` (a whole minute), from ICU's wall clock. */
function icuOffset(zone: string, ms: number): number {
  let f = wallFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    wallFormats.set(zone, f);
  }
  const m = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+)$/.exec(f.format(ms));
  if (!m) throw new Error(`unexpected ICU wall clock ${f.format(ms)} for ${zone}`);
  return (Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]), Number(m[4]), Number(m[5])) - ms) / MIN;
}

const oracleCache = new Map<string, number[]>();

/** Every change of the zone's offset in the span, exact to the minute: a daily scan, then halving. */
function oracleChanges(zone: string): number[] {
  const id = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone; // aliases share data
  const hit = oracleCache.get(id);
  if (hit) return hit;
  const out: number[] = [];
  let prev = icuOffset(zone, SCAN_FROM);
  for (let day = SCAN_FROM; day < SCAN_TO; day += 1440 * MIN) {
    const next = Math.min(day + 1440 * MIN, SCAN_TO);
    const cur = icuOffset(zone, next);
    if (cur === prev) continue;
    let lo = day; // prev holds at lo, cur at hi
    let hi = next;
    while (hi - lo > MIN) {
      const mid = lo + Math.floor((hi - lo) / MIN / 2) * MIN;
      if (icuOffset(zone, mid) === prev) lo = mid;
      else hi = mid;
    }
    if (hi < SCAN_TO) out.push(hi);
    prev = cur;
  }
  oracleCache.set(id, out);
  return out;
}

const iso = (ts: number[]) => ts.map((t) => new Date(t).toISOString());
const ZONES = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Asia/Kathmandu', 'Australia/Lord_Howe'])];

test('the oracle sees the changes everyone knows (so an empty scan cannot pass)', () => {
  assert.equal(iso(oracleChanges('America/New_York').slice(4, 6)), ['2027-03-14T07:00:00.000Z', '2027-11-07T06:00:00.000Z']);
  assert.equal(iso(oracleChanges('Australia/Lord_Howe').slice(4, 6)), ['2027-04-03T15:00:00.000Z', '2027-10-02T15:30:00.000Z']);
  assert.is(icuOffset('Asia/Kathmandu', SCAN_FROM), 345);
  assert.equal(oracleChanges('UTC'), []);
});

test('the weekly offset sampling (ICU, without the table) finds every change, to the minute, in every zone', () => {
  for (const zone of ZONES) assert.equal(iso(withoutZoneTable(() => transitions(zone))), iso(oracleChanges(zone)), zone);
});

test('the build-time zone table says what ICU says, for every name it holds', () => {
  const names = Object.keys(ZONE_TABLE);
  assert.ok(names.length > 400, "the table covers ICU's zones");
  for (const z of ['America/Santiago', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Europe/Berlin', 'UTC']) assert.ok(names.includes(z), z);
  for (const zone of names) {
    const changes = oracleChanges(zone);
    assert.equal(iso(transitions(zone)), iso(changes), zone);
    for (const t of [SCAN_FROM, Date.UTC(2027, 2, 14, 6, 59), Date.UTC(2027, 2, 14, 7), Date.UTC(2031, 9, 5, 15, 30), SCAN_TO - MIN, ...changes.flatMap((x) => [x - MIN, x])]) {
      assert.is(offsetAt(zone, t), icuOffset(zone, t), `${zone} at ${new Date(t).toISOString()}`);
    }
  }
  // A whole plan, both ways: the table and ICU give the same bytes.
  const s: any = mk('2h', '08:30', '18:00', ['mon', 'wed', 'fri'], 7);
  s.schedule.hours.timezone = 'America/Santiago';
  s.schedule.hostTimezone = 'Australia/Lord_Howe';
  assert.equal(plan(s), withoutZoneTable(() => plan(s)));
});

test.run();
