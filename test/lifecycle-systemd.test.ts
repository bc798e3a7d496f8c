// install / status / stop / resume / wake on the systemd-user path, against recording
// STAND-INS for systemctl and loginctl (first on PATH, under a temporary HOME) and the
// real heartbeat.sh (a STAND-IN wrapper only where a test makes the install check fail).
// Commands run in-process.
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { userInfo } from 'node:os';
import { names } from '../src/names.ts';
import { runtime } from '../generators/runtime.ts';
import { type Host, hb, lines, makeHost, rewriteSpec, sha, tree } from './helpers/lifecycle.ts';

const UNIT = 'hbgen-docs';
const unitDir = (h: Host) => join(h.home, '.config/systemd/user');
const stateDir = (h: Host) => names(h.spec).stateDir;
// Read-only commands, including stop's and status's look at the other schedulers by name.
// The install check's run through the scheduler, as the real wrapper logs it here.
const NOTE = () => `hbgen docs note smoke run as ${userInfo().username} (uid ${process.getuid!()}), no terminal`;
const SMOKE4 = () => ['hbgen docs quiet smoke', 'hbgen docs skip-locked smoke', 'hbgen docs start smoke', NOTE()].sort();
const changing = (calls: string[]) => calls.filter((c) => !/ (show|show-environment|is-enabled|is-active|list-timers|list-units|show-user|print) /.test(`${c} `));
const snapshot = (h: Host) => ({ home: tree(h.home), repo: tree(h.repo), state: tree(names(h.spec).stateDir), standins: tree(join(h.tools.bin, 'state')) });

test('stand-in systemctl: --dry-run, a refused answer, an empty answer and no terminal change nothing', async () => {
  const h = makeHost('systemd-user');
  const before = snapshot(h);
  const dry = await hb(h, 'install', { dryRun: true });
  assert.is(dry.code, 0, dry.err);
  assert.match(dry.out, /--dry-run: nothing was changed on this host/);
  for (const [opts, msg] of [
    [{ tty: true, answer: 'n' }, /you did not confirm, so nothing was changed/],
    [{ tty: true, answer: '' }, /you did not confirm/],
    [{ tty: true }, /you did not confirm/],
    [{}, /there is no terminal to ask for consent, so nothing was changed on this host; .*--yes/],
  ] as const) {
    const r = await hb(h, 'install', opts);
    assert.is(r.code, 1, JSON.stringify(opts));
    assert.match(r.err, msg);
    if ('tty' in opts) assert.match(r.err, /Install "docs" on this host with these settings\?\n {2}1\) install as shown\n[\s\S]* {2}5\) cancel\n\[1-5, y\/N\] /);
  }
  assert.equal(snapshot(h), before, 'HOME, repo and the stand-ins\' state are byte for byte as before');
  assert.equal(changing(h.tools.calls()), [], 'only read-only commands ran');
});

test('stand-in systemctl: the panel names repo, billing, hours, interval, timeout, scheduler, every file and command, the undo and the caveats', async () => {
  const h = makeHost('systemd-user');
  const r = await hb(h, 'install', { dryRun: true });
  const o = r.out;
  for (const want of [
    `  repo       ${h.repo}`,
    '  billing    custom command: not checked, no API key reaches it; check your plan',
    // The fields left out, on one row.
    '  none       args, model, instructions, budget, cap, gate, notify, ping (docs/spec.md)',
    '  interval   every 30m: fires at :07 and :37 past each hour, in the window 08:00–23:00 Europe/Berlin, every day',
    '  timeout    10m, then TERM, and KILL 30s later',
    '  scheduler  systemd-user (hbgen-docs.service, hbgen-docs.timer)',
    `${stateDir(h)}/heartbeat.sh`,
    '  systemctl --user daemon-reload\n  systemctl --user clean --what=state hbgen-docs.timer   (forget missed fires)\n  systemctl --user enable --now hbgen-docs.timer\n  loginctl enable-linger ada   (lingering is off: the timer would stop at logout)\n',
    "  systemctl --user start hbgen-docs.service   (through the user manager, the installed unit unchanged; the state folder's smoke.request makes it a smoke run)",
    `  env -i /bin/sh ${stateDir(h)}/heartbeat.sh --smoke   (at the same time: it must skip on the lock)`,
    `undo it later with: hbgen stop ${h.specFile}`,
    'catchUp "once": a missed fire runs once at resume or boot, in your hours',
  ]) {
    assert.ok(o.includes(want), `panel lacks ${JSON.stringify(want)}:\n${o}`);
  }
  // A path under HOME is written ~/…, in the column of the file list.
  assert.match(o, /\n {2}new in ~\/\.config\/systemd\/user\/: hbgen-docs\.service, hbgen-docs\.timer\n/, o);
});

