// needs root: it runs hbgen as scratch users on their real crontab; it starts a real systemd user manager for a scratch user; it runs commands as other users (runuser)
// The systemd-user lifecycle against a REAL `systemd --user` (test/helpers/systemd-user.ts):
// a scratch user with its own user manager in a delegated cgroup; hbgen runs as that user
// (runuser, test/helpers/lifecycle-driver.ts) with the real systemctl and the real
// heartbeat.sh. Only loginctl is a STAND-IN (no logind here; it records linger).
// Two specs: "tick" fires for real 30 to 90 s after it is installed (first, its fire
// awaited by the last test, so the wait overlaps the others), "docs" about half an hour
// later, so that no timer fire of its own lands among the tests that count its log lines.
// Where the machine cannot run a user manager the suite fails with one line saying why
// (HBTEST_ALLOW_SKIP_SYSTEMD=1 turns that into a loud skip).
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type Host, lines, rewriteSpec } from './helpers/lifecycle.ts';
import { realOrFail, startUserManager, type UserManager } from './helpers/systemd-user.ts';

const real = realOrFail(test, 'lifecycle-systemd-real');
let M: UserManager;
let tick: Host;
let docs: Host;
let tickAt = 0;

const unitDir = () => join(M.user.home, '.config/systemd/user');
const unitFiles = () => (existsSync(unitDir()) ? readdirSync(unitDir()) : []);
const logOf = (h: Host) => names(h.spec).log;
const log = (h: Host) => (existsSync(logOf(h)) ? readFileSync(logOf(h), 'utf8') : '');
/** agent.log: the agent's output, after the wrapper's copy of each wake's start line. */
const agentLogOf = (h: Host) => names(h.spec).agentLog;
const agentLog = (h: Host) => (existsSync(agentLogOf(h)) ? readFileSync(agentLogOf(h), 'utf8') : '');
const ok = (r: { code: number; out: string; err: string }, what: string) => assert.is(r.code, 0, `${what}: exit ${r.code}\n${r.out}${r.err}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `systemctl --user show UNIT -p …` as a record. */
function show(unit: string, ...props: string[]): Record<string, string> {
  const r = M.systemctl('show', unit, ...props.map((p) => `--property=${p}`));
  ok(r, `systemctl --user show ${unit}`);
  return Object.fromEntries(r.out.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The NEXT column of `systemctl --user list-timers UNIT` ("Tue 2026-12-01 05:37:00 UTC"), or null. */
function listedNext(timer: string): string | null {
  const r = M.systemctl('list-timers', timer, '--all', '--no-pager');
  ok(r, 'list-timers');
  const row = r.out.split('\n').find((l) => l.includes(timer));
  return row ? /^(\S+ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+)/.exec(row)?.[1] ?? `(unparsed row: ${row})` : null;
}

/** Every timer row `list-timers --all` shows, by unit name. */
function allTimers(): string[] {
  const r = M.systemctl('list-timers', '--all', '--no-pager');
  ok(r, 'list-timers --all');
  return r.out.split('\n').flatMap((l) => /\s(\S+\.timer)\s/.exec(l)?.[1] ?? []);
}

const epoch = (s: string) => Date.parse(s.replace(/^\S+ (\S+) (\S+) UTC$/, '$1T$2Z'));

real('setup: a real systemd user manager for a scratch user, in its delegated cgroup; "tick" installed to fire in about a minute', async () => {
  M = await startUserManager('hbgen-sd-test');
  assert.match(M.systemctl('is-system-running').out, /^(running|degraded)\n$/);
  assert.match(readFileSync(`/proc/${M.pid}/cgroup`, 'utf8'), new RegExp(`^0::/.*${M.cgroup.split('/').pop()}/init\\.scope$`, 'm'), 'the manager runs in its delegated cgroup');
  // The next whole minute at least 30 s away (the install takes a few seconds); never :00.
  let at = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
  if (new Date(at).getUTCMinutes() === 0) at += 60_000;
  tickAt = at;
  // catchUp "skip" (Persistent=false): the issue-22 test below relies on the manager forgetting
  // the last fire at a re-install; a Persistent=true timer keeps it in its stamp file.
  tick = M.host({ name: 'tick', catchUp: 'skip', schedule: { scheduler: 'systemd-user', every: '1h', minute: new Date(at).getUTCMinutes(), hours: { start: '00:00', end: '24:00', timezone: 'UTC' } }, timeout: '1m' });
  const r = M.hb(tick, 'install', { yes: true });
  ok(r, 'install tick');
  assert.ok(Date.now() < at - 5_000, `the install ended too late for the planned fire at ${new Date(at).toISOString()}`);
  assert.is(epoch(listedNext('hbgen-tick.timer')!), at, 'the timer waits for the planned minute');
  assert.ok(M.linger.has('linger') && M.linger.calls().includes(`loginctl enable-linger ${M.user.name}`), 'lingering turned on through the loginctl stand-in');
});

real('real manager: install --yes loads and enables the unit and timer; list-timers, status and systemd-analyze calendar agree on the next fire', async () => {
  // Fires at one minute of the hour, about half an hour away: never during the suite.
  const minute = (new Date().getUTCMinutes() + 30) % 60 || 30;
  docs = M.host({ schedule: { scheduler: 'systemd-user', every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } }, timeout: '1m', killAfter: '5s', lock: 'mkdir' });
  M.linger.clearCalls();
  const r = M.hb(docs, 'install', { yes: true });
  ok(r, 'install');
  assert.match(r.out, /ok {4}scheduler: is-enabled hbgen-docs\.timer: enabled; list-timers: \S+ \d{4}-\d\d-\d\d \d\d:\d\d:00 \S+ /);
  assert.match(r.out, /lingering is on for /, 'the stand-in says lingering is on (tick turned it on)');
  assert.equal(M.linger.calls().filter((c) => !c.includes('show-user')), [], 'no enable-linger the second time');

  const svc = show('hbgen-docs.service', 'LoadState', 'FragmentPath', 'KillMode', 'Type');
  assert.equal(svc, { LoadState: 'loaded', FragmentPath: join(unitDir(), 'hbgen-docs.service'), KillMode: 'control-group', Type: 'oneshot' });
  const tim = show('hbgen-docs.timer', 'LoadState', 'UnitFileState', 'ActiveState', 'FragmentPath');
  assert.equal(tim, { LoadState: 'loaded', UnitFileState: 'enabled', ActiveState: 'active', FragmentPath: join(unitDir(), 'hbgen-docs.timer') });

  const before = Date.now();
  const next = listedNext('hbgen-docs.timer');
  assert.ok(next, 'list-timers lists hbgen-docs.timer');
  const st = M.hb(docs, 'status');
  ok(st, 'status');
  assert.ok(st.out.includes(`ok       next fire: ${next}\n`), `status says the next fire list-timers shows (${next}):\n${st.out}`);
  const calendars = readFileSync(join(unitDir(), 'hbgen-docs.timer'), 'utf8').split('\n').flatMap((l) => /^OnCalendar=(.+)$/.exec(l)?.[1] ?? []);
  assert.ok(calendars.length > 0);
  const an = M.as(['systemd-analyze', 'calendar', ...calendars]);
  ok(an, 'systemd-analyze calendar');
  const elapses = [...an.out.matchAll(/^\s*Next elapse: (.+)$/gm)].map((m) => epoch(m[1]!));
  assert.is(Math.min(...elapses), epoch(next!), `systemd-analyze calendar: ${an.out}`);
  // And from the spec itself: the next :MM after now (Berlin's offset is whole hours).
  let want = Math.floor(before / 3_600_000) * 3_600_000 + minute * 60_000;
  if (want <= before) want += 3_600_000;
  assert.is(epoch(next!), want, `the next :${minute} after ${new Date(before).toISOString()}`);
});

real('real manager: `systemctl --user start hbgen-docs.service` runs the real wrapper: runtime.log grows by a scheduled wake and its outcome', async () => {
  const was = lines(logOf(docs)).length;
  const wasOut = lines(agentLogOf(docs)).length;
  ok(M.systemctl('start', 'hbgen-docs.service'), 'systemctl start');
  const got = lines(logOf(docs)).slice(was);
  assert.equal(got, ['hbgen docs start wake 1', 'hbgen docs quiet'], 'a scheduled wake (not "by hand") and its outcome');
  assert.equal(lines(agentLogOf(docs)).slice(wasOut), ['hbgen docs start wake 1', 'agent ran'], "agent.log: the wake's start, then the agent's output");
  assert.equal(show('hbgen-docs.service', 'Result', 'ExecMainStatus', 'ActiveState'), { Result: 'success', ExecMainStatus: '0', ActiveState: 'inactive' });
  const st = M.hb(docs, 'status');
  assert.match(st.out, /ok {7}last outcome: quiet at \d{4}-/);
});

real('real manager: a `setsid` helper the agent leaves behind survives a wake by hand, and is killed by the service\'s control group under systemd', async () => {
  const rec = join(docs.root, 'rec');
  mkdirSync(rec);
  M.user.own(docs);
  // The helper writes its PID once setsid(1) has made it a session of its own, and the
  // agent waits for that: ending earlier, the wrapper's group kill would still reach it.
  writeFileSync(
    docs.bin,
    `#!/bin/sh\nrm -f ${rec}/helper\nsetsid sh -c 'echo $$ >${rec}/helper.tmp && mv ${rec}/helper.tmp ${rec}/helper && exec sleep 300' </dev/null >/dev/null 2>&1 &\n` +
      `while [ ! -s ${rec}/helper ]; do sleep 0.05; done\ncat /proc/$(cat ${rec}/helper)/cgroup >${rec}/cgroup\necho agent ran\n`,
  );
  const helper = () => Number(readFileSync(join(rec, 'helper'), 'utf8'));
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  // Control: outside systemd no wrapper can reach a process that left the agent's session.
  const w = M.hb(docs, 'wake');
  ok(w, 'hbgen wake');
  const byHand = helper();
  await sleep(500);
  assert.ok(alive(byHand), 'the helper outlived a wake by hand (the wrapper alone cannot end it)');
  process.kill(byHand, 'SIGKILL');

  ok(M.systemctl('start', 'hbgen-docs.service'), 'systemctl start');
  const pid = helper();
  assert.is.not(pid, byHand);
  assert.match(readFileSync(join(rec, 'cgroup'), 'utf8'), /^0::\/.*\/hbgen-docs\.service$/m, 'the helper ran in the service\'s cgroup');
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
  assert.not.ok(alive(pid), `the helper (PID ${pid}) was killed when the service ended (KillMode=control-group)`);
  writeFileSync(docs.bin, '#!/bin/sh\necho agent ran\n');
});

