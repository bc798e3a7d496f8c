// Working hours, checked structurally: for a month that holds DST changes, compute
// the fire times of each rendered artifact with an independent evaluator, ask the rendered
// window.sh about each fire, and compare with the wakes computed straight from the spec.
// - systemd fires exactly the expected wakes (OnCalendar= in the working zone);
// - cron and launchd fire a superset when the host clock is in another zone, never missing
//   a wake, and window.sh opens for exactly the expected ones;
// - in the same zone, cron and launchd fire exactly the expected wakes (DST nights aside,
//   where the gate decides).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'plist';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderNow, writeGate } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';
import { type HoursSpec, type Interval, cronFires, expectedWakes, gateOpen, isWakeTime, launchdFires, systemdFires, wall } from './helpers/hours.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hbgen-hours-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

interface Case {
  label: string;
  hours: HoursSpec;
  host?: string;
  from: string; // ISO date, UTC midnight
  days: number;
}

const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'];
const cases: Case[] = [
  { label: 'US/EU pair: New York hours, Berlin host, March (both DST starts)', hours: { every: '30m', minute: 7, start: '08:00', end: '23:00', timezone: 'America/New_York', days: weekdays }, host: 'Europe/Berlin', from: '2027-03-01', days: 31 },
  { label: 'US/EU pair: Berlin hours, New York host, Oct–Nov (both DST ends)', hours: { every: '1h', minute: 13, start: '07:30', end: '19:00', timezone: 'Europe/Berlin', days: weekdays }, host: 'America/New_York', from: '2027-10-15', days: 31 },
  { label: 'Asia/Kathmandu (+05:45) hours on a UTC host', hours: { every: '30m', minute: 7, start: '09:00', end: '17:00', timezone: 'Asia/Kathmandu', days: weekdays }, host: 'UTC', from: '2027-03-01', days: 31 },
  { label: 'Australia/Lord_Howe (30-minute DST) round the clock, UTC host', hours: { every: '1h', minute: 7, start: '00:00', end: '24:00', timezone: 'Australia/Lord_Howe' }, host: 'UTC', from: '2027-09-15', days: 31 },
  { label: 'Pacific/Chatham (+12:45/+13:45) night window, Los Angeles host', hours: { every: '15m', minute: 4, start: '22:00', end: '04:00', timezone: 'Pacific/Chatham', days: ['fri', 'sat'] }, host: 'America/Los_Angeles', from: '2027-03-20', days: 31 },
  { label: 'America/Santiago every 2h, odd edges, Berlin host', hours: { every: '2h', minute: 7, start: '08:30', end: '18:00', timezone: 'America/Santiago', days: ['mon', 'wed', 'fri'] }, host: 'Europe/Berlin', from: '2027-03-20', days: 31 },
  { label: 'America/Santiago, same zone, Fri 22:00–02:00 across its DST end', hours: { every: '1h', minute: 51, start: '22:00', end: '02:00', timezone: 'America/Santiago', days: weekdays }, from: '2027-03-20', days: 31 },
  { label: 'Europe/Berlin, same zone, 01:00–04:00 every 15m across DST start', hours: { every: '15m', minute: 7, start: '01:00', end: '04:00', timezone: 'Europe/Berlin' }, from: '2027-03-01', days: 31 },
  { label: 'Europe/Berlin, same zone, 01:00–04:00 every 15m across DST end', hours: { every: '15m', minute: 7, start: '01:00', end: '04:00', timezone: 'Europe/Berlin' }, from: '2027-10-01', days: 31 },
  { label: 'Australia/Lord_Howe, same zone, 00:30–03:00 every 10m across its 30-minute DST end', hours: { every: '10m', minute: 3, start: '00:30', end: '03:00', timezone: 'Australia/Lord_Howe' }, from: '2027-04-01', days: 31 },
];

function renderCase(c: Case, scheduler: string) {
  const r = validateSpec({
    version: 1,
    name: 'hours',
    repo: join(tmp, 'repo'),
    agent: { harness: 'command', bin: '/bin/true', prompt: 'x' },
    schedule: { scheduler, every: c.hours.every, minute: c.hours.minute, hours: { start: c.hours.start, end: c.hours.end, timezone: c.hours.timezone, days: c.hours.days }, hostTimezone: c.host },
    timeout: '1m',
    killAfter: '1s',
    env: { HOME: '/root', PATH: '/usr/bin:/bin' },
  });
  if (r.errors) throw new Error(r.errors.join('\n'));
  const out = renderNow(r.spec);
  assert.equal(out.errors, []);
  return out;
}

