// Install proves the install where it runs. HEART.md is required (refused when
// missing or empty, status reports one removed after install); the install check runs the
// wrapper through the scheduler (STAND-IN systemctl/launchctl here: they record the call and
// run the unit's wrapper as the scheduler would, with no terminal), or under cron's documented
// environment for cron; a STAND-IN client that is "logged in" only with a terminal fails
// that check where the terminal's check passed.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sh } from '../src/escape.ts';
import { names } from '../src/names.ts';
import { HBGEN, ROOT } from './helpers/cli.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { makeStub } from './helpers/crontab.ts';
import { type Host, hb, lines, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

/** This host's zone, as hbgen reads it (/etc/localtime's target, else /etc/timezone). */
function hostZone(): string {
  try {
    return readlinkSync('/etc/localtime').replace(/^.*zoneinfo\//, '');
  } catch {
    return readFileSync('/etc/timezone', 'utf8').trim();
  }
}

const ME = `${userInfo().username} (uid ${process.getuid!()})`;

/**
 * A STAND-IN claude that is "logged in" only with a controlling terminal (as a client whose
 * login lives in a keychain that only the login session reaches): `auth status` from a
 * process without one says not logged in.
 */
function terminalOnlyClaude(h: Host): void {
  writeFileSync(
    h.bin,
    `#!/bin/sh
if ! (: </dev/tty) 2>/dev/null; then
  case "$1 \${2-}" in 'auth status') printf '%s' '{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}'; exit 1 ;; esac
fi
${subscriptionAnswers()}echo agent ran
`,
  );
  chmodSync(h.bin, 0o755);
  const spec = JSON.parse(readFileSync(h.specFile, 'utf8'));
  spec.agent = { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.' };
  writeFileSync(h.specFile, JSON.stringify(spec, null, 2));
}

/** The built CLI under script(1): a pseudo-terminal that is the process's controlling terminal, as a person's shell. */
function inTerminal(h: Host, args: string[]): { code: number; out: string } {
  const cmd = [process.execPath, HBGEN, ...args].map(sh).join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...h.env, TERM: 'dumb' }, cwd: h.root, encoding: 'utf8', input: '' });
  return { code: r.status ?? 128, out: String(r.stdout).replace(/\r\n/g, '\n') };
}

test('HEART.md missing: install refuses, naming hbgen init, and changes nothing', async () => {
  const h = makeHost('systemd-user');
  rmSync(join(h.repo, 'HEART.md'));
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /HEART\.md does not exist .*run `hbgen init .*` to scaffold it/);
  assert.match(r.err, /nothing was changed on this host/);
  assert.not.ok(existsSync(names(h.spec).stateDir), 'no state folder');
  assert.not.ok(h.tools.calls().some((c) => / (enable|start|daemon-reload)/.test(c)), h.tools.calls().join('\n'));
});

test('HEART.md empty (blank lines only): install refuses', async () => {
  const h = makeHost('cron');
  writeFileSync(join(h.repo, 'HEART.md'), '\n  \n');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /HEART\.md is empty: every wake reads its mission there/);
});

test('status reports a HEART.md removed after install (and is healthy again once it is back)', async () => {
  const h = makeHost('systemd-user');
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  const ok = await hb(h, 'status');
  assert.not.match(ok.out, /HEART\.md was/);
  rmSync(join(h.repo, 'HEART.md'));
  const s = await hb(h, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, /problem {2}.*HEART\.md was removed since install: every wake now runs with no mission/);
  const j = await hb(h, 'status', { json: true });
  assert.ok(JSON.parse(j.out).problems.some((p: { code: string }) => p.code === 'heart-missing'), j.out);
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\nagain\n');
  assert.not.match((await hb(h, 'status')).out, /HEART\.md was/);
});

test('a client logged in only with a terminal: the terminal\'s billing check passes, the run through systemctl --user start fails, and install undoes everything', () => {
  const h = makeHost('systemd-user');
  terminalOnlyClaude(h);
  const r = inTerminal(h, ['install', h.specFile, '--yes']);
  assert.is(r.code, 1, r.out);
  // The check from the terminal (planInstall's) passed: the panel was shown and the install ran.
  assert.match(r.out, /billing +Claude subscription login \(max\)/);
  assert.match(r.out, /FAIL {2}scheduler run: systemctl --user start hbgen-docs\.service: exit 1; the wrapper ran as \S+ \(uid \d+\), no terminal, which logged "error billing claude auth status says not logged in/, r.out);
  assert.match(r.out, /the install check failed \(scheduler run[^)]*\), so "docs" is not installed/);
  assert.not.ok(existsSync(join(h.home, '.config/systemd/user/hbgen-docs.service')), 'the unit is removed again');
  assert.ok(h.tools.calls().includes('systemctl --user start hbgen-docs.service'), h.tools.calls().join('\n'));
});

