// The agent's own workspace through the built CLI, the stand-in systemctl first on PATH:
// install makes the clone and the branch (the panel says so), a wake's commits reach the
// repo's branch hbgen/<name>, status and list show the branch (commits ahead, last subject,
// whether it merges), stop keeps clone and branch, forget shows what the clone holds and
// removes it only when asked (--yes alone never drops commits only the clone holds).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hbgen } from './helpers/cli.ts';
import { makeStub } from './helpers/crontab.ts';
import { type Host, makeHost } from './helpers/lifecycle.ts';
import { workspaceDir } from '../src/workspace.ts';

const stub = makeStub();
process.on('exit', () => stub.remove());
const cli = (h: Host, args: string[]) => hbgen(args, { cwd: h.home, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });
// Its own identity: the test's commits must not depend on the machine's git config (a fresh one has none).
const git = (dir: string, ...a: string[]) => spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-C', dir, ...a], { encoding: 'utf8' }).stdout;

function installed(agent: string): Host {
  const h = makeHost('systemd-user', { stateDir: undefined, workspace: 'clone' });
  writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = agent\n\temail = agent@example.invalid\n');
  git(h.repo, 'init', '-q', '-b', 'main');
  git(h.repo, 'add', 'README');
  git(h.repo, 'commit', '-q', '-m', 'the repo');
  writeFileSync(h.bin, agent, { mode: 0o755 });
  const r = hbgen(['install', h.specFile, '--yes'], { cwd: h.root, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /new: the agent's clone of the repo, on branch hbgen\/docs from your HEAD \([0-9a-f]{7}\)/, r.stdout);
  return h;
}

const AGENT = '#!/bin/sh\necho "$(date +%s%N)" >>work.txt && git add -A && git commit -q -m "agent: one chunk" && echo agent ran\n';

test('install, wake, status, list, stop: the branch is shown with its commits; stop keeps clone and branch', () => {
  const h = installed(AGENT);
  const ws = workspaceDir(h.spec);
  assert.ok(existsSync(join(ws, '.git')), 'install made the clone');
  assert.is(git(h.repo, 'rev-parse', 'hbgen/docs'), git(h.repo, 'rev-parse', 'main'));
  // The person edits README meanwhile, uncommitted: the wake leaves it alone.
  writeFileSync(join(h.repo, 'README'), 'the repo, edited\n');
  const w = cli(h, ['wake', 'docs']);
  assert.is(w.code, 0, w.stderr + w.stdout);
  assert.is(readFileSync(join(h.repo, 'README'), 'utf8'), 'the repo, edited\n');
  assert.is(git(h.repo, 'log', '-1', '--format=%s', 'hbgen/docs'), 'agent: one chunk\n');
  const st = cli(h, ['status', 'docs']);
  assert.match(st.stdout, /\n {2}workspace +~\/\.local\/share\/hbgen\/workspaces\/docs: branch hbgen\/docs: 1 commit ahead of main, last "agent: one chunk"; merges cleanly onto main\n/, st.stdout);
  const lg = cli(h, ['log', 'docs']);
  assert.match(lg.stdout, /\n {2}wake 1 \(by hand\) .* ok {2}\(workspace: 1 commit on hbgen\/docs: [0-9a-f]{7}\)\n/, lg.stdout);
  const l = cli(h, ['list']);
  assert.match(l.stdout, /\ndocs: branch hbgen\/docs: 1 commit ahead of main, last "agent: one chunk"; merges cleanly onto main\n/, l.stdout);
  // A commit of the person's own that touches the same line: the branch no longer merges cleanly.
  writeFileSync(join(h.repo, 'work.txt'), 'the person\'s\n');
  git(h.repo, 'add', 'work.txt');
  git(h.repo, 'commit', '-q', '-m', 'person: work.txt');
  assert.match(cli(h, ['status', 'docs']).stdout, /branch hbgen\/docs: 1 commit ahead of main, last "agent: one chunk"; conflicts with main: merging needs your hand\n/);
  // A second install keeps the clone as it is: its memory and commits stay.
  writeFileSync(join(ws, 'STATE.md'), 'the agent\'s state\n');
  const again = hbgen(['install', h.specFile, '--yes'], { cwd: h.root, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });
  assert.is(again.code, 0, again.stderr + again.stdout);
  assert.is(readFileSync(join(ws, 'STATE.md'), 'utf8'), 'the agent\'s state\n');
  assert.is(git(ws, 'log', '-1', '--format=%s'), 'agent: one chunk\n');
  const stop = cli(h, ['stop', 'docs']);
  assert.is(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, /kept the agent's clone .*workspaces\/docs and branch hbgen\/docs in the repo: `hbgen forget docs` removes the clone after showing what it holds and asking\n/, stop.stdout);
  assert.ok(existsSync(join(ws, '.git')), 'stop kept the clone');
  assert.is(git(h.repo, 'log', '-1', '--format=%s', 'hbgen/docs'), 'agent: one chunk\n', 'stop kept the branch');
  // forget shows the unmerged commit; --yes removes the clone, as it holds nothing the repo lacks.
  const f = cli(h, ['forget', 'docs', '--yes']);
  assert.is(f.code, 0, f.stderr + f.stdout);
  assert.match(f.stdout, /\n {2}1 commit on hbgen\/docs not merged into main; they stay on that branch in the repo:\n {4}[0-9a-f]{7} agent: one chunk\n/, f.stdout);
  assert.not.ok(existsSync(ws), 'forget removed the clone');
  assert.is(git(h.repo, 'log', '-1', '--format=%s', 'hbgen/docs'), 'agent: one chunk\n', 'the branch stays in the repo');
});

test('forget --yes keeps a clone that holds commits the repo lacks (a rewritten history, never fetched); without a terminal nothing goes', () => {
  const h = installed(AGENT);
  const ws = workspaceDir(h.spec);
  assert.is(cli(h, ['wake', 'docs']).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\ngit reset -q --soft HEAD~1 && git commit -q -m "agent: rewritten" && echo agent ran\n', { mode: 0o755 });
  const w = cli(h, ['wake', 'docs']);
  assert.is(w.code, 0, w.stderr);
  const st = cli(h, ['status', 'docs']);
  assert.match(st.stdout, /its clone holds 1 commit the branch lacks \([0-9a-f]{7}: a rewritten history is never forced onto it\)/, st.stdout);
  assert.is(cli(h, ['stop', 'docs']).code, 0);
  let f = cli(h, ['forget', 'docs']);
  assert.is(f.code, 1);
  assert.ok(existsSync(ws));
  f = cli(h, ['forget', 'docs', '--yes']);
  assert.is(f.code, 0, f.stderr);
  assert.match(f.stdout, /\n {2}1 commit only the clone holds \(never fetched into the repo\), lost with it: [0-9a-f]{7}\n/, f.stdout);
  assert.match(f.stdout, /kept the agent's clone .* \(--yes does not remove what only it holds; remove it by hand once you have what you need\)/, f.stdout);
  assert.ok(existsSync(join(ws, '.git')), 'the clone stays');
});

test.run();
