// needs root: it mounts a 64 KiB tmpfs as a full disk
// What stop and status trust (host side), with STAND-INS for
// systemctl, loginctl and launchctl and a recording STAND-IN crontab first on PATH (so
// that no real crontab is read or written here; test/lifecycle-cron.test.ts does the real
// one as a scratch user):
// - never signal a process not proven ours: a lock owner PID reused by an
//   unrelated process is stale and left alive; a wrapper is known by its command line and
//   its start time, read from /proc and from ps;
// - host paths come from the name, never from state.json;
// - lost state is found: the state folder gone, stop and status still find
//   hbgen's entries by name; a left-over ~/.hbgen.lock is taken over at once.
// The state folder is outside the repo (install refuses one inside it): the
// tests that write it play a stronger attacker than the agent, a process with the user's rights.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acquireOpLock, OP_LOCK_MAX_S } from '../src/host/proc/lock.ts';
import { lockInfo, runningWrappers } from '../src/host/proc/proc.ts';
import { parseEtime, processInfo, processes } from '../src/host/proc/ps.ts';
import { names } from '../src/names.ts';
import { B, makeStub, type Stub } from './helpers/crontab.ts';
import { type Host, hb, hostIO, makeHost, sha } from './helpers/lifecycle.ts';

const stateDir = (h: Host) => names(h.spec).stateDir;
const unitDir = (h: Host) => join(h.home, '.config/systemd/user');
const nowS = () => Math.floor(Date.now() / 1000);
const started: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** An unrelated process of this user, in a process group of its own (as a reused PID would be). */
async function stranger(): Promise<ChildProcess> {
  const c = spawn('sleep', ['120'], { detached: true, stdio: 'ignore' });
  started.push(c);
  c.unref();
  await new Promise((r) => c.once('spawn', r));
  return c;
}
const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null && (() => {
  try {
    process.kill(c.pid!, 0);
    return true;
  } catch {
    return false;
  }
})();

/** A host whose crontab(1) is a recording stand-in (first on PATH), so no real table is touched. */
function isolated(scheduler: Host['spec']['schedule']['scheduler'], over = {}): { h: Host; stub: Stub } {
  const h = makeHost(scheduler, over);
  const stub = makeStub();
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  return { h, stub };
}

function ownerFile(h: Host, pid: number, epoch: number): void {
  mkdirSync(join(stateDir(h), 'heartbeat.lock.d'), { recursive: true });
  writeFileSync(join(stateDir(h), 'heartbeat.lock.d/owner'), `${pid} ${epoch}\n`);
}

// ------------------------------------------------------------------ no stranger signalled

