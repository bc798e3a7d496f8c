// And the state-folder decision, on a temporary host with STAND-IN
// systemctl/loginctl/launchctl and a recording STAND-IN crontab first on PATH:
// - the state folder inside the repo (relative stateDir, an absolute one inside it or that
//   reaches it through a link, the default through env.XDG_STATE_HOME) is refused by install,
//   resume and wake for the host schedulers, and reported by status; render still renders it;
// - programs (agent.bin, its #! interpreter, gate[0], notify[0]), env.PATH folders and paths
//   of preload variables that reach the repo through links are refused at install and wake;
//   as written, by validation;
// - what changes the scheduler entry without changing hbgen's files (a systemd drop-in, a
//   unit read before hbgen's, the user manager's environment, a crontab variable line above
//   the block) and a wrapper that status found edited and put back are problems (exit 1),
//   and `hbgen list` shows the install as tampered.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { validateSpec } from '../src/spec.ts';
import { B, makeStub } from './helpers/crontab.ts';
import { type Host, baseSpec, hb, makeHost, rewriteSpec, tree } from './helpers/lifecycle.ts';

/** A host whose crontab(1) is a recording stand-in (first on PATH), so no real table is touched. */
function isolated(scheduler: Host['spec']['schedule']['scheduler'], over = {}): { h: Host; done: () => void; table: (t: Buffer) => void; read: () => Buffer | null } {
  const h = makeHost(scheduler, over, 'outside');
  const stub = makeStub();
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  return { h, done: stub.remove, table: (t) => stub.setTable(t), read: () => stub.table() };
}

/** The one line hbgen printed for this refusal (there may be others). */
const lineOf = (err: string, re: RegExp) => err.split('\n').find((l) => re.test(l));

// ------------------------------------------------------------------ the state folder

for (const scheduler of ['systemd-user', 'cron', 'launchd'] as const) {
  test(`${scheduler}: install refuses a relative stateDir (inside the repo), naming stateDir, why and what to do; nothing changes`, async () => {
    const { h, done } = isolated(scheduler, { stateDir: '.agent-platform' });
    const before = [tree(h.home), tree(h.repo)];
    const r = await hb(h, 'install', { yes: true });
    assert.is(r.code, 1, r.out + r.err);
    const l = lineOf(r.err, /stateDir:/);
    assert.ok(l, r.err);
    assert.match(l!, /^hbgen: stateDir: "\.agent-platform" is relative, so the state folder .*\/repo\/\.agent-platform is inside the repo; the agent can write there: it could remove the lock .* or the wake counter, or plant links that the wrapper writes through, .*so hbgen refuses it for /);
    assert.match(l!, /set "stateDir" to an absolute path outside the repo, or remove "stateDir" to use the default /);
    assert.match(r.err, /nothing was changed on this host/);
    assert.equal([tree(h.home), tree(h.repo)], before, 'nothing written in HOME or the repo');
    done();
  });
}

test('install refuses an absolute stateDir inside the repo, and one that reaches it through a symbolic link', async () => {
  const { h, done } = isolated('systemd-user');
  rewriteSpec(h, { stateDir: join(h.repo, 'state') });
  let r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`stateDir: ${h.repo}/state is inside the repo; the agent can write there`));
  // A folder outside the repo whose parent is a link into it.
  mkdirSync(join(h.repo, 'hidden'));
  symlinkSync(join(h.repo, 'hidden'), join(h.root, 'via'));
  rewriteSpec(h, { stateDir: join(h.root, 'via/state') });
  r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`stateDir: ${h.root}/via/state is inside the repo \\(it resolves to ${h.repo}/hidden/state, inside ${h.repo}\\); the agent can write there`));
  assert.not.ok(existsSync(join(h.repo, 'hidden/state')));
  done();
});

