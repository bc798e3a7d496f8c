// install / status / stop on the launchd path, against a recording STAND-IN launchctl
// (first on PATH, under a temporary HOME; its bootout is asynchronous as on macOS) and the
// real heartbeat.sh (a STAND-IN wrapper where a test makes the install check fail).
// Commands run in-process.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { hb, lines, makeHost, rewriteSpec, sha, tree, type Host } from './helpers/lifecycle.ts';

const LABEL = 'dev.hbgen.docs';
const uid = process.getuid!();
const plist = (h: Host) => join(h.home, 'Library/LaunchAgents', `${LABEL}.plist`);
// Read-only commands, including stop's and status's look at the other schedulers by name.
const changing = (calls: string[]) => calls.filter((c) => !c.startsWith('launchctl print') && !/^systemctl --user (show|is-enabled|is-active) /.test(c));
const snapshot = (h: Host) => ({ home: tree(h.home), repo: tree(h.repo), state: tree(names(h.spec).stateDir), standins: tree(join(h.tools.bin, 'state')) });

test('stand-in launchctl: install creates ~/Library/LaunchAgents (missing on a fresh Mac), writes the plist and bootstraps gui/<uid>', async () => {
  const h = makeHost('launchd');
  const dry = await hb(h, 'install', { dryRun: true });
  assert.match(dry.out, new RegExp(`  launchctl bootstrap gui/${uid} ${plist(h)}\n`));
  assert.match(dry.out, /launchd runs a LaunchAgent only while you are logged in at the Mac \(a GUI session\)/);
  assert.match(dry.out, /catchUp "once": launchd runs a fire missed while the Mac slept once on wake; the wrapper runs it only inside your working hours with minRun left/);
  h.tools.clearCalls();
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  // The install check ran the job through launchd: kickstart of this job's target.
  assert.equal(changing(h.tools.calls()), [`launchctl bootstrap gui/${uid} ${plist(h)}`, `launchctl kickstart gui/${uid}/${LABEL}`]);
  assert.match(r.out, new RegExp(`ok {4}scheduler run: launchctl kickstart gui/${uid}/${LABEL}: exit 0; the wrapper ran as \\S+ \\(uid \\d+\\), no terminal\n`));
  assert.ok(h.tools.loaded(LABEL));
  assert.is(readFileSync(plist(h), 'utf8'), readFileSync(join(names(h.spec).stateDir, 'host', `${LABEL}.plist`), 'utf8'));
  assert.equal(Object.keys(tree(h.home)), ['Library/', 'Library/LaunchAgents/', `Library/LaunchAgents/${LABEL}.plist`]);
  assert.match(r.out, new RegExp(`ok {4}scheduler: \`launchctl print gui/${uid}/${LABEL}\` exit 0`));
  const s = JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8'));
  assert.equal(s.ids, { label: LABEL });
  assert.equal(s.createdDirs, [join(h.home, 'Library'), join(h.home, 'Library/LaunchAgents')]);
  assert.equal(s.hostFiles, [{ path: plist(h), sha256: sha(plist(h)), mode: 0o644 }]);
});

test('stand-in launchctl: a re-install with a changed spec boots out, polls `launchctl print` until the label is gone, then bootstraps', async () => {
  const h = makeHost('launchd');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  rewriteSpec(h, { schedule: { scheduler: 'launchd', every: '1h', minute: 12, hours: { start: '09:00', end: '17:00', timezone: 'Europe/Berlin' } } });
  h.tools.flag('bootout-lag', '3');
  h.tools.clearCalls();
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  const calls = h.tools.calls();
  const out = calls.indexOf(`launchctl bootout gui/${uid}/${LABEL}`);
  const boot = calls.indexOf(`launchctl bootstrap gui/${uid} ${plist(h)}`);
  assert.ok(out >= 0 && boot > out, calls.join('\n'));
  assert.ok(calls.slice(out + 1, boot).filter((c) => c === `launchctl print gui/${uid}/${LABEL}`).length >= 4, 'polled until gone');
  assert.equal(changing(calls), [`launchctl bootout gui/${uid}/${LABEL}`, `launchctl bootstrap gui/${uid} ${plist(h)}`, `launchctl kickstart gui/${uid}/${LABEL}`], 'no failed bootstrap');
  assert.ok(h.tools.loaded(LABEL));
});