test('cron: the check runs the wrapper in cron\'s environment (no terminal, a new session) and says cron itself was not exercised', async () => {
  const h = makeHost('cron');
  const stub = makeStub();
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  const dry = await hb(h, 'install', { dryRun: true });
  assert.match(dry.out, new RegExp(`  /bin/sh ${names(h.spec).wrapper}   \\(cron cannot start a job on demand, so cron itself is not exercised: the run gets cron's environment \\(env -i SHELL=/bin/sh HOME LOGNAME PATH=/usr/bin:/bin\\), no terminal, a new session`));
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /ok {4}cron's environment: \/bin\/sh heartbeat\.sh in cron's environment: exit 0; the wrapper ran as \S+ \(uid \d+\), no terminal; cron itself was not exercised/);
  assert.ok(lines(names(h.spec).log).includes(`hbgen docs note smoke run as ${ME}, no terminal`));
  assert.not.ok(existsSync(join(names(h.spec).stateDir, 'smoke.request')), 'the request was taken');
});

test('cron: a client logged in only with a terminal passes the terminal\'s check and is refused by the run in cron\'s environment', () => {
  const h = makeHost('cron');
  const stub = makeStub();
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  terminalOnlyClaude(h);
  // cron reads the host's clock: the spec's zone is this host's, so that install does not refuse it.
  const spec = JSON.parse(readFileSync(h.specFile, 'utf8'));
  spec.schedule.hours.timezone = hostZone();
  writeFileSync(h.specFile, JSON.stringify(spec, null, 2));
  const r = inTerminal(h, ['install', h.specFile, '--yes']);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /billing +Claude subscription login \(max\)/);
  assert.match(r.out, /FAIL {2}cron's environment: \/bin\/sh heartbeat\.sh in cron's environment: exit 78; the wrapper ran as \S+ \(uid \d+\), no terminal, which logged "error billing claude auth status says not logged in[^"]*"; cron itself was not exercised/, r.out);
  assert.is(stub.table(), null, 'the crontab is as before (none)');
});

test('hbgen doctor: the install\'s checks again through the scheduler, nothing of the install changed; it names what would stop a wake now', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const stateJson = readFileSync(join(names(h.spec).stateDir, 'state.json'));
  const unit = readFileSync(join(h.home, '.config/systemd/user/hbgen-docs.service'));
  h.tools.clearCalls();
  const d = await hb(h, 'doctor');
  assert.is(d.code, 0, d.out + d.err);
  assert.match(d.out, /ok {4}scheduler run: systemctl --user start hbgen-docs\.service: exit 0; the wrapper ran as \S+ \(uid \d+\), no terminal\n/);
  assert.match(d.out, /ok {4}lock: the second run found the lock held/);
  assert.match(d.out, /\nit would run right now\n$/);
  assert.ok(h.tools.calls().includes('systemctl --user start hbgen-docs.service'));
  assert.not.ok(h.tools.calls().some((c) => / (enable|disable|daemon-reload|stop) /.test(`${c} `)), 'it changed nothing on the scheduler');
  assert.ok(readFileSync(join(names(h.spec).stateDir, 'state.json')).equals(stateJson), 'state.json as it was');
  assert.ok(readFileSync(join(h.home, '.config/systemd/user/hbgen-docs.service')).equals(unit), 'the unit as it was');
  // The user manager cannot start the job now, and HEART.md is gone: both named, exit 1.
  h.tools.flag('fail-start', 'Failed to start hbgen-docs.service: Unit hbgen-docs.service is masked.');
  rmSync(join(h.repo, 'HEART.md'));
  const bad = await hb(h, 'doctor');
  assert.is(bad.code, 1, bad.out);
  assert.match(bad.out, /FAIL {2}HEART\.md: .*HEART\.md does not exist/);
  assert.match(bad.out, /FAIL {2}scheduler run: systemctl --user start hbgen-docs\.service did not run the wrapper \(exit 1 \(Failed to start hbgen-docs\.service: Unit hbgen-docs\.service is masked\.\)/);
  assert.match(bad.out, /it would not run right now: HEART\.md, scheduler run/);
  assert.not.ok(existsSync(join(names(h.spec).stateDir, 'smoke.request')), 'the request no run took is removed');
});

