// The command line as a user meets it: the built CLI run as a child process.
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../src/version.ts';
import { HBGEN, ROOT, hbgen } from './helpers/cli.ts';

const EXAMPLE = 'fixtures/specs/example.json';
let tmp = '';
test.before.each(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hbgen-cli-'));
});
test.after.each(() => rmSync(tmp, { recursive: true, force: true }));

test('--version prints the package version', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.is(VERSION, pkg.version, 'src/version.ts in step with package.json');
  // CHANGELOG.md's newest version heading is this version: a release's entries carry it.
  const newest = /^## (\d+\.\d+\.\d+)\b/m.exec(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'));
  assert.is(newest?.[1], VERSION, 'the first "## X.Y.Z" heading of CHANGELOG.md');
  // bin/hbgen.cjs is the one place that answers it, wherever it stands, before the bundle loads.
  for (const args of [['--version'], ['-v'], ['status', '--version'], ['render', 'no-such.json', '-v']]) {
    const r = hbgen(args);
    assert.is(r.code, 0, args.join(' '));
    assert.is(r.stdout, `${pkg.version}\n`, args.join(' '));
  }
});

test('--help lists the commands', () => {
  const r = hbgen(['--help']);
  assert.is(r.code, 0);
  for (const c of ['render', 'check', 'schema', 'init', 'install', 'status', 'stop', 'resume', 'wake', 'list', 'completion']) assert.match(r.stdout, new RegExp(`hbgen ${c}`));
});

test('list takes --json and no spec; stop takes --all', () => {
  assert.match(hbgen(['list', '--help']).stdout, /--json +an array of objects, one per install/);
  assert.match(hbgen(['stop', '--help']).stdout, /--all +also remove entries under other names or schedulers that run this install's wrapper/);
  const r = hbgen(['list', 'hbgen.json']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^hbgen: .*see hbgen --help\n$/);
});

test('completion: `hbgen completion` prints the bash/zsh script; completing `hbgen st` in a real bash offers status and stop', () => {
  const r = hbgen(['completion'], { env: { ...process.env, SHELL: '/bin/bash' } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^###-begin-hbgen-completions-###$/m);
  assert.match(r.stdout, /hbgen --get-yargs-completions/);
  assert.match(r.stdout, /complete .*-F _hbgen_yargs_completions hbgen/);
  const words = hbgen(['--get-yargs-completions', 'hbgen', 'st'], { env: { ...process.env, SHELL: '/bin/bash' } });
  assert.ok(words.stdout.split('\n').includes('status') && words.stdout.split('\n').includes('stop'), words.stdout);
  // The script itself, sourced in bash with `hbgen` on PATH: what a user gets on Tab.
  const bin = join(tmp, 'completion-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'hbgen'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(HBGEN)} "$@"\n`, { mode: 0o755 });
  writeFileSync(join(tmp, 'completion.bash'), r.stdout);
  const tab = (line: string) => {
    const b = spawnSync('bash', ['-c', `source ${JSON.stringify(join(tmp, 'completion.bash'))}; COMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _hbgen_yargs_completions; printf '%s\\n' "\${COMPREPLY[@]}"`], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, SHELL: '/bin/bash' }, encoding: 'utf8' });
    assert.is(b.status, 0, b.stderr);
    return b.stdout.split('\n').filter(Boolean).sort();
  };
  assert.equal(tab('hbgen st'), ['status', 'stop']);
  assert.equal(tab('hbgen re'), ['render', 'resume']);
  assert.ok(tab("hbgen status --").includes('--json'), 'the options of a command');
  // zsh gets the same words with their descriptions.
  const z = hbgen(['completion'], { env: { ...process.env, SHELL: '/bin/zsh' } });
  assert.match(z.stdout, /compdef _hbgen_yargs_completions hbgen/);
  assert.match(hbgen(['--get-yargs-completions', 'hbgen', 'st'], { env: { ...process.env, SHELL: '/bin/zsh' } }).stdout, /^status:audit the install/m);
});

test('status --json through the built CLI: only the document on stdout, the exit status of the human form', () => {
  const env = { ...process.env, HOME: tmp, PATH: '/usr/bin:/bin' };
  const human = hbgen(['status', EXAMPLE], { env });
  const json = hbgen(['status', '--json', EXAMPLE], { env });
  assert.is(human.code, 1);
  assert.is(json.code, human.code);
  const doc = JSON.parse(json.stdout);
  assert.is(doc.healthy, false);
  assert.equal(doc.problems.map((p: { code: string }) => p.code), ['not-installed']);
  assert.match(hbgen(['status', '--help']).stdout, /--json +one JSON document on stdout/);
});

test('usage errors exit 2 with one line', () => {
  for (const args of [[], ['frobnicate'], ['render', EXAMPLE, '--bogus'], ['render', EXAMPLE, '--scheduler', 'anacron'], ['check'], ['check', EXAMPLE, 'a', 'b']]) {
    const r = hbgen(args);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stdout, '');
    assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^hbgen: .*see hbgen --help\n$/);
  }
});

