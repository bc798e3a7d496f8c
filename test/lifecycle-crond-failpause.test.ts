// needs root: it creates scratch users (useradd); it starts the real cron daemon; it runs commands as other users (runuser)
// The pause after failures through the real cron daemon: hbgen installs as a scratch user
// (real crontab(1), the real heartbeat.sh), one fire of the installed wrapper as that user
// fails and pauses the job (pauseAfter 1), then cron's own fire of the entry at its minute
// is one skip-paused line and the agent does not run again; status says it is paused.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAIL_PAUSE_FILE } from '../src/formats.ts';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, whyNot } from './helpers/cronuser.ts';
import { nextCronMinute, withCronDaemon } from './helpers/crond.ts';
import { makeHost } from './helpers/lifecycle.ts';

const why = whyNot() || (existsSync('/usr/sbin/cron') ? '' : 'no /usr/sbin/cron');
const real = realOrSkip(test, 'lifecycle-crond-failpause', why);

real('real cron daemon: after the failure that paused the job, cron fires the entry and the wrapper logs skip-paused, no agent; status exits 1', () =>
  withCronDaemon(async () => {
    const U = cronUser('hbgen-crond-pause');
    U.set(null);
    const { at, minute } = nextCronMinute(25_000);
    const h = makeHost('cron', {
      schedule: { scheduler: 'cron', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
      pauseAfter: 1,
    });
    U.own(h);
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    const n = names(h.spec);
    // The agent now fails; one fire of the installed wrapper as the user, as cron would start it.
    writeFileSync(h.bin, '#!/bin/sh\necho "agent failed"\nexit 3\n');
    const first = spawnSync('runuser', ['-u', U.name, '--', 'env', '-i', 'PATH=/usr/bin:/bin', '/bin/sh', join(n.stateDir, 'heartbeat.sh')], { encoding: 'utf8' });
    assert.is(first.status, 3, first.stderr);
    assert.ok(existsSync(join(n.stateDir, FAIL_PAUSE_FILE)), readFileSync(n.log, 'utf8'));

    const paused = () => readFileSync(n.log, 'utf8').split('\n').find((l) => / hbgen docs skip-paused after 1 failing wakes in a row since /.test(l));
    const deadline = at + 45_000;
    while (!paused() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    const line = paused();
    assert.ok(line, `no skip-paused fire by ${new Date(deadline).toISOString()}; log: ${readFileSync(n.log, 'utf8')}`);
    assert.is(line!.slice(0, 16), new Date(at).toISOString().slice(0, 16), "cron's fire at the planned minute");
    assert.is(readFileSync(n.agentLog, 'utf8').match(/^agent failed$/gm)?.length, 1, 'the agent ran once, before the pause');
    const st = U.run(h, 'status');
    assert.is(st.code, 1, st.out);
    assert.match(st.out, /paused after 1 failure since .*: fail 3; hbgen resume --now/);

    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    assert.is(U.table(), null);
  }));

test.run();
