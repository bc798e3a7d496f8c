// needs root: it creates scratch users (useradd); it starts the real cron daemon; it runs commands as other users (runuser)
// A fire's check of its own scheduler entry, through the real cron daemon: hbgen installs
// as a scratch user (real crontab(1)); the person then edits hbgen's block by hand (a line
// of their own inside it, the job still fires). A fire of the installed wrapper as cron
// starts it logs the note, cron's own fire at the entry's minute finds the same problem and
// notify is told once (HBGEN_EVENT=scheduler); status warns with what the latest fire found.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, whyNot } from './helpers/cronuser.ts';
import { nextCronMinute, withCronDaemon } from './helpers/crond.ts';
import { makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const why = whyNot() || (existsSync('/usr/sbin/cron') ? '' : 'no /usr/sbin/cron');
const real = realOrSkip(test, 'lifecycle-crond-entry', why);

real('real cron daemon: an edited block is a note at the fire that finds it, notify is told at the next (cron\'s own), status warns', () =>
  withCronDaemon(async () => {
    const U = cronUser('hbgen-crond-entry');
    U.set(null);
    const { at, minute } = nextCronMinute(25_000);
    const h = makeHost('cron', { schedule: { scheduler: 'cron', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
    const told = join(h.root, 'told');
    const prog = join(h.root, 'notify.sh');
    writeFileSync(prog, `#!/bin/sh\nprintf '%s %s\\n' "$HBGEN_EVENT" "$HBGEN_OUTCOME" >> ${told}\n`, { mode: 0o755 });
    rewriteSpec(h, { notify: [prog] });
    U.own(h);
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    const n = names(h.spec);
    const table = U.table()!.toString('utf8');
    assert.match(table, /# BEGIN hbgen docs\n/);
    // The person's own line inside hbgen's block: cron still runs the entry.
    U.set(Buffer.from(table.replace('# BEGIN hbgen docs\n', '# BEGIN hbgen docs\n# moved here by hand\n')));
    const calls = () => (existsSync(told) ? readFileSync(told, 'utf8').split('\n').filter(Boolean) : []);
    const notes = () => readFileSync(n.log, 'utf8').split('\n').filter((l) => l.includes(' note scheduler entry not as installed: '));

    // One fire as cron starts it (the crontab line's command, as the user, empty environment).
    const first = spawnSync('runuser', ['-u', U.name, '--', 'env', '-i', 'PATH=/usr/bin:/bin', '/bin/sh', join(n.stateDir, 'heartbeat.sh')], { encoding: 'utf8' });
    assert.is(first.status, 0, first.stderr);
    assert.equal(notes().map((l) => l.replace(/^\S+ /, '')), ["hbgen docs note scheduler entry not as installed: hbgen's block in the crontab differs from what it installed (nothing repaired; hbgen status, then hbgen install)"]);
    assert.equal(calls(), [], 'one fire: a note, no one told yet');

    // cron's own fire at the entry's minute finds the same block.
    const deadline = at + 45_000;
    while (notes().length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 500));
    assert.is(notes().length, 2, `no second note by ${new Date(deadline).toISOString()}; log: ${readFileSync(n.log, 'utf8')}`);
    assert.is(notes()[1]!.slice(0, 16), new Date(at).toISOString().slice(0, 16), "cron's fire at the planned minute");
    for (let i = 0; i < 20 && calls().length === 0; i++) await new Promise((res) => setTimeout(res, 250));
    assert.equal(calls(), ["scheduler note scheduler entry not as installed: hbgen's block in the crontab differs from what it installed"], 'the next fire still finds it: told once');

    const st = U.run(h, 'status');
    assert.match(st.out, /\n {2}warn {5}the fire of \S+ found its scheduler entry not as installed: hbgen's block in the crontab differs from what it installed; `hbgen install` puts it back\n/, st.out);

    // stop never removes lines someone edited: it says so and changes nothing.
    const refused = U.run(h, 'stop');
    assert.is(refused.code, 1, refused.err);
    assert.match(refused.err, /hbgen's block "docs", differ from what hbgen installed, so someone edited them; restore them or delete them yourself\n/);
    U.set(Buffer.from(table));
    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    assert.is(U.table(), null);
  }));

test.run();
