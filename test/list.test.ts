// needs root: it creates scratch users (useradd)
// hbgen list and hbgen stop --all. In-process against one temporary HOME with several
// installs, STAND-IN systemctl/launchctl/loginctl first on PATH and a recording STAND-IN
// crontab (so that no real user's crontab is read); and the real crontab(1) as a scratch
// user (test/helpers/cronuser.ts), with the stand-in systemctl beside it.
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { validateSpec, type Spec, type SpecInput } from '../src/spec.ts';
import { B, makeStub } from './helpers/crontab.ts';
import { cronUser, realOrSkip, type CronUser } from './helpers/cronuser.ts';
import { baseSpec, hb, hostIO, makeHost, type Host } from './helpers/lifecycle.ts';
import { VERSION } from '../src/version.ts';

const uid = process.getuid!();
const real = realOrSkip(test, 'list');

/** A second spec in the same host (same HOME, tools and PATH), its state folder the default one unless `over` names one. */
function sibling(h: Host, name: string, scheduler: Spec['schedule']['scheduler'], over: Partial<SpecInput> = {}): Host {
  const raw = { ...baseSpec(h.root, scheduler), name, stateDir: undefined, ...over };
  const specFile = join(h.root, `${name}.json`);
  writeFileSync(specFile, JSON.stringify(raw, null, 2));
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('\n'));
  return { ...h, specFile, spec: v.spec };
}

/** A host whose PATH finds the stand-in crontab (no table) before the real one. */
function host(): { h: Host; done: () => void } {
  const h = makeHost('systemd-user', { stateDir: undefined });
  const stub = makeStub();
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  return { h, done: stub.remove };
}

const mkdirp = (d: string) => (mkdirSync(d, { recursive: true }), d);

async function installed(h: Host): Promise<void> {
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
}

/** The table's row of `name` on `scheduler`, as its cells. */
function rowOf(out: string, name: string, scheduler: string): string[] {
  const l = out.split('\n').find((x) => x.startsWith(`${name} `) && x.split(/\s{2,}/)[1] === scheduler);
  assert.ok(l, `no row ${name} ${scheduler} in:\n${out}`);
  return l!.split(/\s{2,}/);
}

interface Row {
  name: string;
  scheduler: string;
  repo: string | null;
  stateDir: string | null;
  state: string;
  version: string | null;
  lastOutcome: { outcome: string; detail: string; time: string } | null;
  entries: string[];
}

async function json(h: Host): Promise<Row[]> {
  const r = await hb(h, 'list', { json: true });
  assert.is(r.code, 0, r.err);
  return JSON.parse(r.out) as Row[];
}

test('list: nothing installed → the sentence and where it looked, exit 0; --json is []', async () => {
  const { h, done } = host();
  const r = await hb(h, 'list');
  assert.is(r.code, 0);
  assert.match(r.out, /^no hbgen install found for this user on this host\n/);
  assert.match(r.out, new RegExp(`looked at: launchd \\(${h.home}/Library/LaunchAgents\\); systemd-user \\(${h.home}/.config/systemd/user\\); cron \\(crontab -l\\); state folders in `));
  assert.equal(await json(h), []);
  done();
});

