// A re-install after a change to the spec replaces every file hbgen installed: a file whose
// bytes are the ones state.json recorded is hbgen's whatever its format. jail.json (JSON,
// no generated-by comment) was once refused as "hbgen did not write it", so the jail could
// not be changed after install. On each scheduler of this host (STAND-IN systemctl and
// launchctl, the STAND-IN crontab), with the jail on (srt from package.json) and a shared
// folder (claim.sh): one field at a time (launchd's jail is macOS's sandbox-exec, absent
// here: that host runs without the jail, so without jail.json), each re-install succeeds, and over the sequence
// every installed file (state folder and host) has changed at least once.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { makeStub } from './helpers/crontab.ts';
import { type Host, hb, makeHost, rewriteSpec, sha } from './helpers/lifecycle.ts';
import { runtime } from '../generators/runtime.ts';

const ROOT = join(import.meta.dirname, '..');
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');
const NODE_DIR = dirname(process.execPath);

type Raw = Record<string, any>;
/** Each spec field that changes an installed file, and what it changes to. */
const CHANGES: [string, (s: Raw) => void][] = [
  ['sandbox.allowHosts', (s) => (s.sandbox.allowHosts = ['github.com', 'example.org'])],
  ['agent.prompt', (s) => (s.agent.prompt = 'Do another chunk.')],
  ['schedule.hours.end', (s) => (s.schedule.hours.end = '22:00')],
  ['schedule.minute', (s) => (s.schedule.minute = 11)],
  ['timeout', (s) => (s.timeout = '12m')],
  ['sandbox.denyRead', (s) => (s.sandbox.denyRead = [join(s.env.HOME, 'private')])],
];

/** Every file state.json records, with its sha256 as installed. */
function recorded(h: Host): Map<string, string> {
  const s = JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8'));
  return new Map([...s.files, ...s.hostFiles].map((f: { path: string; sha256: string }) => [f.path, f.sha256]));
}

for (const scheduler of ['systemd-user', 'launchd', 'cron'] as const) {
  test(`${scheduler}: a re-install after each change of the spec replaces the files hbgen installed, jail.json included, and never the runtime`, async () => {
    assert.ok(existsSync(SRT), `${SRT} is missing: run npm ci`);
    const h = makeHost(scheduler);
    if (scheduler === 'cron') h.env.PATH = `${makeStub().dir}:${h.env.PATH}`;
    const jail = scheduler !== 'launchd';
    rewriteSpec(h, { shared: true, sandbox: jail ? { bin: SRT, allowHosts: ['github.com'] } : false, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
    const first = await hb(h, 'install', { yes: true });
    assert.is(first.code, 0, first.out + first.err);
    const start = recorded(h);
    for (const p of ['heartbeat.sh', 'window.sh', 'claim.sh', ...(jail ? ['jail.json'] : [])]) assert.ok(start.has(join(names(h.spec).stateDir, p)), `${p} recorded`);
    let before = start;
    for (const [field, change] of CHANGES.filter(([f]) => jail || !f.startsWith('sandbox.'))) {
      const raw = JSON.parse(readFileSync(h.specFile, 'utf8'));
      change(raw);
      writeFileSync(h.specFile, JSON.stringify(raw, null, 2));
      rewriteSpec(h, {});
      const r = await hb(h, 'install', { yes: true });
      assert.is(r.code, 0, `after a change of ${field}: ${r.out}${r.err}`);
      assert.not.match(r.err, /did not write it/);
      const now = recorded(h);
      assert.ok([...now].some(([p, s]) => before.get(p) !== s), `a change of ${field} changed no installed file`);
      for (const [p, s] of now) assert.is(sha(p), s, `${p} is as state.json records it after the change of ${field}`);
      before = now;
    }
    // The runtime holds no spec value: the same bytes through every change, every other file changed.
    const rt = join(names(h.spec).stateDir, runtime().name);
    assert.is(before.get(rt), runtime().sha256, 'the runtime is the one this hbgen ships, after every change');
    const unchanged = [...start].filter(([p, s]) => p !== rt && before.get(p) === s).map(([p]) => p);
    assert.equal(unchanged, [], 'every installed file but the runtime was changed and replaced once at least');
  });
}

test('an edited jail.json (recorded in state.json, without a generated-by line): install shows the edit it undoes and puts hbgen\'s back', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const jail = join(names(h.spec).stateDir, 'jail.json');
  const ours = readFileSync(jail);
  writeFileSync(jail, ours.toString().replace('github.com', 'evil.example'));
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /-.*evil\.example/);
  assert.ok(readFileSync(jail).equals(ours), 'jail.json is hbgen\'s again');
});