test('stand-in launchctl: "Bootstrap failed: 5" once is retried once, and the install succeeds', async () => {
  const h = makeHost('launchd');
  h.tools.flag('fail-bootstrap-once');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.equal(changing(h.tools.calls()), [`launchctl bootstrap gui/${uid} ${plist(h)}`, `launchctl bootstrap gui/${uid} ${plist(h)}`, `launchctl kickstart gui/${uid}/${LABEL}`]);
  assert.ok(h.tools.loaded(LABEL));
});

test('stand-in launchctl: a foreign plist with the label is refused and untouched; no GUI domain is refused; nothing changes', async () => {
  const h = makeHost('launchd');
  mkdirSync(join(h.home, 'Library/LaunchAgents'), { recursive: true });
  writeFileSync(plist(h), '<?xml version="1.0"?><plist><dict><key>Label</key><string>dev.hbgen.docs</string></dict></plist>\n');
  const hash = sha(plist(h));
  let before = snapshot(h);
  let r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`${plist(h)} already exists and hbgen did not write it; hbgen never overwrites such a file`));
  assert.is(sha(plist(h)), hash);
  assert.equal(snapshot(h), before);

  const g = makeHost('launchd');
  g.tools.flag('nogui');
  before = snapshot(g);
  r = await hb(g, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`launchd has no GUI session for uid ${uid} \\(\`launchctl print gui/${uid}\`: Could not find domain for user gui: ${uid}\\); LaunchAgents run only for a user logged in at the Mac`));
  assert.equal(snapshot(g), before);
});

test('stand-in launchctl, stand-in wrapper: a failing smoke test boots the new job out and removes the plist and the folders it created', async () => {
  const h = makeHost('launchd');
  h.wrapper = { smokeExit: 78 };
  const before = snapshot(h);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /hbgen undid everything it did: the host is as it was before/);
  assert.equal(snapshot(h), before);
  assert.match(r.out, new RegExp(`FAIL {2}scheduler run: launchctl kickstart gui/${uid}/${LABEL}: exit 78, and the wrapper logged no smoke run of its own`));
  assert.equal(changing(h.tools.calls()), [`launchctl bootstrap gui/${uid} ${plist(h)}`, `launchctl kickstart gui/${uid}/${LABEL}`, `launchctl bootout gui/${uid}/${LABEL}`]);
});

test('stand-in launchctl: status computes the next fire from the plan; an unloaded job is an orphan; stop boots out and leaves HOME as before', async () => {
  const h = makeHost('launchd');
  const before = snapshot(h);
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  let s = await hb(h, 'status');
  assert.is(s.code, 0, s.out);
  assert.match(s.out, /ok {7}next fire: \d{4}-\d\d-\d\d (0[8-9]|1\d|2[0-2]):(07|37) Europe\/Berlin \(\d{4}-\d\d-\d\dT\d\d:\d\dZ\)\n/);
  h.tools.flag(`going/${LABEL}`, '0');
  s = await hb(h, 'status');
  assert.is(s.code, 1);
  assert.match(s.out, new RegExp(`problem {2}orphan: state\\.json says installed, but launchd does not hold ${LABEL}`));
  assert.is((await hb(h, 'install', { yes: true })).code, 0, 'the orphan is loaded again');
  h.tools.clearCalls();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.equal(changing(h.tools.calls()), [`launchctl bootout gui/${uid}/${LABEL}`]);
  const after = snapshot(h);
  assert.equal(after.home, before.home, 'plist and the Library folders install created are gone');
  assert.equal(after.standins, before.standins, 'launchd holds nothing');
});

test('stand-in launchctl: a repo under ~/Documents gets the macOS privacy (TCC) caveat in the panel', async () => {
  const h = makeHost('launchd');
  const repo = join(h.home, 'Documents/site');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'HEART.md'), '# Mission\n');
  rewriteSpec(h, { repo });
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`  - ${repo} is under ~/Documents: macOS privacy controls \\(TCC\\) deny jobs started by launchd or cron there \\("Operation not permitted"\\); grant /bin/sh Full Disk Access or move the repo`));
});