test('list: a state.json written by someone else (escape sequences, a scheduler that is no string, garbage file records) is shown with "?" for control characters, never crashes it', async () => {
  const { h, done } = host();
  const dir = mkdirp(join(h.home, '.local/state/hbgen/evil'));
  writeFileSync(join(dir, 'state.json'), JSON.stringify({ format: 1, name: 'evil\u001b[2J', status: 'installed', scheduler: { x: 1 }, files: [null], hostFiles: [], spec: { repo: '/r\u001b]0;t\u0007' } }));
  writeFileSync(join(dir, 'runtime.log'), '2026-12-01T08:07:00Z hbgen evil\u001b[2J fail 3\n');
  const r = await hb(h, 'list');
  assert.is(r.code, 0, r.err);
  assert.not.match(r.out, /[\u0000-\u0009\u000b-\u001f]/);
  assert.match(r.out, new RegExp(`^evil\\?\\[2J +\\[object Object\\] +unknown +- +- +/r\\?\\]0;t\\? +${dir}$`, 'm'));
  assert.match(r.out, /\nevil\?\[2J: installed by an hbgen that recorded no version \(no separate runtime\); this hbgen is /, r.out);
  assert.is((await json(h))[0]!.name, 'evil\u001b[2J', '--json keeps the bytes, escaped by JSON');
  done();
});

test('list: two installs on two backends, both active with their repo, state folder and last outcome; still listed, the same, with the spec files deleted; --json shape', async () => {
  const { h, done } = host();
  const site = sibling(h, 'site', 'launchd');
  await installed(h);
  await installed(site);
  assert.is((await hb(h, 'wake')).code, 0);
  const before = await hb(h, 'list');
  assert.is(before.code, 0);
  const docs = rowOf(before.out, 'docs', 'systemd-user');
  assert.equal(docs.slice(2), ['active', VERSION, docs[4]!, h.repo, names(h.spec).stateDir]);
  assert.match(docs[4]!, /^quiet at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(rowOf(before.out, 'site', 'launchd').slice(2), ['active', VERSION, '-', h.repo, names(site.spec).stateDir]);
  assert.ok(names(site.spec).stateDir.startsWith(join(h.home, 'Library/Application Support/hbgen/')));
  // The columns line up: every cell starts where the header's does.
  const [head, ...rows] = before.out.split('\n').slice(0, 3);
  for (const col of ['SCHEDULER', 'STATE', 'HBGEN', 'LAST OUTCOME', 'REPO', 'STATE FOLDER']) for (const r of rows) assert.not.equal(r![head!.indexOf(col) - 1], undefined);
  for (const r of rows) assert.is(r!.indexOf(h.repo), head!.indexOf('REPO'));

  rmSync(h.specFile);
  rmSync(site.specFile);
  assert.is((await hb(h, 'list')).out, before.out, 'the spec files are not needed');
  const j = await json(h);
  const keys = ['name', 'scheduler', 'repo', 'stateDir', 'state', 'version', 'lastOutcome', 'entries'];
  assert.equal(j.map((r) => Object.keys(r)), [keys, keys], 'stable keys, in this order');
  assert.equal(j[0], {
    name: 'docs',
    scheduler: 'systemd-user',
    repo: h.repo,
    stateDir: names(h.spec).stateDir,
    state: 'active',
    version: VERSION,
    lastOutcome: { outcome: 'quiet', detail: '', time: j[0]!.lastOutcome!.time },
    entries: [join(h.home, '.config/systemd/user/hbgen-docs.service'), join(h.home, '.config/systemd/user/hbgen-docs.timer')],
  });
  assert.equal(j[1], { name: 'site', scheduler: 'launchd', repo: h.repo, stateDir: names(site.spec).stateDir, state: 'active', version: VERSION, lastOutcome: null, entries: [join(h.home, 'Library/LaunchAgents/dev.hbgen.site.plist')] });
  done();
});

test('list: stopped, orphan (entry deleted by hand), drifted (an edited wrapper, with state.json edited to match; an edited plist) and unowned (state folder deleted), each with its hint', async () => {
  const { h, done } = host();
  const [site, web, app, ops] = [sibling(h, 'site', 'launchd'), sibling(h, 'web', 'systemd-user'), sibling(h, 'app', 'launchd'), sibling(h, 'ops', 'systemd-user')];
  for (const x of [h, site, web, app, ops]) await installed(x);
  const control = await json(h);
  assert.equal(control.map((r) => `${r.name} ${r.state}`), ['app active', 'docs active', 'ops active', 'site active', 'web active']);

  assert.is((await hb(h, 'stop')).code, 0);
  rmSync(join(h.home, 'Library/LaunchAgents/dev.hbgen.site.plist'));
  // The wrapper edited, and its record in state.json too (as the agent could where it may
  // write): still drifted, by the SHA-256 the unit checks before it runs the wrapper.
  appendFileSync(names(web.spec).wrapper, '# edited\n');
  const webState = join(names(web.spec).stateDir, 'state.json');
  const ws = JSON.parse(readFileSync(webState, 'utf8')) as { files: { path: string; sha256: string }[] };
  for (const f of ws.files) if (f.path === names(web.spec).wrapper) f.sha256 = createHash('sha256').update(readFileSync(f.path)).digest('hex');
  writeFileSync(webState, JSON.stringify(ws));
  const appPlist = join(h.home, 'Library/LaunchAgents/dev.hbgen.app.plist');
  writeFileSync(appPlist, readFileSync(appPlist, 'utf8').replace('<key>Label</key>', '<key>Label</key><!-- edited -->'));
  rmSync(names(ops.spec).stateDir, { recursive: true });

  const r = await hb(h, 'list');
  assert.is(r.code, 0);
  assert.equal(rowOf(r.out, 'docs', 'systemd-user').slice(2, 3), ['stopped']);
  assert.equal(rowOf(r.out, 'site', 'launchd').slice(2, 3), ['orphan']);
  assert.equal(rowOf(r.out, 'web', 'systemd-user').slice(2, 3), ['drifted']);
  assert.equal(rowOf(r.out, 'app', 'launchd').slice(2, 3), ['drifted']);
  // The state folder is gone: the entry still names it (read back from the unit), no repo.
  assert.equal(rowOf(r.out, 'ops', 'systemd-user').slice(2), ['unowned', '-', '-', '-', names(ops.spec).stateDir]);
  for (const hint of ['stopped: ', 'orphan: ', 'drifted: ', 'unowned: ']) assert.match(r.out, new RegExp(`\n${hint}`));
  const j = await json(h);
  assert.equal(
    j.map((x) => [x.name, x.state, x.entries.length]),
    [['app', 'drifted', 1], ['docs', 'stopped', 0], ['ops', 'unowned', 2], ['site', 'orphan', 0], ['web', 'drifted', 2]],
  );
  done();
});

test('list: a unit hbgen did not write, or one running a path edited away from a heartbeat.sh, is never given a state folder', async () => {
  const { h, done } = host();
  await installed(h);
  const svc = join(h.home, '.config/systemd/user/hbgen-docs.service');
  const text = readFileSync(svc, 'utf8');
  writeFileSync(svc, text.replace(/heartbeat\.sh"$/m, 'other.sh"'));
  let j = await json(h);
  assert.equal(j.map((x) => [x.name, x.scheduler, x.state, x.stateDir]), [['docs', 'systemd-user', 'unowned', null], ['docs', 'systemd-user', 'orphan', names(h.spec).stateDir]]);
  writeFileSync(svc, text.replace(/Generated by hbgen from spec "docs"/, 'Written by hand'));
  j = await json(h);
  assert.equal(j.map((x) => [x.name, x.state, x.stateDir]), [['docs', 'unowned', null], ['docs', 'orphan', names(h.spec).stateDir]]);
  done();
});

test('stop --all: removes the entry under another name (the state folder deleted, the spec renamed) on a second backend, after showing it; another install is left alone; stop without --all leaves it', async () => {
  const { h, done } = host();
  const stateDir = join(h.root, 'state');
  const old = sibling(h, 'docs', 'launchd', { stateDir });
  await installed(old);
  // The state folder deleted (install refuses to reuse a folder another name wrote), then the spec renamed.
  rmSync(stateDir, { recursive: true });
  const renamed = sibling(h, 'docs2', 'systemd-user', { stateDir });
  await installed(renamed);
  const other = sibling(h, 'other', 'launchd');
  await installed(other);
  const oldPlist = join(h.home, 'Library/LaunchAgents/dev.hbgen.docs.plist');
  const otherPlist = join(h.home, 'Library/LaunchAgents/dev.hbgen.other.plist');
  assert.equal((await json(h)).map((x) => `${x.name} ${x.scheduler} ${x.state}`), ['docs launchd unowned', 'docs2 systemd-user active', 'other launchd active']);
  // status of the renamed spec names the old entry as a wake nobody owns.
  const st = await hb(renamed, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}unowned: launchd runs this install's wrapper under the name "docs" \(.*dev\.hbgen\.docs\.plist.*\); `hbgen stop --all` removes it\n/);

  const plain = await hb(renamed, 'stop');
  assert.is(plain.code, 0, plain.err);
  assert.ok(existsSync(oldPlist), 'stop alone goes by the name: dev.hbgen.docs stays');
  assert.ok(h.tools.loaded('dev.hbgen.docs'));

  const r = await hb(renamed, 'stop', { all: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`--all: these run ${join(stateDir, 'heartbeat.sh')} under another spec name, and go too:\n {4}launchd: ${oldPlist}\n {4}launchd: the launchd job dev.hbgen.docs \\(loaded in gui/${uid}\\)\n`));
  assert.match(r.out, new RegExp(`ran launchctl bootout gui/${uid}/dev.hbgen.docs\n {2}removed ${oldPlist}\n`));
  assert.not.match(r.out, /still runs this spec's entry/, 'docs2\'s own entries are gone already');
  assert.not.ok(existsSync(oldPlist));
  assert.ok(existsSync(otherPlist) && h.tools.loaded('dev.hbgen.other'), 'the other install is left alone');
  // docs2's state folder is not a default one: with no entry left, nothing leads to it.
  assert.equal((await json(h)).map((x) => `${x.name} ${x.scheduler} ${x.state}`), ['other launchd active']);
  assert.match((await hb(renamed, 'stop', { all: true })).out, /already stopped/);
  done();
});

test('stop --all: of the entries under other names it removes only the one hbgen wrote that runs this wrapper; a copy without hbgen\'s line for its name stays and is named (the install is not called stopped while it runs the wrapper); another state folder\'s install stays', async () => {
  const { h, done } = host();
  await installed(h);
  const other = sibling(h, 'other', 'systemd-user');
  await installed(other);
  const units = join(h.home, '.config/systemd/user');
  const docs = readFileSync(join(units, 'hbgen-docs.service'), 'utf8');
  // Both run docs' wrapper; only the first carries hbgen's generated-by line for its own name.
  writeFileSync(join(units, 'hbgen-copy.service'), docs.replaceAll('spec "docs"', 'spec "copy"').replace(' hbgen-docs "', ' hbgen-copy "'));
  writeFileSync(join(units, 'hbgen-hand.service'), docs.replace(' hbgen-docs "', ' hbgen-hand "'));
  const r = await hb(h, 'stop', { all: true });
  assert.match(r.out, new RegExp(`--all: these run ${names(h.spec).wrapper} under another spec name, and go too:\n {4}systemd-user: ${units}/hbgen-copy.service\n(?! {4})`));
  assert.not.ok(existsSync(join(units, 'hbgen-copy.service')));
  assert.ok(existsSync(join(units, 'hbgen-hand.service')), 'hbgen did not write it for that name');
  // The copy hbgen did not write still runs the wrapper: stop names it, edits nothing of it, and exits 1.
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, new RegExp(`${units}/hbgen-hand\\.service runs ${names(h.spec).wrapper}, and hbgen did not write it`));
  assert.match(r.err, /so "docs" is not stopped: hbgen's own entries are gone, but that entry still wakes it/);
  assert.ok(existsSync(join(units, 'hbgen-other.service')) && h.tools.enabled('hbgen-other.timer'), 'another install');
  done();
});

test('every fixture spec (the hostile one\'s state folder too) rendered for each scheduler: the entry\'s wrapper is read back exactly; one changed byte of the path, none', async () => {
  const { renderSpec } = await import('../src/pipeline.ts');
  const { loadSpec } = await import('../src/load.ts');
  const { SCHEDULER_IDS, SCHEDULERS } = await import('../src/schedulers.ts');
  const specs = readdirSync(join(import.meta.dirname, '../fixtures/specs')).filter((f) => f.endsWith('.json'));
  assert.ok(specs.includes('hostile.json'));
  for (const f of specs) {
    const spec = loadSpec(join(import.meta.dirname, '../fixtures/specs', f));
    // A scheduler off this host (kubernetes) has no host entry to read back.
    for (const id of SCHEDULER_IDS.filter((x) => !SCHEDULERS[x].offHost)) {
      const { h, done } = host();
      const stub = h.env.PATH.split(':')[0]!;
      const r = await renderSpec(spec, { scheduler: id });
      assert.equal(r.errors, [], `${f} ${id}`);
      const place = (edit: (t: string) => string) => {
        for (const x of r.files.filter((x) => x.path.startsWith('host/'))) {
          const base = x.path.slice('host/'.length);
          const text = edit(x.content.toString());
          if (id === 'cron') writeFileSync(join(stub, 'table'), text);
          else writeFileSync(join(mkdirp(id === 'launchd' ? join(h.home, 'Library/LaunchAgents') : join(h.home, '.config/systemd/user')), base), text);
        }
      };
      const inv = async () => (await (await SCHEDULERS[id].backend()).inventory({ io: hostIO(h), home: h.home }, true)).entries;
      place((t) => t);
      assert.equal((await inv()).map((e) => [e.name, e.wrapper]), [[spec.name, names(spec).wrapper]], `${f} ${id}`);
      place((t) => t.replaceAll('/heartbeat.sh', '/heartbeat.sx'));
      assert.equal((await inv()).map((e) => [e.name, e.wrapper]), [[spec.name, null]], `${f} ${id}: changed`);
      done();
    }
  }
});

// ------------------------------------------------------------------ real crontab(1)

let U: CronUser;

real('setup: a scratch user with no crontab', () => {
  U = cronUser('hbgen-list-test');
  U.set(null);
});

real('real crontab + stand-in systemctl: a cron install and a systemd one listed active; the block dropped by hand → orphan; the spec file deleted → still listed; the user\'s line stays', () => {
  const h = makeHost('cron', { stateDir: undefined });
  const site = sibling(h, 'site', 'systemd-user');
  U.own(h);
  U.set(B('0 5 * * * mine\n'));
  for (const x of [h, site]) assert.is(U.run(x, 'install', { yes: true }).code, 0);
  let r = U.run(h, 'list', { json: true });
  assert.is(r.code, 0, r.err);
  const j = JSON.parse(r.out) as Row[];
  assert.equal(j.map((x) => [x.name, x.scheduler, x.state, x.stateDir, x.repo]), [['docs', 'cron', 'active', names(h.spec).stateDir, h.repo], ['site', 'systemd-user', 'active', names(site.spec).stateDir, h.repo]]);
  assert.match(j[0]!.entries[0]!, /^lines 1–\d+ of your crontab$/, 'block first');
  rmSync(h.specFile);
  U.set(B('0 5 * * * mine\n'));
  r = U.run(h, 'list');
  assert.is(r.code, 0, r.err);
  assert.equal(rowOf(r.out, 'docs', 'cron').slice(2, 3), ['orphan']);
  assert.equal(rowOf(r.out, 'site', 'systemd-user').slice(2, 3), ['active']);
  assert.is(U.run(site, 'stop').code, 0);
  U.set(null);
});

real('real crontab: stop --all removes the old block of a renamed spec (same state folder, deleted in between) after its own, reading the table again; another install\'s block and the user\'s line stay', () => {
  const h = makeHost('cron', {}, 'outside');
  const other = sibling(h, 'other', 'cron');
  U.own(h);
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  assert.is(U.run(other, 'install', { yes: true }).code, 0);
  // The state folder deleted (install refuses to reuse a folder another name wrote), then the spec renamed.
  rmSync(names(h.spec).stateDir, { recursive: true });
  const renamed = sibling(h, 'docs2', 'cron', { stateDir: h.spec.stateDir });
  U.own(h);
  const i = U.run(renamed, 'install', { yes: true });
  assert.is(i.code, 0, i.err + i.out);
  assert.match(U.table()!.toString('latin1'), /# BEGIN hbgen docs\n/);
  const r = U.run(renamed, 'stop', { all: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /--all: these run .* under another spec name, and go too:\n {4}cron: the crontab block "docs" \(lines \d+–\d+ of your crontab\)\n/);
  assert.match(r.out, /removed hbgen's block "docs2" from your crontab\n[^]*removed hbgen's block "docs" from your crontab\n/);
  const t = U.table()!.toString('latin1');
  assert.match(t, /^# BEGIN hbgen other\n[^]*# END hbgen other\n0 5 \* \* \* mine\n$/);
  U.set(null);
});

test('install of a renamed spec (same spec file, new name) lists the earlier name\'s entries in the panel and removes them after its check; list then shows one active install', async () => {
  const { h, done } = host();
  const old = sibling(h, 'docs', 'launchd');
  await installed(old);
  const raw = { ...JSON.parse(readFileSync(old.specFile, 'utf8')), name: 'docs2' };
  writeFileSync(old.specFile, JSON.stringify(raw, null, 2));
  const v = validateSpec(raw);
  const renamed: Host = { ...old, spec: v.spec! };
  const oldPlist = join(h.home, 'Library/LaunchAgents/dev.hbgen.docs.plist');
  const r = await hb(renamed, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /then, the check passed, it removes what the earlier install runs under the spec's earlier name \(one name per spec\):\n {2}launchd: .*dev\.hbgen\.docs\.plist \(the spec's earlier name "docs"\)\n/);
  assert.match(r.out, /removing the earlier install on launchd:\n(.*\n)* {2}marked .*hbgen\/docs\/state\.json stopped\n/);
  assert.not.ok(existsSync(oldPlist), 'the earlier name\'s plist is gone');
  assert.not.ok(h.tools.loaded('dev.hbgen.docs'), 'and launchd no longer holds it');
  assert.equal((await json(h)).map((x) => `${x.name} ${x.scheduler} ${x.state}`), ['docs launchd stopped', 'docs2 launchd active']);
  done();
});

test.run();