test('stand-in systemctl: --yes installs the units, runs exactly these commands, checks itself and records state.json', async () => {
  const h = makeHost('systemd-user');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.equal(changing(h.tools.calls()), ['systemctl --user daemon-reload', `systemctl --user clean --what=state ${UNIT}.timer`, `systemctl --user enable --now ${UNIT}.timer`, 'loginctl enable-linger ada', `systemctl --user start ${UNIT}.service`]);
  for (const u of ['service', 'timer']) {
    const installed = join(unitDir(h), `${UNIT}.${u}`);
    assert.is(readFileSync(installed, 'utf8'), readFileSync(join(stateDir(h), 'host', `${UNIT}.${u}`), 'utf8'), `${u}: the host file is the state folder's copy`);
    assert.is(tree(unitDir(h))[`${UNIT}.${u}`]!.split(' ')[1], '644');
  }
  assert.ok(h.tools.enabled(`${UNIT}.timer`) && h.tools.active(`${UNIT}.timer`) && h.tools.has('linger'));
  for (const check of [/ok {4}scheduler run: systemctl --user start hbgen-docs\.service: exit 0; the wrapper ran as \S+ \(uid \d+\), no terminal\n/, /ok {4}exit status: second run exit 0/, /ok {4}lock: the second run found the lock held and logged skip-locked smoke/, /ok {4}runtime\.log: .* grew by 4 lines/, /ok {4}state\.json: .* status installed/, /ok {4}scheduler: is-enabled hbgen-docs\.timer: enabled; list-timers: Tue 2026-12-01 08:07:00 UTC/]) {
    assert.match(r.out, check);
  }
  assert.equal(lines(join(stateDir(h), 'runtime.log')).sort(), SMOKE4());
  const s = JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8'));
  assert.is(s.status, 'installed');
  assert.is(s.format, 2);
  // The host scheduler runs the wakes, never the agent itself.
  // The seed's ownership record {type, self_schedule: false, detail, ids, note}.
  assert.equal(Object.keys(s.scheduler), ['type', 'self_schedule', 'detail', 'ids', 'note']);
  assert.equal({ ...s.scheduler, detail: undefined, note: undefined }, { type: 'systemd-user', self_schedule: false, detail: undefined, ids: { service: `${UNIT}.service`, timer: `${UNIT}.timer` }, note: undefined });
  assert.match(s.scheduler.detail, new RegExp(`^systemd-user \\(${UNIT}\\.service, ${UNIT}\\.timer\\): \\S`));
  assert.ok(s.scheduler.note === null || typeof s.scheduler.note === 'string', 'note is a string or null');
  assert.not.ok('detail' in s || 'note' in s, 'detail and note live inside the scheduler record only');
  assert.equal(s.ids, { service: `${UNIT}.service`, timer: `${UNIT}.timer` });
  assert.equal(s.heart, { sha256: sha(join(h.repo, 'HEART.md')) }, "HEART.md's sha256 at install");
  assert.is(s.hbgenVersion.length > 0, true);
  assert.match(s.specHash, /^[0-9a-f]{64}$/);
  assert.equal(s.bin, { path: h.bin, realpath: h.bin, interpreter: '/bin/sh' });
  assert.is(s.harness, 'command');
  assert.is(s.billing.result, 'not checked');
  assert.equal(s.systemd, { lingerBefore: 'no', lingerEnabledByHbgen: true });
  assert.equal(s.createdDirs, [join(h.home, '.config'), join(h.home, '.config/systemd'), unitDir(h)]);
  const recorded: { path: string; sha256: string; mode: number }[] = [...s.files, ...s.hostFiles];
  // heartbeat.sh, window.sh, the runtime they pin, and the host copies of the units, each recorded.
  assert.is(recorded.length, 7, recorded.map((r) => r.path).join(' '));
  const rt = runtime();
  assert.equal(recorded.find((r) => r.path === join(stateDir(h), rt.name)), { path: join(stateDir(h), rt.name), sha256: rt.sha256, mode: 0o444 }, 'the runtime: read-only, its SHA-256 the one hbgen ships');
  for (const f of recorded) {
    assert.is(sha(f.path), f.sha256, f.path);
    assert.is(statSync(f.path).mode & 0o7777, f.mode, `${f.path} mode`);
  }
  assert.is(tree(stateDir(h))['state.json']!.split(' ')[1], '600');
  assert.is(statSync(stateDir(h)).mode & 0o7777, 0o700, 'the state folder is created 0700');
  assert.not.ok(existsSync(join(h.home, '.hbgen.lock')), 'the operation lock is gone');
});

test('stand-in systemctl: installing twice is a no-op; a changed spec replaces the units and starts the timer afresh (disable --now, daemon-reload, enable --now: never restart)', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const before = snapshot(h);
  h.tools.clearCalls();
  const again = await hb(h, 'install', { yes: true });
  assert.is(again.code, 0);
  assert.is(again.out, `hbgen: "docs" is already installed as ${h.specFile} says; nothing changed\n`);
  assert.equal(changing(h.tools.calls()), []);
  assert.equal(snapshot(h), before);

  rewriteSpec(h, { schedule: { scheduler: 'systemd-user', every: '1h', minute: 12, hours: { start: '09:00', end: '17:00', timezone: 'Europe/Berlin' } } });
  h.tools.clearCalls();
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\n {2}replaced in ~\/\.config\/systemd\/user\/: [^\n]*\bhbgen-docs\.timer\b/, r.out);
  assert.equal(changing(h.tools.calls()), [`systemctl --user disable --now ${UNIT}.timer`, 'systemctl --user daemon-reload', `systemctl --user clean --what=state ${UNIT}.timer`, `systemctl --user enable --now ${UNIT}.timer`, `systemctl --user start ${UNIT}.service`]);
  assert.ok(h.tools.calls().indexOf(`systemctl --user list-units --all --plain --no-legend -- ${UNIT}.timer`) > h.tools.calls().indexOf('systemctl --user daemon-reload'), 'it looked that systemd forgot the timer before it started it');
  assert.match(readFileSync(join(unitDir(h), `${UNIT}.timer`), 'utf8'), /OnCalendar=\*-\*-\* 09\.\.16:12:00 Europe\/Berlin/);
  assert.equal(readdirNames(unitDir(h)), [`${UNIT}.service`, `${UNIT}.timer`], 'still one entry');
});

function readdirNames(d: string): string[] {
  return Object.keys(tree(d)).filter((k) => !k.includes('/'));
}