real('real manager: status reports drift (a unit edited by hand, daemon-reload), an orphan (timer disabled or stopped by hand), a duplicate, and a timer the manager runs without state.json (exit 1 each); install repairs the orphan', async () => {
  const unit = join(unitDir(), 'hbgen-docs.service');
  const orig = readFileSync(unit);
  appendFileSync(unit, '# edited by hand\n');
  ok(M.systemctl('daemon-reload'), 'daemon-reload');
  assert.match(M.systemctl('cat', 'hbgen-docs.service').out, /# edited by hand/, 'the manager loaded the edited unit');
  let s = M.hb(docs, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, new RegExp(`problem  drift: ${unit} changed since install \\(sha256 [0-9a-f]{12}…, state\\.json [0-9a-f]{12}…\\); run \`hbgen install\` to restore it\\n`));
  // Host-level drift is repaired by install, after the panel has shown the edit it undoes.
  const fix = M.hb(docs, 'install', { yes: true });
  assert.is(fix.code, 0, fix.out + fix.err);
  // The panel writes a path under HOME as ~/….
  assert.match(fix.out, new RegExp(`~/\\.config/systemd/user/hbgen-docs\\.service +0644 {2}replaced: changed since install, the edit below is undone\\n`));
  assert.match(fix.out, /\n {4}-# edited by hand\n/);
  assert.ok(readFileSync(unit).equals(orig), 'the unit is as installed again');
  assert.not.match(M.systemctl('cat', 'hbgen-docs.service').out, /# edited by hand/, 'the manager reloaded the repaired unit');
  ok(M.hb(docs, 'status'), 'status after the unit is restored');

  ok(M.systemctl('disable', '--now', 'hbgen-docs.timer'), 'disable --now by hand');
  s = M.hb(docs, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, /problem {2}orphan: state\.json says installed, but hbgen-docs\.timer is disabled and inactive; run `hbgen install` to enable it again\n/);
  ok(M.hb(docs, 'install', { yes: true }), 'install repairs it');
  assert.equal(show('hbgen-docs.timer', 'UnitFileState', 'ActiveState'), { UnitFileState: 'enabled', ActiveState: 'active' });
  ok(M.hb(docs, 'status'), 'status after the repair');

  ok(M.systemctl('stop', 'hbgen-docs.timer'), 'stop by hand');
  s = M.hb(docs, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, /problem {2}orphan: state\.json says installed, but hbgen-docs\.timer is enabled and inactive/);
  ok(M.systemctl('start', 'hbgen-docs.timer'), 'start again');

  const other = join(M.user.home, '.local/share/systemd/user');
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, 'hbgen-docs.timer'), '[Timer]\nOnCalendar=daily\n');
  ok(M.systemctl('daemon-reload'), 'daemon-reload');
  assert.is(show('hbgen-docs.timer', 'FragmentPath').FragmentPath, join(unitDir(), 'hbgen-docs.timer'), 'the manager still loads hbgen\'s copy');
  s = M.hb(docs, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, new RegExp(`problem  duplicate: ${other}/hbgen-docs\\.timer is a second unit named hbgen-docs\\.timer; remove it or give the spec another name\\n`));
  rmSync(join(other, 'hbgen-docs.timer'));
  ok(M.systemctl('daemon-reload'), 'daemon-reload');
  ok(M.hb(docs, 'status'), 'healthy again');

  // state.json lost: the timer the manager still runs is found by the spec's name.
  const state = join(names(docs.spec).stateDir, 'state.json');
  renameSync(state, `${state}.aside`);
  s = M.hb(docs, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, /is not recorded as installed \(no readable .*state\.json\), but the scheduler still runs it\n/);
  assert.match(s.out, new RegExp(`problem  ${state} is gone; the scheduler still runs hbgen-docs\\.timer \\(enabled and active\\); \`hbgen stop\` removes it\n`));
  renameSync(`${state}.aside`, state);
  ok(M.hb(docs, 'status'), 'healthy with state.json back');
});

real('real manager: stop ends a wake the manager is running now, and leaves list-timers and the unit folder without hbgen-docs (lingering stays on: tick still needs it); resume brings them back', async () => {
  writeFileSync(docs.bin, '#!/bin/sh\necho agent started\nsleep 60\n');
  ok(M.systemctl('start', '--no-block', 'hbgen-docs.service'), 'systemctl start --no-block');
  for (let i = 0; i < 100 && !agentLog(docs).includes('agent started'); i++) await sleep(100);
  assert.ok(agentLog(docs).includes('agent started'), 'the wake is running');
  assert.is(show('hbgen-docs.service', 'ActiveState').ActiveState, 'activating');
  assert.ok(existsSync(names(docs.spec).lockDir), 'the wake holds the lock');
  M.linger.clearCalls();
  const t0 = Date.now();
  const r = M.hb(docs, 'stop');
  ok(r, 'stop');
  assert.ok(Date.now() - t0 < 20_000, 'stop did not wait out the wake');
  assert.match(r.out, /\n {2}ran systemctl --user stop hbgen-docs\.service\n/);
  // The manager TERMs every process of the service at once; the agent's shell may say
  // "Terminated" about its sleep before it goes.
  assert.match(lines(logOf(docs)).slice(-2).join('\n'), /^hbgen docs start wake \d+\nhbgen docs fail 143 signal TERM$/, 'the wrapper logged the TERM the manager sent');
  const out = lines(agentLogOf(docs));
  assert.equal(out.slice(out.lastIndexOf('agent started')).filter((l) => l !== 'Terminated'), ['agent started'], 'agent.log ends with the agent\'s output');
  // The wrapper's exit 143 leaves the service failed: stop resets it, or the manager
  // would keep listing it (and say "degraded") with its unit file gone.
  assert.match(r.out, /\n {2}ran systemctl --user reset-failed hbgen-docs\.service\n/);
  assert.equal(show('hbgen-docs.service', 'LoadState', 'ActiveState'), { LoadState: 'not-found', ActiveState: 'inactive' });
  assert.is(M.systemctl('list-units', '--all', '--no-legend', '--plain', 'hbgen-docs*').out, '', 'the manager lists no hbgen-docs unit');
  assert.not.ok(existsSync(names(docs.spec).lockDir), 'the wrapper\'s lock is released');
  writeFileSync(docs.bin, '#!/bin/sh\necho agent ran\n');
  assert.not.ok(allTimers().includes('hbgen-docs.timer'), 'list-timers --all has no hbgen-docs.timer');
  assert.ok(allTimers().includes('hbgen-tick.timer'), 'the other spec\'s timer stays');
  assert.equal(unitFiles().filter((f) => f.startsWith('hbgen-docs.')), []);
  assert.is(show('hbgen-docs.timer', 'LoadState').LoadState, 'not-found');
  assert.is(show('hbgen-docs.service', 'LoadState').LoadState, 'not-found');
  assert.ok(M.linger.has('linger'), 'lingering left on');
  assert.not.ok(M.linger.calls().some((c) => c.includes('disable-linger')));
  const st = M.hb(docs, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /stopped: there is no scheduler entry/);

  ok(M.hb(docs, 'resume', { yes: true }), 'resume');
  assert.ok(allTimers().includes('hbgen-docs.timer'), 'list-timers shows hbgen-docs.timer again');
  assert.equal(unitFiles().filter((f) => f.startsWith('hbgen-docs.')).sort(), ['hbgen-docs.service', 'hbgen-docs.timer']);
  assert.equal(show('hbgen-docs.timer', 'LoadState', 'UnitFileState', 'ActiveState'), { LoadState: 'loaded', UnitFileState: 'enabled', ActiveState: 'active' });
  ok(M.hb(docs, 'status'), 'healthy after resume');
});

real('real timer fire: "tick" fires at its planned minute, the real wrapper logs the wake and the agent ran', async () => {
  const fired = () => log(tick).split('\n').find((l) => / hbgen tick start wake( \d+)?$/.test(l));
  const deadline = tickAt + 45_000;
  while (!fired() && Date.now() < deadline) await sleep(500);
  const line = fired();
  assert.ok(line, `no fire logged by ${new Date(deadline).toISOString()}; log:\n${log(tick)}`);
  assert.is(line!.slice(0, 16), new Date(tickAt).toISOString().slice(0, 16), 'fired at the planned minute');
  while (!/ hbgen tick quiet$/m.test(log(tick)) && Date.now() < deadline + 15_000) await sleep(200);
  assert.equal(lines(logOf(tick)).filter((l) => !/smoke|skip-locked/.test(l)), ['hbgen tick start wake 1', 'hbgen tick quiet']);
  assert.equal(lines(agentLogOf(tick)), ['hbgen tick start wake 1', 'agent ran'], "agent.log: the wake's start, then the agent's output");
  assert.match(show('hbgen-tick.timer', 'LastTriggerUSec').LastTriggerUSec, /^\S+ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, 'the manager recorded the trigger');
});

real('re-installing "tick" after its real fire, with a changed hours.end, starts no wake and stays installed (systemd 252 fires a restarted timer that fired before)', async () => {
  // The window now ends after the hour that fired (at 23 h it starts an hour later
  // instead), so the slot that fired is in the new calendar too: the slot that a
  // `restart` fires again at once.
  const h = new Date(tickAt).getUTCHours();
  const hours = h < 23 ? { start: '00:00', end: `${String(h + 1).padStart(2, '0')}:00` } : { start: '01:00', end: '24:00' };
  const timerFile = join(unitDir(), 'hbgen-tick.timer');
  const oldTimer = readFileSync(timerFile, 'utf8');
  rewriteSpec(tick, { schedule: { ...tick.spec.schedule, hours: { ...hours, timezone: 'UTC' } } });
  M.user.own(tick);
  const before = lines(logOf(tick));
  const r = M.hb(tick, 'install', { yes: true });
  ok(r, 'the re-install');
  assert.match(r.out, /hbgen: installed "tick"/);
  assert.is.not(readFileSync(timerFile, 'utf8'), oldTimer, 'the new calendar is installed');
  // A wake the manager started at once would be logged within a moment: give it 3 s.
  await sleep(3_000);
  const added = lines(logOf(tick)).slice(before.length);
  // The install check's lines only (its run through the manager notes how it ran).
  assert.equal(added.filter((l) => !/ smoke$/.test(l) && !/ note smoke run as /.test(l)), [], `no wake started by the re-install: ${added.join(' | ')}`);
  assert.match(r.out, /\n {2}systemctl --user disable --now hbgen-tick\.timer {3}\(so that systemd forgets its last fire and starts no wake now\)\n {2}systemctl --user daemon-reload\n {2}systemctl --user enable --now hbgen-tick\.timer\n/);
  assert.match(r.out, /ok {4}lock: the second run found the lock held and logged skip-locked smoke\n/);
  assert.equal(show('hbgen-tick.timer', 'UnitFileState', 'ActiveState', 'LastTriggerUSec'), { UnitFileState: 'enabled', ActiveState: 'active', LastTriggerUSec: '' }, 'a fresh timer: the manager forgot the fire before it, and none since');
  assert.ok(epoch(listedNext('hbgen-tick.timer')!) > Date.now(), 'the next fire is ahead');
  ok(M.hb(tick, 'status'), 'status after the re-install');
});

real('stop both: no hbgen timer, no unit and lingering off', async () => {
  ok(M.hb(docs, 'stop'), 'stop docs');
  M.linger.clearCalls();
  ok(M.hb(tick, 'stop'), 'stop tick');
  assert.equal(allTimers().filter((t) => t.startsWith('hbgen-')), []);
  assert.equal(unitFiles().filter((f) => f.startsWith('hbgen-')), []);
  assert.ok(M.linger.calls().includes(`loginctl disable-linger ${M.user.name}`) && !M.linger.has('linger'), 'the last stop turned lingering off again');
});

test.after(async () => {
  await M?.stop();
});

test.run();
