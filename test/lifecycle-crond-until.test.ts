// needs root: it creates scratch users (useradd); it starts the real cron daemon
// The job's end (until) through the real cron daemon: hbgen installs as a scratch user
// (real crontab(1)) a spec whose until is the minute of the entry's next fire. cron's own
// fire at that minute is one skip-ended line: no agent, no wake counted; status says the
// job ended and offers hbgen stop.
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, whyNot } from './helpers/cronuser.ts';
import { nextCronMinute, withCronDaemon } from './helpers/crond.ts';
import { makeHost } from './helpers/lifecycle.ts';

const why = whyNot() || (existsSync('/usr/sbin/cron') ? '' : 'no /usr/sbin/cron');
const real = realOrSkip(test, 'lifecycle-crond-until', why);

real('real cron daemon: the fire at until logs skip-ended and runs no agent; status says the job ended', () =>
  withCronDaemon(async () => {
    const U = cronUser('hbgen-crond-until');
    U.set(null);
    const { at, minute } = nextCronMinute(25_000);
    const until = new Date(at).toISOString().slice(0, 16);
    const h = makeHost('cron', { until, schedule: { scheduler: 'cron', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
    U.own(h);
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    const n = names(h.spec);
    const agentRuns = () => (existsSync(n.agentLog) ? readFileSync(n.agentLog, 'utf8').split('\n').filter((l) => / start wake /.test(l)).length : 0);
    const runsBefore = agentRuns();
    const ended = () => readFileSync(n.log, 'utf8').split('\n').find((l) => / hbgen docs skip-ended\b/.test(l));
    const deadline = at + 45_000;
    while (!ended() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    assert.ok(ended(), `no skip-ended fire by ${new Date(deadline).toISOString()}; log: ${readFileSync(n.log, 'utf8')}`);
    assert.is(ended()!.slice(0, 16), until, "cron's fire at the planned minute, the job's end");
    assert.is(agentRuns(), runsBefore, 'no agent ran at the fire');
    const st = U.run(h, 'status');
    assert.match(st.out, new RegExp(`\\n {2}until +${until.replace('T', ' ')} UTC: the job has ended, its fires log skip-ended and run no agent; \`hbgen stop\` removes its entry\\n`), st.out);

    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    assert.is(U.table(), null);
  }));

test.run();