test('stand-in systemctl: a foreign unit of the same name is refused and left untouched', async () => {
  const h = makeHost('systemd-user');
  mkdirSync(unitDir(h), { recursive: true });
  const mine = join(unitDir(h), `${UNIT}.timer`);
  writeFileSync(mine, '[Timer]\nOnCalendar=daily\n');
  const hash = sha(mine);
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`hbgen: ${mine} already exists and hbgen did not write it; hbgen never overwrites such a file: move it away`));
  assert.match(r.err, /hbgen: nothing was changed on this host\n$/);
  assert.is(sha(mine), hash);
  assert.equal(snapshot(h), before);
  assert.equal(changing(h.tools.calls()), []);
});

test('stand-in systemctl: a unit of the same name elsewhere on the unit path (a second entry) is refused', async () => {
  const h = makeHost('systemd-user');
  const other = join(h.home, '.local/share/systemd/user');
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, `${UNIT}.service`), '[Service]\nExecStart=/bin/true\n');
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`${other}/${UNIT}\\.service is another unit named ${UNIT}\\.service: a second copy in ${unitDir(h)} would shadow it, giving two entries for one name; remove`));
  assert.equal(snapshot(h), before);
});

test('stand-in systemctl: a second spec with the same name in another repo is refused; the first install is untouched', async () => {
  const a = makeHost('systemd-user');
  assert.is((await hb(a, 'install', { yes: true })).code, 0);
  const b = makeHost('systemd-user');
  b.home = a.home;
  b.env = { ...b.env, HOME: a.home, PATH: `${a.tools.bin}:/usr/bin:/bin` };
  const before = snapshot(a);
  const r = await hb(b, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`${unitDir(a)}/${UNIT}\\.service was written by another hbgen install of a spec named "docs" \\(${stateDir(b)}/state\\.json does not record it\\); stop that install with \`hbgen stop\` and its spec, or give this spec another name`));
  assert.equal(snapshot(a), before);
  assert.not.ok(existsSync(stateDir(b)));
});

test('stand-in systemctl without a user bus: refused before anything is written', async () => {
  const h = makeHost('systemd-user');
  h.tools.flag('nobus');
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /`systemctl --user` cannot reach your systemd user manager \(Failed to connect to bus: No medium found\); run hbgen from a login session of ada \(not su or sudo/);
  assert.equal(snapshot(h), before);
});

test('stand-in systemctl, stand-in wrapper: a failing smoke test (wrapper exits 78) undoes a fresh install exactly', async () => {
  const h = makeHost('systemd-user');
  h.wrapper = { smokeExit: 78 };
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.out, /FAIL {2}scheduler run: systemctl --user start hbgen-docs\.service: exit 1 \(Job for hbgen-docs\.service failed because the control process exited with error code\.\), and the wrapper logged no smoke run of its own \(no line\)/);
  assert.match(r.out, /FAIL {2}exit status: second run exit 78 \(hbgen docs: agent binary .* is missing or not executable\)/);
  assert.match(r.out, /FAIL {2}runtime\.log: .* grew by 0 lines \(expected start smoke, quiet smoke, skip-locked smoke\)/);
  assert.match(r.err, /the install check failed \(scheduler run, exit status, lock, runtime\.log\), so "docs" is not installed\nhbgen: hbgen undid everything it did: the host is as it was before\n/);
  assert.equal(snapshot(h), before, 'HOME (units, .config), repo (no state folder) and the scheduler as before');
  assert.equal(changing(h.tools.calls()), [
    'systemctl --user daemon-reload',
    `systemctl --user clean --what=state ${UNIT}.timer`,
    `systemctl --user enable --now ${UNIT}.timer`,
    'loginctl enable-linger ada',
    `systemctl --user start ${UNIT}.service`,
    'loginctl disable-linger ada',
    `systemctl --user disable --now ${UNIT}.timer`,
    'systemctl --user daemon-reload',
  ]);
});

test('stand-in systemctl, stand-in wrapper: a failing smoke test on a re-install restores the previous install byte for byte', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const before = snapshot(h);
  rewriteSpec(h, { timeout: '20m' });
  h.wrapper = { smokeExit: 78 };
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out);
  assert.match(r.err, /hbgen undid everything it did/);
  assert.equal(snapshot(h), before, 'old wrapper, units, state.json, runtime.log and timer state are back');
});

test('stand-in systemctl: a failing `enable --now` undoes everything before it', async () => {
  const h = makeHost('systemd-user');
  h.tools.flag('fail-enable', 'Failed to enable unit: Access denied');
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /installing failed: `systemctl --user enable --now hbgen-docs\.timer` failed \(Failed to enable unit: Access denied\)/);
  assert.match(r.err, /hbgen undid everything it did: the host is as it was before/);
  assert.equal(snapshot(h), before);
});

