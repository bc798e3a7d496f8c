// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh: no overlap (flock and the mkdir lock), stale takeover, helpers and the lock
// fd, and the deadline (timeout(1) and the portable watchdog), across the shell matrix.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JUNK_ENV, PATHS, SHELLS, makeCase, run, shell, sleep, survivors, waitFor, type Case, type Shell, lagProbe, pidIn, withinPromise } from './helpers/wrapper.ts';

async function tenAtOnce(c: Case, sh: Shell) {
  c.behave('sleep 1\n');
  const rs = await Promise.all(Array.from({ length: 10 }, () => run(c, sh)));
  for (const r of rs) assert.is(r.code, 0, c.log());
  const out = c.outcomes();
  assert.is(c.runs().length, 1, c.log());
  assert.is(out.filter((o) => o === 'skip-locked').length, 9, c.log());
  assert.is(out.filter((o) => o.startsWith('start')).length, 1);
  assert.is(readFileSync(join(c.state, 'wakes'), 'utf8').trim(), '1');
}

for (const sh of SHELLS) {
  test(`${sh.name}: 10 simultaneous wakes, mkdir lock (PATH without flock): 1 run, 9 skip-locked`, async () => {
    const c = makeCase({ path: PATHS.bare });
    await tenAtOnce(c, sh);
    assert.not.ok(existsSync(join(c.state, 'heartbeat.lock.d')), 'lock folder removed');
  });
}
for (const sh of [shell('dash'), shell('mksh'), shell('bash --posix'), shell('yash')]) {
  test(`${sh.name}: 10 simultaneous wakes, flock: 1 run, 9 skip-locked`, async () => {
    const c = makeCase({ spec: { lock: 'flock' } });
    await tenAtOnce(c, sh);
  });
}


// State paths in several scripts and encodings. ps in the C locale (the wrapper's own
// tools run in it) shows each non-ASCII byte as "?": a live wake's command line never reads
// back as its path, and the wrapper must still know it for a wake (a live
// mkdir lock was taken over, two `start` lines from 10 simultaneous wakes).
const NAMES: [string, string][] = [
  ['accents', 'état-josé'],
  ['CJK', '状態フォルダ'],
  ['Cyrillic', 'состояние'],
  ['emoji', 'beat-🫀-💓'],
  // Valid UTF-8 and no ASCII byte in the odd ones: a no-break space, a zero-width space, a
  // combining accent; nothing of it prints.
  ['invisible', 'a\u00a0b\u200bc\u0301'],
];
const ALL = NAMES.map(([, n]) => n).join('-');

/** What ps prints for PID with LC_ALL=C: the proof that the path is re-encoded there. */
function psC(pid: number): string {
  return spawnSync('ps', ['-ww', '-o', 'args=', '-p', String(pid)], { encoding: 'latin1', env: { ...process.env, LC_ALL: 'C' } }).stdout.trim();
}

// yash refuses a non-ASCII path in the C locale (install refuses it there, see docs/install.md);
// it runs these in C.UTF-8, as it would have to.
const callerEnv = (sh: Shell) => (sh.name === 'yash' ? { ...JUNK_ENV, LC_ALL: 'C.UTF-8' } : JUNK_ENV);

