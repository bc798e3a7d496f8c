// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh's step 3b (no spill into protected time): a scheduled wake's
// deadline is the earlier of start + timeout and the end of the working window it started in,
// and a wake with less than minRun of the window left is skipped (skip-window), uncounted.
// The wrapper runs at a chosen moment through libfaketime in the spec's env (which the
// wrapper keeps, so that the wrapper, its date calls and the stand-in agent share the clock):
// an offset in seconds, so the clock runs at its real pace and sleeps and timeouts are real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, type Case, makeCase, run, shell } from './helpers/wrapper.ts';
import { FAKETIME_LIB, fakeClock } from './helpers/faketime.ts';

const clock = fakeClock();

const DASH = shell('dash');
const epoch = (isoUtc: string) => Date.parse(isoUtc) / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

interface At {
  /** The faked start, as a UTC instant. */
  at: string;
  hours: Record<string, unknown>;
  timeout?: string;
  minRun?: string;
  path?: string;
  every?: string;
  gate?: string[];
}

/** A case whose clock reads `at` now (libfaketime offset, computed just before the run). */
function caseAt(o: At): Case {
  return makeCase({
    path: o.path,
    env: clock.envAt(o.at),
    spec: {
      schedule: { every: o.every ?? '1h', hours: o.hours },
      timeout: o.timeout ?? '25m',
      killAfter: '1s',
      ...(o.minRun ? { minRun: o.minRun } : {}),
      ...(o.gate ? { gate: o.gate } : {}),
    },
  });
}

const deadlineOf = (c: Case) => Number(c.env().find((e) => e.startsWith('HBGEN_DEADLINE='))!.split('=')[1]);
const contextDeadline = (c: Case) => /\nDeadline: ([^\n]*)\n/.exec(c.argv().at(-1)!)?.[1];
const wakes = (c: Case) => (existsSync(join(c.state, 'wakes')) ? readFileSync(join(c.state, 'wakes'), 'utf8') : '');

const BERLIN_DAY = { start: '09:00', end: '17:00', timezone: 'Europe/Berlin' };

test('libfaketime is installed, and the keeper of its shared memory runs', async () => {
  assert.ok(FAKETIME_LIB, 'libfaketime (Debian faketime) is installed');
  assert.ok(await clock.ready(), 'the semaphore is there');
});

// 2026-12-01 is a Tuesday; Berlin is UTC+1 then.
for (const sh of SHELLS) {
  for (const [tname, path] of [['full', PATHS.full], ['bare', PATHS.bare]] as const) {
    test(`${sh.name} / ${tname}: 10 min before the window ends, a 25m timeout is clamped to the window's end (HBGEN_DEADLINE, context block)`, async () => {
      const c = caseAt({ at: '2026-12-01T15:50:20Z', hours: BERLIN_DAY, path });
      const r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
      const end = epoch('2026-12-01T16:00:00Z');
      assert.is(deadlineOf(c), end, c.env().join('\n'));
      assert.is(contextDeadline(c), `${iso(end)} (the working window's end; 25m timeout otherwise)`);
      assert.match(c.argv().at(-1)!, /\nWorking window: 10 minutes left \(it ends at 17:00\)\n/);
      // The allowance: what is left of this wake, the clamped deadline's 9 min 40 s.
      assert.match(c.argv().at(-1)!, /\nAllowance: 9 minutes left in this wake \(scale down as it tightens\)$/);
      assert.is(wakes(c), '1\n');
    });
  }
}

test('3 min before the window ends, minRun 5m: skip-window, not counted, before the gate program and the lock', async () => {
  const gateRan = join(makeCase().dir, 'gate-ran');
  const gate = ['/bin/sh', '-c', `: >${gateRan}`];
  for (const minRun of [undefined, '5m']) {
    const c = caseAt({ at: '2026-12-01T15:57:20Z', hours: BERLIN_DAY, minRun, gate });
    writeFileSync(join(c.state, 'wakes'), '3\n');
    const r = await run(c, DASH);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.is(c.outcomes().length, 1, c.log());
    assert.match(c.outcomes()[0]!, /^skip-window 2m[34]\ds left, minRun 5m$/);
    assert.is(wakes(c), '3\n', 'the counter is unchanged');
    assert.equal(c.runs(), [], 'no agent ran');
    assert.not.ok(existsSync(gateRan), 'the gate program did not run');
    for (const f of ['heartbeat.lock', 'heartbeat.lock.d', 'agent']) assert.not.ok(existsSync(join(c.state, f)), `no lock taken (${f})`);
  }
});

