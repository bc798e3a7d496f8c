// Every command that takes SPEC also takes an installed name (as
// `hbgen list` finds it), and a name that matches nothing points at `hbgen list`; a stopped
// install whose spec file is gone or renamed is suggested to `hbgen forget NAME`, which lists
// every file of its state folder, asks once (or --yes), and removes it (--keep-logs keeps the
// log). Through the built CLI, the stand-in systemctl first on PATH, from a folder without
// any hbgen.json.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { hbgen } from './helpers/cli.ts';
import { makeStub } from './helpers/crontab.ts';
import { type Host, makeHost } from './helpers/lifecycle.ts';

/** The CLI run from HOME (no hbgen.json there), with the host's stand-ins. */
// A stand-in crontab too: this user's real crontab is shared with other suites' installs.
const stub = makeStub();
process.on('exit', () => stub.remove());
const cli = (h: Host, args: string[]) => hbgen(args, { cwd: h.home, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });

function installed(): Host {
  // The default state folder (under HOME), where `hbgen list` looks for stopped installs.
  const h = makeHost('systemd-user', { stateDir: undefined });
  const r = hbgen(['install', h.specFile, '--yes'], { cwd: h.root, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });
  assert.is(r.code, 0, r.stderr + r.stdout);
  return h;
}

test('a command given an installed name acts on that install: status, wake, log, plan, render, check', () => {
  const h = installed();
  const st = cli(h, ['status', 'docs']);
  assert.is(st.code, 0, st.stderr + st.stdout);
  assert.match(st.stdout, /^hbgen status: "docs" \(systemd-user\), installed at /);
  const w = cli(h, ['wake', 'docs']);
  assert.is(w.code, 0, w.stderr);
  assert.match(w.stdout, /wake 1: quiet after \d+ s/);
  for (const args of [['log', 'docs'], ['plan', 'docs'], ['render', 'docs'], ['status', 'docs', '--json']]) {
    const r = cli(h, args);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  const out = join(h.root, 'out');
  assert.is(cli(h, ['render', 'docs', '--out', out]).code, 0);
  assert.is(cli(h, ['check', 'docs', out]).code, 0);
});

test('a folder as SPEC is FOLDER/hbgen.json for the commands that act on an install too: status, doctor, wake, log, install, stop, resume', () => {
  const h = installed();
  const folder = h.root;
  for (const [args, said] of [
    [['status', folder], /^hbgen status: "docs" \(systemd-user\), installed at /],
    [['doctor', folder], /^hbgen doctor: "docs" \(systemd-user\)/],
    [['wake', folder], /^wake 1: quiet after \d+ s/],
    [['log', folder], /^hbgen log: "docs", the last 7 days/],
    [['install', folder, '--yes'], /^hbgen: "docs" is already installed as .*hbgen\.json says; nothing changed/],
    [['stop', folder], /^hbgen stop: "docs" \(systemd-user\)/],
    [['resume', folder, '--yes'], /^hbgen resume: "docs" from .*hbgen\.json\n/],
  ] as const) {
    const r = cli(h, [...args]);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout}`);
    assert.match(r.stdout + r.stderr, said, args.join(' '));
  }
});

test('a name that matches no file and no install says so, names the install it was close to, and points at `hbgen list` (exit 1)', () => {
  const h = installed();
  for (const cmd of ['status', 'stop', 'wake', 'log', 'render', 'resume']) {
    const r = cli(h, [cmd, 'dcos']);
    assert.is(r.code, 1, `${cmd}: ${r.stderr}`);
    assert.is(r.stderr, 'hbgen: dcos: no such file, and no install of that name on this host (did you mean "docs"?); `hbgen list` shows the installs by name (or give the spec file\'s path)\n', cmd);
  }
  const far = cli(h, ['status', 'website']);
  assert.is(far.code, 1);
  assert.is(far.stderr, 'hbgen: website: no such file, and no install of that name on this host; `hbgen list` shows the installs by name (or give the spec file\'s path)\n');
});

test('a stopped install whose spec file was renamed: list suggests `hbgen forget NAME`; status NAME says the file is gone; forget lists, asks, removes', () => {
  const h = installed();
  assert.is(cli(h, ['stop', 'docs']).code, 0);
  const dir = names(h.spec).stateDir;
  renameSync(h.specFile, join(h.root, 'site.json'));
  const l = cli(h, ['list']);
  assert.is(l.code, 0);
  assert.match(l.stdout, new RegExp(`\\ndocs: stopped, and its spec file ${h.specFile.replace(/[.]/g, '\\.')} is gone; \`hbgen forget docs\` removes its state folder after listing it \\(\`--keep-logs\` keeps its logs\\)\\n`));
  const st = cli(h, ['status', 'docs']);
  assert.is(st.code, 1);
  assert.match(st.stderr, /^hbgen: docs: the install in .* was made from .*hbgen\.json, which is gone; give the spec file's new path, or, if it was renamed or deleted, `hbgen forget docs` removes its state folder once it is stopped\n$/);
  // No terminal, no --yes: the list, a refusal, nothing removed.
  let f = cli(h, ['forget', 'docs']);
  assert.is(f.code, 1);
  assert.match(f.stdout, /^hbgen forget: "docs" \(stopped, systemd-user\), state folder /);
  assert.match(f.stdout, /\n {2}heartbeat\.sh {2}\(\d+ bytes\)\n/);
  assert.match(f.stdout, /\n {2}state\.json {2}\(\d+ bytes\)\n/);
  assert.match(f.stderr, /there is no terminal to ask, so nothing was removed; .*`hbgen forget docs --yes`/);
  assert.ok(existsSync(join(dir, 'state.json')));
  f = cli(h, ['forget', 'docs', '--dry-run']);
  assert.is(f.code, 0);
  assert.ok(existsSync(join(dir, 'state.json')));
  // The jail's private tmp of a wake (<cache>/hbgen/docs/tmp) goes with it.
  const cache = join(h.home, '.cache/hbgen/docs');
  mkdirSync(join(cache, 'tmp'), { recursive: true });
  writeFileSync(join(cache, 'tmp', 'left-by-a-test-run'), 'x');
  f = cli(h, ['forget', 'docs', '--yes']);
  assert.is(f.code, 0, f.stderr);
  assert.match(f.stdout, new RegExp(`\\nand the jail's private tmp ${cache.replace(/[.]/g, '\\.')} \\(1 files, made again by every wake\\)\\n`));
  assert.not.ok(existsSync(dir), 'the state folder is gone');
  assert.not.ok(existsSync(cache), "the jail's tmp is gone");
  assert.match(cli(h, ['list']).stdout, /^no hbgen install found/);
});