test('first wake: --first-wake runs one real wake through systemctl --user start after the check and prints its outcome, duration and what changed in the repo; without a terminal and without the flag it is skipped, and said', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(join(h.repo, 'PROTOCOL.md'), '# PROTOCOL\nAppend one line to LOG.md, update STATE.md.\n');
  const git = (...a: string[]) => spawnSync('git', ['-C', h.repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'start');
  // The person's own edit, uncommitted before the wake; the agent changes it again (LOG.md
  // and STATE.md are out of git's sight: install keeps the control files in .git/info/exclude).
  writeFileSync(join(h.repo, 'notes.txt'), 'mine\n');
  // A STAND-IN agent that does one chunk: a commit, a file left uncommitted, the person's
  // file changed again, and its memory: a LOG.md line in PROTOCOL.md's shape, STATE.md.
  writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}cd "$HBGEN_REPO" && echo chunk >> done.txt && git -c user.name=a -c user.email=a@example.com add done.txt && git -c user.name=a -c user.email=a@example.com commit -qm "agent: one chunk" && echo scratch > scratch.txt && echo agent >> notes.txt && echo '2026-07-23 22:38 CEST — Curr: done: links fixed — next: search' >> LOG.md && echo 'Next: search' > STATE.md\n`);
  const r = await hb(h, 'install', { yes: true, firstWake: true });
  assert.is(r.code, 0, r.out + r.err);
  const after = r.out.slice(r.out.indexOf('hbgen: installed "docs"'));
  assert.match(after, /\nfirst wake: started through the scheduler; waiting up to 10m for its outcome\n/);
  assert.match(after, /\nfirst wake: ok after \d+ s\n/);
  assert.match(after, /\n {2}in the repo: a new commit [0-9a-f]+ agent: one chunk; 2 files changed and not committed: notes\.txt, scratch\.txt\n/);
  assert.match(after, /\n {2}ok {4}the wake's outcome: ok\n {2}ok {4}the lock released\n {2}ok {4}runtime\.log: its start line and its outcome line\n {2}ok {4}LOG\.md: a new line in the shape PROTOCOL\.md asks\n {2}ok {4}STATE\.md updated\n {2}ok {4}the scheduler's entry: still armed\nfirst wake: all 6 required checks passed\n/, after);
  assert.equal(h.tools.calls().filter((c) => c === 'systemctl --user start hbgen-docs.service').length, 2, 'the check and the first wake, both through the user manager');
  assert.ok(lines(names(h.spec).log).includes('hbgen docs start wake 1 by hand'), 'one wake counted');
  assert.not.ok(existsSync(join(names(h.spec).stateDir, 'wake.request')));

  // On a terminal it is offered with Enter for yes; an agent that leaves no memory fails
  // those required checks (the repo has a PROTOCOL.md): the platform is left stopped, as
  // `hbgen stop` leaves it, the state folder and logs kept, exit 1; resume brings it back.
  const t = makeHost('systemd-user');
  writeFileSync(join(t.repo, 'PROTOCOL.md'), '# PROTOCOL\nAppend one line to LOG.md, update STATE.md.\n');
  writeFileSync(t.bin, `#!/bin/sh\n${subscriptionAnswers()}exit 0\n`);
  const y = await hb(t, 'install', { yes: true, tty: true, answer: '' });
  assert.is(y.code, 1, y.out + y.err);
  assert.match(y.err, /Run one real wake of "docs" now, through the scheduler, to see the agent work \(up to 10m, it spends your plan's allowance\)\? \[Y\/n\] /);
  assert.match(y.out, /\n {2}FAIL {2}LOG\.md: no new line \(PROTOCOL\.md asks for one every wake\)\n {2}FAIL {2}STATE\.md unchanged[^\n]*\n {2}ok {4}the scheduler's entry: still armed\nfirst wake: 2 required checks failed \(LOG\.md, STATE\.md\), so "docs" is left stopped; its state folder and logs stay for the diagnosis:\n/, y.out);
  assert.not.match(y.out, /the install stays|all \d+ required checks passed/);
  assert.match(y.err, /hbgen: first wake: 2 required checks failed \(LOG\.md, STATE\.md\): "docs" is stopped; the wake's lines are in \S+runtime\.log and the agent's output in \S+agent\.log; fix what the FAIL lines above name [^\n]*, then `hbgen resume \S+` installs it again\n/, y.err);
  assert.ok(t.tools.calls().includes('systemctl --user disable --now hbgen-docs.timer') || t.tools.calls().some((c) => /disable/.test(c)), t.tools.calls().join('\n'));
  assert.not.ok(existsSync(join(t.home, '.config/systemd/user/hbgen-docs.timer')), 'the timer is gone, as stop removes it');
  assert.is(JSON.parse(readFileSync(join(names(t.spec).stateDir, 'state.json'), 'utf8')).status, 'stopped');
  assert.ok(existsSync(names(t.spec).wrapper), 'the state folder is kept');
  assert.ok(lines(names(t.spec).log).includes('hbgen docs start wake 1 by hand'), 'runtime.log keeps the wake');
  const ts = await hb(t, 'status');
  assert.is(ts.code, 1, ts.out);
  assert.match(ts.out, /stopped: there is no scheduler entry; `hbgen resume` installs it again/);
  const again = await hb(t, 'resume', { yes: true });
  assert.is(again.code, 0, again.out + again.err);
  assert.ok(existsSync(join(t.home, '.config/systemd/user/hbgen-docs.timer')), 'resume put the timer back');

  // Without a PROTOCOL.md, LOG.md and STATE.md are said but not required: the install stays.
  const np = makeHost('systemd-user');
  writeFileSync(np.bin, `#!/bin/sh\n${subscriptionAnswers()}exit 0\n`);
  const npr = await hb(np, 'install', { yes: true, firstWake: true });
  assert.is(npr.code, 0, npr.out + npr.err);
  assert.match(npr.out, /\n {2}warn {2}LOG\.md: no new line \(PROTOCOL\.md asks for one every wake\) \(not required: the repo has no PROTOCOL\.md\)\n/, npr.out);
  assert.match(npr.out, /\nfirst wake: all 4 required checks passed \(2 checks not required failed\)\n/, npr.out);
  assert.is(JSON.parse(readFileSync(join(names(np.spec).stateDir, 'state.json'), 'utf8')).status, 'installed');
  const no = makeHost('systemd-user');
  const nn = await hb(no, 'install', { yes: true, tty: true, answer: 'n' });
  assert.match(nn.out, /\nfirst wake: not run; /, nn.out);

  // A first wake whose client refused tool calls (a recorded real stream): its outcome is named, and it does not pass.
  const d = makeHost('systemd-user');
  rewriteSpec(d, { agent: { harness: 'claude-code', bin: d.bin, prompt: 'Do one chunk.', model: 'sonnet' } });
  writeFileSync(d.bin, `#!/bin/sh\n${subscriptionAnswers()}cat '${join(ROOT, 'test/streams/claude-2.1.332-denied.jsonl')}'\n`);
  const dr = await hb(d, 'install', { yes: true, firstWake: true });
  assert.is(dr.code, 1, dr.out + dr.err);
  assert.match(dr.out, /\nfirst wake: denied 2 \(Bash\): the client refused these tool calls; [^\n]* after \d+ s\n/, dr.out);
  assert.match(dr.out, /\n {2}FAIL {2}the wake's outcome: denied 2 \(Bash\)/);
  assert.match(dr.err, /first wake: 1 required check failed \(the wake's outcome\): "docs" is stopped/, dr.err);
  assert.is(JSON.parse(readFileSync(join(names(d.spec).stateDir, 'state.json'), 'utf8')).status, 'stopped');

  const q = makeHost('systemd-user');
  const n = await hb(q, 'install', { yes: true });
  assert.is(n.code, 0, n.err);
  assert.match(n.out, /\nfirst wake: skipped \(no terminal to ask; `--first-wake` runs one after the check\); `hbgen wake` runs one by hand\n$/);
  assert.not.ok(lines(names(q.spec).log).some((l) => / start wake /.test(l)), 'no wake ran');
});

test('first wake: a LOG.md line with the time as the context block prints it (`Local time: 2026-12-07 20:58 UTC (UTC)`) is in PROTOCOL.md\'s shape; a malformed one is still refused', async () => {
  const { logLineShaped } = await import('../src/host/install/first-wake.ts');
  for (const l of [
    '2026-12-07 20:58 UTC (UTC) \u2014 Curr: done: links fixed \u2014 next: search',
    '2026-12-07 21:58 CET (Europe/Berlin) \u2014 Curr: partial: half the links',
    '2026-12-07 17:58 -03 (America/Santiago) \u2014 Curr: idle: nothing to do',
    '2026-12-08 02:28 +0530 (Asia/Kolkata) \u2014 Curr: done: one chunk',
    '2026-12-07 20:58 (America/Argentina/Buenos_Aires) \u2014 Curr: blocked: no network',
    'Local time: 2026-12-07 20:58 UTC (UTC) \u2014 Curr: done: copied with its label',
    '2026-07-23 22:38 CEST \u2014 Curr: done: as LOG.md\'s own example',
    '2026-07-23 22:38 \u2014 Curr: done: no zone',
  ]) assert.ok(logLineShaped(l), l);
  for (const l of [
    '2026-12-07 20:58 UTC (UTC) Curr: done: no dash',
    '2026-12-07 20:58 UTC (UTC) (UTC) \u2014 Curr: done: the zone twice',
    '2026-12-07 20:58 UTC (UTC \u2014 Curr: done: an unclosed parenthesis',
    '20:58 UTC (UTC) \u2014 Curr: done: no date',
    'Dec 7 2026 20:58 UTC \u2014 Curr: done: another date form',
    '2026-12-07 20:58 UTC (UTC) \u2014 Curr:',
    '2026-12-07 20:58 UTC (UTC) - Curr: done: a hyphen, not the dash',
    'did one chunk',
  ]) assert.not.ok(logLineShaped(l), l);
});

test.run();
