// hbgen init: the control plane and a spec with what the host can tell;
// the interval, working hours and timeout are asked on a terminal (one question at a
// time) or left for the user, so that the spec does not validate until they are chosen.
// Never overwrites. Driven through init() with injected streams and, once, through the
// built CLI on a real terminal (script(1)).
import { bundledSrt } from '../src/host/install/jail-probe.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INIT_PROMPT, init, specName } from '../src/commands/init.ts';
import { cleanPath, detectScheduler } from '../src/host/install/detect.ts';
import type { HostIO } from '../src/host/io.ts';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';
import { HBGEN } from './helpers/cli.ts';
import { makeStandIns } from './helpers/standins.ts';
import { jsonSchema } from '../src/schema.ts';
import { heartRefusal } from '../src/host/heart/mission.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'hbgen-init-')));
test.after(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

interface World {
  dir: string;
  home: string;
  bin: string;
  /** A folder of links to host tools (git, and systemctl when asked for). */
  tools: string;
}

function world(opts: { systemctl?: boolean; git?: boolean } = {}): World {
  const dir = join(root, `w${++seq}`);
  const home = join(dir, 'home');
  const bin = join(dir, 'bin');
  const tools = join(dir, 'tools');
  for (const d of [home, bin, tools, join(dir, 'repo')]) mkdirSync(d, { recursive: true });
  symlinkSync('/usr/bin/git', join(tools, 'git'));
  if (opts.systemctl) symlinkSync('/bin/true', join(tools, 'systemctl'));
  if (opts.git !== false) spawnSync('git', ['init', '-q', join(dir, 'repo')]);
  return { dir, home, bin, tools };
}

/** An executable file at `real`, reached through the link `onPath` when given. */
function program(real: string, onPath?: string): string {
  mkdirSync(join(real, '..'), { recursive: true });
  writeFileSync(real, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  if (onPath) {
    mkdirSync(join(onPath, '..'), { recursive: true });
    symlinkSync(real, onPath);
  }
  return real;
}

function io(w: World, o: { cwd?: string; path?: string; input?: string[]; tty?: boolean; env?: Record<string, string> } = {}) {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = o.tty ?? false;
  if (o.input) stdin.end(o.input.map((l) => `${l}\n`).join(''));
  else stdin.end();
  let out = '';
  let err = '';
  const host: HostIO = {
    env: { HOME: w.home, PATH: o.path ?? `${w.bin}:${w.tools}`, USER: 'ada', LOGNAME: 'ada', TZ: 'America/Santiago', ...(o.env ?? {}) },
    uid: process.getuid!(),
    user: 'ada',
    cwd: o.cwd ?? join(w.dir, 'repo'),
    stdin,
    out: (s) => (out += s),
    err: (s) => (err += s),
    now: () => new Date(),
  };
  return { host, out: () => out, err: () => err };
}

const specOf = (repo: string) => JSON.parse(readFileSync(join(repo, 'hbgen.json'), 'utf8'));

test('no terminal: writes the control plane and a spec with the detected values; interval, hours and timeout left out, and the errors say to choose', async () => {
  const w = world({ systemctl: true });
  const real = program(join(w.dir, 'opt/claude-code/bin/claude.exe'), join(w.bin, 'claude'));
  const t = io(w, { path: `${w.bin}:./relative::${w.tools}:${w.bin}` });
  const code = await init({}, t.host);
  assert.is(code, 0);
  const repo = join(w.dir, 'repo');
  for (const f of ['HEART.md', 'PROTOCOL.md', 'STATE.md', 'LOG.md', 'journal/TEMPLATE.md', 'hbgen.json', 'hbgen.schema.json']) assert.ok(existsSync(join(repo, f)), f);
  // The spec names the schema written beside it, which is `hbgen schema`'s.
  assert.is(readFileSync(join(repo, 'hbgen.schema.json'), 'utf8'), `${JSON.stringify(jsonSchema(), null, 2)}\n`);
  const heart = readFileSync(join(repo, 'HEART.md'), 'utf8');
  for (const h of ['## Mission', '## Current priorities', '## Restrictions', '## External effects allowed', '## Stop conditions']) assert.match(heart, h);
  const protocol = readFileSync(join(repo, 'PROTOCOL.md'), 'utf8');
  for (const p of [/start\s+every wake blank/, /Pick ONE chunk/, /journal\/YYYY-MM-DD-HHMM\.md/, /Local time/, /claim\.sh/, /state first/, /Exit\. Do not start a second chunk/, /Model tiers/]) assert.match(protocol, p);
  assert.match(readFileSync(join(repo, 'STATE.md'), 'utf8'), /## Done[\s\S]*## Next[\s\S]*## Blockers/);
  for (const s of ['## Did', '## Learned', '## Next', '## Left open']) assert.match(readFileSync(join(repo, 'journal/TEMPLATE.md'), 'utf8'), s);
  const spec = specOf(repo);
  assert.equal(spec, {
    $schema: './hbgen.schema.json',
    version: 1,
    name: 'repo',
    repo,
    // The tiers and fallback from Claude Code's aliases (test/init-models runs the real clients).
    agent: { harness: 'claude-code', bin: real, model: 'sonnet', effort: 'medium', prompt: INIT_PROMPT, fallbackModel: 'haiku', models: { fast: 'haiku', general: 'sonnet', strong: 'opus' } },
    schedule: { scheduler: 'systemd-user', hours: { timezone: 'America/Santiago' } },
    // Claude Code's stream reads the plan's windows: init proposes a reserve of them.
    reserve: { fiveHour: '30%', weekly: '40%' },
    env: { HOME: w.home, PATH: `${w.bin}:${w.tools}`, USER: 'ada', LOGNAME: 'ada' },
    // No srt on that PATH: the jail's srt is hbgen's own copy.
    sandbox: { bin: bundledSrt() },
  });
  assert.ok(bundledSrt()?.endsWith('/node_modules/.bin/srt'), 'hbgen has its own srt (npm ci)');
  assert.match(t.out(), /\n {2}reserve {4}30% of the plan's 5-hour window and 40% of the weekly one kept for you: no wake starts inside it \(change or remove reserve\)\n/, t.out());
  const v = validateSpec(spec);
  assert.equal(v.errors, [
    'schedule.every: required: choose the interval between wakes, one of 5m 10m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 24h',
    'schedule.hours.start: required: choose when the working hours start, as HH:MM',
    'schedule.hours.end: required: choose when the working hours end, as HH:MM or 24:00',
    'timeout: required: choose the hard time limit of one wake, shorter than every minus killAfter, e.g. "25m"',
  ]);
  const out = t.out();
  assert.match(out, /does not validate until you fill in \(hbgen never guesses the interval, the working hours or the timeout\)/);
  assert.match(out, /"schedule\.every": how often the agent wakes/);
  assert.match(out, /"timeout": how long one wake may run/);
  assert.match(out, new RegExp(`agent +Claude Code \\(harness "claude-code"\\): ${real} \\(found as ${w.bin}/claude\\)`));
  // The preset's model and effort are pinned, and said.
  assert.match(out, /\n {2}model {6}sonnet, effort medium: pinned in agent\.model and agent\.effort \(change them there\)\n/);
  assert.match(out, /left out of env\.PATH: \.\/relative, \(empty\)/);
  assert.match(out, /scheduler +systemd-user \(`systemctl --user` reaches your user manager\)/);
  assert.is(t.err(), '', 'no question without a terminal');
  // Filled in by hand, the spec renders.
  const done = { ...spec, schedule: { ...spec.schedule, every: '30m', hours: { ...spec.schedule.hours, start: '09:00', end: '18:00' } }, timeout: '25m' };
  const ok = validateSpec(done);
  assert.ok(ok.spec, String(ok.errors));
  assert.is(renderNow(ok.spec!).errors.length, 0);
});

test('never overwrites: existing files are kept byte for byte and reported; a second run changes nothing', async () => {
  const w = world();
  program(join(w.bin, 'claude'));
  const repo = join(w.dir, 'repo');
  writeFileSync(join(repo, 'HEART.md'), 'mine\n');
  writeFileSync(join(repo, 'hbgen.json'), '{"mine": true}\n');
  mkdirSync(join(repo, 'journal'));
  writeFileSync(join(repo, 'journal', 'TEMPLATE.md'), 'my template\n');
  const t = io(w, { tty: true, input: ['a', 'a', 'a', 'a', 'a'] });
  assert.is(await init({}, t.host), 0);
  assert.is(readFileSync(join(repo, 'HEART.md'), 'utf8'), 'mine\n');
  assert.is(readFileSync(join(repo, 'hbgen.json'), 'utf8'), '{"mine": true}\n');
  assert.is(readFileSync(join(repo, 'journal/TEMPLATE.md'), 'utf8'), 'my template\n');
  assert.ok(existsSync(join(repo, 'PROTOCOL.md')));
  assert.match(t.out(), /wrote PROTOCOL\.md, STATE\.md, LOG\.md in /);
  assert.match(t.out(), /kept the existing HEART\.md, journal\/TEMPLATE\.md, hbgen\.json \(init never overwrites a file\)/);
  assert.match(t.out(), /hbgen\.json already exists, so nothing was detected or asked/);
  // The kept hbgen.json is not init's: no note about the sandbox.bin it would have written.
  assert.not.match(t.out(), /srt/);
  assert.is(t.err(), '', 'no questions when the spec exists');
  const snapshot = ['HEART.md', 'PROTOCOL.md', 'STATE.md', 'LOG.md', 'hbgen.json'].map((f) => readFileSync(join(repo, f), 'utf8'));
  const t2 = io(w);
  assert.is(await init({}, t2.host), 0);
  assert.equal(['HEART.md', 'PROTOCOL.md', 'STATE.md', 'LOG.md', 'hbgen.json'].map((f) => readFileSync(join(repo, f), 'utf8')), snapshot);
  assert.match(t2.out(), /^hbgen init: kept the existing HEART\.md, PROTOCOL\.md, STATE\.md, LOG\.md, journal\/TEMPLATE\.md, hbgen\.json/);
  // A symbolic link (even a dangling one) counts as an existing file.
  const w3 = world();
  symlinkSync(join(w3.dir, 'nowhere'), join(w3.dir, 'repo', 'STATE.md'));
  await init({}, io(w3).host);
  assert.not.ok(existsSync(join(w3.dir, 'nowhere')));
});

test('terminal (injected streams): one question at a time, concrete choices or a custom value, bad answers asked again; the result validates', async () => {
  const w = world();
  const claude = program(join(w.bin, 'claude'));
  const codex = program(join(w.dir, 'lib/node_modules/@openai/codex/bin/codex.js'), join(w.bin, 'codex'));
  const t = io(w, { tty: true, input: ['4', 'd', 'b', '7m', '30m', '25:00', '8:30', '08:30', '24', 'mon tue fun', 'fri,mon', '29m40s', '30m', 'a'] });
  assert.is(await init({}, t.host), 0);
  const spec = specOf(join(w.dir, 'repo'));
  assert.equal(spec.agent, { harness: 'codex', bin: codex, model: 'gpt-5.5', effort: 'medium', prompt: INIT_PROMPT });
  assert.equal(spec.schedule, { scheduler: 'cron', every: '30m', hours: { start: '08:30', end: '24:00', timezone: 'America/Santiago', days: ['mon', 'fri'] } });
  assert.is(spec.timeout, '15m');
  assert.ok(validateSpec(spec).spec, JSON.stringify(validateSpec(spec).errors));
  const err = t.err();
  const order = ['Which agent should the heartbeat run?', 'How often should the agent wake', 'When do the working hours start (America/Santiago time)?', 'When do they end', 'On which days?', 'How long may one wake run before it is stopped (less than 30m minus 30s)?'];
  let at = -1;
  for (const q of order) {
    const i = err.indexOf(q);
    assert.ok(i > at, `${q} after the previous question:\n${err}`);
    at = i;
  }
  assert.match(err, new RegExp(`a\\) Claude Code: ${claude}\\n  b\\) Codex: ${codex}\\n  c\\) another program \\(harness "command"`));
  for (const m of [
    '"4" is not one of the agents listed; answer with a letter from a to c or Enter',
    '"d" is not one of the agents listed; answer with a letter from a to c or Enter',
    '"7m" is not an interval hbgen can schedule',
    '"25:00" is not a time as HH:MM (00:00 to 23:59)',
    'that is the start time; the window would be empty',
    '"fun" is not one of mon tue wed thu fri sat sun',
    '"29m40s" is not a duration such as 20m',
    '30m plus the 30s grace is not shorter than 30m',
  ]) assert.ok(err.includes(m), `${m}\n${err}`);
  assert.match(t.out(), /hbgen\.json is complete\. Next: write your mission and priorities in HEART\.md/);
  assert.match(t.out(), /note: Claude Code is installed too/);
});

test('terminal: Enter leaves a choice for later, end of input stops asking; both are reported', async () => {
  const w = world();
  program(join(w.bin, 'claude'));
  const t = io(w, { tty: true, input: ['a', 'b', ''] });
  assert.is(await init({}, t.host), 0);
  const spec = specOf(join(w.dir, 'repo'));
  assert.is(spec.schedule.every, '30m');
  assert.equal(spec.schedule.hours, { timezone: 'America/Santiago' });
  assert.is(spec.timeout, undefined);
  assert.match(t.out(), /"schedule\.hours": "start" and "end"/);
  assert.not.match(t.out(), /"schedule\.every"/);
  assert.not.match(t.err(), /On which days/);
});

test('the agent binary: real path through PATH, not an alias; a release-pinned target keeps the link; directories and plain files skipped; no agent at all', async () => {
  // Walks PATH: a folder named claude and a non-executable claude come first and are skipped.
  const w = world();
  const early = join(w.dir, 'early');
  mkdirSync(join(early, 'claude'), { recursive: true });
  const late = join(w.dir, 'late');
  mkdirSync(late);
  writeFileSync(join(late, 'claude'), 'not executable', { mode: 0o644 });
  const real = program(join(w.dir, 'pkg/claude.exe'), join(w.bin, 'claude'));
  let t = io(w, { path: `${early}:${late}:${w.bin}:${w.tools}` });
  await init({}, t.host);
  assert.is(specOf(join(w.dir, 'repo')).agent.bin, real);

  // The native installer's link ~/.local/bin/claude -> ~/.local/share/claude/versions/X.
  const w2 = world();
  const link = join(w2.home, '.local/bin/claude');
  program(join(w2.home, '.local/share/claude/versions/2.1.197'), link);
  t = io(w2, { path: `${join(w2.home, '.local/bin')}:${w2.tools}` });
  await init({}, t.host);
  assert.is(specOf(join(w2.dir, 'repo')).agent.bin, link);
  assert.match(t.out(), /links to .*versions\/2\.1\.197, a path pinned to one release that the next update removes, so the spec keeps the link/);

  // Only an alias target (the old local installer), nothing on PATH.
  const w3 = world();
  const local = program(join(w3.home, '.claude/local/claude'));
  t = io(w3);
  await init({}, t.host);
  assert.is(specOf(join(w3.dir, 'repo')).agent.bin, local);
  assert.match(t.out(), /not on PATH; your shell may reach it through an alias, which schedulers do not have/);

  // Nothing at all: harness and bin are left for the user, and the report says so.
  const w4 = world();
  t = io(w4);
  await init({}, t.host);
  const spec = specOf(join(w4.dir, 'repo'));
  assert.equal(spec.agent, { prompt: INIT_PROMPT });
  assert.match(t.out(), /agent +none: neither claude nor codex is on PATH/);
  assert.match(t.out(), /"agent\.harness" \("claude-code", "codex", or "command" for any other program\) and "agent\.bin"/);

  // codex.js needs node on the agent's PATH: init reports it when PATH lacks node.
  const w5 = world();
  const js = join(w5.dir, 'lib/codex.js');
  mkdirSync(join(w5.dir, 'lib'));
  writeFileSync(js, '#!/usr/bin/env node\n', { mode: 0o755 });
  symlinkSync(js, join(w5.bin, 'codex'));
  t = io(w5);
  await init({}, t.host);
  assert.match(t.out(), /note: agent\.bin: .*codex\.js starts with "#!\/usr\/bin\/env node", so it needs node on the agent's PATH/);
});

test('repo: the git top of DIR (files go there), else DIR itself; DIR is created; codex outside git gets --skip-git-repo-check; scheduler by host', async () => {
  const w = world();
  program(join(w.bin, 'claude'));
  const sub = join(w.dir, 'repo', 'a', 'b');
  mkdirSync(sub, { recursive: true });
  let t = io(w, { cwd: sub });
  await init({ dir: '.' }, t.host);
  assert.ok(existsSync(join(w.dir, 'repo', 'HEART.md')));
  assert.not.ok(existsSync(join(sub, 'HEART.md')));
  assert.is(specOf(join(w.dir, 'repo')).repo, join(w.dir, 'repo'));
  assert.match(t.out(), /is inside the git repository .*: the control plane and hbgen\.json go to its top/);

  const w2 = world({ git: false });
  const codex = program(join(w2.bin, 'codex'));
  t = io(w2, { cwd: w2.dir });
  await init({ dir: 'new/folder' }, t.host);
  const spec = specOf(join(w2.dir, 'new/folder'));
  assert.is(spec.repo, join(w2.dir, 'new/folder'));
  assert.is(spec.name, 'folder');
  assert.equal(spec.agent, { harness: 'codex', bin: codex, model: 'gpt-5.5', effort: 'medium', args: ['--skip-git-repo-check'], prompt: INIT_PROMPT });
  assert.match(t.out(), /not a git repository/);
  assert.match(t.out(), /--skip-git-repo-check/);

  const w3 = world();
  writeFileSync(join(w3.dir, 'file'), '');
  t = io(w3, { cwd: w3.dir });
  await init({ dir: 'file' }, t.host).then(
    () => assert.unreachable('a file as DIR'),
    (e: Error) => assert.match(e.message, /exists and is not a folder; give hbgen init the folder of the repository/),
  );

  assert.is((await detectScheduler(io(w).host, 'darwin')).scheduler, 'launchd');
  assert.equal(await detectScheduler(io(w, { path: w.tools }).host, 'linux'), { scheduler: 'cron', why: 'systemctl is not on PATH, so there is no systemd user manager to use' });
  const ws = world({ systemctl: true });
  assert.is((await detectScheduler(io(ws, { path: ws.tools }).host, 'linux')).scheduler, 'systemd-user');
  assert.equal(cleanPath('/a:/a/:a:/b/../c::/d'), { path: '/a:/d', dropped: ['/a/', 'a', '/b/../c', '(empty)'] });
  assert.is(specName('/home/ada/My Repo.v2'), 'my-repo-v2');
  assert.is(specName('/srv/___'), 'agent');
});

test('scheduler: systemd-user only when `systemctl --user` reaches a manager (the stand-in systemctl without a bus: cron, and init says why)', async () => {
  const w = world();
  const tools = makeStandIns(join(w.dir, 'standins'));
  program(join(w.bin, 'claude'));
  // The stand-in is a sh script: it needs dirname and mkdir from /usr/bin:/bin.
  const path = `${w.bin}:${tools.bin}:${w.tools}:/usr/bin:/bin`;
  let t = io(w, { path });
  assert.is((await detectScheduler(t.host, 'linux')).scheduler, 'systemd-user');
  assert.ok(tools.calls().includes('systemctl --user show --property=Version'), tools.calls().join('\n'));
  tools.flag('nobus');
  const d = await detectScheduler(t.host, 'linux');
  assert.is(d.scheduler, 'cron');
  assert.match(d.why, /^`systemctl --user` cannot reach a user manager here \(Failed to connect to bus: No medium found\); .*schedule\.scheduler to "systemd-user"/);
  t = io(w, { path });
  assert.is(await init({}, t.host), 0);
  assert.is(specOf(join(w.dir, 'repo')).schedule.scheduler, 'cron');
  assert.match(t.out(), /\n {2}scheduler {2}cron \(`systemctl --user` cannot reach a user manager here \(Failed to connect to bus: No medium found\)/);
});

test('terminal: "command" is a harness choice (then agent.bin and agent.args are left to fill in); "9" and "9:00" are taken as 09:00, "3" as 03:00 (a number is never a menu choice)', async () => {
  const w = world();
  program(join(w.bin, 'claude'));
  const t = io(w, { tty: true, input: ['b', 'a', '9', '17:30', 'b', 'a'] });
  assert.is(await init({}, t.host), 0);
  const spec = specOf(join(w.dir, 'repo'));
  assert.equal(spec.agent, { harness: 'command', prompt: INIT_PROMPT });
  assert.equal(spec.schedule.hours, { start: '09:00', end: '17:30', timezone: 'America/Santiago', days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
  assert.match(t.err(), /a\) Claude Code: .*\n {2}b\) another program \(harness "command": you fill in agent\.bin and agent\.args\)/);
  assert.match(t.out(), /agent +another program \(harness "command"\), as you chose/);
  assert.match(t.out(), /"agent\.bin", the absolute path of the program to run, and "agent\.args"/);
  const t2 = io(world(), { tty: true, input: ['', '', '9:00'] });
  assert.is(await init({}, t2.host), 0);
  assert.is(specOf(join(root, `w${seq}`, 'repo')).schedule.hours.start, '09:00');
  // Three choices are on the start menu, and "3" still means three o'clock.
  const t3 = io(world(), { tty: true, input: ['', '', '3', '18'] });
  assert.is(await init({}, t3.host), 0);
  assert.equal(specOf(join(root, `w${seq}`, 'repo')).schedule.hours, { start: '03:00', end: '18:00', timezone: 'America/Santiago' });
  assert.match(t3.err(), /\n {2}a\) 08:00\n {2}b\) 09:00\n {2}c\) 10:00\n {2}or type another time as HH:MM\n {2}\(a letter picks a choice; Enter: decide later\) > /);
});

test('terminal: HEART.md set up a question at a time fills init\'s template; its mission is one install accepts; an untouched template is set up again, an edited HEART.md never asked about', async () => {
  const w = world();
  program(join(w.bin, 'claude'));
  const spec = ['b', 'a', '9', '17:30', 'b', 'a'];
  const t = io(w, { tty: true, input: [...spec, 'a', 'A docs site that ops people trust.', 'Fix the broken links', 'Add a search page', '', 'Leave vendor/ alone', '', '', 'the site builds no more'] });
  assert.is(await init({}, t.host), 0);
  const repo = join(w.dir, 'repo');
  const heart = readFileSync(join(repo, 'HEART.md'), 'utf8');
  assert.match(t.err(), /HEART\.md \(.*HEART\.md\) says what the agent works for/);
  assert.match(heart, /\n## Mission\n\nA docs site that ops people trust\.\n\n## Current priorities\n\n1\. Fix the broken links\n2\. Add a search page\n\n## Restrictions\n\n- Do not edit HEART\.md\.\n- Do not change anything outside this repository\.\n- Leave vendor\/ alone\n\n## External effects allowed\n\n<!--[\s\S]*?-->\n\n- None\.\n\n## Stop conditions\n\n- STATE\.md has nothing under Next that serves the current priorities\.\n- the site builds no more\n$/, heart);
  assert.is(heartRefusal(repo), null, 'install takes this mission');
  assert.match(t.out(), /wrote [^\n]*HEART\.md/);
  assert.not.match(t.out(), /kept the existing [^\n]*HEART\.md/);

  // "edit directly": the template is written, init waits for Enter.
  const w2 = world();
  program(join(w2.bin, 'claude'));
  const t2 = io(w2, { tty: true, input: [...spec, 'b', ''] });
  assert.is(await init({}, t2.host), 0);
  assert.match(t2.err(), /wrote .*HEART\.md: write the mission and the priorities there, save it, and press Enter here > /);
  assert.match(readFileSync(join(w2.dir, 'repo', 'HEART.md'), 'utf8'), /^# HEART: repo\n/);

  // init's template as it was left is set up again (its spec removed, as after a fresh start); a HEART.md with the person's words is not.
  rmSync(join(w2.dir, 'repo', 'hbgen.json'));
  const t3 = io(w2, { tty: true, input: [...spec, 'a', 'Ship the handbook.', ''] });
  assert.is(await init({}, t3.host), 0);
  assert.match(readFileSync(join(w2.dir, 'repo', 'HEART.md'), 'utf8'), /\n## Mission\n\nShip the handbook\.\n/);
  rmSync(join(w2.dir, 'repo', 'hbgen.json'));
  const t4 = io(w2, { tty: true, input: [...spec, 'a', 'Something else.'] });
  assert.is(await init({}, t4.host), 0);
  assert.not.match(t4.err(), /says what the agent works for/);
  assert.match(readFileSync(join(w2.dir, 'repo', 'HEART.md'), 'utf8'), /Ship the handbook\./);
});

test('a real terminal (script(1)) through the built CLI: questions on the terminal, a valid spec', () => {
  const w = world();
  const claude = program(join(w.bin, 'claude'));
  const repo = join(w.dir, 'repo');
  const env = { HOME: w.home, PATH: `${w.bin}:${w.tools}:/usr/bin:/bin`, TZ: 'Europe/Berlin', TERM: 'dumb', USER: 'ada', LOGNAME: 'ada' };
  const r = spawnSync('script', ['-qec', `${process.execPath} ${HBGEN} init`, '/dev/null'], { cwd: repo, env, input: 'a\nc\nb\na\nb\nb\n', encoding: 'utf8', timeout: 30_000 });
  assert.is(r.status, 0, r.stdout);
  assert.match(r.stdout, /How often should the agent wake during the working hours\?/);
  assert.match(r.stdout, /When do the working hours start \(Europe\/Berlin time\)\?/);
  assert.match(r.stdout, /hbgen\.json is complete/);
  const spec = specOf(repo);
  assert.equal(spec.agent.bin, claude);
  assert.equal(spec.schedule.hours, { start: '09:00', end: '18:00', timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
  assert.is(spec.schedule.every, '1h');
  assert.is(spec.timeout, '50m');
  assert.ok(validateSpec(spec).spec);
  // Without a terminal the CLI writes and explains.
  rmSync(join(repo, 'hbgen.json'));
  const n = spawnSync(process.execPath, [HBGEN, 'init', repo], { cwd: '/', env, input: '', encoding: 'utf8' });
  assert.is(n.status, 0, n.stderr);
  assert.match(n.stdout, /does not validate until you fill in/);
  assert.is(n.stderr, '');
});

test('terminal: where the agent works, asked last in a git repository: the clone recommended first when the repo has uncommitted changes; the answer is "workspace" in hbgen.json', async () => {
  // A repo with a change of the person's: the clone comes first, and is recommended.
  const w = world();
  program(join(w.bin, 'claude'));
  const repo = join(w.dir, 'repo');
  writeFileSync(join(repo, 'draft.md'), 'half done\n');
  const t = io(w, { tty: true, input: ['a', 'b', '9', '17:30', 'b', 'a', 'b', '', 'a'] });
  assert.is(await init({}, t.host), 0);
  assert.match(t.err(), /\nWhere should the agent work\?\n {2}a\) in a clone of its own, on branch hbgen\/<name> that you merge when you like \(recommended: the repo has 1 uncommitted change, e\.g\. draft\.md\)\n {2}b\) in the repo itself, in your working tree\n/, t.err());
  const spec = specOf(repo);
  assert.is(spec.workspace, 'clone');
  assert.ok(validateSpec(spec).spec, JSON.stringify(validateSpec(spec).errors));
  // A clean repo: the repo itself first; choosing it leaves the field out.
  const w2 = world();
  program(join(w2.bin, 'claude'));
  const t2 = io(w2, { tty: true, input: ['a', 'b', '9', '17:30', 'b', 'a', 'b', '', 'a'] });
  assert.is(await init({}, t2.host), 0);
  assert.match(t2.err(), /\nWhere should the agent work\?\n {2}a\) in the repo itself, in your working tree\n {2}b\) in a clone of its own, on branch hbgen\/<name> that you merge when you like\n/, t2.err());
  assert.is(specOf(join(w2.dir, 'repo')).workspace, undefined);
  // Outside a git repository it is not asked.
  const w3 = world({ git: false });
  program(join(w3.bin, 'claude'));
  const t3 = io(w3, { tty: true, input: ['a', 'b', '9', '17:30', 'b', 'a', 'b', '', 'a'] });
  assert.is(await init({}, t3.host), 0);
  assert.not.match(t3.err(), /Where should the agent work/);
});

test.run();
