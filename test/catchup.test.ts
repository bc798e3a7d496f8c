// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// One policy for a fire missed while the machine slept, `catchUp`, the
// same on every scheduler. systemd gets Persistent= from it; the wrapper (the same on
// launchd, systemd and cron) checks a scheduled wake against the wake grid it was rendered
// from: with "skip", a fire made late is `skip-late` and not run; with "once" it runs (inside
// the working hours, with minRun left, as every wake). The wrapper runs at a chosen moment
// through libfaketime (an offset: its clock runs at the real pace).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';
import { type Case, SHELLS, makeCase, run } from './helpers/wrapper.ts';
import { FAKETIME_LIB, fakeClock } from './helpers/faketime.ts';

const clock = fakeClock();
const DASH = SHELLS.find((s) => s.name === 'dash')!;

type Sched = 'systemd-user' | 'launchd' | 'cron';

/** A case whose clock reads `at` (UTC) when it runs; Berlin is UTC+1 on 2026-12-01, a Tuesday. */
function caseAt(at: string, scheduler: Sched, catchUp: 'skip' | 'once' | undefined, every = '30m'): Case {
  return makeCase({
    env: clock.envAt(at),
    spec: {
      schedule: { scheduler, every, minute: 7, hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } },
      timeout: '25m',
      ...(catchUp ? { catchUp } : {}),
    },
  });
}
const wakes = (c: Case) => (existsSync(join(c.state, 'wakes')) ? readFileSync(join(c.state, 'wakes'), 'utf8').trim() : '');

test('libfaketime is installed', async () => {
  assert.ok(FAKETIME_LIB, 'libfaketime (Debian faketime) is installed');
  assert.ok(await clock.ready(), 'the keeper of its shared memory runs');
});

test('systemd: catchUp "once" (the default) renders Persistent=true, "skip" Persistent=false', () => {
  const timer = (catchUp?: string) => {
    const v = validateSpec({ version: 1, name: 'docs', repo: '/home/ada/src/docs', agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'x' }, schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } }, timeout: '10m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' }, ...(catchUp ? { catchUp } : {}) });
    assert.ok(v.spec, String(v.errors));
    return renderNow(v.spec!).files.find((f) => f.path === 'host/hbgen-docs.timer')!.content;
  };
  assert.match(timer(), /^Persistent=true$/m);
  assert.match(timer('once'), /^Persistent=true$/m);
  assert.match(timer('skip'), /^Persistent=false$/m);
  const bad = validateSpec({ version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'x' }, schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } }, timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' }, catchUp: 'onse' });
  assert.match(String(bad.errors), /catchUp: must be "skip" or "once"/);
});

for (const scheduler of ['systemd-user', 'launchd', 'cron'] as const) {
  test(`${scheduler}: catchUp "skip": on the grid (10:07:20) the wake runs; 13 minutes after its fire (10:20) it is skip-late, uncounted`, async () => {
    const on = caseAt('2026-12-01T09:07:20Z', scheduler, 'skip');
    const r = await run(on, DASH);
    assert.is(r.code, 0, r.stderr + on.log());
    assert.equal(on.outcomes(), ['start wake 1', 'quiet']);
    const late = caseAt('2026-12-01T09:20:30Z', scheduler, 'skip');
    const l = await run(late, DASH);
    assert.is(l.code, 0, l.stderr + late.log());
    assert.equal(late.outcomes(), ['skip-late 13']);
    assert.is(wakes(late), '', 'not counted');
    assert.equal(late.runs(), [], 'the agent did not run');
  });

  test(`${scheduler}: catchUp "once": the same late fire runs once; --now is never late`, async () => {
    const c = caseAt('2026-12-01T09:20:30Z', scheduler, 'once');
    const r = await run(c, DASH);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
    const now = caseAt('2026-12-01T09:20:30Z', scheduler, 'skip');
    const n = await run(now, DASH, { args: ['--now'] });
    assert.is(n.code, 0, n.stderr);
    assert.equal(now.outcomes(), ['start wake 1 by hand', 'quiet']);
  });
}

test('catchUp "skip", every 2h: a run before the window\'s first fire (08:03, a fire of the evening before made late) is skip-late earlier-window; 10:08 is on time', async () => {
  const early = caseAt('2026-12-01T07:03:00Z', 'launchd', 'skip', '2h');
  await run(early, DASH);
  assert.equal(early.outcomes(), ['skip-late earlier-window']);
  const ok = caseAt('2026-12-01T09:08:10Z', 'launchd', 'skip', '2h');
  await run(ok, DASH);
  assert.equal(ok.outcomes(), ['start wake 1', 'quiet']);
});

test('catchUp "once": a late fire with less than minRun of the window left is still skip-window', async () => {
  const c = caseAt('2026-12-01T21:58:00Z', 'cron', 'once');
  await run(c, DASH);
  assert.equal(c.outcomes().map((o) => o.split(' ')[0]), ['skip-window']);
});

// status and hbgen log: a fire the machine slept through is `missed (asleep)`, apart from a lost one.
const L = (iso: string, rest: string) => `${iso} hbgen docs ${rest}`;