for (const sh of SHELLS) {
  test(`${sh.name}: 10 simultaneous wakes, mkdir lock (auto, PATH without flock), state path in five scripts: 1 run`, async () => {
    const c = makeCase({ path: PATHS.bare, stateName: ALL });
    c.behave('sleep 1\n');
    const rs = await Promise.all(Array.from({ length: 10 }, () => run(c, sh, { env: callerEnv(sh) })));
    for (const r of rs) assert.is(r.code, 0, c.log());
    const out = c.outcomes();
    assert.is(out.filter((o) => o.startsWith('start')).length, 1, c.log());
    assert.is(c.runs().length, 1, c.log());
    assert.is(out.filter((o) => o.startsWith('skip-locked')).length, 9, c.log());
  });

  test(`${sh.name}: a live wake's mkdir lock under a non-ASCII state path is never taken over`, async () => {
    const c = makeCase({ spec: { lock: 'mkdir', timeout: '20s' }, stateName: ALL });
    c.behave('sleep 3\n');
    let pid = 0;
    const first = run(c, sh, { env: callerEnv(sh), onSpawn: (x) => (pid = x), limitMs: 30000 });
    await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
    const owner = readFileSync(join(c.state, 'heartbeat.lock.d', 'owner'), 'utf8');
    assert.is(owner.split(' ')[0], String(pid));
    assert.not.ok(psC(pid).includes(c.state), `ps in the C locale printed the path as is: ${psC(pid)}`);
    const second = await run(c, sh, { env: callerEnv(sh) });
    assert.is(second.code, 0, c.log());
    // Not "skip-locked the previous wake's agent …": that is a wake that took the lock.
    assert.equal(c.outcomes(), ['start wake 1', 'skip-locked'], c.log());
    assert.is(readFileSync(join(c.state, 'heartbeat.lock.d', 'owner'), 'utf8'), owner, 'the owner record is unchanged');
    assert.is((await first).code, 0, c.log());
    assert.equal(c.outcomes(), ['start wake 1', 'skip-locked', 'quiet'], c.log());
  });
}

for (const [what, name] of NAMES) {
  test(`dash: 10 simultaneous wakes, lock "mkdir", state path in ${what}: 1 run`, async () => {
    const c = makeCase({ spec: { lock: 'mkdir' }, stateName: name });
    c.behave('sleep 1\n');
    const rs = await Promise.all(Array.from({ length: 10 }, () => run(c, shell('dash'))));
    for (const r of rs) assert.is(r.code, 0, c.log());
    assert.is(c.outcomes().filter((o) => o.startsWith('start')).length, 1, c.log());
    assert.is(c.runs().length, 1, c.log());
  });
}

function lockCase(owner: string | null, ageSeconds = 0) {
  const c = makeCase({ spec: { lock: 'mkdir', timeout: '60s', killAfter: '30s' } });
  const d = join(c.state, 'heartbeat.lock.d');
  mkdirSync(d);
  if (owner !== null) writeFileSync(join(d, 'owner'), owner);
  if (ageSeconds) {
    const t = Date.now() / 1000 - ageSeconds;
    if (owner !== null) utimesSync(join(d, 'owner'), t, t);
    utimesSync(d, t, t);
  }
  return c;
}

for (const sh of [shell('dash'), shell('busybox sh'), shell('posh'), shell('yash'), shell('mksh')]) {
  test(`${sh.name}: mkdir lock: live owner respected; dead PID, too old, old empty owner taken over`, async () => {
    const now = Math.floor(Date.now() / 1000);
    // A live owner is a process running this wrapper (a wake now), and even an hour-old
    // one is respected: a clock stepped forward looks the same.
    const live = makeCase({ spec: { lock: 'mkdir', timeout: '60s', killAfter: '30s' } });
    live.behave('sleep 3\n');
    let holder = 0;
    const first = run(live, sh, { onSpawn: (x) => (holder = x), limitMs: 30000 });
    await waitFor(() => existsSync(join(live.rec, 'started')), 5000, 'agent started');
    writeFileSync(join(live.state, 'heartbeat.lock.d', 'owner'), `${holder} ${now - 3600}`);
    assert.is((await run(live, sh)).code, 0);
    assert.equal(live.outcomes(), ['start wake 1', 'skip-locked']);
    assert.is(readFileSync(join(live.state, 'heartbeat.lock.d', 'owner'), 'utf8'), `${holder} ${now - 3600}`);
    await first;

    // A process whose command line names the script without running it is a stranger.
    const named = lockCase(null);
    const other = spawn('/bin/sh', ['-c', 'sleep 30', join(named.state, 'heartbeat.sh')], { stdio: 'ignore' });
    try {
      writeFileSync(join(named.state, 'heartbeat.lock.d', 'owner'), `${other.pid} ${now}`);
      assert.is((await run(named, sh)).code, 0);
      assert.equal(named.outcomes(), ['start wake 1', 'quiet']);
    } finally {
      other.kill('SIGKILL');
    }

    const dead = lockCase(`999999 ${now}`);
    assert.is((await run(dead, sh)).code, 0);
    assert.equal(dead.outcomes(), ['start wake 1', 'quiet']);

    // A live PID reused by some other process (PID 1): the wake is over, whatever its age.
    const old = lockCase(`1 ${now}`);
    assert.is((await run(old, sh)).code, 0);
    assert.equal(old.outcomes(), ['start wake 1', 'quiet']);

    const fresh = lockCase(null);
    assert.is((await run(fresh, sh)).code, 0);
    assert.equal(fresh.outcomes(), ['skip-locked'], 'an empty fresh lock may be a wake between mkdir and its owner write');

    const stale = lockCase('', 3 * 60);
    assert.is((await run(stale, sh)).code, 0);
    assert.equal(stale.outcomes(), ['start wake 1', 'quiet']);

    // A breaker left by a wake that died while breaking is itself stale after a minute.
    const brk = lockCase(`999999 ${now}`);
    mkdirSync(join(brk.state, 'heartbeat.lock.d.break'));
    const t = Date.now() / 1000 - 180;
    utimesSync(join(brk.state, 'heartbeat.lock.d.break'), t, t);
    await run(brk, sh);
    await run(brk, sh);
    assert.equal(brk.outcomes(), ['skip-locked', 'start wake 1', 'quiet']);
  });
}

