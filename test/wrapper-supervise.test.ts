// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh: never two agents, and deadlines exact, in every shell of the matrix.
// - the agent and every helper it left in its group (or, without process groups, its
//   tree) are gone within timeout + killAfter (+1 s), zombies counted as gone, also when
//   the wrapper does not lead its process group (as under `hbgen wake`);
// - a wrapper killed with SIGKILL: the next wake skips while its agent lives, and that
//   agent still dies at its deadline;
// - a clock stepped forward (faketime +2h) never makes a live mkdir lock look stale.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JUNK_ENV, PATHS, SHELLS, agentShell, makeCase, run, shell, sleep, waitFor, killPending, lagProbe, pidIn, withinPromise, alive, seen } from './helpers/wrapper.ts';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';

// A zombie, or a process with a SIGKILL pending (sent, not yet acted on by the kernel), is gone.
// Each noted as first seen (seen): a pid reused by another suite is not taken for it.
const pids = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number).map(seen) : []);
const cleanup = (list: number[]) => {
  for (const p of list) {
    try {
      if (alive(p)) process.kill(p, 'SIGKILL');
    } catch {}
  }
};

// The agent and two helpers (one a grandchild) all ignore TERM and would sleep for minutes.
const STUBBORN = 'trap "" TERM\nsleep 300 &\necho $! >>"$HBTEST_DIR/kids"\n(sleep 300 & echo $! >>"$HBTEST_DIR/kids"; wait) &\necho $! >>"$HBTEST_DIR/kids"\nsleep 300\n';

const PATHS2 = [
  ['full', PATHS.full],
  ['bare', PATHS.bare],
] as const;

