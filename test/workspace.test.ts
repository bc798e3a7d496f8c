// needs root: it makes each shell /bin/sh by a bind mount (unshare -m); it creates scratch users (useradd); it runs commands as other users (runuser); it gives files to other users (chown)
// The agent's own workspace ("workspace": "clone"), for real: install's clone and branch
// (src/host/install/workspace.ts), then the rendered heartbeat.sh run as an unprivileged
// scratch user, the agent a `command` script inside the real jail (srt, bubblewrap). The
// person has uncommitted changes (staged, unstaged, untracked) and another branch checked
// out; the agent's `git add -A && git commit` lands on hbgen/<name> in the person's repo,
// and the person's working tree, index and every other ref stay byte for byte as they
// were. An agent that leaves git programs in its clone (config, hooks) gets none of them
// run at the fetch, jailed or not; a history it rewrote is never forced over the branch.
// Where the jail cannot run here these tests FAIL, saying what is missing: they never skip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { validateSpec, type Spec } from '../src/spec.ts';
import { renderNow } from './helpers/render.ts';
import { scratchUser, type ScratchUser } from './helpers/cronuser.ts';
import { applyWorkspace, workspacePlan } from '../src/host/install/workspace.ts';
import { excludeBlock } from '../src/host/install/exclude.ts';
import { jailPolicy } from '../src/jail.ts';
import { workspaceDir } from '../src/workspace.ts';
import { names } from '../src/names.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';
import { SHELLS, run } from './helpers/wrapper.ts';

const ROOT = join(import.meta.dirname, '..');
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');
const NODE_DIR = dirname(process.execPath);
const made: string[] = [];

function missing(): string {
  const why: string[] = [];
  if (process.getuid?.() !== 0) why.push('these tests run as root (they make a scratch user)');
  if (!existsSync(SRT)) why.push(`${SRT} is missing: run npm ci (@anthropic-ai/sandbox-runtime is a dependency)`);
  for (const t of ['bwrap', 'rg', 'socat', 'git', 'runuser']) {
    if (spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0) why.push(`${t} is not on PATH (apt-get install bubblewrap ripgrep socat git)`);
  }
  return why.join('; ');
}
const MISSING = missing();

interface WsCase {
  user: ScratchUser | null;
  repo: string;
  state: string;
  ws: string;
  out: string;
  spec: Spec;
}