test('8 simultaneous wakes against a stale mkdir lock: exactly one runs (breaker)', async () => {
  for (const sh of [shell('dash'), shell('busybox sh')]) {
    for (let trial = 0; trial < 3; trial++) {
      const c = lockCase(`999999 ${Math.floor(Date.now() / 1000)}`);
      c.behave('sleep 1\n');
      const rs = await Promise.all(Array.from({ length: 8 }, () => run(c, sh)));
      for (const r of rs) assert.is(r.code, 0);
      assert.is(c.runs().length, 1, c.log());
    }
  }
});

for (const [name, spec] of [
  ['flock', { lock: 'flock' }],
  ['mkdir', { lock: 'mkdir' }],
] as const) {
  test(`${name}: a helper the agent leaves behind (outside its group) does not keep the lock`, async () => {
    const c = makeCase({ spec });
    // setsid: the helper escapes the group kill (a documented limit), and must still not hold fd 9
    c.behave('/usr/bin/setsid sleep 30 </dev/null >/dev/null 2>&1 &\n');
    assert.is((await run(c, shell('mksh'))).code, 0);
    await sleep(200);
    const helper = survivorsByComm('sleep', c.rec);
    c.behave('');
    assert.is((await run(c, shell('mksh'))).code, 0);
    assert.equal(c.outcomes(), ['start wake 1', 'quiet', 'start wake 2', 'quiet']);
    for (const pid of helper) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });
}

function survivorsByComm(comm: string, _rec: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd === `${comm}\u000030\u0000`) out.push(Number(d));
    } catch {}
  }
  return out;
}

// The deadline: a TERM-ignoring agent with a grandchild that ignores TERM too. Both must
// be gone right after timeout + killAfter, exit 124, `timeout` logged, no sleep left.
const TIMEOUT_MATRIX: [Shell, string, string][] = [
  [shell('dash'), 'full', PATHS.full],
  [shell('dash'), 'bare', PATHS.bare],
  [shell('mksh'), 'bare', PATHS.bare],
  [shell('busybox sh'), 'bare', PATHS.bare],
  [shell('bash --posix'), 'bare', PATHS.bare],
  [shell('posh'), 'bare', PATHS.bare],
  [shell('yash'), 'bare', PATHS.bare],
  [shell('yash'), 'setsid', PATHS.setsid],
  [shell('bash'), 'full', PATHS.full],
];
// Without a process group of its own the agent's tree is found with ps; an agent that forks
// all the time used to leave the child it forked between that listing and the KILL behind.
// The wrapper now stops the tree (STOP), lists it again, then kills it.
test('timeout without a process group: an agent forking all the time leaves no child behind (dash, yash, posh on a bare PATH)', async () => {
  const results = await Promise.all(
    ([shell('dash'), shell('yash'), shell('posh')] as Shell[]).map(async (sh) => {
      const c = makeCase({ path: PATHS.bare });
      c.behave("trap '' TERM\nwhile :; do sleep 3 & sleep 0.01; done\n");
      const r = await run(c, sh);
      await sleep(150);
      const agent = await pidIn(join(c.rec, 'started'));
      return { sh, c, r, left: survivors([r.pid, agent]) };
    }),
  );
  for (const { sh, c, r, left } of results) {
    assert.is(r.code, 124, `${sh.name}: ${c.log()}`);
    assert.equal(left.map((p) => p.args), [], `${sh.name}: survivors`);
  }
});