test('stand-in systemctl: status is healthy (exit 0), then reports drift, a missing binary, an orphan, a stale lock (exit 1 each)', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  let s = await hb(h, 'status');
  assert.is(s.code, 0, s.out);
  assert.match(s.out, /^hbgen status: "docs" \(systemd-user\), installed at /);
  assert.match(s.out, /ok {7}hbgen-docs\.timer is enabled and active\n/);
  assert.match(s.out, /ok {7}next fire: Tue 2026-12-01 08:07:00 UTC\n/);
  assert.match(s.out, /note {5}last outcome: no wake logged yet/);
  assert.match(s.out, /\nhealthy\n$/);

  const w = join(stateDir(h), 'heartbeat.sh');
  const orig = readFileSync(w);
  // A state-folder file hbgen wrote, edited: status puts the installed bytes back,
  // and says it as a problem: someone wrote hbgen's own file, until an install.
  appendFileSync(w, '# edited by hand\n');
  s = await hb(h, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, new RegExp(`problem {2}tampered: ${w} differed from what hbgen installed \\(changed\\); hbgen put the installed bytes back, but only a process with your rights could have changed it`));
  assert.ok(readFileSync(w).equals(orig), 'the wrapper is as installed again');
  rmSync(join(stateDir(h), 'window.sh'));
  s = await hb(h, 'status');
  assert.match(s.out, /problem {2}tampered: .*window\.sh differed from what hbgen installed \(missing\)/);
  assert.is(s.code, 1);
  assert.is((await hb(h, 'install', { yes: true })).code, 0, 'an install clears the record');
  assert.is((await hb(h, 'status')).code, 0);

  rmSync(h.bin);
  s = await hb(h, 'status');
  assert.is(s.code, 1);
  assert.match(s.out, new RegExp(`problem  missing binary: agent\\.bin: ${h.bin} does not exist; if you start the agent through a shell alias or function`));
  writeFileSync(h.bin, '#!/bin/sh\necho agent ran\n');
  chmodSync(h.bin, 0o755);

  mkdirSync(join(stateDir(h), 'heartbeat.lock.d'));
  writeFileSync(join(stateDir(h), 'heartbeat.lock.d/owner'), '999999 1700000000\n');
  s = await hb(h, 'status');
  assert.is(s.code, 1);
  assert.match(s.out, /problem {2}stale lock: .*heartbeat\.lock\.d: its owner PID 999999 is not running; `hbgen stop` clears it/);
  rmSync(join(stateDir(h), 'heartbeat.lock.d'), { recursive: true });

  rmSync(join(unitDir(h), `${UNIT}.timer`));
  s = await hb(h, 'status');
  assert.is(s.code, 1);
  assert.match(s.out, /problem {2}orphan: .*hbgen-docs\.timer is missing, so systemd has no hbgen-docs\.timer; run `hbgen install` to put it back/);
  assert.match(s.out, /problem {2}orphan: state\.json says installed, but hbgen-docs\.timer is not-found and active/);

  // The orphan is simply re-created.
  h.tools.clearCalls();
  const again = await hb(h, 'install', { yes: true });
  assert.is(again.code, 0, again.err);
  assert.match(again.out, /\n {2}new in ~\/\.config\/systemd\/user\/: [^\n]*\bhbgen-docs\.timer\b/, again.out);
  assert.ok(changing(h.tools.calls()).includes(`systemctl --user enable --now ${UNIT}.timer`));
  assert.is((await hb(h, 'status')).code, 0);
});

test('stand-in systemctl: stop removes exactly what install added, keeps log and state, and says "already stopped" the second time', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  const before = { home: tree(h.home), standins: tree(join(h.tools.bin, 'state')) };
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  h.tools.clearCalls();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.equal(changing(h.tools.calls()), [`systemctl --user disable --now ${UNIT}.timer`, 'systemctl --user daemon-reload', 'loginctl disable-linger ada']);
  assert.equal({ home: tree(h.home), standins: tree(join(h.tools.bin, 'state')) }, before, 'HOME (incl. the .config folders install created) and timer/linger state as before');
  const s = JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8'));
  assert.is(s.status, 'stopped');
  assert.ok(existsSync(join(stateDir(h), 'runtime.log')));
  const again = await hb(h, 'stop');
  assert.is(again.code, 0);
  assert.match(again.out, /"docs" is already stopped; nothing changed/);
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /stopped: there is no scheduler entry/);
});

test('stand-in systemctl: install → stop → install cycles leave identical bytes; resume installs the spec file as it is now', async () => {
  const h = makeHost('systemd-user');
  const trees: string[] = [];
  for (let i = 0; i < 3; i++) {
    assert.is((await hb(h, 'install', { yes: true })).code, 0);
    const t = { home: tree(h.home), state: tree(stateDir(h)) };
    delete t.state['runtime.log'];
    delete t.state['state.json'];
    trees.push(JSON.stringify(t));
    assert.is((await hb(h, 'stop')).code, 0);
  }
  assert.is(trees[1], trees[0]);
  assert.is(trees[2], trees[0]);

  const installed = readFileSync(join(stateDir(h), 'heartbeat.sh'));
  rewriteSpec(h, { timeout: '20m' });
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /changed since the recorded install; resume installs the file as it is now/);
  assert.not.ok(readFileSync(join(stateDir(h), 'heartbeat.sh')).equals(installed), 'the edited file, not the recorded spec');
  assert.is((await hb(h, 'status')).code, 0, 'status: healthy, what runs is the spec file');
});

test('stand-in systemctl: wake runs one heartbeat through the installed wrapper (--now) and returns its status', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const r = await hb(h, 'wake');
  assert.is(r.code, 0);
  const log = lines(join(stateDir(h), 'runtime.log'));
  assert.equal(log.slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs quiet']);
  assert.equal(lines(join(stateDir(h), 'agent.log')).slice(-2), ['hbgen docs start wake 1 by hand', 'agent ran']);
  writeFileSync(h.bin, '#!/bin/sh\nexit 3\n');
  assert.is((await hb(h, 'wake')).code, 3);
  const st = await hb(h, 'status');
  assert.match(st.out, /last outcome: fail 3 at /);
});

