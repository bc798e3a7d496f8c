// needs root: its process bounds count a wake as root; as another user a wake also runs prlimit for its task bound, one process more
// What one wake of the rendered wrapper costs in processes, counted with
// strace -f (every process of the wake's tree shows at least its exit, so each PID other
// than the wrapper's is one process it created: a tool run, a subshell). The agent is
// /bin/true, /bin/sh is the machine's (dash on Debian), the PATHs are the behaviour suites',
// the zone UTC as in `npm run bench` (a zone whose clocks go back, Europe/Berlin say, adds
// one date call: the check that a repeated wall-clock hour wakes once, at its first pass).
// Bounds: a wake in the open window ≤ 12 processes with flock and timeout on
// PATH, ≤ 15 without them (each 3 more than before the idle backoff, on by default: its
// check that the wake changed something is one find and one head in a subshell, the only
// way without git to ask whether any file is newer than the record); a wake outside the working hours, or paused by the plan's
// limit, stays at what it was: its one date call, and the find that proves
// the log has one name before the skip line goes into it (no shell builtin reads a link
// count). A wake whose log is past logMaxBytes rotates it (a wc, an rm and a mv more): not
// measured here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatPause } from '../src/formats.ts';
import { PATHS, makeCase, type Case } from './helpers/wrapper.ts';
import { entryArgv } from '../generators/entry.ts';
import { names } from '../src/names.ts';
import { realSha256 } from './helpers/entry.ts';

const STRACE = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p));
const scratch = mkdtempSync(join(tmpdir(), 'hbgen-procs-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

interface Count {
  n: number;
  /** What each created process ran (its first exec), or (subshell). */
  what: string[];
  code: number | null;
}

/** The scheduler's entry for a case: the wake as the scheduler starts it. */
function entry(c: Case): string[] {
  return entryArgv({ spec: { name: c.spec.name }, names: names(c.spec), wrapperSha256: realSha256(c.files['heartbeat.sh']!) }).slice(1);
}

/** What the entry itself creates before it becomes the wrapper: its command substitution and one sha256sum, which sums the wrapper and the runtime. */
const ENTRY = 2;

/** One run of heartbeat.sh under strace, started through the scheduler's entry: the processes it created. */
function count(c: Case, lead = false): Count {
  assert.ok(STRACE, 'strace is not installed: install it (apt-get install strace) to count the processes of a wake');
  const out = join(scratch, `trace-${Date.now()}`);
  // lead: setsid(1) execs the wrapper (it does not fork: strace's child leads no group), so
  // the wrapper leads its own session and group, as systemd and launchd start it.
  const pre = lead ? ['/usr/bin/setsid'] : [];
  const r = spawnSync(STRACE!, ['-f', '-qq', '-e', 'trace=process', '-o', out, ...pre, '/bin/sh', ...entry(c)], {
    env: { PATH: '/usr/bin:/bin' },
    stdio: 'ignore',
  });
  const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  rmSync(out);
  const top = lines[0]!.split(' ', 1)[0];
  const order: string[] = [];
  const ran = new Map<string, string>();
  for (const l of lines) {
    const pid = l.split(' ', 1)[0]!;
    if (pid !== top && !order.includes(pid)) order.push(pid);
    const m = /execve\("([^"]*)"/.exec(l);
    if (m && !ran.has(pid) && !/ENOENT/.test(l)) ran.set(pid, m[1]!.replace(/^.*\//, ''));
  }
  // The entry's own two come first; the wake's count is the rest (the runtime's check shares the entry's sha256sum).
  return { n: order.length - ENTRY, what: order.slice(ENTRY).map((p) => ran.get(p) ?? '(subshell)'), code: r.status };
}

const UTC = { start: '00:00', end: '24:00', timezone: 'UTC' };
const spec = (extra: Record<string, unknown> = {}) => ({ agent: { bin: '/bin/true' }, timeout: '2m', killAfter: '5s', schedule: { hours: UTC }, ...extra });

/** The outcomes the runs logged, for the failure message. */
const outcomes = (c: Case) => c.outcomes().join(' | ');

for (const [name, path, bound, lead] of [
  ['flock and timeout on PATH', PATHS.full, 12, false],
  // 12 (20 before): the mkdir lock's mkdir and owner mv, its rm at the end, and
  // the sh watchdog's timer subshell and sleep stand in for flock and timeout(1); the agent
  // record and the timer files go in one rm.
  ['a PATH without flock, timeout and setsid', PATHS.bare, 15, false],
  // A wrapper that leads its process group may find helpers the agent left in that group:
  // the reap lists them (a subshell, ps and awk).
  ['a PATH without flock, timeout and setsid, the wrapper leading its process group', PATHS.bare, 18, true],
] as const) {
  test(`one wake in the open window, ${name}: at most ${bound} processes`, () => {
    const c = makeCase({ path, spec: spec() });
    // The first wake makes what every later one finds (the log, the counter).
    assert.is(count(c, lead).code, 0, outcomes(c));
    for (let i = 0; i < 3; i++) {
      const r = count(c, lead);
      assert.is(r.code, 0, outcomes(c));
      assert.ok(r.n <= bound, `wake ${i + 2} created ${r.n} processes (bound ${bound}): ${r.what.join(', ')}`);
    }
    assert.equal(c.outcomes().filter((o) => !o.startsWith('start')), ['quiet', 'quiet', 'quiet', 'quiet']);
  });
}

test('with digest, a fire that sends none (today\'s went) creates the processes a wake without digest does: the stamp is a builtin read', () => {
  const plain = makeCase({ spec: spec() });
  const daily = makeCase({ spec: spec({ digest: '00:00' }) });
  writeFileSync(join(daily.state, 'digest.stamp'), `${new Date().toISOString().slice(0, 10)} 00:00 UTC\n`);
  for (const c of [plain, daily]) assert.is(count(c).code, 0, outcomes(c));
  const a = count(plain);
  const b = count(daily);
  assert.equal([...b.what].sort(), [...a.what].sort(), `with digest: ${b.what.join(', ')}; without: ${a.what.join(', ')}`);
  assert.not.match(outcomes(daily), /digest/);
});

test('one wake outside the working hours, and one paused by the plan\'s limit: 2 processes (find, date)', () => {
  const h = (new Date().getUTCHours() + 12) % 24;
  const hh = (n: number) => String(n % 24).padStart(2, '0');
  const closed = makeCase({ spec: spec({ schedule: { hours: { start: `${hh(h)}:00`, end: `${hh(h + 1)}:00`, timezone: 'UTC' } } }) });
  const a = count(closed);
  assert.equal([a.n, [...a.what].sort()], [2, ['date', 'find']], outcomes(closed));
  const paused = makeCase({ spec: spec() });
  const now = Math.floor(Date.now() / 1000);
  writeFileSync(join(paused.state, 'paused'), formatPause({ until: now + 3600, since: now, message: 'limit' }));
  const b = count(paused);
  assert.equal([b.n, [...b.what].sort()], [2, ['date', 'find']], outcomes(paused));
  assert.match(outcomes(paused), /^skip-limit until /);
});

test.run();