for (const sh of SHELLS) {
  for (const [tname, path] of PATHS2) {
    for (const leader of [true, false]) {
      const who = leader ? 'leading its group' : 'not leading its group';
      test(`${sh.name} / ${tname} / ${who}: the agent and its helpers are gone within timeout + killAfter + 1 s`, async () => {
        const T = 1;
        const K = 2;
        const c = makeCase({ path, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
        c.behave(STUBBORN);
        const p = run(c, sh, { leader, limitMs: 30000 });
        await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
        const t0 = Date.now();
        const probe = lagProbe();
        const agent = await pidIn(join(c.rec, 'started'));
        await waitFor(() => pids(join(c.rec, 'kids')).length >= 3, 5000, 'helpers started');
        const kids = pids(join(c.rec, 'kids'));
        const r = await p;
        const took = Date.now() - t0;
        const late = await probe.stop();
        await sleep(100);
        const left = [agent, ...kids].filter(alive);
        cleanup([agent, ...kids]);
        assert.equal(left, [], `still alive after the wake: ${left.join(' ')}\n${c.log()}`);
        withinPromise(took, (T + K + 1) * 1000, late, `the wake after the agent started (timeout + killAfter + 1 s)\n${c.log()}`);
        assert.equal(c.outcomes(), ['start wake 1', `timeout after ${T}s`], c.log());
        assert.is(r.code, 124);
      });
    }

    test(`${sh.name} / ${tname}: after a SIGKILL of the wrapper the next wake skips, and the agent still dies at its deadline`, async () => {
      const T = 3;
      const K = 1;
      const c = makeCase({ path, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
      c.behave(STUBBORN);
      let pid = 0;
      const first = run(c, sh, { onSpawn: (x) => (pid = x), limitMs: 30000 });
      await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
      const t0 = Date.now();
      const probe = lagProbe();
      const agent = await pidIn(join(c.rec, 'started'));
      await waitFor(() => pids(join(c.rec, 'kids')).length >= 3, 5000, 'helpers started');
      const kids = pids(join(c.rec, 'kids'));
      process.kill(pid, 'SIGKILL');
      await first;
      try {
        const second = await run(c, sh, { limitMs: 30000 });
        assert.is(second.code, 0, c.log());
        assert.equal(c.runs().length, 1, `a second agent started\n${c.log()}`);
        assert.match(c.outcomes().at(-1) ?? '', /^skip-locked the previous wake's agent PID \d+ is still running$/, c.log());
        await waitFor(() => ![agent, ...kids].some(alive), (T + K + 1) * 1000 + 30000, 'the first agent gone').catch(() => {});
        const gone = Date.now() - t0;
        const late = await probe.stop();
        const left = [agent, ...kids].filter(alive);
        assert.equal(left, [], `the first agent's processes outlived its deadline: ${left.join(' ')}`);
        withinPromise(gone, (T + K + 1) * 1000, late, 'the first agent gone after it started (timeout + killAfter + 1 s)');
        // Once it is gone, the next wake runs again.
        const third = await run(c, sh, { limitMs: 30000 });
        assert.is(third.code, 124, c.log());
        assert.equal(c.runs().length, 2, c.log());
      } finally {
        cleanup([agent, ...kids, ...pids(join(c.rec, 'kids'))]);
      }
    });
  }

  // The deadline's timer started only after the agent's record and a ps: a wrapper killed
  // in that moment left the agent with no deadline at all (seen under load as agents that
  // outlived the SIGKILL test above). Here the agent kills its wrapper itself, at once.
  test(`${sh.name} / bare: a wrapper killed (SIGKILL) the moment its agent starts still leaves the agent its deadline`, async () => {
    const T = 3;
    const K = 1;
    const c = makeCase({ path: PATHS.bare, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
    writeFileSync(c.bin, `#!${agentShell}\nkill -s KILL $PPID\ntrap '' TERM\necho $$ >"$HBTEST_DIR/started"\nwhile :; do sleep 1; done\n`, { mode: 0o755 });
    const t0 = Date.now();
    await run(c, sh, { limitMs: 30000 });
    await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
    const agent = await pidIn(join(c.rec, 'started'));
    try {
      await waitFor(() => !alive(agent), (T + K + 1) * 1000 + 3000, 'the agent gone').catch(() => {});
      assert.not.ok(alive(agent), `the agent outlived its deadline by far (${Date.now() - t0} ms)`);
    } finally {
      cleanup([agent]);
    }
  });

  test(`${sh.name} / bare: a clock stepped 2 h forward does not take over a live mkdir lock`, async () => {
    const c = makeCase({ path: PATHS.bare, spec: { timeout: '20s', killAfter: '1s' } });
    c.behave('sleep 3\n');
    const first = run(c, sh, { limitMs: 30000 });
    await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
    // The second wake runs the same spec with its clock two hours ahead (libfaketime in the
    // spec's env, which the wrapper keeps). A new file renamed over heartbeat.sh: the
    // running wrapper keeps reading its own.
    const raw = { ...c.spec, env: { ...c.spec.env, LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', FAKETIME: '+2h' } };
    const v = validateSpec(raw);
    assert.ok(v.spec, String(v.errors));
    const r = renderNow(v.spec!);
    const hb = r.files.find((f) => f.path === 'heartbeat.sh')!.content;
    writeFileSync(join(c.state, 'heartbeat.sh.new'), hb, { mode: 0o755 });
    renameSync(join(c.state, 'heartbeat.sh.new'), join(c.state, 'heartbeat.sh'));
    const second = await run(c, sh, { limitMs: 30000 });
    const one = await first;
    assert.is(second.code, 0, c.log());
    assert.equal(c.runs().length, 1, `two agents ran at once\n${c.log()}`);
    assert.ok(c.outcomes().includes('skip-locked'), c.log());
    assert.ok(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ hbgen \S+ skip-locked/.test(c.log()), c.log());
    assert.is(one.code, 0, c.log());
  });
}

// The watchdog of a wrapper killed with SIGKILL (no timeout(1) on PATH) signals only what it
// proves is this wake's agent. Made deterministic in a PID namespace of its
// own, whose PID 1 (a bash driver) reaps the orphans: the wrapper is killed, the agent ends
// on its own, and a stranger is started at the agent's PID (ns_last_pid), leading its own
// process group, so it holds both the recorded PID and the recorded group id. It starts a
// second later than the agent (start times are read to the second). At the deadline and
// killAfter later the watchdog finds the wrapper gone; the stranger must survive both.
const ORPHAN_DRIVER = `set -u
mount --bind "$1" /usr/bin/dash || exit 90
st=$2 rec=$3 wait_s=$4
/bin/sh "$st/heartbeat.sh" </dev/null >/dev/null 2>&1 &
w=$!
i=0
while [ ! -s "$rec/started" ] || [ ! -s "$st/agent" ]; do sleep 0.02; i=$((i + 1)); [ $i -lt 500 ] || exit 91; done
a=$(cat "$rec/started")
read -r ra rg <"$st/agent"
kill -KILL "$w"
wait "$w" 2>/dev/null
: >"$rec/end"
i=0
while [ -e "/proc/$a" ]; do sleep 0.02; i=$((i + 1)); [ $i -lt 500 ] || exit 92; done
sleep 1.1
# Another process of the namespace (the watchdog's own sleep or ps) may take the PID first
# on a loaded machine: the stranger is started again until it has it.
n=0
while :; do
  echo $((a - 1)) >/proc/sys/kernel/ns_last_pid
  setsid sleep 60 &
  s=$!
  [ "$s" -ne "$a" ] || break
  kill -KILL "$s"
  wait "$s" 2>/dev/null
  n=$((n + 1))
  [ $n -lt 100 ] || break
  sleep 0.02
done
# setsid(1) in the background job calls setsid() after the fork that $! names: on a loaded
# machine ps can look first (and see the driver's group), so it looks again for a second.
pg= j=0
while [ "$pg" != "$s" ] && [ $j -lt 50 ]; do
  pg=$(ps -o pgid= -p "$s" | tr -d ' ')
  j=$((j + 1))
  [ "$pg" = "$s" ] || sleep 0.02
done
echo "agent=$a recorded=$ra/$rg stranger=$s pgid=$pg" >"$rec/stranger"
sleep "$wait_s"
if kill -0 "$s" 2>/dev/null; then echo alive >"$rec/verdict"; else echo dead >"$rec/verdict"; fi
kill -KILL "$s" 2>/dev/null
exit 0
`;

for (const [sh, tname, path] of [
  [shell('dash'), 'bare (no group: the agent by PID)', PATHS.bare],
  [shell('posh'), 'bare (no group: the agent by PID)', PATHS.bare],
  [shell('mksh'), 'bare (job control: the agent\'s group)', PATHS.bare],
  [shell('bash --posix'), 'bare (job control: the agent\'s group)', PATHS.bare],
  [shell('yash'), 'setsid (a session of its own)', PATHS.setsid],
] as const) {
  test(`${sh.name} / ${tname}: the orphaned watchdog leaves a stranger at the agent's PID and group id alone`, async () => {
    const T = 3;
    const K = 1;
    const c = makeCase({ path, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
    c.behave('while [ ! -e "$HBTEST_DIR/end" ]; do sleep 0.05; done\nexit 0\n');
    const driver = join(c.dir, 'driver.sh');
    writeFileSync(driver, ORPHAN_DRIVER);
    const r = spawnSync('/usr/bin/unshare', ['-m', '-p', '-f', '--mount-proc', '/usr/bin/bash', driver, sh.file, c.state, c.rec, String(T + K + 2)], {
      env: JUNK_ENV,
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.is(r.status, 0, `driver: ${r.status} ${r.stderr}\n${c.log()}`);
    const who = readFileSync(join(c.rec, 'stranger'), 'utf8').trim();
    const m = /^agent=(\d+) recorded=(\d+)\/(\d*) stranger=(\d+) pgid=(\d+)$/.exec(who);
    assert.ok(m, who);
    assert.is(m![4], m![1], `the stranger did not get the agent's PID: ${who}`);
    assert.is(m![5], m![1], `the stranger does not lead a group of the agent's PID: ${who}`);
    assert.is(m![2], m![1], `the agent record names another PID: ${who}`);
    assert.is(readFileSync(join(c.rec, 'verdict'), 'utf8').trim(), 'alive', `the watchdog signalled the stranger (${who})\n${c.log()}`);
  });
}

test.run();