test('a mkdir-lock owner PID reused by an unrelated process of the same user is stale: status says so, stop never signals it', async () => {
  const { h } = isolated('systemd-user', { lock: 'mkdir', killAfter: '2s' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const other = await stranger();
  // The lock was taken a minute ago by a wrapper that died; its PID now runs `sleep`.
  ownerFile(h, other.pid!, nowS() - 60);
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, new RegExp(`problem {2}stale lock: .*heartbeat\\.lock\\.d: its owner PID ${other.pid} is now another program \\(sleep\\), not this install's heartbeat\\.sh`));
  assert.not.match(st.out, /a heartbeat is running now/);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.not.match(r.out, /sent (TERM|KILL)/);
  assert.match(r.out, new RegExp(`removed the stale lock .*heartbeat\\.lock\\.d \\(its owner PID ${other.pid} is now another program \\(sleep\\)`));
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(alive(other), 'the unrelated process (and its group) is still alive');
});

test('a process with the wrapper\'s command line is the owner only if it started before the lock was taken; /proc and ps agree', async () => {
  const h = makeHost('systemd-user', { lock: 'mkdir' });
  const n = names(h.spec);
  mkdirSync(n.stateDir, { recursive: true });
  // A STAND-IN heartbeat.sh at the installed path: only its command line matters here.
  writeFileSync(n.wrapper, 'sleep 120 &\nwait\n');
  const w = spawn('/bin/sh', [n.wrapper], { stdio: 'ignore' });
  started.push(w);
  w.unref();
  await new Promise((r) => setTimeout(r, 300));
  const io = hostIO(h);
  for (const source of ['auto', 'ps'] as const) {
    ownerFile(h, w.pid!, nowS());
    let lk = await lockInfo(io, h.spec, n, source);
    assert.ok(lk.held && !lk.stale, `${source}: held by the wrapper that took it: ${lk.detail}`);
    // Seen 1000 s later: still held (never taken over by age alone), but overdue.
    const late = await lockInfo(hostIO(h, () => new Date(Date.now() + 1_000_000)), h.spec, n, source);
    assert.ok(late.held && !late.stale && late.overdue, `${source}: ${late.detail}`);
    assert.match(late.detail, /longer than timeout \+ killAfter \(630 s\)/);
    // The same PID named in a lock taken an hour before that process started: reused.
    ownerFile(h, w.pid!, nowS() - 3600);
    lk = await lockInfo(io, h.spec, n, source);
    assert.ok(lk.stale && !lk.held, `${source}: ${lk.detail}`);
    assert.match(lk.detail, new RegExp(`its owner PID ${w.pid} is a heartbeat\\.sh that started after the lock was taken, so the PID was reused`));
    const { running } = await runningWrappers(io, n, source);
    assert.equal(running.map((r) => r.wrapper.pid), [w.pid], `${source}: found by its command line`);
    assert.ok(running[0]!.tree.some((p) => p.args === 'sleep 120'), `${source}: its child is in its tree`);
  }
  const viaProc = (await processInfo(io, w.pid!))!;
  const viaPs = (await processInfo(io, w.pid!, 'ps'))!;
  assert.is(viaPs.args, viaProc.args);
  assert.ok(Math.abs(viaPs.start - viaProc.start) <= 2, `start ${viaPs.start} (ps) vs ${viaProc.start} (/proc)`);
  assert.ok((await processes(io)).length > 0 && (await processes(io, 'ps')).some((p) => p.pid === process.pid));
  assert.equal([parseEtime('05'), parseEtime('01:02'), parseEtime('03:01:02'), parseEtime('2-03:01:02'), parseEtime('x')], [null, 62, 10862, 183662, null]);
  w.kill('SIGKILL');
});

// ------------------------------------------------------------------ host paths from the name

test('stop goes by the spec name: a state.json naming systemd-user and ~/.ssh/authorized_keys is reported and ignored; the real crontab block is removed', async () => {
  const { h, stub } = isolated('cron');
  stub.setTable(B('0 5 * * * mine\n'));
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const keys = join(h.home, '.ssh/authorized_keys');
  mkdirSync(join(h.home, '.ssh'), { mode: 0o700 });
  writeFileSync(keys, 'ssh-ed25519 AAAA the user\'s key\n', { mode: 0o600 });
  const hash = sha(keys);
  // A stronger attacker than the agent (which can no longer reach a state folder outside the
  // repo): a process with the user's rights that edits state.json there.
  const sp = join(stateDir(h), 'state.json');
  const s = JSON.parse(readFileSync(sp, 'utf8'));
  s.scheduler = 'systemd-user';
  s.hostFiles.push({ path: keys, sha256: hash, mode: 0o600 });
  s.createdDirs.push(join(h.home, '.ssh'));
  writeFileSync(sp, JSON.stringify(s));
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, new RegExp(`problem {2}state\\.json names ${keys}, which hbgen never writes for "docs"; ignored`));
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.is(sha(keys), hash, 'authorized_keys untouched');
  assert.ok(existsSync(join(h.home, '.ssh')));
  assert.match(r.out, new RegExp(`state\\.json names ${keys}, which hbgen never writes for "docs"; ignored`));
  assert.match(r.out, new RegExp(`state\\.json names the folder ${h.home}/\\.ssh, which hbgen never writes for "docs"; ignored`));
  assert.match(r.out, /state\.json names the scheduler systemd-user, but hbgen's entry for this spec is in cron; ignored/);
  assert.match(r.out, /removed hbgen's block "docs" from your crontab/);
  assert.equal(stub.table(), B('0 5 * * * mine\n'), 'the block is gone, the user line kept');
  assert.not.ok(h.tools.calls().some((c) => / (disable|stop|daemon-reload)/.test(c)), 'no systemd command ran');
  stub.remove();
});

test('a unit state.json records under another name is not removed; the derived units are', async () => {
  const { h, stub } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const victim = join(unitDir(h), 'someone-else.service');
  writeFileSync(victim, '[Service]\nExecStart=/bin/true\n');
  const sp = join(stateDir(h), 'state.json');
  const s = JSON.parse(readFileSync(sp, 'utf8'));
  s.hostFiles.push({ path: victim, sha256: sha(victim), mode: 0o644 });
  writeFileSync(sp, JSON.stringify(s));
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.ok(existsSync(victim), 'the file state.json added is still there');
  assert.not.ok(existsSync(join(unitDir(h), 'hbgen-docs.service')) || existsSync(join(unitDir(h), 'hbgen-docs.timer')));
  stub.remove();
});

test('resume refuses a state.json that records another spec name or state folder than the spec file', async () => {
  const { h, stub } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'stop')).code, 0);
  const sp = join(stateDir(h), 'state.json');
  const s = JSON.parse(readFileSync(sp, 'utf8'));
  s.name = 'evil';
  s.spec.name = 'evil';
  writeFileSync(sp, JSON.stringify(s));
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /state\.json: it records another name than .*hbgen\.json, so resume will not trust it; install from the spec file/);
  assert.not.ok(existsSync(join(unitDir(h), 'hbgen-evil.service')) || existsSync(join(unitDir(h), 'hbgen-docs.service')));
  stub.remove();
});