test('hbgen log counts: fires before a late fire (launchd\'s run on waking, a skip-late) are asleep; a fire followed by an on-time one is lost; fires before the boot are asleep', async () => {
  const { dailyCounts, historyLines } = await import('../src/host/audit/history.ts');
  const { plan } = await import('../src/schedule.ts');
  const { asleepFires } = await import('../src/host/audit/asleep.ts');
  const { missedFires } = await import('../src/host/audit/health.ts');
  const spec = validateSpec({ version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' }, schedule: { scheduler: 'launchd', every: '30m', minute: 7, hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } }, timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' } }).spec!;
  const clock = { entries: plan(spec).zoneEntries, zone: 'Europe/Berlin' };
  // Berlin = UTC+1. Installed 08:00 local; fires 08:07, 08:37, … The Mac slept 09:00–10:50:
  // 09:07 … 10:37 left no line and launchd ran the job once at 10:52 (off the grid). 11:07
  // ran; 11:37 left no line and 12:07 ran on time: a lost fire.
  const text = [
    L('2026-12-01T07:07:01Z', 'start wake 1'), L('2026-12-01T07:07:09Z', 'quiet'),
    L('2026-12-01T07:37:01Z', 'start wake 2'), L('2026-12-01T07:37:09Z', 'quiet'),
    L('2026-12-01T09:52:30Z', 'start wake 3'), L('2026-12-01T09:52:40Z', 'quiet'),
    L('2026-12-01T10:07:01Z', 'start wake 4'), L('2026-12-01T10:07:09Z', 'quiet'),
    L('2026-12-01T11:07:01Z', 'start wake 5'), L('2026-12-01T11:07:09Z', 'quiet'),
    L('2026-12-01T11:52:00Z', 'skip-late 15'),
  ].join('\n');
  const lines = historyLines(text, 'docs');
  const now = Date.parse('2026-12-01T11:55:00Z');
  const since = Date.parse('2026-12-01T07:00:00Z');
  const [day] = dailyCounts({ lines, zone: 'Europe/Berlin', now, days: 1, expected: { clock, since }, sleep: { boot: null, slept: null } });
  // Missed: 08:07 … 09:37 UTC (4 fires, asleep: the next line is the late 09:52), 10:37 (lost:
  // 11:07 is on time), 11:37 (asleep: the next line is skip-late).
  assert.is(day!.asleep, 5, JSON.stringify(day));
  assert.is(day!.missed, 1, JSON.stringify(day));
  assert.is(day!.skipped['skip-late'], 1);
  // Without the wrapper's evidence, the boot time tells: fires before the boot, with no line after them, were made while off.
  const quiet = historyLines([L('2026-12-01T07:07:01Z', 'start wake 1'), L('2026-12-01T07:07:09Z', 'quiet'), L('2026-12-01T09:07:01Z', 'start wake 2')].join('\n'), 'docs');
  const missed = missedFires(quiet, clock, since, Date.parse('2026-12-01T09:10:00Z'));
  assert.equal(missed.map((t) => new Date(t).toISOString().slice(11, 16)), ['07:37', '08:07', '08:37']);
  const off = asleepFires(quiet, missed, clock, { boot: Date.parse('2026-12-01T08:20:00Z'), slept: null });
  // 08:37 came after the boot and left no line: lost. (09:07's run is on time, so it is no late fire.)
  assert.equal([...off].map((t) => new Date(t).toISOString().slice(11, 16)), ['07:37', '08:07']);
});

test('status: fires the machine slept through (a skip-late after them) are said as missed (asleep), not a missed-fire problem; a lost one still is', async () => {
  const { hb, makeHost, rewriteSpec } = await import('./helpers/lifecycle.ts');
  const { names } = await import('../src/names.ts');
  const { appendFileSync } = await import('node:fs');
  const { firesBetween } = await import('../src/host/audit/health.ts');
  const { plan } = await import('../src/schedule.ts');
  const h = makeHost('systemd-user');
  rewriteSpec(h, { catchUp: 'skip', schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } } });
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  const t0 = Date.now();
  const fires = firesBetween(plan(h.spec).zoneEntries, 'Europe/Berlin', t0 + 60_000, t0 + 5 * 3_600_000);
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
  // Asleep through fires 0 and 1; the scheduler ran the job late at fire 1 + 10 min: skip-late.
  appendFileSync(names(h.spec).log, `${iso(fires[1]! + 10 * 60_000)} hbgen docs skip-late 10\n`);
  const asleep = await hb(h, 'status', { now: () => new Date(fires[1]! + 12 * 60_000) });
  assert.match(asleep.out, /ok {7}missed \(asleep\): 2 fires in the last 24 h while the machine slept or was off; catchUp "skip"/);
  assert.not.match(asleep.out, /missed fire:/);
  // Fire 2 then left no line while the machine was awake: fire 2 is lost, a problem.
  const lost = await hb(h, 'status', { now: () => new Date(fires[2]! + 3 * 60_000) });
  assert.match(lost.out, /missed \(asleep\): 2 fires/);
  assert.match(lost.out, /problem {2}missed fire: the scheduler was due to fire at .* and nothing was logged;/);
  // Fire 3 ran on time: the lost fire is history, the asleep ones are still said.
  appendFileSync(names(h.spec).log, `${iso(fires[3]! + 5_000)} hbgen docs skip-window\n`);
  const later = await hb(h, 'status', { now: () => new Date(fires[3]! + 3 * 60_000) });
  assert.match(later.out, /missed \(asleep\): 2 fires/);
  assert.match(later.out, /recovered: the scheduler missed/);
  assert.not.match(later.out, /missed fire:/);
});

test.run();