const specFor = (c: Case, scheduler: string) => Object.fromEntries(renderCase(c, scheduler).files.map((f) => [f.path, f.content]));

const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 16);
const diff = (a: number[], b: number[]) => {
  const sb = new Set(b);
  return a.filter((x) => !sb.has(x)).map(iso);
};

for (const c of cases) {
  test(c.label, () => {
    const from = Date.parse(`${c.from}T00:00:00Z`) / 1000;
    const to = from + c.days * 86400;
    const expected = expectedWakes(c.hours, from, to);
    assert.ok(expected.length > 10, 'the case has wakes to compare');
    const hostZone = c.host ?? c.hours.timezone;

    // systemd: exact, from the artifact alone.
    const sd = specFor(c, 'systemd-user');
    const onCalendar = sd['host/hbgen-hours.timer']!.split('\n').filter((l) => l.startsWith('OnCalendar=')).map((l) => l.slice('OnCalendar='.length));
    const sdFires = systemdFires(onCalendar, from, to);
    assert.equal(diff(expected, sdFires), [], 'systemd misses none');
    assert.equal(diff(sdFires, expected), [], 'systemd wastes none');

    // cron and launchd: the same host-clock entries, read by two independent evaluators.
    const cr = specFor(c, 'cron');
    const lines = cr['host/crontab']!.split('\n').filter((l) => /^\d/.test(l));
    const cronT = cronFires(lines, hostZone, from, to);
    const ld = specFor(c, 'launchd');
    const plist = parse(ld['host/dev.hbgen.hours.plist']!) as { StartCalendarInterval: Interval[] };
    const ldT = launchdFires(plist.StartCalendarInterval, hostZone, from, to);
    assert.equal(diff(expected, cronT), [], 'cron misses none');
    assert.equal(diff(expected, ldT), [], 'launchd misses none');

    // The gate makes them exact.
    const win = join(tmp, `window-${cases.indexOf(c)}.sh`);
    writeGate(win, renderCase(c, 'cron'));
    assert.is(cr['window.sh'], ld['window.sh'], 'one gate for every backend');
    const open = gateOpen(win, [...new Set([...cronT, ...ldT, ...sdFires])].sort((a, b) => a - b));
    assert.equal(diff(cronT.filter((t) => open.has(t)), expected), [], 'cron: the gate opens for no unexpected fire');
    assert.equal(diff(ldT.filter((t) => open.has(t)), expected), [], 'launchd: the gate opens for no unexpected fire');
    assert.equal(diff(expected, [...open]), [], 'the gate opens for every expected wake');

    if (!c.host) {
      // Same zone: nothing wasted, except that cron-parser (like cronie) fires a wall-clock
      // minute that the clocks-back repeat twice; each such extra fire must be the second
      // pass of an expected wake, which the gate skips (checked above).
      const firstPassWall = new Set(expected.map((t) => wall(c.hours.timezone, t * 1000).join(' ')));
      for (const t of cronT.filter((x) => !expected.includes(x))) {
        assert.ok(firstPassWall.has(wall(c.hours.timezone, t * 1000).join(' ')), `cron wastes ${iso(t)}, which is no repeated wake time`);
      }
      assert.equal(diff(ldT, expected), [], 'launchd wastes none');
    }
  });
}

// The share `hbgen render` prints ("~N% of wakes skipped by the gate") is over the year
// 2027: count the rendered crontab's fires in that year with cron-parser in the host zone,
// and those at which no wake is expected, by the working zone's wall clock.
for (const c of [cases[1]!, cases[5]!]) {
  test(`the waste share in the summary is the share of 2027's cron fires the gate skips: ${c.label}`, () => {
    const out = renderCase(c, 'cron');
    const lines = out.files.find((f) => f.path === 'host/crontab')!.content.split('\n').filter((l) => /^\d/.test(l));
    const fires = cronFires(lines, c.host!, Date.UTC(2027, 0, 1) / 1000, Date.UTC(2028, 0, 1) / 1000);
    const skipped = fires.filter((t) => !isWakeTime(c.hours, ...(wall(c.hours.timezone, t * 1000).slice(1) as [number, number, number])));
    assert.ok(fires.length > 1000 && skipped.length > 0, 'a year of fires, some of them skipped');
    const printed = /~(\d+)% of wakes skipped by the gate$/.exec(out.summary);
    assert.ok(printed, out.summary);
    assert.is(Number(printed![1]), Math.round((100 * skipped.length) / fires.length), out.summary);
  });
}

test.run();