test('just over minRun left: the wake runs, clamped; a 2m timeout (minRun defaults to it) with 1m40s left is skipped', async () => {
  const c = caseAt({ at: '2026-12-01T15:54:50Z', hours: BERLIN_DAY, minRun: '5m' });
  assert.is((await run(c, DASH)).code, 0, c.log());
  assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
  assert.is(deadlineOf(c), epoch('2026-12-01T16:00:00Z'));
  const short = caseAt({ at: '2026-12-01T15:58:20Z', hours: BERLIN_DAY, timeout: '2m', every: '5m' });
  assert.is(short.spec.minRun, '2m');
  assert.is((await run(short, DASH)).code, 0, short.log());
  assert.match(short.outcomes().join('|'), /^skip-window 1m[34]\ds left, minRun 2m$/);
});

test('far from the window end: start + timeout, not clamped', async () => {
  const at = epoch('2026-12-01T09:00:20Z');
  const c = caseAt({ at: '2026-12-01T09:00:20Z', hours: BERLIN_DAY });
  assert.is((await run(c, DASH)).code, 0, c.log());
  const dl = deadlineOf(c);
  assert.ok(Math.abs(dl - (at + 1500)) <= 3, `${dl} vs ${at + 1500}`);
  assert.is(contextDeadline(c), `${iso(dl)} (25m from start)`);
});

test('--now (a wake by hand) is not clamped and not skipped, even 3 min before the end', async () => {
  const at = epoch('2026-12-01T15:57:20Z');
  const c = caseAt({ at: '2026-12-01T15:57:20Z', hours: BERLIN_DAY });
  const r = await run(c, DASH, { args: ['--now'] });
  assert.is(r.code, 0, r.stderr + c.log());
  assert.equal(c.outcomes(), ['start wake 1 by hand', 'quiet']);
  const dl = deadlineOf(c);
  assert.ok(Math.abs(dl - (at + 1500)) <= 3, `${dl} vs ${at + 1500}`);
  assert.is(contextDeadline(c), `${iso(dl)} (25m from start)`);
});

test('a window crossing midnight ends the next day: before and after midnight', async () => {
  const cross = { start: '22:00', end: '00:10', timezone: 'Europe/Berlin', days: ['tue'] };
  // Tue 23:55:20 Berlin: the window opened today and ends at 00:10 tomorrow.
  const before = caseAt({ at: '2026-12-01T22:55:20Z', hours: cross });
  assert.is((await run(before, DASH)).code, 0, before.log());
  assert.equal(before.outcomes(), ['start wake 1', 'quiet']);
  assert.is(deadlineOf(before), epoch('2026-12-01T23:10:00Z'));
  // Wed 00:02:20 Berlin: the window Tuesday opened ends at 00:10 today.
  const after = caseAt({ at: '2026-12-01T23:02:20Z', hours: cross });
  assert.is((await run(after, DASH)).code, 0, after.log());
  assert.equal(after.outcomes(), ['start wake 1', 'quiet']);
  assert.is(deadlineOf(after), epoch('2026-12-01T23:10:00Z'));
  assert.is(contextDeadline(after), `${iso(epoch('2026-12-01T23:10:00Z'))} (the working window's end; 25m timeout otherwise)`);
});

