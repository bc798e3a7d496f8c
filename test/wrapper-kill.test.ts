// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh: a helper of the agent that ignores TERM is KILLed once killAfter is over,
// after a timeout and after a TERM to the wrapper, in every shell of the matrix and with
// both PATHs (full: timeout(1), flock, setsid; bare: none of them, the sh watchdog).
// This is the case that caught a wrapper variable meaning "kill accepts --" being
// overwritten by the date arithmetic: busybox then read the agent's group as gone and
// skipped the KILL.
// Also the watchdog's own files and the agent record: a FIFO or a link the agent plants
// there never blocks the wrapper nor gets written through.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATHS, SHELLS, makeCase, run, shell, sleep, survivors, waitFor, lagProbe, pidIn, withinPromise } from './helpers/wrapper.ts';

const TIMEOUT_S = 2;
const KILL_AFTER_S = 1;
// Scheduling slack on a loaded 2-core machine: the TERM→wait→KILL step itself must fit in
// killAfter; this only covers process start and the poll below.
const MARGIN_MS = 900;

const dead = (pid: number) => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

for (const sh of SHELLS) {
  for (const [tname, path] of [
    ['full', PATHS.full],
    ['bare', PATHS.bare],
  ] as const) {
    for (const how of ['timeout', 'TERM'] as const) {
      test(`${sh.name} / ${tname} / ${how}: a TERM-ignoring helper is KILLed within killAfter`, async () => {
        const c = makeCase({ path, spec: { timeout: how === 'timeout' ? `${TIMEOUT_S}s` : '30s', killAfter: `${KILL_AFTER_S}s` } });
        // The helper ignores TERM (ignored signals survive exec); the agent itself waits.
        c.behave('(trap "" TERM; exec sleep 300) &\nprintf "%s" $! >"$HBTEST_DIR/helper"\nsleep 60\n');
        let pid = 0;
        const p = run(c, sh, { onSpawn: (x) => (pid = x), limitMs: 30000 });
        await waitFor(() => existsSync(join(c.rec, 'helper')), 5000, 'agent started');
        const seen = Date.now();
        const helper = await pidIn(join(c.rec, 'helper'));
        let t0: number;
        if (how === 'TERM') {
          await sleep(200);
          t0 = Date.now();
          process.kill(pid, 'SIGTERM');
        } else {
          // The deadline runs from the agent's start, a moment before the helper file.
          t0 = seen + TIMEOUT_S * 1000;
        }
        let killedAt = 0;
        try {
          await waitFor(() => dead(helper), TIMEOUT_S * 1000 + KILL_AFTER_S * 1000 + 5000, 'helper gone');
          killedAt = Date.now();
        } finally {
          if (!dead(helper)) process.kill(helper, 'SIGKILL');
        }
        const r = await p;
        assert.ok(killedAt - t0 <= KILL_AFTER_S * 1000 + MARGIN_MS, `helper died ${killedAt - t0} ms after the ${how}; killAfter is ${KILL_AFTER_S}s`);
        const expected = how === 'TERM' ? ['start wake 1', 'fail 143 signal TERM'] : ['start wake 1', `timeout after ${TIMEOUT_S}s`];
        assert.equal(c.outcomes(), expected, c.log());
        assert.is(r.code, how === 'TERM' ? 143 : 124, c.log());
      });
    }
  }
}

// The watchdog's files, in a state folder the agent can write: while it runs,
// the agent replaces timer.1 (the deadline's) and timer.2 (killAfter's) with a FIFO, a
// symbolic link or a hard link to a victim file, and ignores TERM. The wrapper must still
// end the wake by timeout + killAfter, never block on the FIFO, and never write the victim.
const VICTIM_TEXT = 'victim: these bytes must stay as they are\n';
const PLANTS = {
  FIFO: (f: string, _v: string) => `/usr/bin/mkfifo '${f}'`,
  'symbolic link': (f: string, v: string) => `ln -s '${v}' '${f}'`,
  'hard link': (f: string, v: string) => `ln '${v}' '${f}'`,
};
const WATCHDOG_SHELLS = [
  [shell('dash'), 'bare', PATHS.bare],
  [shell('busybox sh'), 'bare', PATHS.bare],
  [shell('mksh'), 'bare', PATHS.bare],
  [shell('posh'), 'bare', PATHS.bare],
  [shell('yash'), 'setsid', PATHS.setsid],
] as const;