test('the default state folder inside the repo through env.XDG_STATE_HOME is refused, naming env.XDG_STATE_HOME', async () => {
  const { h, done } = isolated('cron');
  rewriteSpec(h, { stateDir: undefined, env: { HOME: h.home, PATH: '/usr/bin:/bin', XDG_STATE_HOME: join(h.repo, '.state') } });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1);
  const l = lineOf(r.err, /XDG_STATE_HOME/);
  assert.match(l!, new RegExp(`^hbgen: env\\.XDG_STATE_HOME: "${h.repo}/\\.state" puts the default state folder ${h.repo}/\\.state/hbgen/docs inside the repo; the agent can write there: .*set env\\.XDG_STATE_HOME to a folder outside the repo \\(or remove it\\), or set "stateDir" to an absolute path outside the repo$`));
  done();
});

test('render and check still render a state folder inside the repo (a preview); kubernetes keeps its PVC rule', async () => {
  const { h, done } = isolated('systemd-user', { stateDir: '.agent-platform' });
  const { hbgen } = await import('./helpers/cli.ts');
  const r = hbgen(['render', h.specFile]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /==> heartbeat\.sh <==/);
  assert.ok(r.stdout.includes(`\nhb_state='${h.repo}/.agent-platform'\n`), r.stdout);
  // kubernetes: a relative stateDir on the PVC is valid, and install writes its manifest.
  const k = validateSpec({ ...baseSpec(h.root, 'kubernetes'), stateDir: '.hbgen', cap: 5, kubernetes: { image: 'ghcr.io/x/agent:1', pvc: 'repo' } });
  assert.equal(k.errors, undefined, String(k.errors));
  done();
});

/**
 * An install made outside the repo whose state folder then reaches into it (its parent
 * repointed into the repo: as an install made before hbgen refused it would be).
 */
async function movedIntoRepo(scheduler: Host['spec']['schedule']['scheduler']) {
  const iso = isolated(scheduler);
  const { h } = iso;
  const outside = join(h.root, 'real-parent');
  mkdirSync(outside);
  symlinkSync(outside, join(h.root, 'parent'));
  rewriteSpec(h, { stateDir: join(h.root, 'parent/state') });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.out + r.err);
  renameSync(outside, join(h.repo, 'moved'));
  rmSync(join(h.root, 'parent'));
  symlinkSync(join(h.repo, 'moved'), join(h.root, 'parent'));
  return iso;
}

test('an install whose state folder reaches into the repo: status reports it (exit 1) with what to do; wake and resume refuse it', async () => {
  const { h, done } = await movedIntoRepo('systemd-user');
  const n = names(h.spec);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}stateDir: .*\/parent\/state is inside the repo \(it resolves to .*\/repo\/moved\/state, inside .*\/repo\); the agent can write there: .*first run `hbgen stop` with the spec as it is, then change it and run `hbgen install`\)/);
  const js = JSON.parse((await hb(h, 'status', { json: true })).out) as { problems: { code: string }[] };
  assert.ok(js.problems.some((p) => p.code === 'state-in-repo'), JSON.stringify(js.problems));
  const log = readFileSync(n.log, 'utf8');
  const w = await hb(h, 'wake');
  assert.is(w.code, 78, w.out + w.err);
  assert.match(w.err, /stateDir: .* is inside the repo/);
  assert.match(w.err, /hbgen wake ran nothing/);
  assert.is(readFileSync(n.log, 'utf8'), log, 'no wake ran');
  assert.is((await hb(h, 'stop')).code, 0);
  const r = await hb(h, 'resume', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /stateDir: .* is inside the repo .*so hbgen refuses it for systemd-user/);
  done();
});

// ------------------------------------------------------------------ programs