const git = (dir: string, ...a: string[]) => {
  const r = spawnSync('git', ['-c', 'safe.directory=*', '-C', dir, ...a], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

function own(p: string, u: { uid: number; gid: number }): void {
  chownSync(p, u.uid, u.gid);
  if (lstatSync(p).isDirectory()) for (const e of readdirSync(p)) own(join(p, e), u);
}

/**
 * The person's repo: main with two commits, `feature` checked out with one more, and
 * uncommitted work of every kind (a staged file, an unstaged edit, an untracked file, an
 * edited HEART.md); the clone and branch made as install makes them; the scripts rendered.
 */
function makeWsCase(scratch: ScratchUser | null, agent: string, sandbox: boolean, heartTracked = false): WsCase {
  assert.is(MISSING, '', `the jail cannot run here: ${MISSING}`);
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-ws.'));
  made.push(dir);
  chmodSync(dir, 0o755);
  // Without a scratch user (the shell matrix, as root, unjailed): a home of the case's own.
  const user = scratch ?? { name: 'root', uid: 0, gid: 0, home: join(dir, 'home') };
  mkdirSync(user.home, { recursive: true });
  const repo = join(dir, 'repo');
  const state = join(dir, 'state');
  const out = join(dir, 'out');
  for (const d of [repo, out, join(dir, 'bin')]) mkdirSync(d, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 'person@example.invalid');
  git(repo, 'config', 'user.name', 'person');
  // HEART.md untracked and excluded, as install's .git/info/exclude block leaves it.
  writeFileSync(join(repo, 'HEART.md'), '# HEART\n\n## Mission\n\nKeep the notes tidy.\n');
  if (!heartTracked) writeFileSync(join(repo, '.git', 'info', 'exclude'), excludeBlock('wsx'));
  writeFileSync(join(repo, 'notes.txt'), 'one\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  writeFileSync(join(repo, 'notes.txt'), 'one\ntwo\n');
  git(repo, 'commit', '-q', '-am', 'second');
  git(repo, 'checkout', '-q', '-b', 'feature');
  writeFileSync(join(repo, 'feature.txt'), 'feature\n');
  git(repo, 'add', 'feature.txt');
  git(repo, 'commit', '-q', '-m', 'feature work');
  // The person's work in progress, none of it committed.
  writeFileSync(join(repo, 'staged.txt'), 'half done, staged\n');
  git(repo, 'add', 'staged.txt');
  writeFileSync(join(repo, 'notes.txt'), 'one\ntwo\nthree (unsaved thought)\n');
  writeFileSync(join(repo, 'scratch.txt'), 'untracked\n');
  // The agent's identity comes from the user's own ~/.gitconfig (the jail lets it be read).
  writeFileSync(join(user.home, '.gitconfig'), '[user]\n\tname = agent\n\temail = agent@example.invalid\n');
  const bin = join(dir, 'bin', 'agent');
  writeFileSync(bin, agent, { mode: 0o755 });
  const raw = {
    version: 1,
    name: 'wsx',
    repo,
    workspace: 'clone',
    agent: { harness: 'command', bin, args: [], prompt: 'Do one chunk.' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
    timeout: '60s',
    killAfter: '2s',
    stateDir: state,
    env: { HOME: user.home, PATH: `${NODE_DIR}:/usr/local/bin:/usr/bin:/bin`, HBTEST_OUT: out, HBTEST_REPO: repo },
    sandbox: sandbox ? { bin: SRT } : false,
  };
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('; '));
  const spec = v.spec;
  const plan = workspacePlan(spec);
  if (typeof plan === 'string') throw new Error(plan);
  applyWorkspace(spec, plan);
  // HEART.md changed after install, uncommitted: the wake must see this text.
  writeFileSync(join(repo, 'HEART.md'), '# HEART\n\n## Mission\n\nKeep the notes tidy. New today: add a summary.\n');
  const r = renderNow(spec);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  mkdirSync(state, { recursive: true, mode: 0o700 });
  for (const f of r.files) {
    mkdirSync(dirname(join(state, f.path)), { recursive: true });
    writeFileSync(join(state, f.path), f.content, { mode: f.mode });
  }
  if (scratch) {
    own(dir, scratch);
    own(join(scratch.home, '.local'), scratch);
    own(join(scratch.home, '.gitconfig'), scratch);
  }
  return { user: scratch, repo, state, ws: workspaceDir(spec), out, spec };
}

function wake(c: WsCase): { code: number; log: string; out: string } {
  const r = spawnSync('runuser', ['-u', c.user!.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { encoding: 'utf8', timeout: 120_000 });
  const logf = join(c.state, 'runtime.log');
  const outf = join(c.state, 'agent.log');
  return {
    code: r.status ?? 128,
    log: existsSync(logf) ? readFileSync(logf, 'utf8') : `(no runtime.log) ${r.stderr}`,
    out: existsSync(outf) ? readFileSync(outf, 'utf8') : '',
  };
}

/**
 * The person's side, byte for byte: every file of the working tree, the index, HEAD, the
 * config and hooks, and every ref (loose, packed, and as git resolves them) but the agent's
 * branch. Objects are not in it: the fetch adds the agent's, and nothing else changes.
 */
function personSnapshot(repo: string, branch: string): Map<string, string> {
  const m = new Map<string, string>();
  // git status without the optional index refresh, so that looking changes nothing.
  m.set('(status)', git(repo, '--no-optional-locks', 'status', '--porcelain=v2', '--branch'));
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const rel = relative(repo, p);
      if (rel === '.git/objects' || rel === '.git/logs') continue;
      if (rel === `.git/refs/heads/${branch}`) continue;
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else m.set(rel, `${st.mode.toString(8)} ${st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(repo);
  m.set('(refs)', git(repo, 'for-each-ref', '--format=%(refname) %(objectname)').split('\n').filter((l) => l && !l.startsWith(`refs/heads/${branch} `)).join('\n'));
  return m;
}

const COMMITS = `#!/bin/sh
# The agent's work: a file of its own, its memory, then everything in one commit.
echo "cwd: $(pwd)"
echo "heart: $(grep New HEART.md)"
echo "summary" >summary.txt
echo "- $(date -u) worked" >>LOG.md
if echo x >"$HBTEST_REPO/escaped" 2>/dev/null; then echo "repo-write: done"; else echo "repo-write: refused"; fi
if echo x >HEART.md 2>/dev/null; then echo "heart-write: done"; else echo "heart-write: refused"; fi
git add -A && git commit -q -m "agent: add a summary" && echo "commit: done"
echo "more" >>summary.txt
git commit -q -am "agent: more summary" && echo "commit2: done"
exit 0
`;

test('a jailed wake in the workspace: the agent\'s two commits land on hbgen/wsx; the person\'s tree, index and other refs are byte for byte as they were', () => {
  const c = makeWsCase(scratchUser('hbws'), COMMITS, true);
  const before = personSnapshot(c.repo, 'hbgen/wsx');
  const head0 = git(c.repo, 'rev-parse', 'refs/heads/hbgen/wsx').trim();
  assert.is(head0, git(c.repo, 'rev-parse', 'feature').trim(), 'install started the branch at the person\'s HEAD');
  const w = wake(c);
  assert.match(w.log, /hbgen wsx start wake 1 by hand jail\n/, w.log);
  assert.match(w.log, /hbgen wsx ok\n/, w.log);
  assert.is(w.code, 0, w.log + w.out);
  // The agent worked in its clone, saw the person's current HEART.md and could write neither it nor the repo.
  assert.match(w.out, new RegExp(`\ncwd: ${c.ws}\n`), w.out);
  assert.match(w.out, /\nheart: Keep the notes tidy\. New today: add a summary\.\n/, w.out);
  assert.match(w.out, /repo-write: refused/, w.out);
  assert.match(w.out, /heart-write: refused/, w.out);
  assert.not.ok(existsSync(join(c.repo, 'escaped')));
  assert.match(w.out, /commit: done\ncommit2: done/, w.out);
  // The person's side: identical but for the agent's branch.
  assert.equal(Object.fromEntries(personSnapshot(c.repo, 'hbgen/wsx')), Object.fromEntries(before));
  // The branch holds the agent's two commits on top of the person's HEAD at install, with
  // only the agent's file in them (no staged, unstaged or untracked work of the person's, no LOG.md).
  const commits = git(c.repo, 'log', '--format=%h %s', `${head0}..hbgen/wsx`).trim().split('\n');
  assert.equal(commits.map((l) => l.replace(/^\S+ /, '')), ['agent: more summary', 'agent: add a summary']);
  assert.is(git(c.repo, 'diff', '--name-only', head0, 'hbgen/wsx'), 'summary.txt\n');
  // The log line names them.
  const shas = commits.map((l) => l.split(' ')[0]).reverse();
  assert.match(w.log, new RegExp(`hbgen wsx note workspace: 2 commits on hbgen/wsx: ${shas.join(' ')}\\n`), w.log);
  // The memory stays in the workspace.
  assert.match(readFileSync(join(c.ws, 'LOG.md'), 'utf8'), /worked/);
  assert.not.ok(existsSync(join(c.repo, 'LOG.md')));
  // A second wake with nothing to commit moves nothing and names no commits.
  writeFileSync(join(c.state, '..', 'bin', 'agent'), '#!/bin/sh\nexit 0\n');
  const w2 = wake(c);
  assert.is(w2.code, 0, w2.log);
  assert.is(w2.log.split('note workspace:').length, 2, w2.log);
  assert.equal(Object.fromEntries(personSnapshot(c.repo, 'hbgen/wsx')), Object.fromEntries(before));
});

const ATTACK = `#!/bin/sh
# The agent's commit and a branch-name trick first (the person's main moved in the clone:
# only hbgen/wsx may come back), then programs for git to run at the fetch, outside the
# jail, and no git command of the agent's after them: each would leave a file in $HBTEST_OUT.
echo evil >evil.txt
git add -A && git commit -q -m "agent: evil" && echo "commit: done"
git branch -f main HEAD 2>/dev/null
p="touch $HBTEST_OUT/pwned"
try() { if sh -c "$1" 2>/dev/null; then echo "$2: done"; else echo "$2: refused"; fi; }
try "git config core.fsmonitor '$p #' && git config uploadpack.packObjectsHook '$p #' && git config core.alternateRefsCommand '$p #' && git config core.hooksPath '$HBTEST_OUT/hooks'" config
mkdir -p "$HBTEST_OUT/hooks" 2>/dev/null
for h in pre-upload-pack post-checkout reference-transaction post-merge; do
  printf '#!/bin/sh\\n%s\\n' "$p.$h" >"$HBTEST_OUT/hooks/$h" 2>/dev/null && chmod +x "$HBTEST_OUT/hooks/$h" 2>/dev/null
  try "printf '#!/bin/sh\\\\n%s\\\\n' '$p.$h' >.git/hooks/$h && chmod +x .git/hooks/$h" "hook-$h"
done
try "printf '%s\\\\n' /tmp >.git/objects/info/alternates" alternates
exit 0
`;

for (const jailed of [true, false]) {
  test(`${jailed ? 'jailed' : 'unjailed ("sandbox": false)'}: an agent that leaves git programs in its clone's config and hooks gets none of them run at the fetch; only its branch moves`, () => {
    const c = makeWsCase(scratchUser(jailed ? 'hbwsa' : 'hbwsb'), ATTACK, jailed);
    const before = personSnapshot(c.repo, 'hbgen/wsx');
    const main0 = git(c.repo, 'rev-parse', 'main').trim();
    const w = wake(c);
    if (jailed) {
      // The jail refused every write to the clone's config and hooks.
      assert.match(w.out, /config: refused/, w.out);
      assert.match(w.out, /hook-reference-transaction: refused/, w.out);
    } else {
      assert.match(w.out, /config: done/, w.out);
      assert.match(w.out, /hook-reference-transaction: done/, w.out);
    }
    assert.match(w.out, /commit: done/, w.out);
    const pwned = readdirSync(c.out).filter((f) => f.startsWith('pwned'));
    assert.equal(pwned, [], `a program the agent chose ran: ${pwned.join(', ')}\n${w.log}`);
    assert.equal(Object.fromEntries(personSnapshot(c.repo, 'hbgen/wsx')), Object.fromEntries(before));
    assert.is(git(c.repo, 'rev-parse', 'main').trim(), main0);
    if (!jailed) assert.match(git(c.repo, 'log', '-1', '--format=%s', 'hbgen/wsx'), /^agent: evil$/m, w.log);
  });
}

test('a history the agent rewrote (reset and a new commit) is never forced over hbgen/wsx: the note says so, the branch stays', () => {
  const c = makeWsCase(scratchUser('hbwsr'), '#!/bin/sh\necho a >a.txt && git add -A && git commit -q -m "agent: a"\n', true);
  assert.is(wake(c).code, 0);
  const tip = git(c.repo, 'rev-parse', 'hbgen/wsx').trim();
  writeFileSync(join(c.state, '..', 'bin', 'agent'), '#!/bin/sh\ngit reset -q --soft HEAD~1 && echo b >b.txt && git add -A && git commit -q -m "agent: b instead"\n');
  const w = wake(c);
  assert.match(w.log, /hbgen wsx note workspace: the agent's commits stay in its clone, hbgen\/wsx in the repo was not moved \(! \[rejected\] hbgen\/wsx -> hbgen\/wsx \(non-fast-forward\)\); see hbgen status\n/, w.log);
  assert.is(git(c.repo, 'rev-parse', 'hbgen/wsx').trim(), tip);
});

test('the jail\'s policy: the clone is writable, the repo is not; the clone\'s HEART.md, PROTOCOL.md, .git/config and hooks are denied', () => {
  const v = validateSpec({
    version: 1,
    name: 'wsx',
    repo: '/srv/repo',
    workspace: 'clone',
    agent: { harness: 'command', bin: '/bin/true', prompt: 'x' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '09:00', end: '17:00', timezone: 'UTC' } },
    timeout: '10m',
    env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' },
  });
  const p = jailPolicy(v.spec!)!;
  const ws = '/home/ada/.local/share/hbgen/workspaces/wsx';
  assert.ok(p.write.includes(ws), p.write.join(' '));
  assert.not.ok(p.write.includes('/srv/repo'), p.write.join(' '));
  for (const f of ['HEART.md', 'PROTOCOL.md', '.git/config', '.git/hooks', '.git/info']) assert.ok(p.denyWrite.includes(`${ws}/${f}`), f);
});

test('the spec: "workspace" is "repo" or "clone", refused for kubernetes and for a clone that would sit inside the repo, each in one sentence', () => {
  const base = {
    version: 1,
    name: 'wsx',
    repo: '/home/ada/src/x',
    agent: { harness: 'command', bin: '/bin/true', prompt: 'x' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '09:00', end: '17:00', timezone: 'UTC' } },
    timeout: '10m',
    env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' },
  };
  assert.match(validateSpec({ ...base, workspace: 'worktre' }).errors!.join('\n'), /workspace: must be "repo" .* or "clone" .*; did you mean "?clone"?|workspace: must be "repo"/);
  assert.match(validateSpec({ ...base, workspace: 'clone', env: { ...base.env, XDG_DATA_HOME: '/home/ada/src/x/data' } }).errors!.join('\n'), /workspace: the agent's clone would be \/home\/ada\/src\/x\/data\/hbgen\/workspaces\/wsx, inside the repo; set XDG_DATA_HOME/);
  assert.match(validateSpec({ ...base, workspace: 'clone', shared: true }).errors!.join('\n'), /workspace: cannot go with "shared": true: .*; leave one of them out/);
  assert.match(validateSpec({ ...base, workspace: 'clone', schedule: { ...base.schedule, scheduler: 'kubernetes' }, kubernetes: { image: 'x', git: { url: 'https://example.com/x.git' } } }).errors!.join('\n'), /workspace: does not apply to schedule\.scheduler "kubernetes": the pod works on a clone of its own already; remove it/);
  assert.ok(validateSpec({ ...base, workspace: 'clone' }).spec);
  assert.ok(validateSpec({ ...base, workspace: 'repo' }).spec);
});

test('install with the jail on: its probe, the clone, the branch; a wake by hand commits in the clone and status shows the branch', async () => {
  assert.is(MISSING, '', `the jail cannot run here: ${MISSING}`);
  const h = makeHost('systemd-user');
  git(h.repo, 'init', '-q', '-b', 'main');
  git(h.repo, 'add', 'README');
  git(h.repo, '-c', 'user.name=person', '-c', 'user.email=p@example.invalid', 'commit', '-q', '-m', 'the repo');
  writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = agent\n\temail = agent@example.invalid\n');
  writeFileSync(h.bin, '#!/bin/sh\necho chunk >chunk.txt && git add -A && git commit -q -m "agent: chunk"\n', { mode: 0o755 });
  rewriteSpec(h, { workspace: 'clone', sandbox: { bin: SRT }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  assert.match(inst.out, /write: its clone ~\/\.local\/share\/hbgen\/workspaces\/docs \(not the repo\)/, inst.out);
  const w = await hb(h, 'wake');
  assert.is(w.code, 0, w.out + w.err);
  const log = readFileSync(join(names(h.spec).stateDir, 'runtime.log'), 'utf8');
  assert.match(log, / start wake 1 by hand jail\n.*\n?.* note workspace: 1 commit on hbgen\/docs: [0-9a-f]{7}\n/, log);
  assert.is(git(h.repo, 'log', '-1', '--format=%s', 'hbgen/docs'), 'agent: chunk\n');
  assert.not.ok(existsSync(join(h.repo, 'chunk.txt')), 'the agent wrote the repo');
  const doc = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.is(doc.workspace.branch, 'hbgen/docs');
  assert.is(doc.workspace.ahead, 1);
  assert.is(doc.workspace.merges, true);
  assert.equal(doc.workspace.unfetched, []);
  const st = await hb(h, 'status');
  assert.match(st.out, /\n {2}workspace +~\/\.local\/share\/hbgen\/workspaces\/docs: branch hbgen\/docs: 1 commit ahead of main, last "agent: chunk"; merges cleanly onto main\n/, st.out);
});

test('a HEART.md the repo tracks: the fresh copy before each wake is never swept into the agent\'s `git add -A`', () => {
  const c = makeWsCase(null, '#!/bin/sh\necho a >a.txt && git add -A && git commit -q -m "agent: a"\n', false, true);
  assert.match(git(c.ws, 'ls-files', '-v', 'HEART.md'), /^S HEART\.md$/m);
  const w = spawnSync('/bin/sh', [join(c.state, 'heartbeat.sh'), '--now'], { encoding: 'utf8' });
  assert.is(w.status, 0, w.stderr);
  assert.is(git(c.repo, 'diff', '--name-only', 'feature', 'hbgen/wsx'), 'a.txt\n');
  assert.match(readFileSync(join(c.ws, 'HEART.md'), 'utf8'), /New today/);
});

// --- The shell matrix (unjailed, as root): the copies, the fetch and its note in every shell.
for (const sh of SHELLS) {
  test(`${sh.name}: the agent's commits fetched and named, a rewritten history refused, the person's side untouched`, async () => {
    const c = makeWsCase(null, '#!/bin/sh\ngrep -q "New today" HEART.md && echo a >a.txt && git add -A && git commit -q -m "agent: a" && echo b >b.txt && git add -A && git commit -q -m "agent: b"\n', false);
    const before = personSnapshot(c.repo, 'hbgen/wsx');
    let r = await run(null, sh, { script: join(c.state, 'heartbeat.sh'), args: ['--now'] });
    let log = readFileSync(join(c.state, 'runtime.log'), 'utf8');
    assert.is(r.code, 0, r.stderr + log);
    const shas = git(c.repo, 'log', '--reverse', '--format=%h', 'feature..hbgen/wsx').trim().split('\n');
    assert.is(shas.length, 2, log);
    assert.match(log, new RegExp(`note workspace: 2 commits on hbgen/wsx: ${shas.join(' ')}\\n[^\\n]* took \\d+ s\\n[^\\n]* ok\\n$`), log);
    writeFileSync(join(c.state, '..', 'bin', 'agent'), '#!/bin/sh\ngit reset -q --soft HEAD~2 && git commit -q -m "agent: squashed"\n');
    r = await run(null, sh, { script: join(c.state, 'heartbeat.sh'), args: ['--now'] });
    log = readFileSync(join(c.state, 'runtime.log'), 'utf8');
    assert.is(r.code, 0, r.stderr + log);
    assert.match(log, /note workspace: the agent's commits stay in its clone, hbgen\/wsx in the repo was not moved \(! \[rejected\] hbgen\/wsx -> hbgen\/wsx \(non-fast-forward\)\); see hbgen status\n/, log);
    assert.is(git(c.repo, 'log', '-1', '--format=%h', 'hbgen/wsx').trim(), shas[1]);
    assert.equal(Object.fromEntries(personSnapshot(c.repo, 'hbgen/wsx')), Object.fromEntries(before));
  });
}

test.after(() => {
  if (!process.env.HBTEST_KEEP) for (const d of made) rmSync(d, { recursive: true, force: true });
});

test.run();
