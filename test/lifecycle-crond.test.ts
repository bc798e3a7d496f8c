// needs root: it creates scratch users (useradd); it starts the real cron daemon
// The cron path end to end with the real daemon: hbgen installs as the scratch user
// hbgen-crond-test (real crontab(1), the real heartbeat.sh), the test starts `cron -f`,
// waits for the entry's actual fire and sees the wrapper's log line, then stops it.
// The spec fires every hour at the minute that comes next, so the wait is about a minute.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, whyNot } from './helpers/cronuser.ts';
import { withCronDaemon } from './helpers/crond.ts';
import { makeHost } from './helpers/lifecycle.ts';


const why = whyNot() || (existsSync('/usr/sbin/cron') ? '' : 'no /usr/sbin/cron');
const real = realOrSkip(test, 'lifecycle-crond', why);


real('real cron daemon: the installed entry fires at its minute, the real wrapper logs the run and the agent ran; stop removes the table', () =>
  // The daemon is shared with another suite: hold it from before the minute is chosen.
  withCronDaemon(async () => {
    const U = cronUser('hbgen-crond-test');
    U.set(null);
    // The next whole minute at least 25 s away (the install takes a few seconds); never :00.
    let at = Math.ceil((Date.now() + 25_000) / 60_000) * 60_000;
    if (new Date(at).getUTCMinutes() === 0) at += 60_000;
    const minute = new Date(at).getUTCMinutes();
    const h = makeHost('cron', {
      schedule: { scheduler: 'cron', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
    });
    U.own(h);
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    // install's check ran the wrapper in cron's environment as this user, and says cron itself was not exercised.
    assert.match(r.out, new RegExp(`ok {4}cron's environment: /bin/sh heartbeat\\.sh in cron's environment: exit 0; the wrapper ran as ${U.name} \\(uid ${U.uid}\\), no terminal; cron itself was not exercised`));
    // The entry checks the wrapper's SHA-256, then runs it (generators/entry.ts).
    assert.match(U.table()!.toString(), new RegExp(`^${minute} \\* \\* \\* \\* /bin/sh -c '.*' hbgen-docs '.*/heartbeat\\.sh'$`, 'm'));

    const log = names(h.spec).log;
    const fired = () => (existsSync(log) ? readFileSync(log, 'utf8') : '').split('\n').find((l) => / hbgen docs start wake( \d+)?$/.test(l));
    const deadline = at + 45_000;
    while (!fired() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    const line = fired();
    assert.ok(line, `no fire logged by ${new Date(deadline).toISOString()}; log: ${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`);
    assert.is(line!.slice(0, 16), new Date(at).toISOString().slice(0, 16), 'fired at the planned minute');
    while (!/ hbgen docs quiet$/m.test(readFileSync(log, 'utf8')) && Date.now() < deadline + 10_000) await new Promise((res) => setTimeout(res, 200));
    assert.match(readFileSync(names(h.spec).agentLog, 'utf8'), /^agent ran$/m, 'the agent ran under cron (its output in agent.log)');
    assert.not.match(readFileSync(log, 'utf8'), /^agent ran$/m, "runtime.log holds none of the agent's output");

    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    assert.is(U.table(), null);
  }));

test.run();