test('validation refuses agent.bin, gate[0], notify[0] inside the repo, and preload variables with paths inside it or relative to it', () => {
  const root = '/home/ada';
  const base = baseSpec(root, 'systemd-user');
  const repo = base.repo;
  const v = validateSpec({
    ...base,
    agent: { ...base.agent!, bin: `${repo}/bin/agent` },
    gate: [`${repo}/gate.sh`],
    notify: [`${repo}/tools/notify`],
    env: {
      HOME: '/home/ada',
      PATH: '/usr/bin:/bin',
      LD_PRELOAD: `libfine.so ${repo}/evil.so`,
      LD_LIBRARY_PATH: '/usr/lib:',
      NODE_OPTIONS: '--max-old-space-size=4096 --require ./hook.js',
      PYTHONPATH: `${repo}/lib`,
      PERL5OPT: '-Mstrict -Ilib',
      RUBYOPT: '-r ./x.rb',
      DYLD_INSERT_LIBRARIES: `${repo}/x.dylib`,
    },
  });
  const errs = v.errors ?? [];
  const has = (re: RegExp) => assert.ok(errs.some((e) => re.test(e)), `${re} in:\n${errs.join('\n')}`);
  has(new RegExp(`^agent\\.bin: "${repo}/bin/agent" is inside repo, where the agent can write, so it could replace this program .*: install the program outside the repo and point agent\\.bin there$`));
  has(/^gate\[0\]: ".*\/gate\.sh" is inside repo/);
  has(/^notify\[0\]: ".*\/tools\/notify" is inside repo/);
  has(new RegExp(`^env\\.LD_PRELOAD: "${repo}/evil\\.so" is inside repo, where the agent can write, so the wrapper, the billing check, the gate and notify would load code from there outside the agent's sandbox: give a path outside the repo, or remove LD_PRELOAD$`));
  has(/^env\.LD_LIBRARY_PATH: an empty entry is resolved against the wake's working folder, the repo/);
  has(/^env\.NODE_OPTIONS: "\.\/hook\.js" is resolved against the wake's working folder, the repo/);
  has(/^env\.PYTHONPATH: ".*\/lib" is inside repo/);
  has(/^env\.PERL5OPT: "lib" is resolved against/);
  has(/^env\.RUBYOPT: "\.\/x\.rb" is resolved against/);
  has(/^env\.DYLD_INSERT_LIBRARIES: /);
  assert.not.ok(errs.some((e) => /libfine|Mstrict|max-old-space/.test(e)), errs.join('\n'));
  // Outside the repo, all of them are fine.
  const ok = validateSpec({ ...base, gate: ['/usr/bin/on_ac_power'], env: { HOME: '/home/ada', PATH: '/usr/bin:/bin', LD_PRELOAD: 'libfine.so', NODE_OPTIONS: '--require /opt/hooks/h.js', PYTHONPATH: '/opt/py' } });
  assert.equal(ok.errors, undefined, String(ok.errors));
});

test('install refuses programs, env.PATH folders and preload paths that reach the repo through symbolic links, naming each field; wake refuses them too', async () => {
  const { h, done } = isolated('systemd-user');
  // Each a link outside the repo to a file or folder inside it.
  const inRepo = (name: string, text?: string) => {
    const p = join(h.repo, name);
    if (text === undefined) mkdirSync(p);
    else writeFileSync(p, text, { mode: 0o755 });
    const link = join(h.root, `link-${name}`);
    symlinkSync(p, link);
    return link;
  };
  const bin = inRepo('agent', '#!/bin/sh\necho agent ran\n');
  const gate = inRepo('gate', '#!/bin/sh\nexit 0\n');
  const notify = inRepo('notify', '#!/bin/sh\nexit 0\n');
  const tools = inRepo('tools');
  const lib = inRepo('evil.so', 'x');
  const hook = inRepo('hook.js', '');
  rewriteSpec(h, {
    agent: { harness: 'command', bin, prompt: 'Do one chunk.' },
    gate: [gate],
    notify: [notify],
    env: { HOME: h.home, PATH: `/usr/bin:${tools}:/bin`, LD_PRELOAD: lib, NODE_OPTIONS: `--require=${hook}` },
  });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  for (const [field, link] of [['agent.bin', bin], ['gate[0]', gate], ['notify[0]', notify]] as const) {
    assert.match(r.err, new RegExp(`hbgen: ${field.replace(/[[\]]/g, '\\$&')}: ${link} is inside the repo \\(it resolves to ${h.repo}/[a-z]+, inside ${h.repo}\\), where the agent can rewrite it, and it runs outside the agent's sandbox: install the program outside the repo and point ${field.replace(/[[\]]/g, '\\$&')} at it\n`));
  }
  assert.match(r.err, new RegExp(`hbgen: env\\.PATH: ${tools} is inside the repo \\(it resolves to ${h.repo}/tools, .*remove the entry and put the tool in a folder outside the repo\n`));
  assert.match(r.err, new RegExp(`hbgen: env\\.LD_PRELOAD: ${lib} is inside the repo .*give a path outside the repo, or remove LD_PRELOAD\n`));
  assert.match(r.err, new RegExp(`hbgen: env\\.NODE_OPTIONS: ${hook} is inside the repo `));
  assert.match(r.err, /nothing was changed on this host/);
  const w = await hb(h, 'wake');
  assert.is(w.code, 78);
  assert.match(w.err, /agent\.bin: .* is inside the repo/);
  done();
});

test('install refuses an agent whose #! interpreter is inside the repo', async () => {
  const { h, done } = isolated('cron');
  const interp = join(h.repo, 'interp');
  writeFileSync(interp, '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
  symlinkSync(interp, join(h.root, 'interp'));
  writeFileSync(h.bin, `#!${join(h.root, 'interp')}\necho agent ran\n`);
  chmodSync(h.bin, 0o755);
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /agent\.bin: its #! interpreter .*\/interp is inside the repo \(it resolves to .*\/repo\/interp/);
  done();
});

// ------------------------------------------------------------------ what changes the entry

test('systemd: a drop-in for hbgen\'s units (its own, a dash prefix\'s, the type\'s, set-property\'s) or a unit read first is a problem; list says tampered', async () => {
  const { h, done } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'status')).code, 0);
  const units = join(h.home, '.config/systemd/user');
  const cases = [
    join(units, 'hbgen-docs.service.d/override.conf'),
    join(units, 'hbgen-.service.d/x.conf'),
    join(units, 'timer.d/y.conf'),
    join(h.home, '.config/systemd/user.control/hbgen-docs.service.d/50-Environment.conf'),
  ];
  for (const conf of cases) {
    mkdirSync(join(conf, '..'), { recursive: true });
    writeFileSync(conf, '[Service]\nExecStart=\nExecStart=/bin/sh /tmp/evil\n');
    const st = await hb(h, 'status');
    assert.is(st.code, 1, `${conf}: ${st.out}`);
    assert.match(st.out, new RegExp(`problem {2}tampered: ${conf} is a systemd drop-in for hbgen-docs\\.(service|timer), which can replace its ExecStart= or add variables.*run \`systemctl --user daemon-reload\``));
    const list = await hb(h, 'list', { json: true });
    assert.equal((JSON.parse(list.out) as { name: string; state: string }[]).map((r) => [r.name, r.state]), [['docs', 'tampered']], conf);
    rmSync(join(conf, '..'), { recursive: true });
  }
  // A unit of the same name in a folder systemd reads before ~/.config/systemd/user.
  const control = join(h.home, '.config/systemd/user.control');
  mkdirSync(control, { recursive: true });
  writeFileSync(join(control, 'hbgen-docs.service'), '[Service]\nExecStart=/bin/sh /tmp/evil\n');
  const st = await hb(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /tampered: .*user\.control\/hbgen-docs\.service replaces hbgen's hbgen-docs\.service/);
  rmSync(control, { recursive: true });
  assert.is((await hb(h, 'status')).code, 0, 'healthy again');
  const list = await hb(h, 'list');
  assert.match(list.out, /\ndocs +systemd-user +active /);
  done();
});

test('systemd: the user manager\'s environment with LD_PRELOAD (or BASH_FUNC_*) is a problem; a PATH of its own is not (the entry ignores it)', async () => {
  const { h, done } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const envFile = join(h.tools.bin, 'state', 'environment');
  writeFileSync(envFile, `HOME=${h.home}\nPATH=${h.repo}:/usr/bin:/bin\n`);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, `a PATH with the repo first changes nothing the entry runs: ${st.out}`);
  writeFileSync(envFile, `HOME=${h.home}\nPATH=/usr/bin:/bin\nLD_PRELOAD=${h.repo}/evil.so\n`);
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}tampered: your systemd user manager's environment sets LD_PRELOAD, which every unit gets, hbgen's entry included: the dynamic loader reads it before \/bin\/sh runs the entry's first word .*run `systemctl --user unset-environment LD_PRELOAD`/);
  const js = JSON.parse((await hb(h, 'status', { json: true })).out) as { problems: { code: string }[] };
  assert.ok(js.problems.some((p) => p.code === 'tampered'));
  assert.match((await hb(h, 'list')).out, /\ndocs +systemd-user +tampered /);
  writeFileSync(envFile, `HOME=${h.home}\nBASH_FUNC_date%%=() { :; }\n`);
  assert.match((await hb(h, 'status')).out, /sets BASH_FUNC_date%%, .*bash, as \/bin\/sh, turns it into a shell function/);
  done();
});