// ------------------------------------------------------------------ lost state

test('the state folder gone (git clean -fdx), systemd: status names the live timer (exit 1), stop removes it and says so', async () => {
  const { h, stub } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  rmSync(stateDir(h), { recursive: true });
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, new RegExp(`problem {2}the state folder is gone; the scheduler still runs ${unitDir(h)}/hbgen-docs\\.timer; \`hbgen stop\` removes it`));
  assert.match(st.out, /the scheduler still runs hbgen-docs\.timer \(enabled and active\)/);
  h.tools.clearCalls();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /the state folder is gone; removing what the scheduler still runs for "docs", found by its name/);
  assert.match(r.out, /ran systemctl --user disable --now hbgen-docs\.timer/);
  assert.match(r.out, new RegExp(`removed ${unitDir(h)}/hbgen-docs\\.service\n.*removed ${unitDir(h)}/hbgen-docs\\.timer`));
  assert.not.ok(h.tools.enabled('hbgen-docs.timer') || h.tools.active('hbgen-docs.timer'));
  const again = await hb(h, 'stop');
  assert.match(again.out, /no scheduler holds hbgen's entry for it; nothing to stop/);
  assert.match((await hb(h, 'status')).out, /is not installed/);
  stub.remove();
});

test('lost state, a unit of the same name that runs another state folder\'s wrapper, or without hbgen\'s header, is left alone', async () => {
  const { h, stub } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  // Another repo's spec of the same name, never installed: its stop must not take this one's units.
  const other = makeHost('systemd-user');
  other.env = { ...h.env, HOME: h.home };
  const r = await hb(other, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`left ${unitDir(h)}/hbgen-docs\\.service: it is hbgen's "docs" of another state folder`));
  assert.ok(existsSync(join(unitDir(h), 'hbgen-docs.timer')) && h.tools.enabled('hbgen-docs.timer'), 'the first install is untouched');
  rmSync(stateDir(h), { recursive: true });
  writeFileSync(join(unitDir(h), 'hbgen-docs.service'), '[Service]\nExecStart=/bin/true\n');
  const mine = await hb(h, 'stop');
  assert.match(mine.out, new RegExp(`left ${unitDir(h)}/hbgen-docs\\.service: hbgen did not write it`));
  assert.ok(existsSync(join(unitDir(h), 'hbgen-docs.service')));
  stub.remove();
});

test('the state folder gone, launchd: status names the loaded job and the plist, stop boots it out and removes the plist', async () => {
  const { h, stub } = isolated('launchd');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const plist = join(h.home, 'Library/LaunchAgents/dev.hbgen.docs.plist');
  rmSync(stateDir(h), { recursive: true });
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, new RegExp(`the state folder is gone; the scheduler still runs ${plist}; \`hbgen stop\` removes it`));
  assert.match(st.out, /the scheduler still runs the launchd job dev\.hbgen\.docs \(loaded in gui\/\d+\)/);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /ran launchctl bootout gui\/\d+\/dev\.hbgen\.docs/);
  assert.match(r.out, new RegExp(`removed ${plist}`));
  assert.not.ok(existsSync(plist) || h.tools.loaded('dev.hbgen.docs'));
  stub.remove();
});

test('the state folder gone, cron (stand-in crontab): status names the block, stop removes only it', async () => {
  const { h, stub } = isolated('cron');
  stub.setTable(B('0 5 * * * mine\n'));
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  rmSync(stateDir(h), { recursive: true });
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /the state folder is gone; the scheduler still runs the crontab block "docs" \(lines 1–\d+ of your crontab\); `hbgen stop` removes it/);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /removed hbgen's block "docs" from your crontab/);
  assert.equal(stub.table(), B('0 5 * * * mine\n'));
  stub.remove();
});