test('stand-in systemctl: stop ends a heartbeat running now (TERM to its process group) and clears its lock', async () => {
  const h = makeHost('systemd-user', { lock: 'mkdir', killAfter: '2s' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\nsleep 60\n');
  const w = join(stateDir(h), 'heartbeat.sh');
  const child = spawn('/bin/sh', [w, '--now'], { detached: true, stdio: 'ignore' });
  const exited = new Promise<number | null>((res) => child.on('exit', (c, sig) => res(c ?? (sig ? -1 : null))));
  const lockOwner = join(stateDir(h), 'heartbeat.lock.d/owner');
  for (let i = 0; i < 100 && !existsSync(lockOwner); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(lockOwner), 'the wrapper holds the lock');
  const st = await hb(h, 'status');
  assert.match(st.out, /a heartbeat is running now \(.*held by PID \d+/);
  const t0 = Date.now();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /sent TERM to the heartbeat running now \(PID \d+ and its process group\)/);
  assert.is(await exited, 143, 'the wrapper ended on the TERM (exit 143), not on a KILL');
  assert.not.match(r.out, /sent KILL/);
  assert.ok(Date.now() - t0 < 10_000);
  assert.not.ok(existsSync(join(stateDir(h), 'heartbeat.lock.d')), 'lock released');
  assert.match(readFileSync(join(stateDir(h), 'runtime.log'), 'utf8'), / hbgen docs fail 143 signal TERM\n$/);
});

test('stand-in systemctl: stop clears a stale lock and refuses to delete a unit changed after install', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  mkdirSync(join(stateDir(h), 'heartbeat.lock.d'));
  writeFileSync(join(stateDir(h), 'heartbeat.lock.d/owner'), `${process.pid} 1700000000\n`);
  utimesSync(join(stateDir(h), 'heartbeat.lock.d'), 1700000000, 1700000000);
  const unit = join(unitDir(h), `${UNIT}.service`);
  appendFileSync(unit, '# mine now\n');
  const hash = sha(unit);
  const refused = await hb(h, 'stop');
  assert.is(refused.code, 1);
  assert.match(refused.err, new RegExp(`${unit} was changed after hbgen installed it \\(its sha256 differs from state\\.json\\); hbgen will not delete a file it did not write`));
  assert.is(sha(unit), hash);
  assert.ok(h.tools.enabled(`${UNIT}.timer`), 'nothing was stopped');
  rmSync(unit);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  // The owner PID is alive (this test process) but is not the wrapper: stale, never signalled.
  assert.match(r.out, /removed the stale lock .*heartbeat\.lock\.d \(its owner PID \d+ is now another program \(.*\), not this install's heartbeat\.sh\)/);
  assert.not.match(r.out, /sent TERM/);
  assert.not.ok(existsSync(join(stateDir(h), 'heartbeat.lock.d')));
});

// A wake of the installed (real) wrapper running in the background, as the scheduler starts it.
function startWake(h: Host): { exited: Promise<number | null> } {
  const child = spawn('/bin/sh', [join(stateDir(h), 'heartbeat.sh'), '--now'], { detached: true, stdio: 'ignore' });
  return { exited: new Promise((res) => child.on('exit', (c, sig) => res(c ?? (sig ? -1 : null)))) };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(ok(), what);
}

const logOf = (h: Host) => join(stateDir(h), 'runtime.log');
const readLog = (h: Host) => (existsSync(logOf(h)) ? readFileSync(logOf(h)) : Buffer.alloc(0));
const agentLogOf = (h: Host) => join(stateDir(h), 'agent.log');
const readAgentLog = (h: Host) => (existsSync(agentLogOf(h)) ? readFileSync(agentLogOf(h)) : Buffer.alloc(0));
// Everything but runtime.log and agent.log, which a running wake keeps writing.
const allButLog = (h: Host) => {
  const s = snapshot(h);
  delete s.state['runtime.log'];
  delete s.state['agent.log'];
  return s;
};

test('stand-in systemctl: a re-install waits for a wake running now, then installs; runtime.log and agent.log keep every byte the wake wrote', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  // The agent writes all through the install, so a cut log would lose some of its ticks. It
  // runs 12 s, well inside the install's 30 s wait: on a busy machine install's own checks
  // take seconds before it looks, and a wake already over would not test the wait.
  writeFileSync(h.bin, '#!/bin/sh\ni=0\nwhile [ $i -lt 12 ]; do echo "tick $i"; i=$((i+1)); sleep 1; done\n');
  const wake = startWake(h);
  await until('the wake is running', () => readAgentLog(h).includes('tick 0'));
  rewriteSpec(h, { timeout: '20m' });
  const oldWrapper = readFileSync(join(stateDir(h), 'heartbeat.sh'));
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /^hbgen: a heartbeat of "docs" is running now \(PID \d+, started \d{4}-\d\d-\d\dT[\d:.]+Z\); waiting up to 30 s for it to end before changing anything$/m);
  assert.is(await wake.exited, 0);
  const log = lines(logOf(h));
  const ticks = Array.from({ length: 12 }, (_, i) => `tick ${i}`);
  assert.equal(log.filter((l) => !l.includes('smoke') && !l.includes('skip-locked')).slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs quiet'], "the wake's lines");
  assert.equal(lines(agentLogOf(h)), ['hbgen docs start wake 1 by hand', ...ticks], "every line of the agent's output, in order");
  assert.ok(log.indexOf('hbgen docs quiet') < log.lastIndexOf('hbgen docs start smoke'), 'the install check ran after the wake ended');
  assert.not.ok(readFileSync(join(stateDir(h), 'heartbeat.sh')).equals(oldWrapper), 'the changed wrapper is installed');
  assert.is(JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8')).spec.timeout, '20m');
});

test('stand-in systemctl: a re-install refuses when the wake is still running after the wait, and changes nothing', async () => {
  const h = makeHost('systemd-user', { killAfter: '2s' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\necho agent started\nsleep 60\n');
  const wake = startWake(h);
  await until('the wake is running', () => readAgentLog(h).includes('agent started'));
  rewriteSpec(h, { timeout: '20m' });
  const before = allButLog(h);
  const logBefore = readLog(h);
  const agentLogBefore = readAgentLog(h);
  h.tools.clearCalls();
  // A host clock 60 times as fast: the 30 s wait passes in half a second.
  const t0 = Date.now();
  const r = await hb(h, 'install', { yes: true, now: () => new Date(t0 + (Date.now() - t0) * 60) });
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /hbgen: a heartbeat of "docs" is running now \(PID (\d+), started [^)]+\); waiting up to 30 s/);
  const pid = /running now \(PID (\d+)/.exec(r.out)![1];
  assert.match(r.err, new RegExp(`^hbgen: a heartbeat is running now \\(PID ${pid}, started \\d{4}-[^)]+\\); retry after it ends, or \`hbgen stop ${h.specFile}\` ends it\\nhbgen: nothing was changed on this host\\n$`));
  assert.ok(readLog(h).equals(logBefore), 'runtime.log holds exactly what the wake wrote');
  assert.ok(readAgentLog(h).equals(agentLogBefore), 'agent.log holds exactly what the agent wrote');
  assert.equal(allButLog(h), before, 'the old wrapper, units, state.json and timer state as they were');
  assert.equal(changing(h.tools.calls()), []);
  assert.is((await hb(h, 'stop')).code, 0);
  assert.is(await wake.exited, 143);
  const log = lines(logOf(h));
  assert.equal(log.slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs fail 143 signal TERM'], 'the wake ran to its own end, its log intact');
  assert.equal(lines(agentLogOf(h)), ['hbgen docs start wake 1 by hand', 'agent started']);
});

test('stand-in systemctl: a re-install whose install check fails keeps runtime.log whole and says the earlier install is unchanged and still active', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  const logBefore = readLog(h);
  const before = allButLog(h);
  rewriteSpec(h, { timeout: '20m' });
  h.tools.flag('fail-list-timers', 'Failed to list timers: Connection timed out');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /ok {4}lock: the second run found the lock held/);
  assert.match(r.out, /FAIL {2}scheduler: /);
  assert.match(r.err, /^hbgen: the install check failed \(scheduler\), so these settings of "docs" are not installed\nhbgen: hbgen undid everything it did: the earlier install of "docs" is unchanged and still active\n$/);
  assert.not.match(r.err, /"docs" is not installed/);
  const after = readLog(h);
  assert.ok(after.length > logBefore.length && after.subarray(0, logBefore.length).equals(logBefore), 'runtime.log only grew');
  assert.equal(lines(logOf(h)).slice(-4).sort(), SMOKE4(), "the check's own lines stay, as history");
  h.tools.flag('fail-list-timers', null);
  assert.equal(allButLog(h), before, 'the old wrapper, units, state.json and timer state are back');
  assert.is(JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8')).status, 'installed');
  assert.ok(h.tools.enabled(`${UNIT}.timer`) && h.tools.active(`${UNIT}.timer`));
});

/**
 * An install whose state folder reaches into the repo, as one made before hbgen refused that:
 * made outside the repo through a linked parent folder, then moved into the repo
 * with the link pointed after it. The spec and every path hbgen recorded stay as they were.
 */
async function inRepoInstall(h: Host): Promise<void> {
  const outside = join(h.root, 'real-parent');
  mkdirSync(outside);
  symlinkSync(outside, join(h.root, 'parent'));
  rewriteSpec(h, { stateDir: join(h.root, 'parent/state') });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  renameSync(outside, join(h.repo, 'agent-parent'));
  rmSync(join(h.root, 'parent'));
  symlinkSync(join(h.repo, 'agent-parent'), join(h.root, 'parent'));
}

test('stand-in systemctl: a state.json inside the repo (agent-writable, reached through a link) cannot make stop turn lingering off; stop says what to run', async () => {
  const h = makeHost('systemd-user');
  await inRepoInstall(h);
  h.tools.clearCalls();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.equal(changing(h.tools.calls()), [`systemctl --user disable --now ${UNIT}.timer`, 'systemctl --user daemon-reload']);
  assert.match(r.out, /state\.json says install turned lingering on; it sits inside the repo, where the agent can write, so hbgen leaves lingering as it is: run `loginctl disable-linger ada` if nothing else needs it/);
});

test('stand-in systemctl: status exits 1 after three failing wakes in a row, naming them and the latest output (from agent.log); an ok wake clears it', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\necho "Not logged in · Please run /login"\nexit 1\n');
  for (let i = 0; i < 2; i++) assert.is((await hb(h, 'wake')).code, 1);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, `two failures are not yet a streak: ${st.out}`);
  assert.is((await hb(h, 'wake')).code, 1);
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}failing: the last 3 wakes in a row ended fail, denied, timeout or error \(latest: fail 1 at [^)]+\); its agent's last output \(\S+\/agent\.log\): "Not logged in · Please run \/login"; see .*runtime\.log, fix it, then check with `hbgen wake`/);
  writeFileSync(h.bin, '#!/bin/sh\necho fine\n');
  assert.is((await hb(h, 'wake')).code, 0);
  assert.is((await hb(h, 'status')).code, 0);
});