test('cron: a variable line above hbgen\'s block that changes the entry (SHELL= a program no /etc/shells lists, LD_PRELOAD=) is a problem; PATH= and SHELL=/bin/bash are not', async () => {
  const { h, done, table, read } = isolated('cron');
  table(B('MAILTO=me\n0 5 * * * mine\n'));
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const installed = read()!.toString('latin1');
  table(B(`PATH=${h.repo}:/usr/bin:/bin\nSHELL=/bin/bash\n${installed}`));
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  table(B(`SHELL=${h.repo}/evil\n${installed}`));
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, new RegExp(`problem {2}tampered: line 1 of your crontab sets SHELL, which applies to hbgen's block "docs" below it: cron runs every line after it with that program instead of /bin/sh.*remove the line with \`crontab -e\``));
  assert.match((await hb(h, 'list')).out, /\ndocs +cron +tampered /);
  table(B(`${installed}LD_PRELOAD=/x.so\n`));
  assert.is((await hb(h, 'status')).code, 0, 'a line below the block does not apply to it');
  table(B(`'LD_PRELOAD' = /x.so\n${installed}`));
  assert.match((await hb(h, 'status')).out, /line 1 of your crontab sets LD_PRELOAD/);
  done();
});

test('a wrapper status finds edited and puts back is a problem (exit 1), said again by every status until an install; list says tampered', async () => {
  const { h, done } = isolated('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const orig = readFileSync(n.wrapper);
  writeFileSync(n.wrapper, `${orig}# edited\n`);
  let st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, new RegExp(`problem {2}tampered: ${n.wrapper} differed from what hbgen installed \\(changed\\); hbgen put the installed bytes back, but only a process with your rights could have changed it .*then run \`hbgen install\` to clear this`));
  assert.not.match(st.out, /\nhealthy\n/);
  assert.ok(readFileSync(n.wrapper).equals(orig), 'put back');
  st = await hb(h, 'status');
  assert.is(st.code, 1, 'still a problem after the repair');
  assert.match(st.out, /tampered: .*heartbeat\.sh differed from what hbgen installed and was put back at /);
  assert.match((await hb(h, 'list')).out, /\ndocs +systemd-user +tampered /);
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  assert.is((await hb(h, 'status')).code, 0, 'an install clears it');
  assert.match((await hb(h, 'list')).out, /\ndocs +systemd-user +active /);
  done();
});

test.run();