test('a jail.json that state.json does not record is still refused, named', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const state = join(names(h.spec).stateDir, 'state.json');
  const s = JSON.parse(readFileSync(state, 'utf8'));
  s.files = s.files.filter((f: { path: string }) => !f.path.endsWith('/jail.json'));
  writeFileSync(state, JSON.stringify(s));
  const jail = join(names(h.spec).stateDir, 'jail.json');
  writeFileSync(jail, '{"mine": true}\n');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.ok(r.err.includes(`${jail} already exists and hbgen did not write it`), r.err);
});


test("the panel of a re-install lists the spec's changes since the last install, field by field, and marks those that choose what runs outside the jail or widen the agent's reach", async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const first = await hb(h, 'install', { yes: true });
  assert.is(first.code, 0, first.out + first.err);
  assert.not.match(first.out, /changed in the spec since/, 'a first install has nothing to compare');
  // What an agent that can write the spec would add, and a change of no reach.
  const was = h.spec.timeout;
  rewriteSpec(h, { gate: ['/bin/true'], sandbox: { bin: SRT, allowHosts: ['github.com', 'evil.example'] }, timeout: '12m', env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin`, EXTRA: '1' } });
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.out + r.err);
  const section = r.out.split('\n').slice(1, 6);
  assert.match(section[0]!, /^changed in the spec since the install of \d{4}-\d\d-\d\dT[\d:.]+Z \(! = chooses what runs outside the jail or what the agent reaches/);
  assert.equal(section.slice(1), [
    '  ! env.EXTRA: none → "1"',
    '  ! gate: none → ["/bin/true"]',
    '  ! sandbox.allowHosts: ["github.com"] → ["github.com","evil.example"]',
    `    timeout: "${was}" → "12m"`,
  ]);
  // Nothing changed since: no section.
  rewriteSpec(h, { gate: undefined, sandbox: { bin: SRT, allowHosts: ['github.com'] }, timeout: was, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const same = await hb(h, 'install', { dryRun: true });
  assert.not.match(same.out, /changed in the spec since/, same.out);
  // A spec recorded by an hbgen that had no default yet for a field is completed again
  // before the comparison: a default is no change of the person's.
  const file = join(names(h.spec).stateDir, 'state.json');
  const st = JSON.parse(readFileSync(file, 'utf8'));
  for (const k of ['catchUp', 'logMaxBytes', 'limitBackoff']) {
    assert.ok(k in st.spec, `${k} is recorded with its default`);
    delete st.spec[k];
  }
  writeFileSync(file, JSON.stringify(st));
  const older = await hb(h, 'install', { dryRun: true });
  assert.not.match(older.out, /changed in the spec since/, older.out);
});

test('with the jail on, a spec file inside the repo is refused unless it is the top folder\'s hbgen.json, the one the jail keeps read-only', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const text = readFileSync(h.specFile, 'utf8');
  const inRepo = join(h.spec.repo, 'agent.json');
  writeFileSync(inRepo, text);
  h.specFile = inRepo;
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, new RegExp(`${inRepo.replace(/[.]/g, '\\.')}: is inside the repo, where the jailed agent could rewrite it \\(a gate, a wider sandbox\\) before your next install; the jail keeps only \\S+/hbgen\\.json read-only, so name it that or move it outside the repo`));
  const top = join(h.spec.repo, 'hbgen.json');
  writeFileSync(top, text);
  h.specFile = top;
  const ok = await hb(h, 'install', { dryRun: true });
  assert.is(ok.code, 0, ok.out + ok.err);
  // Without the jail nothing protects a spec anywhere in the repo: that is the jail's to say, not this check's.
  rewriteSpec(h, { sandbox: false });
  writeFileSync(inRepo, readFileSync(top));
  h.specFile = inRepo;
  assert.is((await hb(h, 'install', { dryRun: true })).code, 0);
});

test.run();
