// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh's sh watchdog where there is no /proc (macOS): the same guarantees through
// its other road. On Linux the watchdog reads start times from /proc/PID/stat and finds
// its timer's `sleep` among the timer's children (/proc/PID/task/PID/children); without
// them it reads start times with ps and the timer writes its sleep's PID to timer.N. This
// machine has /proc, so the two lines that look for it are switched off in the installed
// script (everything else is the rendered wrapper, byte for byte), and ps still works.
// - a wake whose agent outlives the timer's start leaves no `sleep` behind;
// - a timeout: the agent and its TERM-ignoring helpers are gone within timeout + killAfter
//   + 1 s, with and without the wrapper leading its group;
// - a wrapper killed with SIGKILL: its agent still dies at its deadline.
import { test } from 'uvu';
import { chmodSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, makeCase, procs, run, shell, sleep, waitFor, type Case, killPending, lagProbe, pidIn, withinPromise, alive, seen } from './helpers/wrapper.ts';

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};
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

const PROBES = ['[ ! -r "/proc/$hb_main/stat" ] || hb_procfs=1', '[ -n "${POSH_VERSION:-}" ] || [ ! -r "/proc/$hb_main/task/$hb_main/children" ] || hb_kids=1'];

/** The installed runtime, with its two looks for /proc switched off, and heartbeat.sh pinning that copy. */
function noProc(c: Case): void {
  const rt = Object.keys(c.files).find((k) => k.startsWith('runtime-'))!;
  const file = join(c.state, rt);
  let text = readFileSync(file, 'utf8');
  for (const p of PROBES) {
    assert.ok(text.includes(p), `the wrapper no longer looks for /proc with: ${p}`);
    text = text.replace(p, ':');
  }
  chmodSync(file, 0o644);
  writeFileSync(file, text);
  const hb = join(c.state, 'heartbeat.sh');
  writeFileSync(hb, readFileSync(hb, 'utf8').replace(/^hb_rt_sha256='[0-9a-f]{64}'$/m, `hb_rt_sha256='${createHash('sha256').update(text).digest('hex')}'`));
}

const STUBBORN = 'trap "" TERM\nsleep 300 &\necho $! >>"$HBTEST_DIR/kids"\n(sleep 300 & echo $! >>"$HBTEST_DIR/kids"; wait) &\necho $! >>"$HBTEST_DIR/kids"\nsleep 300\n';

for (const sh of [shell('dash'), shell('posh'), shell('mksh')]) {
  test(`${sh.name} / bare / no /proc: a quiet wake leaves no sleep behind`, async () => {
    const c = makeCase({ path: PATHS.bare, spec: { timeout: '97s', killAfter: '1s' } });
    noProc(c);
    // Long enough for the timer to write its sleep's PID, which the wrapper then ends.
    c.behave('sleep 1\n');
    const r = await run(c, sh, { limitMs: 30000 });
    await sleep(200);
    assert.is(r.code, 0, c.log());
    assert.equal(c.outcomes(), ['start wake 1', 'quiet'], c.log());
    const left = procs().filter((p) => p.state !== 'Z' && cmdline(p.pid) === 'sleep\u000097\u0000');
    for (const p of left) process.kill(p.pid, 'SIGKILL');
    assert.equal(left.length, 0, 'the timer\'s sleep outlived the wake');
  });

  for (const leader of [true, false]) {
    test(`${sh.name} / bare / no /proc / ${leader ? 'leading' : 'not leading'} its group: a timeout ends the agent and its helpers within timeout + killAfter + 1 s`, async () => {
      const T = 1;
      const K = 2;
      const c = makeCase({ path: PATHS.bare, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
      noProc(c);
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

  test(`${sh.name} / bare / no /proc: after a SIGKILL of the wrapper the agent still dies at its deadline`, async () => {
    const T = 3;
    const K = 1;
    const c = makeCase({ path: PATHS.bare, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
    noProc(c);
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
      await waitFor(() => ![agent, ...kids].some(alive), (T + K + 1) * 1000 + 30000, 'the agent gone').catch(() => {});
      const gone = Date.now() - t0;
      const late = await probe.stop();
      const left = [agent, ...kids].filter(alive);
      assert.equal(left, [], `the agent's processes outlived its deadline: ${left.join(' ')}`);
      withinPromise(gone, (T + K + 1) * 1000, late, 'the agent gone after it started (timeout + killAfter + 1 s)');
    } finally {
      cleanup([agent, ...kids]);
    }
  });
}

test.run();