test('forget --keep-logs keeps runtime.log and agent.log; forget refuses an install that is not stopped, and an unknown name', () => {
  const h = installed();
  assert.is(cli(h, ['wake', 'docs']).code, 0);
  const dir = names(h.spec).stateDir;
  let f = cli(h, ['forget', 'docs', '--yes']);
  assert.is(f.code, 1);
  assert.match(f.stderr, /docs: the install is active on systemd-user, not stopped; run `hbgen stop docs` first/);
  assert.ok(existsSync(join(dir, 'state.json')));
  assert.match(cli(h, ['forget', 'nope']).stderr, /nope: no install of that name on this host; `hbgen list` shows the installs by name/);
  assert.is(cli(h, ['stop', 'docs']).code, 0);
  const kept = ['agent.log', 'runtime.log'].map((b) => readFileSync(join(dir, b), 'utf8'));
  f = cli(h, ['forget', 'docs', '--yes', '--keep-logs']);
  assert.is(f.code, 0, f.stderr);
  assert.equal(readdirSync(dir).sort(), ['agent.log', 'runtime.log']);
  assert.equal(['agent.log', 'runtime.log'].map((b) => readFileSync(join(dir, b), 'utf8')), kept, 'both logs as they were');
  assert.match(cli(h, ['list']).stdout, /^no hbgen install found/);
});

test('the spec file deleted (or rewritten to another name) while the install runs: `stop NAME` and `stop --all NAME` stop it from the record, say so, and forget follows', () => {
  for (const how of ['deleted', 'rewritten', 'all'] as const) {
    const h = installed();
    const dir = names(h.spec).stateDir;
    assert.ok(existsSync(join(h.home, '.config/systemd/user/hbgen-docs.timer')), 'installed: the timer is there');
    if (how === 'rewritten') writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), name: 'other' }));
    else rmSync(h.specFile);
    // status by name still refuses: it audits against a spec file, which is gone.
    assert.is(cli(h, ['status', 'docs']).code, 1);
    const st = cli(h, how === 'all' ? ['stop', '--all', 'docs'] : ['stop', 'docs']);
    assert.is(st.code, 0, st.stderr + st.stdout);
    assert.match(st.stdout, /^hbgen stop: "docs" \(systemd-user\)\n/, how);
    assert.match(st.stdout, new RegExp(`\n  the spec file .*hbgen\\.json is ${how === 'rewritten' ? "no longer this install's" : 'gone'}.*: stopping from the spec ${dir.replace(/[.]/g, '\\.')}/state\\.json recorded at install\n`), how);
    assert.match(st.stdout, /\nhbgen: stopped "docs"/, how);
    // The units are gone from the stand-in manager's folder, and the record says stopped.
    assert.not.ok(existsSync(join(h.home, '.config/systemd/user/hbgen-docs.timer')), `${how}: the timer is removed`);
    assert.is(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).status, 'stopped', how);
    const f = cli(h, ['forget', 'docs', '--yes']);
    assert.is(f.code, 0, f.stderr);
    assert.not.ok(existsSync(dir), how);
  }
});

test.run();