test('open all day: no end on every day; with days, it ends at the midnight before a day off only', async () => {
  const at = '2026-12-01T22:50:20Z'; // Tue 23:50:20 Berlin
  const all = caseAt({ at, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } });
  assert.is((await run(all, DASH)).code, 0, all.log());
  assert.ok(deadlineOf(all) - epoch(at) >= 1497, 'not clamped');
  const tueWed = caseAt({ at, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin', days: ['tue', 'wed'] } });
  assert.is((await run(tueWed, DASH)).code, 0, tueWed.log());
  assert.ok(deadlineOf(tueWed) - epoch(at) >= 1497, 'the window goes on into Wednesday');
  const tue = caseAt({ at, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin', days: ['tue'] } });
  assert.is((await run(tue, DASH)).code, 0, tue.log());
  assert.is(deadlineOf(tue), epoch('2026-12-01T23:00:00Z'), 'Wednesday is off: it ends at midnight');
});

// Europe/Berlin: 2026-03-29 02:00 CET -> 03:00 CEST; 2026-10-25 03:00 CEST -> 02:00 CET.
for (const sh of SHELLS) {
  test(`${sh.name}: DST days in Europe/Berlin give the real end`, async () => {
    const night = { start: '01:00', end: '03:00', timezone: 'Europe/Berlin' };
    // Spring forward, 01:50:20 CET: 70 wall-clock minutes to 03:00, but 03:00 CEST is
    // 01:00 UTC, 9m40s away, so the 25m timeout is clamped (without the offset check it
    // would run past the end).
    const spring = caseAt({ at: '2026-03-29T00:50:20Z', hours: night });
    assert.is((await run(spring, sh)).code, 0, spring.log());
    assert.equal(spring.outcomes(), ['start wake 1', 'quiet'], spring.log());
    assert.is(deadlineOf(spring), epoch('2026-03-29T01:00:00Z'));
    // Fall back, 02:50:20 CEST (the first pass): 10 wall-clock minutes to 03:00, but the
    // window ends at 03:00 CET = 02:00 UTC, 69m40s away: not clamped.
    const fall = caseAt({ at: '2026-10-25T00:50:20Z', hours: night });
    assert.is((await run(fall, sh)).code, 0, fall.log());
    assert.equal(fall.outcomes(), ['start wake 1', 'quiet'], fall.log());
    assert.ok(Math.abs(deadlineOf(fall) - (epoch('2026-10-25T00:50:20Z') + 1500)) <= 3, iso(deadlineOf(fall)));
    // Fall back, an end inside the repeated hour: 02:40:20 CEST, window ending 02:50,
    // ends at the first 02:50 (CEST, 00:50 UTC), not the second one an hour later.
    const early = caseAt({ at: '2026-10-25T00:40:20Z', hours: { ...night, end: '02:50' } });
    assert.is((await run(early, sh)).code, 0, early.log());
    assert.is(deadlineOf(early), epoch('2026-10-25T00:50:00Z'));
  });
}

test('an end on a wall-clock time the spring-forward skips comes early, never late (documented)', async () => {
  // 01:50:20 CET on 2026-03-29, window ending 02:30, which does not exist that day: read in
  // CEST it is 00:30 UTC, before the start, so the wake is skipped.
  const c = caseAt({ at: '2026-03-29T00:50:20Z', hours: { start: '01:00', end: '02:30', timezone: 'Europe/Berlin' } });
  assert.is((await run(c, DASH)).code, 0, c.log());
  assert.equal(c.outcomes(), ['skip-window 0s left, minRun 5m']);
});

test('a zone whose clocks never change needs no second date call (its clock shift is 0)', () => {
  const tokyo = caseAt({ at: '2026-12-01T00:00:20Z', hours: { start: '09:00', end: '17:00', timezone: 'Asia/Tokyo' } });
  assert.match(tokyo.files['heartbeat.sh']!, /\nhb_clockshift=0\n/);
  const berlin = caseAt({ at: '2026-12-01T00:00:20Z', hours: BERLIN_DAY });
  assert.match(berlin.files['heartbeat.sh']!, /\nhb_clockshift=3600\n/);
});

test('Asia/Tokyo: clamped to 17:00 JST', async () => {
  const c = caseAt({ at: '2026-12-01T07:45:20Z', hours: { start: '09:00', end: '17:00', timezone: 'Asia/Tokyo' } });
  assert.is((await run(c, DASH)).code, 0, c.log());
  assert.is(deadlineOf(c), epoch('2026-12-01T08:00:00Z'));
});

// The agent really is stopped at the clamped deadline: 8 s before the window ends (minRun
// 2s, timeout 30s), a stand-in agent that sleeps 30 s is ended by timeout(1) on the full
// PATH and by the sh watchdog on a PATH without timeout and setsid, under every shell.
test('the agent is stopped at the window end, not at start + timeout (all shells, full and bare PATH)', async () => {
  const runs = [
    ...SHELLS.map((sh) => [sh, PATHS.bare, 'bare'] as const),
    [DASH, PATHS.full, 'full'] as const,
    [shell('bash --posix'), PATHS.full, 'full'] as const,
  ].map(async ([sh, path, tname]) => {
    const c = caseAt({ at: '2026-12-01T15:59:52Z', hours: BERLIN_DAY, timeout: '30s', minRun: '2s', every: '5m', path });
    c.behave('sleep 30\n');
    const r = await run(c, sh, { limitMs: 40000 });
    return { sh, tname, c, r };
  });
  for (const { sh, tname, c, r } of await Promise.all(runs)) {
    const what = `${sh.name} / ${tname}: ${r.ms} ms\n${c.log()}`;
    assert.is(deadlineOf(c), epoch('2026-12-01T16:00:00Z'), what);
    assert.is(r.code, 124, what);
    assert.equal(c.outcomes(), ['start wake 1', "timeout at the working window's end"], what);
    // 7-8 s to the end, then TERM (the agent's sleep ends at once); never the 30 s.
    assert.ok(r.ms >= 6000 && r.ms < 20000, what);
  }
});

test.run();