test('stand-in systemctl: the cap reached is unhealthy and says how to go on', async () => {
  const h = makeHost('systemd-user', { cap: 1 });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  const w = await hb(h, 'wake');
  assert.is(w.code, 0);
  assert.match(w.out, /^wake: skip-cap 1 of 1 wakes done \(see /m);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}cap reached: 1 of 1 wakes done, so every wake is skipped \(skip-cap\) while the scheduler still fires; `hbgen resume --reset-cap` zeroes the counter after the panel, or raise "cap"/);
  // resume --reset-cap: the panel says it, a refused question changes nothing, --yes zeroes it.
  const no = await hb(h, 'resume', { resetCap: true, tty: true, answer: 'n' });
  assert.is(no.code, 1);
  assert.match(no.out, /and it sets the wake counter .*wakes to 0 \(1 of 1 wakes done\); the install itself is already as recorded/);
  assert.is(readFileSync(join(stateDir(h), 'wakes'), 'utf8'), '1\n');
  const yes = await hb(h, 'resume', { resetCap: true, yes: true });
  assert.is(yes.code, 0, yes.err);
  assert.match(yes.out, /the wake counter of "docs" is 0 again: up to 1 wakes from now/);
  assert.is((await hb(h, 'status')).code, 0);
  assert.match((await hb(h, 'wake')).out, /^wake 1: quiet after \d+ s/m);
});