test('render: SPEC defaults to ./hbgen.json and says what to do when it is missing', () => {
  const home = mkdtempSync(join(tmpdir(), 'hbgen-nohome-'));
  const r = hbgen(['render'], { cwd: tmp, env: { ...process.env, HOME: home } });
  assert.is(r.code, 1);
  assert.is(r.stderr, 'hbgen: ./hbgen.json: no such file; pass the path of your spec (default ./hbgen.json) or create one with `hbgen init`\n');
  copyFileSync(join(ROOT, EXAMPLE), join(tmp, 'hbgen.json'));
  const ok = hbgen(['render'], { cwd: tmp });
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^==> heartbeat\.sh <==\n#!\/bin\/sh\n/);
});

// The design's central use: the render is committed, and CI checks it in a fresh clone. git
// keeps only the executable bit, and a clone writes the rest from the cloner's umask, so the
// runtime rendered 0444 comes back 0644 (and 0664 under umask 002): still identical.
test('check: a render committed with git checks clean in a fresh clone, under umask 022 and 002; a lost executable bit is drift', () => {
  const repo = join(tmp, 'repo');
  mkdirSync(repo);
  assert.is(hbgen(['render', EXAMPLE, '--out', join(repo, 'hbgen')]).code, 0);
  assert.ok(readdirSync(join(repo, 'hbgen')).some((f) => /^runtime-.*\.sh$/.test(f) && (statSync(join(repo, 'hbgen', f)).mode & 0o777) === 0o444), 'the runtime is rendered 0444');
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
    assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'render');
  for (const umask of ['022', '002']) {
    const clone = join(tmp, `clone-${umask}`);
    const r = spawnSync('sh', ['-c', `umask ${umask} && exec git clone -q "$0" "$1"`, repo, clone], { encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    const rt = readdirSync(join(clone, 'hbgen')).find((f) => f.startsWith('runtime-'))!;
    assert.is.not(statSync(join(clone, 'hbgen', rt)).mode & 0o777, 0o444, 'git did not carry 0444: the case this test is for');
    const c = hbgen(['check', EXAMPLE, join(clone, 'hbgen')]);
    assert.is(c.code, 0, `umask ${umask}: ${c.stdout}${c.stderr}`);
    assert.is(c.stdout, '');
  }
  chmodSync(join(tmp, 'clone-022', 'hbgen', 'heartbeat.sh'), 0o644);
  const c = hbgen(['check', EXAMPLE, join(tmp, 'clone-022', 'hbgen')]);
  assert.is(c.code, 1);
  assert.match(c.stdout, /mode of heartbeat\.sh: not executable, rendered executable/);
});

test('a folder as SPEC is its hbgen.json, for render (the fast path), check and plan; a folder without one is one clear line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-folder-'));
  const none = hbgen(['render', dir]);
  assert.is(none.code, 1);
  assert.is(none.stderr, `hbgen: ${dir}: is a folder with no hbgen.json in it; pass the spec file's path, or create one there with \`hbgen init ${dir}\`\n`);
  copyFileSync(join(ROOT, EXAMPLE), join(dir, 'hbgen.json'));
  const byFile = hbgen(['render', join(dir, 'hbgen.json')]);
  for (const args of [['render', dir], ['render', dir, '--scheduler', 'cron'], ['plan', dir]]) {
    const r = hbgen(args);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    if (args.length === 2 && args[0] === 'render') assert.ok(r.stdout === byFile.stdout, 'the folder renders its hbgen.json');
  }
  const out = join(dir, 'out');
  assert.is(hbgen(['render', dir, '--out', out]).code, 0);
  assert.is(hbgen(['check', dir, out]).code, 0);
  assert.is(hbgen(['check', out], { cwd: dir }).code, 0);
  rmSync(dir, { recursive: true, force: true });
});

