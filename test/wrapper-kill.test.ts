// heartbeat.sh: a helper of the agent that ignores TERM is KILLed once killAfter is over,
// after a timeout and after a TERM to the wrapper, in every shell of the matrix and with
// both PATHs (full: timeout(1), flock, setsid; bare: none of them, the sh watchdog).
// This is the case that caught a wrapper variable meaning "kill accepts --" being
// overwritten by the date arithmetic: busybox then read the agent's group as gone and
// skipped the KILL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, makeCase, run, sleep, waitFor } from './helpers/wrapper.ts';

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
        const helper = Number(readFileSync(join(c.rec, 'helper'), 'utf8'));
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

test.run();