test('stand-in systemctl: a fire the plan expected that left no line is a missed fire; an orphan shows no next fire', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  const t0 = Date.now();
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /ok {7}next fire: /);
  // Two hours later by the clock status reads: the stand-in timer never fired.
  st = await hb(h, 'status', { now: () => new Date(t0 + 2 * 3600_000) });
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}missed fire: the scheduler was due to fire at \d{4}-\d\d-\d\d \d\d:(07|37) UTC \([^)]+\) and nothing was logged \(\d fires in the last 24 h left no line\); likely: the machine was asleep or off/);
  // The timer disabled by hand: an orphan, and no next fire (it will never fire).
  rmSync(join(unitDir(h), `${UNIT}.timer`));
  st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /problem {2}orphan: /);
  assert.not.match(st.out, /next fire/);
  assert.not.match(st.out, /missed fire/, 'no fire is expected of an entry that is not there');
});

test('stand-in systemctl: status shows the install at a glance (repo, hours, wrapper, last wake, HEART.md, STATE.md next and blockers); install ends with the brief', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(join(h.repo, 'HEART.md'), '# HEART\n\nMission: docs.\n');
  writeFileSync(join(h.repo, 'STATE.md'), '# STATE\n\n## Done\n\n- setup\n\n## Next\n\n- Write the install guide\n- later\n\n## Blockers\n\n- waiting for the API key decision\n');
  const inst = await hb(h, 'install', { yes: true });
  assert.match(inst.out, /hbgen: installed "docs".*\n {2}HEART\.md is live: edit it any time, the next heartbeat reads it\.\n {2}LOG\.md is the human timeline .*\n {2}.* holds machine state and raw logs \(runtime\.log\)\.\n {2}`hbgen status` audits without doing work; `hbgen stop` keeps that state for `hbgen resume`\.\n/);
  let st = await hb(h, 'status');
  assert.match(st.out, /\n {2}HEART\.md +no wake has read it yet\n/);
  const rec = JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8'));
  assert.match(rec.heart.sha256, /^[0-9a-f]{64}$/, 'HEART.md hashed at install');
  assert.equal({ healthy: rec.health.healthy, problems: rec.health.problems }, { healthy: true, problems: [] }, 'status recorded its verdict');
  assert.match(rec.health.checkedAt, /^\d{4}-\d\d-\d\dT/);
  assert.is((await hb(h, 'wake')).code, 0);
  st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, new RegExp(`\\n {2}repo +${h.repo}\\n`));
  assert.match(st.out, /\n {2}hours +08:00–23:00 Europe\/Berlin, every day; every 30m, timeout 10m\n/);
  assert.match(st.out, /\n {2}wrapper +.*heartbeat\.sh, as installed\n/);
  assert.match(st.out, /\n {2}last wake +1 by hand at \S+Z, quiet after \d+ s\n/);
  assert.match(st.out, /\n {2}HEART\.md +unchanged since the last wake\n/);
  assert.match(st.out, /\n {2}next +Write the install guide \(STATE\.md\)\n {2}blockers +waiting for the API key decision \(STATE\.md\)\n/);
  writeFileSync(join(h.repo, 'HEART.md'), '# HEART\n\nMission: docs, and the API.\n');
  assert.match((await hb(h, 'status')).out, /\n {2}HEART\.md +changed since the last wake: the next one reads it\n/);
});

test('stand-in systemctl: the same spec name from a second repo cannot take over the first install\'s state folder', async () => {
  const a = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(a, 'install', { yes: true })).code, 0);
  const b = makeHost('systemd-user', { stateDir: stateDir(a) });
  const before = readFileSync(join(stateDir(a), 'state.json'));
  const r = await hb(b, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`state\\.json records the install of "docs" for the repo ${a.repo}, not ${b.repo}: two repos cannot share one name's state folder; give this spec another "name"`));
  assert.ok(readFileSync(join(stateDir(a), 'state.json')).equals(before), 'the first install is untouched');
});

test('stand-in systemctl: upgrading from an old in-repo state folder follows the README: install refuses it, stop with the old stateDir, then install moves it', async () => {
  const h = makeHost('systemd-user');
  await inRepoInstall(h);
  const old = h.spec.stateDir;
  rewriteSpec(h, { stateDir: undefined });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /hbgen-docs\.(service|timer) was written by another hbgen install of a spec named "docs"/);
  rewriteSpec(h, { stateDir: old });
  assert.match((await hb(h, 'install', { yes: true })).err, /stateDir: .* is inside the repo/, 'the old place is refused');
  assert.is((await hb(h, 'stop')).code, 0);
  rewriteSpec(h, { stateDir: undefined });
  const moved = await hb(h, 'install', { yes: true });
  assert.is(moved.code, 0, moved.err);
  assert.ok(existsSync(join(h.home, '.local/state/hbgen/docs/state.json')), 'the new default state folder');
  assert.is((await hb(h, 'status')).code, 0);
});