test('a missing spec file names the installs this host has and how to reach one by name', () => {
  const home = mkdtempSync(join(tmpdir(), 'hbgen-home-'));
  const state = join(home, '.local/state/hbgen/nightly');
  mkdirSync(state, { recursive: true });
  const spec = JSON.parse(readFileSync(join(ROOT, EXAMPLE), 'utf8'));
  writeFileSync(join(state, 'state.json'), JSON.stringify({ format: 1, name: 'nightly', scheduler: 'cron', status: 'stopped', files: [], hostFiles: [], spec: { ...spec, name: 'nightly' } }));
  const env = { ...process.env, HOME: home, PATH: '/usr/bin:/bin' };
  for (const cmd of ['status', 'render', 'log']) {
    const r = hbgen([cmd], { cwd: tmp, env });
    assert.is(r.code, 1, `${cmd}: ${r.stderr}`);
    assert.is(r.stderr, "hbgen: ./hbgen.json: no such file; this host has the install nightly: name one (`hbgen status nightly`), pass the path of your spec, or create one with `hbgen init`\n", cmd);
  }
  rmSync(home, { recursive: true, force: true });
});

test('render: every file under a ==> path <== header, sorted, summary on stderr', () => {
  const r = hbgen(['render', EXAMPLE]);
  assert.is(r.code, 0);
  const headers = [...r.stdout.matchAll(/^==> (.+) <==$/gm)].map((m) => m[1]);
  assert.equal(headers, ['heartbeat.sh', 'host/hbgen-docs.service', 'host/hbgen-docs.timer', 'jail.json', 'runtime-0.2.0.sh', 'window.sh']);
  assert.is(r.stderr, 'hbgen: fires at :07 and :37 past each hour, in the window 08:00–23:00 America/Santiago, Mon–Fri\n');
});

