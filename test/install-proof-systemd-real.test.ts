// needs root: it starts a real systemd user manager for a scratch user
// A REAL `systemd --user` (test/helpers/systemd-user.ts), for a scratch
// user of this suite's own (prefix hbgen-i26-test, made unique per run), hbgen running as
// that user with the real systemctl and the real heartbeat.sh (loginctl is the linger
// STAND-IN: no logind here):
// - install's check and the first wake go through `systemctl --user start` of the installed
//   service; the unit file stays the one installed;
// - a timer with Persistent=true (catchUp "once") whose stamp file is moved into the past
//   fires once when it is started again and the wake runs; with Persistent=false ("skip")
//   nothing is replayed, and a fire made late (the service started off the grid, as systemd
//   does on resume) is skip-late (the spec's grid is chosen so that now is 2–4 minutes
//   after a fire of the grid, on the real clock).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type Host, lines } from './helpers/lifecycle.ts';
import { realOrFail, startUserManager, type UserManager } from './helpers/systemd-user.ts';

const real = realOrFail(test, 'install-proof-systemd-real');
let M: UserManager;
const ok = (r: { code: number; out: string; err: string }, what: string) => assert.is(r.code, 0, `${what}: exit ${r.code}\n${r.out}${r.err}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unit = (f: string) => join(M.user.home, '.config/systemd/user', f);

real('setup: a real systemd user manager for this suite\'s own scratch user', async () => {
  M = await startUserManager('hbgen-i26-test');
  assert.match(M.systemctl('is-system-running').out, /^(running|degraded)\n$/);
});

real('install\'s check and the first wake run through `systemctl --user start` of the installed service', async () => {
  // A fire about half an hour away: none of its own during the test.
  const minute = (new Date().getUTCMinutes() + 30) % 60 || 30;
  const h = M.host({ schedule: { scheduler: 'systemd-user', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } }, timeout: '1m' });
  const r = M.hb(h, 'install', { yes: true, firstWake: true });
  ok(r, 'install');
  assert.match(r.out, new RegExp(`ok {4}scheduler run: systemctl --user start hbgen-docs\\.service: exit 0; the wrapper ran as ${M.user.name} \\(uid ${M.user.uid}\\), no terminal\\n`));
  assert.match(r.out, /\nfirst wake: started through the scheduler; waiting up to 1m for its outcome\nfirst wake: quiet after \d+ s\n/);
  const got = lines(names(h.spec).log);
  assert.ok(got.includes(`hbgen docs note smoke run as ${M.user.name} (uid ${M.user.uid}), no terminal`), got.join('\n'));
  assert.ok(got.includes('hbgen docs start wake 1 by hand') && got.at(-1) === 'hbgen docs quiet', got.join('\n'));
  // The unit the manager ran is the one installed, byte for byte, and it ran for real.
  assert.is(readFileSync(unit('hbgen-docs.service'), 'utf8'), readFileSync(join(names(h.spec).stateDir, 'host/hbgen-docs.service'), 'utf8'));
  const show = M.systemctl('show', 'hbgen-docs.service', '--property=Result', '--property=ExecMainStatus');
  assert.match(show.out, /Result=success\nExecMainStatus=0\n/);
  ok(M.hb(h, 'stop'), 'stop');
});

/** A spec on a 5-minute grid whose fires lie 3 minutes before now (so a fire now is late). */
function lateHost(name: string, catchUp: 'once' | 'skip'): Host {
  const m = new Date().getUTCMinutes();
  let minute = (((m - 3) % 5) + 5) % 5;
  if (minute === 0) minute = (((m - 2) % 5) + 5) % 5;
  return M.host({ name, catchUp, schedule: { scheduler: 'systemd-user', every: '5m', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } }, timeout: '1m', killAfter: '5s' });
}

for (const catchUp of ['once', 'skip'] as const) {
  real(`Persistent= per catchUp "${catchUp}": a stamp moved into the past fires once when the timer starts; the wrapper ${catchUp === 'once' ? 'runs the late wake' : 'logs skip-late'}`, async () => {
    const h = lateHost(`late-${catchUp}`, catchUp);
    ok(M.hb(h, 'install', { yes: true }), 'install');
    const timer = `hbgen-late-${catchUp}.timer`;
    assert.match(readFileSync(unit(timer), 'utf8'), new RegExp(`^Persistent=${catchUp === 'once' ? 'true' : 'false'}$`, 'm'));
    const was = lines(names(h.spec).log).length;
    const wasOut = lines(names(h.spec).agentLog).length;
    ok(M.systemctl('stop', timer), 'stop the timer');
    // The timer last elapsed an hour ago (its stamp file), so every fire since was missed.
    const stamps = join(M.user.home, '.local/share/systemd/timers');
    ok(M.as(['mkdir', '-p', stamps]), 'stamp folder');
    ok(M.as(['touch', '-d', '@' + String(Math.floor(Date.now() / 1000) - 3600), join(stamps, `stamp-${timer}`)]), 'stamp in the past');
    ok(M.systemctl('start', timer), 'start the timer');
    let got: string[] = [];
    for (let i = 0; i < 100; i++) {
      await sleep(200);
      got = lines(names(h.spec).log).slice(was).filter((l) => !l.includes(' note '));
      if (got.some((l) => / (quiet|skip-late|fail|error)/.test(l))) break;
    }
    await sleep(3000); // a second catch-up fire would have come by now
    got = lines(names(h.spec).log).slice(was);
    if (catchUp === 'once') {
      assert.equal(got, [`hbgen late-${catchUp} start wake 1`, `hbgen late-${catchUp} quiet`], 'one late wake, run');
      assert.equal(lines(names(h.spec).agentLog).slice(wasOut), [`hbgen late-${catchUp} start wake 1`, 'agent ran'], 'its agent ran');
    }
    else {
      assert.equal(got, [], 'Persistent=false: the missed fires are not replayed');
      // What systemd does on resume from suspend (a fire made late), done by hand: the service
      // started off the grid. The wrapper's lateness check skips it.
      ok(M.systemctl('start', `hbgen-late-${catchUp}.service`), 'start the service late');
      got = lines(names(h.spec).log).slice(was);
      assert.ok(got.length === 1 && /^hbgen late-skip skip-late [234]$/.test(got[0]!), `one skip-late line: ${got.join(' | ')}`);
    }
    ok(M.hb(h, 'stop'), 'stop');
  });
}

// catchUp "once" keeps a stamp of the timer's last fire; `hbgen stop` turns the timer off on
// purpose, so the fires missed while it was off are not owed: resume clears the stamp
// (`systemctl --user clean --what=state`) before it starts the timer, which then waits for
// its next fire. Before that, a timer resumed an hour after its last fire ran a wake at once.
real('catchUp "once": a timer that `hbgen stop` turned off and `hbgen resume` turns on an hour after its last fire replays nothing', async () => {
  const h = lateHost('late-resume', 'once');
  ok(M.hb(h, 'install', { yes: true }), 'install');
  const timer = 'hbgen-late-resume.timer';
  ok(M.hb(h, 'stop'), 'stop');
  const was = lines(names(h.spec).log).length;
  // The timer last elapsed an hour ago, before the stop (its stamp file, as systemd wrote it).
  const stamps = join(M.user.home, '.local/share/systemd/timers');
  ok(M.as(['mkdir', '-p', stamps]), 'stamp folder');
  ok(M.as(['touch', '-d', '@' + String(Math.floor(Date.now() / 1000) - 3600), join(stamps, `stamp-${timer}`)]), 'stamp in the past');
  const r = M.hb(h, 'resume', { yes: true });
  ok(r, 'resume');
  assert.match(r.out, new RegExp(`systemctl --user clean --what=state ${timer.replace('.', '\\.')}`), 'resume shows the clean');
  assert.match(M.systemctl('is-active', timer).out, /^active\n$/, 'the timer runs again');
  await sleep(5000); // a replayed fire starts within a second of the timer's start
  // Only resume's own check ran (its smoke run and the second run the lock turned away);
  // a replayed fire would be a scheduled wake, or would have taken the check's request.
  const got = lines(names(h.spec).log).slice(was).filter((l) => !l.includes(' note '));
  const check = ['hbgen late-resume start smoke', 'hbgen late-resume quiet smoke', 'hbgen late-resume skip-locked smoke'];
  assert.equal(got.filter((l) => !check.includes(l)), [], `no wake replayed at resume: ${got.join(' | ')}`);
  assert.ok(got.includes('hbgen late-resume start smoke'), `the check ran: ${got.join(' | ')}`);
  // The manager starts the timer with no last fire: the stamp is gone.
  assert.match(M.systemctl('show', timer, '--property=LastTriggerUSec').out, /^LastTriggerUSec=\n$/, 'no last fire');
  ok(M.hb(h, 'stop'), 'stop');
});

test.after(async () => {
  await M?.stop();
});

test.run();