// The log history survives a re-install.
test('stand-in systemctl: a re-install with runtime.log over logMaxBytes and the wake counter at 10 keeps every line: the smoke test never rotates the log, and the check passes', async () => {
  const h = makeHost('systemd-user', { logMaxBytes: 65536 }, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const old = `${'2026-12-01T08:07:00Z hbgen docs start wake 9\nagent output that fills the log\n'.repeat(1200)}2026-12-01T08:07:09Z hbgen docs quiet\n`;
  appendFileSync(logOf(h), old);
  const history = readLog(h);
  assert.ok(history.length > 65536, 'runtime.log is over logMaxBytes');
  // The counter ends in 0: a wake now measures the log's size and rotates it.
  writeFileSync(names(h.spec).wakes, '10\n');
  rewriteSpec(h, { timeout: '20m' });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /ok {4}runtime\.log: .* grew by 4 lines: /);
  assert.not.ok(existsSync(`${logOf(h)}.1`), 'the smoke test did not rotate the log');
  assert.ok(readLog(h).subarray(0, history.length).equals(history), 'runtime.log holds all of its history, then the check\'s lines');
  assert.equal(lines(logOf(h)).slice(-4).sort(), SMOKE4());
  // The next real wake rotates it, as before.
  assert.is((await hb(h, 'wake')).code, 0);
  assert.ok(readFileSync(`${logOf(h)}.1`).subarray(0, history.length).equals(history), 'a wake rotated it whole to runtime.log.1');
});

test('stand-in systemctl, stand-in wrapper: a failed re-install never deletes a runtime.log.1 that appeared during it (a wake rotated the log): the rollback keeps the log history', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  appendFileSync(logOf(h), '2026-12-01T08:07:00Z hbgen docs start wake 1\nthe earlier history\n2026-12-01T08:07:09Z hbgen docs quiet\n');
  const history = readLog(h);
  assert.not.ok(existsSync(`${logOf(h)}.1`));
  rewriteSpec(h, { timeout: '20m' });
  // The check's wrapper moves runtime.log to runtime.log.1 (what a rotation does), then fails.
  h.wrapper = { smokeExit: 78, rotate: true };
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out);
  assert.match(r.err, /hbgen undid everything it did: the earlier install of "docs" is unchanged and still active/);
  assert.ok(existsSync(`${logOf(h)}.1`), 'runtime.log.1 is still there');
  assert.ok(readFileSync(`${logOf(h)}.1`).equals(history), 'with every line of the earlier history');
});

// A wake running at the install check does not roll the install back.
test('stand-in systemctl: a wake the manager starts as the timer is started (holding the lock through the smoke test) neither fools the install check nor rolls the install back: the check waits for it and runs again', async () => {
  const h = makeHost('systemd-user', { lock: 'mkdir' }, 'outside');
  const started = join(h.root, 'agent-started');
  writeFileSync(h.bin, `#!/bin/sh\n: >'${started}'\nsleep 3\necho agent ran\n`);
  // What the manager does on systemd 252 when a timer that fired before is started again:
  // a wake at once. This one holds the lock (its agent runs) when the stand-in returns.
  h.tools.flag('fire-on-start', `rm -f '${started}'\n/bin/sh '${names(h.spec).wrapper}' --now &\nwhile [ ! -e '${started}' ]; do sleep 0.05; done\n`);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /a wake held the lock during the smoke test, so it proved nothing: it runs again once that wake ended/);
  assert.match(r.out, /waiting up to 30 s for it to end before the smoke test runs again/);
  assert.match(r.out, /ok {4}lock: the second run found the lock held and logged skip-locked smoke\n/);
  assert.match(r.out, /hbgen: installed "docs"/);
  const log = lines(logOf(h));
  assert.equal(log.filter((l) => /start wake/.test(l)), ['hbgen docs start wake 1 by hand'], 'the one wake ran');
  assert.ok(h.tools.enabled(`${UNIT}.timer`) && h.tools.active(`${UNIT}.timer`));
  assert.is(JSON.parse(readFileSync(join(stateDir(h), 'state.json'), 'utf8')).status, 'installed');
});

test('stand-in systemctl: a real wake that meets the smoke test\'s lock logs skip-locked, which the check does not count as its own', async () => {
  const h = makeHost('systemd-user', { lock: 'mkdir' }, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const { smokeTest } = await import('../src/host/install/smoke.ts');
  const from = readLog(h).length;
  const rendered = readFileSync(n.wrapper, 'utf8');
  // A scheduled wake that starts while the smoke test's first run holds the lock.
  const wake = (async () => {
    while (!readLog(h).subarray(from).toString().includes('start smoke')) await new Promise((res) => setTimeout(res, 20));
    return new Promise<number | null>((res) => spawn('/bin/sh', [n.wrapper, '--now'], { stdio: 'ignore' }).on('exit', res));
  })();
  const checks = await smokeTest(n, h.spec.name, rendered, h.specFile);
  assert.is(await wake, 0);
  const got = lines(logOf(h)).slice(-4);
  assert.is(got.filter((l) => l === 'hbgen docs skip-locked').length, 1, `the wake skipped on the smoke's lock: ${got.join(' | ')}`);
  assert.equal(checks.map((c) => [c.what, c.ok]), [['exit status', true], ['lock', true], ['runtime.log', true]], JSON.stringify(checks));
});

test('stand-in systemctl: a timer systemd still holds after disable --now and daemon-reload is never started (it would fire at once): the re-install undoes itself and says what to do', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  rewriteSpec(h, { schedule: { scheduler: 'systemd-user', every: '1h', minute: 12, hours: { start: '09:00', end: '17:00', timezone: 'Europe/Berlin' } } });
  h.tools.flag('held');
  h.tools.clearCalls();
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out);
  assert.match(r.err, /installing failed: systemd still holds hbgen-docs\.timer after `systemctl --user disable --now` and daemon-reload \(another unit wants it\? `systemctl --user list-dependencies --reverse hbgen-docs\.timer` shows which\), so hbgen did not start it/);
  assert.not.ok(h.tools.calls().some((c) => / (enable --now|start|restart) /.test(`${c} `)), `no timer was started: ${h.tools.calls().join(' | ')}`);
  assert.match(readFileSync(join(unitDir(h), `${UNIT}.timer`), 'utf8'), /OnCalendar=\*-\*-\* 08\.\.22:07,37:00 Europe\/Berlin/, 'the earlier timer file is back');
  h.tools.flag('held', null);
});

test.run();
