// Entries hbgen did not write that run an install's wrapper (src/host/audit/stray.ts): a
// unit in the user's unit folder and a LaunchAgent under another file name, on the recording
// STAND-INs of test/helpers/standins.ts. status names each (exit 1, never "healthy" nor just
// "stopped"), doctor fails on it, and stop removes hbgen's own entries but not the stray file,
// names it with how to remove it and does not call the install stopped (exit 1) until it is gone.
// The crontab line outside hbgen's block is tested with the real crontab(1) in
// test/lifecycle-cron.test.ts.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { runsWrapper } from '../src/host/backend.ts';
import { jobLinesOutsideBlocks } from '../src/host/cron/crontab.ts';
import { hb, makeHost } from './helpers/lifecycle.ts';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a unit of another name in ~/.config/systemd/user that runs the wrapper: status, doctor and stop name it; stop leaves it and exits 1 until it is gone', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const unit = join(h.home, '.config/systemd/user/my-copy.service');
  const bytes = `[Unit]\nDescription=my copy\n[Service]\nType=oneshot\nExecStart=/bin/sh ${n.wrapper}\n`;
  writeFileSync(unit, bytes);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, new RegExp(`problem  stray: ${esc(unit)} runs ${esc(n.wrapper)}, and hbgen did not write it: it fires wakes whatever hbgen says; run \`systemctl --user disable --now my-copy\\.service\` and delete ${esc(unit)}`), st.out);
  const d = await hb(h, 'doctor');
  assert.is(d.code, 1, d.out);
  assert.match(d.out, new RegExp(`FAIL  other entries: ${esc(unit)} runs `), d.out);

  const stop = await hb(h, 'stop');
  assert.is(stop.code, 1, stop.out + stop.err);
  assert.not.ok(existsSync(join(h.home, '.config/systemd/user/hbgen-docs.timer')), "hbgen's own timer is removed");
  assert.is(readFileSync(unit, 'utf8'), bytes, 'the stray unit is left byte for byte');
  assert.match(stop.err, new RegExp(`hbgen: ${esc(unit)} runs `));
  assert.match(stop.err, /hbgen: so "docs" is not stopped: hbgen's own entries are gone, but that entry still wakes it; remove it as said, then run `hbgen stop \S+` again\n/, stop.err);
  assert.not.match(stop.out, /hbgen: stopped "docs"/);
  const st2 = await hb(h, 'status');
  assert.is(st2.code, 1, st2.out);
  assert.match(st2.out, /problem  stray: /);
  rmSync(unit);
  const done = await hb(h, 'stop');
  assert.is(done.code, 0, done.out + done.err);
  assert.match(done.out, /already stopped/);
  const st3 = await hb(h, 'status');
  assert.match(st3.out, /stopped: there is no scheduler entry/);
});

test('a LaunchAgent of another file name that runs the wrapper: status, doctor and stop name it; a comment that names the path is no stray', async () => {
  const h = makeHost('launchd');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const agents = join(h.home, 'Library/LaunchAgents');
  mkdirSync(agents, { recursive: true });
  const plist = join(agents, 'com.me.copy.plist');
  writeFileSync(plist, `<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>Label</key><string>com.me.copy</string><key>ProgramArguments</key><array><string>/bin/sh</string><string>${n.wrapper}</string></array><key>StartInterval</key><integer>600</integer></dict></plist>\n`);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, new RegExp(`problem  stray: ${esc(plist)} runs ${esc(n.wrapper)}, and hbgen did not write it: it fires wakes whatever hbgen says; run \`launchctl bootout gui/\\d+ ${esc(plist)}\` and delete the file`), st.out);
  const d = await hb(h, 'doctor');
  assert.is(d.code, 1, d.out);
  assert.match(d.out, /FAIL {2}other entries: /);
  const stop = await hb(h, 'stop');
  assert.is(stop.code, 1, stop.out + stop.err);
  assert.ok(existsSync(plist), 'left for the person');
  assert.not.ok(existsSync(join(agents, 'dev.hbgen.docs.plist')), "hbgen's own LaunchAgent is removed");
  assert.match(stop.err, /so "docs" is not stopped/);
  rmSync(plist);
  assert.is((await hb(h, 'stop')).code, 0);
});

test('the wrapper is matched as a whole path, in a job line outside every hbgen block only', () => {
  const w = '/home/ada/.local/state/hbgen/docs/heartbeat.sh';
  assert.ok(runsWrapper(`7 * * * * /bin/sh ${w}`, w, []));
  assert.ok(runsWrapper(`7 * * * * /bin/sh '${w}' --now`, w, []));
  assert.ok(runsWrapper(`ExecStart=${w}`, w, []));
  assert.not.ok(runsWrapper(`7 * * * * /bin/sh ${w}.bak`, w, []), 'another file');
  assert.not.ok(runsWrapper(`7 * * * * /bin/sh /x${w}`, w, []), 'another folder');
  const table = Buffer.from(`# BEGIN hbgen docs\n7 * * * * /bin/sh ${w}\n# END hbgen docs\nMAILTO=${w}\n# 7 * * * * /bin/sh ${w}\n0 5 * * * mine\n9 * * * * /bin/sh ${w}\n# BEGIN hbgen other\n7 * * * * /bin/sh ${w}\n# END hbgen other\n`);
  assert.equal(jobLinesOutsideBlocks(table, (t) => runsWrapper(t, w, [])), [{ line: 6, text: `9 * * * * /bin/sh ${w}` }]);
});

test.run();