test('render --scheduler previews another backend', () => {
  const cron = hbgen(['render', EXAMPLE, '--scheduler', 'cron']);
  assert.is(cron.code, 0);
  assert.match(cron.stdout, /^==> host\/crontab <==\n# BEGIN hbgen docs\n/m);
  assert.match(cron.stdout, /^7,37 8-22 \* \* 1-5 \/bin\/sh -c '.*exec \/bin\/sh "\$1".*' hbgen-docs '\/home\/ada\/\.local\/state\/hbgen\/docs\/heartbeat\.sh'$/m);
  const launchd = hbgen(['render', EXAMPLE, '--scheduler', 'launchd']);
  assert.match(launchd.stdout, /^==> host\/dev\.hbgen\.docs\.plist <==$/m);
});

test('render --out writes the tree with modes and leaves other files alone', () => {
  const out = join(tmp, 'out');
  mkdirSync(join(out, 'host'), { recursive: true });
  writeFileSync(join(out, 'notes.txt'), 'mine\n');
  writeFileSync(join(out, 'host', 'other.timer'), 'mine too\n');
  writeFileSync(join(out, 'heartbeat.sh'), 'old\n');
  chmodSync(join(out, 'heartbeat.sh'), 0o600);
  const r = hbgen(['render', EXAMPLE, '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const mode = (p: string) => statSync(join(out, p)).mode & 0o777;
  assert.is(mode('heartbeat.sh'), 0o755);
  assert.is(mode('window.sh'), 0o755);
  assert.is(mode('host/hbgen-docs.service'), 0o644);
  assert.is(mode('host/hbgen-docs.timer'), 0o644);
  assert.match(readFileSync(join(out, 'heartbeat.sh'), 'utf8'), /^#!\/bin\/sh\n# Generated by hbgen from spec "docs"/);
  assert.is(readFileSync(join(out, 'notes.txt'), 'utf8'), 'mine\n');
  assert.is(readFileSync(join(out, 'host', 'other.timer'), 'utf8'), 'mine too\n');
});

test('render --out onto a file is refused without writing', () => {
  writeFileSync(join(tmp, 'file'), 'x');
  const r = hbgen(['render', EXAMPLE, '--out', join(tmp, 'file')]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /exists and is not a folder; choose another --out\n$/);
});

test('render --out with an empty value is a usage error naming --out, and writes nothing', () => {
  // Today's render wrote the tree into the working folder.
  for (const args of [['--out', ''], ['--out='], ['--out']]) {
    const r = hbgen(['render', join(ROOT, EXAMPLE), ...args], { cwd: tmp });
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stdout, '');
    assert.is(r.stderr, 'hbgen: --out: needs a folder, got an empty value; pass --out DIR, or leave it out to print the files; see hbgen --help\n');
    assert.equal(readdirSync(tmp), [], 'nothing written into the working folder');
  }
});

test('check: identical → 0; changed, mode, extra and missing files → 1 with a diff', () => {
  const out = join(tmp, 'tree');
  assert.is(hbgen(['render', EXAMPLE, '--out', out]).code, 0);
  const same = hbgen(['check', EXAMPLE, out]);
  assert.is(same.code, 0, same.stdout + same.stderr);
  assert.is(same.stdout, '');

  const timer = join(out, 'host', 'hbgen-docs.timer');
  writeFileSync(timer, readFileSync(timer, 'utf8').replace('07,37', '00,30'));
  let r = hbgen(['check', EXAMPLE, out]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /^--- a\/host\/hbgen-docs\.timer\t\(in folder\)$/m);
  assert.match(r.stdout, /^-OnCalendar=Mon\.\.Fri \*-\*-\* 08\.\.22:00,30:00 America\/Santiago$/m);
  assert.match(r.stdout, /^\+OnCalendar=Mon\.\.Fri \*-\*-\* 08\.\.22:07,37:00 America\/Santiago$/m);
  assert.match(r.stderr, /1 difference from a fresh render/);

  assert.is(hbgen(['render', EXAMPLE, '--out', out]).code, 0);
  chmodSync(join(out, 'window.sh'), 0o644);
  r = hbgen(['check', EXAMPLE, out]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /mode of window\.sh: not executable, rendered executable; `chmod \+x window\.sh` or render again/);

  chmodSync(join(out, 'window.sh'), 0o755);
  writeFileSync(join(out, 'host', 'stray.plist'), 'x');
  r = hbgen(['check', EXAMPLE, out]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /extra file host\/stray\.plist/);

  rmSync(join(out, 'host', 'stray.plist'));
  rmSync(join(out, 'heartbeat.sh'));
  r = hbgen(['check', EXAMPLE, out]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /^\+\+\+ b\/heartbeat\.sh\t\(rendered\)$/m);

  r = hbgen(['check', EXAMPLE, join(tmp, 'nowhere')]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /no such folder; render it first/);
});

test('schema prints a JSON Schema that rejects unknown fields', () => {
  const r = hbgen(['schema']);
  assert.is(r.code, 0);
  const s = JSON.parse(r.stdout);
  assert.is(s.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.is(s.additionalProperties, false);
  assert.equal(s.required, ['version', 'name', 'repo', 'agent', 'schedule', 'timeout', 'env']);
  assert.equal(s.properties.schedule.required, ['scheduler', 'every', 'hours']);
});

test('a spec with many problems prints only "hbgen: " lines, no stack trace', () => {
  const r = hbgen(['render', 'fixtures/invalid/many.json']);
  assert.is(r.code, 1);
  for (const l of r.stderr.trimEnd().split('\n')) assert.match(l, /^hbgen: /);
  assert.not.match(r.stderr, /\n\s+at /);
});

test('the fast path parses only the plain forms and leaves the rest to yargs', async () => {
  const { fastParse } = await import('../src/fastparse.ts');
  assert.type(fastParse, 'function');
  assert.equal(fastParse!(['render']), { cmd: 'render', spec: './hbgen.json' });
  assert.equal(fastParse!(['render', 'a.json', '--out=o', '--scheduler', 'cron']), { cmd: 'render', spec: 'a.json', out: 'o', scheduler: 'cron' });
  assert.equal(fastParse!(['check', 'a.json', 'dir']), { cmd: 'check', spec: 'a.json', dir: 'dir' });
  for (const args of [['render', '--out'], ['render', 'a', 'b'], ['render', '--bogus'], ['render', '--out', 'x', '--out', 'y'], ['check', 'a'], ['check', 'a', 'b', 'c'], ['render', '-'], ['render', '--scheduler', 'anacron'], ['render', '--help'], ['render', '--out', ''], ['schema'], ['--version', 'x']]) {
    assert.is(fastParse!(args), undefined, args.join(' '));
  }
});

test.run();