test('timeout: TERM-ignoring agent and grandchild killed after timeout + killAfter, exit 124 (shell matrix, in parallel)', async () => {
  const probe = lagProbe();
  const results = await Promise.all(
    TIMEOUT_MATRIX.map(async ([sh, tname, path]) => {
      const c = makeCase({ path });
      c.behave("trap '' TERM\nsleep 300 & printf '%s' $! >\"$HBTEST_DIR/helper\"\nwhile :; do sleep 1; done\n");
      const r = await run(c, sh);
      await sleep(150);
      const agent = await pidIn(join(c.rec, 'started'));
      return { sh, tname, c, r, left: survivors([r.pid, agent]) };
    }),
  );
  const late = await probe.stop();
  for (const { sh, tname, c, r, left } of results) {
    const what = `${sh.name}/${tname}`;
    assert.is(r.code, 124, `${what}: ${c.log()}`);
    assert.equal(c.outcomes(), ['start wake 1', 'timeout after 2s'], what);
    assert.ok(r.ms >= 2900, `${what}: took ${r.ms} ms, less than the 2 s timeout + 1 s killAfter`);
    withinPromise(r.ms, 6000, late, what);
    assert.equal(left, [], `${what}: survivors`);
  }
});

test('timeout: an agent that obeys TERM ends at the deadline; no watchdog sleep is left', async () => {
  const probe = lagProbe();
  const results = await Promise.all(
    TIMEOUT_MATRIX.map(async ([sh, tname, path]) => {
      const c = makeCase({ path });
      c.behave('sleep 300\n');
      const r = await run(c, sh);
      await sleep(150);
      return { what: `${sh.name}/${tname}`, c, r, left: survivors([r.pid]) };
    }),
  );
  const late = await probe.stop();
  for (const { what, c, r, left } of results) {
    assert.is(r.code, 124, `${what}: ${c.log()}`);
    withinPromise(r.ms, 4500, late, what);
    assert.equal(left, [], `${what}: survivors`);
  }
});

test('signal to the wrapper with a TERM-ignoring agent: KILL after killAfter, exit 143, lock free', async () => {
  for (const [sh, path] of [
    [shell('dash'), PATHS.bare],
    [shell('mksh'), PATHS.full],
  ] as const) {
    const c = makeCase({ path, spec: { timeout: '30s', killAfter: '1s' } });
    c.behave("trap '' TERM\nsleep 300 & printf '%s' $! >\"$HBTEST_DIR/helper\"\nwhile :; do sleep 1; done\n");
    let pid = 0;
    const p = run(c, sh, { onSpawn: (x) => (pid = x) });
    const t0 = Date.now();
    const probe = lagProbe();
    await pidIn(join(c.rec, 'helper'));
    process.kill(pid, 'SIGTERM');
    const r = await p;
    assert.is(r.code, 143, c.log());
    withinPromise(Date.now() - t0, 4000, await probe.stop(), 'TERM to the wrapper until its exit');
    await sleep(100);
    const agent = await pidIn(join(c.rec, 'started'));
    assert.equal(survivors([r.pid, agent]), []);
    assert.equal(c.outcomes(), ['start wake 1', 'fail 143 signal TERM']);
  }
});

test.run();