for (const [what, plant] of Object.entries(PLANTS)) {
  test(`a ${what} planted at timer.1 and timer.2 while the agent runs: the wake ends by its deadline, nothing is written through it (watchdog, 5 shells)`, async () => {
    const probe = lagProbe();
    const results = await Promise.all(
      WATCHDOG_SHELLS.map(async ([sh, tname, path]) => {
        const c = makeCase({ path, spec: { timeout: `${TIMEOUT_S}s`, killAfter: `${KILL_AFTER_S}s` } });
        const victim = join(c.dir, 'victim');
        writeFileSync(victim, VICTIM_TEXT);
        const steps = ['1', '2'].map((n) => `rm -f '${c.state}/timer.${n}'\n${plant(`${c.state}/timer.${n}`, victim)}`).join('\n');
        // After the wrapper's timer wrote its first line; the agent then ignores TERM.
        c.behave(`sleep 0.3\n${steps}\n: >"$HBTEST_DIR/planted"\ntrap "" TERM\nwhile :; do sleep 1; done\n`);
        const r = await run(c, sh, { limitMs: 30000 });
        await sleep(150);
        const agent = await pidIn(join(c.rec, 'started'));
        const left = survivors([r.pid, agent]);
        for (const p of left) process.kill(p.pid, 'SIGKILL');
        return { what: `${sh.name}/${tname}`, c, r, left, victim };
      }),
    );
    const late = await probe.stop();
    for (const { what: w, c, r, left, victim } of results) {
      assert.ok(existsSync(join(c.rec, 'planted')), `${w}: the agent planted nothing`);
      assert.is(r.code, 124, `${w}: ${c.log()}`);
      withinPromise(r.ms, (TIMEOUT_S + KILL_AFTER_S) * 1000 + 2500, late, `${w}: the wake (timeout + killAfter + 2.5 s)`);
      assert.equal(left.map((p) => p.args), [], `${w}: survivors`);
      assert.is(readFileSync(victim, 'utf8'), VICTIM_TEXT, `${w}: the victim was written`);
    }
  });
}

// agent.$$, the agent record's file aside: a link planted ahead under the wrapper's PID.
for (const [what, how] of [
  ['symbolic link', 'ln -s'],
  ['hard link', 'ln'],
] as const) {
  test(`a ${what} planted at agent.<PID> before the wake: the victim is untouched (dash, mksh; bare PATH)`, async () => {
    for (const sh of [shell('dash'), shell('mksh')]) {
      const c = makeCase({ path: PATHS.bare });
      const victim = join(c.dir, 'victim');
      writeFileSync(victim, VICTIM_TEXT);
      const r = await run(c, sh, { pre: `${how} '${victim}' '${c.state}/agent.'$$` });
      assert.is(r.code, 0, c.log());
      assert.equal(c.outcomes(), ['start wake 1', 'quiet'], c.log());
      assert.is(readFileSync(victim, 'utf8'), VICTIM_TEXT, `${sh.name}: the victim was written`);
    }
  });
}

// The lock owner record: a stale lock whose owner file is a hard link to a victim (which
// holds a dead PID, so the lock is taken over) and a symbolic link to one.
test('a hard or symbolic link at the mkdir lock\'s owner: the victim is untouched', async () => {
  for (const sh of [shell('dash'), shell('posh')]) {
    for (const how of ['ln', 'ln -s']) {
      const c = makeCase({ spec: { lock: 'mkdir' } });
      const victim = join(c.dir, 'victim');
      const text = `999999 ${Math.floor(Date.now() / 1000) - 600}\n`;
      writeFileSync(victim, text);
      mkdirSync(join(c.state, 'heartbeat.lock.d'));
      spawnSync('/bin/sh', ['-c', `${how} '${victim}' '${c.state}/heartbeat.lock.d/owner'`]);
      const r = await run(c, sh);
      assert.is(r.code, 0, c.log());
      assert.is(readFileSync(victim, 'utf8'), text, `${sh.name}/${how}: the victim was written`);
    }
  }
});


// A watchdog timer that fired is in its last steps when the wrapper ends the wake: it asks
// ps whether the wrapper still lives, then sends its second ALRM. On a loaded machine that
// ps outlived the wake (CI: mksh's wrapper gone, its timer still in `ps -o stat= -p`).
// Here that one ps takes a second, on every machine: the wrapper waits for a timer that
// fired, so nothing of the wake outlives it.
function slowPsPath(base: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-slowps-'));
  for (const t of readdirSync(base)) if (t !== 'ps') symlinkSync(readlinkSync(join(base, t)), join(dir, t));
  const ps = ['/usr/bin/ps', '/bin/ps'].find((p) => existsSync(p))!;
  writeFileSync(join(dir, 'ps'), `#!/bin/sh\ncase "$*" in "-o stat= -p "*) sleep 1 ;; esac\nexec ${ps} "$@"\n`, { mode: 0o755 });
  return dir;
}

test('a timer that fired, slow in its last ps: the wrapper waits for it, nothing of the wake outlives it (watchdog, 5 shells)', async () => {
  const probe = lagProbe();
  const results = await Promise.all(
    WATCHDOG_SHELLS.map(async ([sh, tname, path]) => {
      const c = makeCase({ path: slowPsPath(path), spec: { timeout: `${TIMEOUT_S}s`, killAfter: `${KILL_AFTER_S}s` } });
      c.behave('trap "" TERM\nwhile :; do sleep 1; done\n');
      const r = await run(c, sh, { limitMs: 30000 });
      await sleep(150);
      const agent = await pidIn(join(c.rec, 'started'));
      const left = survivors([r.pid, agent]);
      for (const p of left) process.kill(p.pid, 'SIGKILL');
      return { what: `${sh.name}/${tname}`, c, r, left };
    }),
  );
  const late = await probe.stop();
  for (const { what: w, c, r, left } of results) {
    assert.is(r.code, 124, `${w}: ${c.log()}`);
    assert.equal(left.map((p) => p.args), [], `${w}: survivors`);
    // The deadline, killAfter, and the timers' two slow ps (one for each timer that fired).
    withinPromise(r.ms, (TIMEOUT_S + KILL_AFTER_S + 2) * 1000 + 2500, late, `${w}: the wake`);
  }
});

test.run();
