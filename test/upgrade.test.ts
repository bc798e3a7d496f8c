// needs root: it runs hbgen as scratch users on their real crontab
// An hbgen upgrade is told, not mistaken for tampering. The older hbgen here is real: a copy
// of this tree built as version 0.1.9, with one comment of its runtime changed, installs
// "docs" on the STAND-IN systemctl (test/helpers/standins.ts) through the lifecycle driver;
// then this hbgen audits, lists, wakes and upgrades that install.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runtime } from '../generators/runtime.ts';
import { names } from '../src/names.ts';
import { VERSION } from '../src/version.ts';
import { hb, lines, makeHost, type Host } from './helpers/lifecycle.ts';
import { blockAfter, commands, hbgenBin, typeLine } from './helpers/readme.ts';

const ROOT = join(import.meta.dirname, '..');
const OLD = '0.1.9';
const scratch = mkdtempSync(join(tmpdir(), 'hbgen-upgrade.'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** A copy of this tree that calls itself hbgen 0.1.9 and ships a runtime with one comment changed. */
let built: string | undefined;
function olderHbgen(): string {
  if (built) return built;
  const copy = join(scratch, 'tree');
  for (const d of ['bin', 'src', 'generators', 'templates', 'test/helpers', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, d), join(copy, d), { recursive: true, filter: (p) => !p.includes('/src/gen/') });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const v = join(copy, 'src/version.ts');
  writeFileSync(v, readFileSync(v, 'utf8').replace(`'${VERSION}'`, `'${OLD}'`));
  const part = join(copy, 'templates/partials/heartbeat/40-lock.hbs');
  writeFileSync(part, readFileSync(part, 'utf8').replace(/^(# --- \d+\. Lock) /m, '$1 (as hbgen 0.1.9 said it) '));
  const b = spawnSync(process.execPath, ['bin/build.mjs'], { cwd: copy, encoding: 'utf8' });
  assert.is(b.status, 0, b.stderr);
  built = copy;
  return copy;
}

/** `cmd` run by the older hbgen's own code against the host `h`. */
function older(copy: string, h: Host, cmd: 'install'): { code: number; out: string; err: string } {
  const req = JSON.stringify({ cmd, spec: h.specFile, yes: true, wrapper: h.wrapper });
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(copy, 'test/helpers/lifecycle-driver.ts'), req], { cwd: copy, env: { ...h.env, LANG: 'C.UTF-8' }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? 128, out: r.stdout, err: r.stderr };
}

const stateJson = (h: Host) => JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8'));

test('an install by an older hbgen: status tells the upgrade (no drift, healthy), list shows its version, its wakes run its own runtime, a changed runtime is still a problem, and install upgrades it', async () => {
  const copy = olderHbgen();
  const h = makeHost('systemd-user');
  const dir = names(h.spec).stateDir;
  const old = older(copy, h, 'install');
  assert.is(old.code, 0, old.err + old.out);
  const oldRt = join(dir, `runtime-${OLD}.sh`);
  const s = stateJson(h);
  assert.is(s.hbgenVersion, OLD);
  const rec = s.files.find((f: { path: string }) => f.path === oldRt);
  assert.ok(rec, `state.json records ${oldRt}`);
  assert.is.not(rec.sha256, runtime().sha256, "the older runtime is not this hbgen's");

  const st = await hb(h, 'status');
  assert.is(st.code, 0, st.out + st.err);
  assert.ok(st.out.includes(`installed by hbgen ${OLD} (runtime sha256 ${rec.sha256.slice(0, 12)}…); this hbgen is ${VERSION} (runtime sha256 ${runtime().sha256.slice(0, 12)}…): \`hbgen install\` upgrades it`), st.out);
  assert.not.match(st.out, /drift|tampered|problem/, st.out);
  assert.match(st.out, /\nhealthy\n/);
  // What the upgrade changes, file by file: the runtime, and the files that pin it.
  const what = `(what changes: runtime-${OLD}.sh \u2192 runtime-${VERSION}.sh; heartbeat.sh, host/hbgen-docs.service, window.sh rewritten)`;
  assert.ok(st.out.includes(`\`hbgen install\` upgrades it ${what}, and until then`), st.out);

  const ls = await hb(h, 'list');
  assert.match(ls.out, /^NAME +SCHEDULER +STATE +HBGEN /);
  assert.match(ls.out, new RegExp(`\\ndocs +systemd-user +active +${OLD.replaceAll('.', '\\.')} `), ls.out);
  // list says it as status does, what changes included, and names the one step.
  assert.ok(ls.out.includes(`\ndocs: installed by hbgen ${OLD} (runtime sha256 ${rec.sha256.slice(0, 12)}…); this hbgen is ${VERSION} (runtime sha256 ${runtime().sha256.slice(0, 12)}…): \`hbgen install\` upgrades it ${what}, and until then every wake runs the runtime installed\n`), ls.out);
  assert.ok(ls.out.includes(`this one is ${VERSION}. \`hbgen upgrade --all\` installs each of them again after one list`), ls.out);

  // hbgen wake says why it waits for the upgrade; the wrapper the older hbgen installed runs
  // with the runtime it pins (run by hand here: it sums that runtime itself).
  const w = await hb(h, 'wake');
  assert.is(w.code, 78, w.err + w.out);
  assert.ok(w.err.includes(`installed by hbgen ${OLD} (runtime sha256 ${rec.sha256.slice(0, 12)}…); this hbgen is ${VERSION}`) && w.err.includes('run `hbgen install` first'), w.err);
  // doctor runs its checks through the scheduler on the wrapper as installed, and says why.
  const doc = await hb(h, 'doctor');
  assert.is(doc.code, 0, doc.out + doc.err);
  assert.ok(doc.out.includes(`  note  installed by hbgen ${OLD} (runtime sha256 ${rec.sha256.slice(0, 12)}…)`), doc.out);
  assert.ok(doc.out.includes(what), doc.out);
  assert.match(doc.out, /\nit would run right now\n$/);
  const entry = spawnSync('/bin/sh', [join(dir, 'heartbeat.sh'), '--now'], { env: { PATH: '/usr/bin:/bin', HOME: h.home }, encoding: 'utf8' });
  assert.is(entry.status, 0, entry.stderr);
  const log = readFileSync(join(dir, 'runtime.log'), 'utf8');
  // The stand-in agent commits nothing: a wake that ran it ends quiet.
  assert.equal(lines(join(dir, 'runtime.log')).slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs quiet'], log);

  // A changed runtime is no upgrade: a problem, and the next wake refuses it.
  const bytes = readFileSync(oldRt);
  rmSync(oldRt, { force: true });
  writeFileSync(oldRt, Buffer.concat([bytes, Buffer.from('# one more line\n')]), { mode: 0o444 });
  const bad = await hb(h, 'status');
  assert.is(bad.code, 1, bad.out);
  assert.ok(bad.out.includes(`${oldRt} changed since install`), bad.out);
  rmSync(oldRt, { force: true });
  writeFileSync(oldRt, bytes, { mode: 0o444 });

  const up = await hb(h, 'install', { yes: true });
  assert.is(up.code, 0, up.err + up.out);
  assert.ok(up.out.includes(`  ${oldRt}  removed once the check passed: the earlier runtime, which the new wrapper no longer pins`), up.out);
  const rt = runtime();
  assert.is(readFileSync(join(dir, rt.name), 'utf8'), rt.text);
  assert.not.ok(existsSync(oldRt), 'the runtime no wrapper pins any more is removed');
  assert.is(stateJson(h).hbgenVersion, VERSION);
  const after = await hb(h, 'status');
  assert.is(after.code, 0, after.out);
  assert.not.match(after.out, /installed by hbgen/);
});

test('hbgen upgrade: one list, one question, then each install another hbgen made is installed again from its spec file; one whose spec changed since is left for install to show', async () => {
  const copy = olderHbgen();
  const h = makeHost('systemd-user');
  const site = makeHost('systemd-user', { name: 'site' });
  // Both installs live in one HOME, as one person's: the second host's files moved under the first's.
  site.env = h.env;
  for (const x of [h, site]) assert.is(older(copy, x, 'install').code, 0);
  const edited = JSON.parse(readFileSync(site.specFile, 'utf8'));
  edited.timeout = '12m';
  writeFileSync(site.specFile, JSON.stringify(edited, null, 2));

  const dry = await hb(h, 'upgrade', { all: true, dryRun: true });
  assert.is(dry.code, 0, dry.err + dry.out);
  assert.ok(dry.out.includes(`hbgen upgrade: this hbgen is ${VERSION}\n  docs (systemd-user): hbgen ${OLD} → ${VERSION}, from ${h.specFile}\n    what changes: runtime-${OLD}.sh \u2192 runtime-${VERSION}.sh; heartbeat.sh, host/hbgen-docs.service, window.sh rewritten\n`), dry.out);
  assert.ok(dry.out.includes(`  site (systemd-user, hbgen ${OLD}): left as it is: its spec file ${site.specFile} changed since install; run \`hbgen install ${site.specFile}\` to review that change and upgrade it\n`), dry.out);
  assert.match(dry.out, /--dry-run: nothing was changed on this host\n$/);
  assert.is(stateJson(h).hbgenVersion, OLD);

  const noTty = await hb(h, 'upgrade', { all: true });
  assert.is(noTty.code, 1);
  assert.match(noTty.err, /there is no terminal to ask, so nothing was changed on this host; read the list above, then run `hbgen upgrade --all --yes`/);
  assert.is(stateJson(h).hbgenVersion, OLD);
  const refused = await hb(h, 'upgrade', { all: true, tty: true, answer: 'n' });
  assert.is(refused.code, 1);
  assert.is(stateJson(h).hbgenVersion, OLD);

  const up = await hb(h, 'upgrade', { all: true, tty: true, answer: 'y' });
  assert.is(up.code, 1, 'site was left as it is: not everything was upgraded');
  assert.match(up.err, /Upgrade "docs" as listed\? \[y\/N\] /);
  assert.not.match(up.err, /Run one real wake/, 'an upgrade offers no first wake');
  assert.is(stateJson(h).hbgenVersion, VERSION);
  assert.is(stateJson(site).hbgenVersion, OLD);
  assert.not.ok(existsSync(join(names(h.spec).stateDir, `runtime-${OLD}.sh`)));
  assert.is((await hb(h, 'status')).code, 0);

  const again = await hb(h, 'upgrade', { name: 'docs' });
  assert.is(again.code, 0, again.err);
  assert.ok(again.out.includes(`  already on ${VERSION}: docs\nnothing to upgrade\n`), again.out);
  const none = await hb(h, 'upgrade', { name: 'nosuch' });
  assert.is(none.code, 1);
  assert.match(none.err, /^hbgen: nosuch: no install of that name on this host; `hbgen list` shows the installs by name\n$/);
});

test('README "Upgrading hbgen": its block runs as written against an install an older hbgen made (list, status, upgrade --dry-run, upgrade, status)', () => {
  const lines = commands(blockAfter('## Upgrading hbgen', 'sh'));
  // The first line fetches and installs the new hbgen: here, this build goes first on PATH instead.
  // It installs exactly as Set-up does (a plain `npm install -g .` puts a second hbgen first on
  // PATH and prints npm's install-script warning on Node 22).
  const setup = commands(blockAfter('To have `hbgen`', 'sh'));
  assert.ok(setup.includes('npm install -g --ignore-scripts .'), 'Set-up installs with --ignore-scripts');
  assert.match(lines[0]!, /&& npm install -g --ignore-scripts \.$/);
  const copy = olderHbgen();
  // The default state folder, under HOME, where `hbgen list` and a name find it from anywhere.
  const h = makeHost('systemd-user', { stateDir: undefined });
  assert.is(older(copy, h, 'install').code, 0);
  const env = { ...h.env, PATH: `${hbgenBin(join(h.root, 'newbin'))}:${h.env.PATH}`, LANG: 'C.UTF-8', TERM: 'dumb' };
  const said: string[] = [];
  for (const line of lines.slice(1)) {
    // `hbgen upgrade` asks on a terminal.
    const r = typeLine(line, line === 'hbgen upgrade --all', h.home, env);
    assert.is(r.status, 0, `\`${line}\` exited ${r.status}:\n${r.stdout}${r.stderr}`);
    said.push(`${r.stdout}${r.stderr}`);
  }
  const [list, before, dry, up, after] = said as [string, string, string, string, string];
  assert.match(list, new RegExp(`\\ndocs +systemd-user +active +${OLD.replaceAll('.', '\\.')} `), list);
  assert.match(list, new RegExp(`\\ndocs: installed by hbgen ${OLD.replaceAll('.', '\\.')} .*upgrades it \\(what changes: runtime-`), list);
  assert.match(before, new RegExp(`note +installed by hbgen ${OLD.replaceAll('.', '\\.')} .*upgrades it \\(what changes: runtime-`), before);
  assert.match(before, /\nhealthy\n/);
  assert.ok(dry.includes(`  docs (systemd-user): hbgen ${OLD} → ${VERSION}, from ${h.specFile}\n`), dry);
  assert.match(up, /Upgrade "docs" as listed\? \[y\/N\]/, up);
  assert.is(stateJson(h).hbgenVersion, VERSION);
  assert.not.match(after, /installed by hbgen/, after);
  assert.match(after, /\nhealthy\n/);
});

/** A copy of this tree, same version and runtime, whose generated files' first comment is the older one ("run hbgen render"). */
function olderSentence(): string {
  const copy = join(scratch, 'sentence');
  for (const d of ['bin', 'src', 'generators', 'templates', 'test/helpers', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, d), join(copy, d), { recursive: true, filter: (p) => !p.includes('/src/gen/') });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const f = join(copy, 'src/formats.ts');
  const was = readFileSync(f, 'utf8');
  const now = was.replace('Do not edit: change the spec and run hbgen install.`', 'Do not edit: change the spec and run hbgen render.`');
  assert.is.not(now, was, 'the copy writes the older sentence');
  writeFileSync(f, now);
  const b = spawnSync(process.execPath, ['bin/build.mjs'], { cwd: copy, encoding: 'utf8' });
  assert.is(b.status, 0, b.stderr);
  return copy;
}

test('files whose first comment says "run hbgen render" (an older hbgen): status notes that install upgrades them (no drift, healthy), and install replaces them as its own', async () => {
  const copy = olderSentence();
  const h = makeHost('systemd-user');
  const old = older(copy, h, 'install');
  assert.is(old.code, 0, old.err + old.out);
  const unit = join(h.home, '.config/systemd/user/hbgen-docs.service');
  assert.match(readFileSync(unit, 'utf8'), /Do not edit: change the spec and run hbgen render\./);
  const st = await hb(h, 'status');
  assert.is(st.code, 0, st.out + st.err);
  assert.not.match(st.out, /drift/, st.out);
  assert.match(st.out, /installed by an older hbgen \(its files say "run hbgen render" where `hbgen install` is meant\): `hbgen install` upgrades it/, st.out);
  const up = await hb(h, 'install', { yes: true });
  assert.is(up.code, 0, up.out + up.err);
  assert.match(up.out, /\n {2}replaced in ~\/\.config\/systemd\/user\/: hbgen-docs\.service, hbgen-docs\.timer\n/, up.out);
  assert.match(readFileSync(unit, 'utf8'), /Do not edit: change the spec and run hbgen install\./);
  const after = await hb(h, 'status');
  assert.is(after.code, 0, after.out);
  assert.not.match(after.out, /older hbgen|drift/, after.out);
});

test.run();