test('stand-in launchctl, mkdir lock: resume waits for a wake running now and refuses when it still runs, changing nothing', async () => {
  const h = makeHost('launchd', { lock: 'mkdir', killAfter: '2s' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\necho agent started\nsleep 60\n');
  const log = join(names(h.spec).stateDir, 'runtime.log');
  const child = spawn('/bin/sh', [join(names(h.spec).stateDir, 'heartbeat.sh'), '--now'], { detached: true, stdio: 'ignore' });
  const exited = new Promise<number | null>((res) => child.on('exit', (c, sig) => res(c ?? (sig ? -1 : null))));
  for (let i = 0; i < 200 && !readFileSync(log, 'utf8').includes('agent started'); i++) await new Promise((r) => setTimeout(r, 50));
  // A plist deleted by hand: resume would put it back, but a wake is running.
  rmSync(plist(h));
  const before = snapshot(h);
  delete before.state['runtime.log'];
  const logBefore = readFileSync(log);
  h.tools.clearCalls();
  const t0 = Date.now();
  const r = await hb(h, 'resume', { yes: true, now: () => new Date(t0 + (Date.now() - t0) * 60) });
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /hbgen: a heartbeat of "docs" is running now \(PID \d+, started [^)]+\); waiting up to 30 s/);
  assert.match(r.err, /^hbgen: a heartbeat is running now \(PID \d+, started [^)]+\); retry after it ends, or `hbgen stop .*` ends it\nhbgen: nothing was changed on this host\n$/);
  const after = snapshot(h);
  delete after.state['runtime.log'];
  assert.equal(after, before, 'no plist written, the state folder and launchd as they were');
  assert.ok(readFileSync(log).equals(logBefore), 'runtime.log holds exactly what the wake wrote');
  assert.equal(changing(h.tools.calls()), []);
  assert.is((await hb(h, 'stop')).code, 0);
  assert.is(await exited, 143);
});

test('stand-in launchctl, stand-in wrapper: a failing smoke test on a re-install keeps runtime.log and says the earlier install is unchanged and still active', async () => {
  const h = makeHost('launchd');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  const log = join(names(h.spec).stateDir, 'runtime.log');
  const before = snapshot(h);
  rewriteSpec(h, { timeout: '20m' });
  h.wrapper = { smokeExit: 78 };
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out);
  assert.match(r.err, /^hbgen: the install check failed \(scheduler run, exit status, lock, runtime\.log\), so these settings of "docs" are not installed\nhbgen: hbgen undid everything it did: the earlier install of "docs" is unchanged and still active\n$/);
  assert.equal(snapshot(h), before, 'the plist, the old wrapper, state.json and runtime.log as they were');
  assert.ok(h.tools.loaded(LABEL));
  assert.equal(lines(log).slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs quiet']);
  assert.equal(lines(names(h.spec).agentLog).slice(-2), ['hbgen docs start wake 1 by hand', 'agent ran']);
});

test('stand-in launchctl: install refuses a host clock in another zone than the plan, naming both and the spec line; status later says how many wakes a moved clock would miss', async () => {
  const h = makeHost('launchd');
  const refused = await hb(h, 'install', { yes: true, hostZone: 'Asia/Tokyo' });
  assert.is(refused.code, 1);
  assert.match(refused.err, /hbgen: schedule: this host's clock runs in Asia\/Tokyo, but the launchd entries are planned for Europe\/Berlin \(schedule\.hours\.timezone \(no schedule\.hostTimezone set\)\), so they would fire at other hours; set "hostTimezone": "Asia\/Tokyo" in the spec's schedule/);
  assert.is((await hb(h, 'install', { yes: true, hostZone: 'Europe/Berlin' })).code, 0);
  assert.is((await hb(h, 'install', { dryRun: true, hostZone: 'Europe/Amsterdam' })).code, 0, 'another name with the same clock is the same zone');
  assert.is((await hb(h, 'status', { hostZone: 'Europe/Berlin' })).code, 0);
  const moved = await hb(h, 'status', { hostZone: 'America/New_York' });
  assert.is(moved.code, 1, moved.out);
  assert.match(moved.out, /problem {2}host clock: schedule: this host's clock runs in America\/New_York, but the launchd entries are planned for Europe\/Berlin .*; in the next 24 hours that would miss \d+ of the expected wakes\n/);
  const n = Number(/would miss (\d+) of/.exec(moved.out)![1]);
  assert.ok(n > 0, 'a 6-hour shift misses wakes of a 08:00–23:00 window');
});

test.run();