test(`a ~/.hbgen.lock whose PID is now another program is taken over at once, with a note`, async () => {
  const h = makeHost('systemd-user');
  const other = await stranger();
  const dir = join(h.home, '.hbgen.lock');
  mkdirSync(dir);
  writeFileSync(join(dir, 'owner'), `${other.pid} ${nowS()}\n`);
  // What the hbgen that took it recorded of itself; its PID now runs `sleep`.
  writeFileSync(join(dir, 'command'), '/usr/bin/node /usr/lib/node_modules/hbgen/bin/hbgen.cjs install\n');
  const t0 = Date.now();
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
  assert.match(r.out, new RegExp(`took over the lock ${dir} left behind by an earlier hbgen \\(its PID ${other.pid} is now another program \\(sleep\\), not the hbgen that took it\\)`));
  assert.ok(alive(other));
  assert.not.ok(existsSync(dir), 'released after the command');
});

test(`a ~/.hbgen.lock not refreshed for longer than any running hbgen lets pass (${OP_LOCK_MAX_S} s) is taken over; a live one held by hbgen is waited for`, async () => {
  const h = makeHost('systemd-user');
  const io = hostIO(h);
  const dir = join(h.home, '.hbgen.lock');
  // Held by this very process, as an hbgen that is still running: not taken over.
  mkdirSync(dir);
  writeFileSync(join(dir, 'owner'), `${process.pid} ${nowS()}\n`);
  writeFileSync(join(dir, 'command'), `${(await processInfo(io, process.pid))!.args}\n`);
  const t0 = Date.now();
  const refused = await acquireOpLock(io, 600).then(() => null, (e: { lines: string[] }) => e.lines.join(' '));
  assert.ok(Date.now() - t0 >= 600);
  assert.match(refused ?? '', /another hbgen install, stop or resume is running \(PID \d+/);
  // The same lock, seen 11 minutes later.
  const later = () => new Date(Date.now() + (OP_LOCK_MAX_S + 60) * 1000);
  const r = await hb(h, 'stop', { now: later });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /took over the lock .*\.hbgen\.lock left behind by an earlier hbgen \(its holder has not refreshed it for \d+ s, longer than any running hbgen lets pass \(600 s\)\)/);
  assert.not.ok(existsSync(dir));
});

test('a full disk while the lock is taken: one sentence naming the full disk, no half-made ~/.hbgen.lock, and the next command takes the lock at once (a real 64 KiB tmpfs as HOME)', async () => {
  const h = makeHost('systemd-user');
  const home = join(h.root, 'fullhome');
  mkdirSync(home);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', home], { encoding: 'utf8' });
  assert.is(m.status, 0, `mount a tmpfs on ${home}: ${m.stderr}`);
  try {
    // Fill it: a folder still fits (tmpfs counts inodes, not blocks, for it), a file's bytes do not.
    spawnSync('dd', ['if=/dev/zero', `of=${join(home, 'fill')}`, 'bs=4k'], { encoding: 'utf8' });
    const io = { ...hostIO(h), env: { ...h.env, HOME: home } };
    const refused = await acquireOpLock(io, 600).then(() => null, (e: { lines: string[] }) => e.lines.join(' '));
    assert.is(refused, `${join(home, '.hbgen.lock')}: cannot write hbgen's lock, the disk holding your HOME is full (ENOSPC); free some space and run the command again`);
    assert.not.ok(existsSync(join(home, '.hbgen.lock')), 'no half-made lock left');
    rmSync(join(home, 'fill'));
    const t0 = Date.now();
    const lock = await acquireOpLock(io, 20_000);
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
    lock.release();
  } finally {
    spawnSync('umount', [home]);
  }
});

test('a ~/.hbgen.lock whose PID started after the lock was taken (no command recorded, an older hbgen) is taken over', async () => {
  const h = makeHost('systemd-user');
  const other = await stranger();
  const dir = join(h.home, '.hbgen.lock');
  mkdirSync(dir);
  writeFileSync(join(dir, 'owner'), `${other.pid} ${nowS() - 120}\n`);
  chmodSync(dir, 0o700);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`\\(its PID ${other.pid} started after the lock was taken, so the PID was reused\\)`));
  assert.ok(alive(other));
});

test.run();
