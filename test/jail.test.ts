// needs root: it makes each shell /bin/sh by a bind mount (unshare -m); it creates scratch users (useradd); it runs commands as other users (runuser); it gives files to other users (chown)
// The jail, for real: the rendered heartbeat.sh runs a `command` agent inside
// srt (bubblewrap) as an unprivileged scratch user, and what the agent tries from inside
// is refused (a write outside the repo, ~/.ssh, the wrapper, the crontab, the client's
// settings, a host not allowed) while its work succeeds (git commit, the project's tests,
// offline). At the deadline nothing inside the jail survives, under timeout(1) and under
// the sh watchdog. install refuses a jail that cannot start (bwrap not on PATH) and shows
// the policy; "sandbox": false says so loudly. Where the jail cannot run here these tests
// FAIL, saying what is missing: they never skip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateSpec } from '../src/spec.ts';
import { renderNow } from './helpers/render.ts';
import { scratchUser, type ScratchUser } from './helpers/cronuser.ts';
import { probeJail } from '../src/host/install/jail-probe.ts';
import { codeInRepoProblems } from '../src/host/install/reach.ts';
import { jailPolicy, jailSettings } from '../src/jail.ts';
import { panel } from '../src/host/install/panel.ts';
import { names } from '../src/names.ts';
import { PATHS, SHELLS, makeCase, run } from './helpers/wrapper.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const ROOT = join(import.meta.dirname, '..');
// srt comes from package.json (a dependency installed by `npm ci`), never from a host copy.
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');
const NODE_DIR = dirname(process.execPath);

/**
 * This host's first routable IPv4 address: the allowed host of these tests. The jail's proxy
 * runs on the host, so a loopback name in sandbox.allowHosts would open every local service
 * to the agent, and validation refuses one (src/loopback.ts).
 */
function hostAddress(): string {
  const a = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!a) throw new Error('this host has no routable IPv4 address for the jail\'s allowed-host test');
  return a.address;
}

/** Why the jail cannot run its tests here ('' when it can): said by the failing test. */
function missing(): string {
  const why: string[] = [];
  if (process.getuid?.() !== 0) why.push('these tests run as root (they make a scratch user)');
  if (!existsSync(SRT)) why.push(`${SRT} is missing: run npm ci (@anthropic-ai/sandbox-runtime is a dependency)`);
  for (const t of ['bwrap', 'rg', 'socat', 'git', 'curl', 'runuser']) {
    if (spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0) why.push(`${t} is not on PATH (apt-get install bubblewrap ripgrep socat git curl)`);
  }
  return why.join('; ');
}
const MISSING = missing();
function need(): void {
  assert.is(MISSING, '', `the jail cannot run here: ${MISSING}`);
}

interface JailCase {
  user: ScratchUser;
  dir: string;
  repo: string;
  state: string;
  outside: string;
  out: string;
  files: Record<string, string>;
}

/** A repo, a state folder and an agent for `user`, the scripts rendered and installed as install would. */
function makeJailCase(user: ScratchUser, agent: string, over: { path?: string; timeout?: string; allowHosts?: string[]; args?: string[]; prompt?: string } = {}): JailCase {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-jail.'));
  made.push(dir);
  chmodSync(dir, 0o755);
  const repo = join(dir, 'repo');
  const state = join(dir, 'state');
  const outside = join(dir, 'outside');
  const out = join(dir, 'out');
  for (const d of [repo, outside, out, join(dir, 'bin')]) mkdirSync(d, { recursive: true });
  const g = (...a: string[]) => spawnSync('git', ['-C', repo, ...a], { encoding: 'utf8' });
  g('init', '-q', '-b', 'main');
  g('config', 'user.email', 'agent@example.invalid');
  g('config', 'user.name', 'agent');
  // A tiny project with its own tests, run offline by the agent.
  writeFileSync(join(repo, 'sum.js'), 'exports.sum = (a, b) => a + b;\n');
  writeFileSync(join(repo, 'HEART.md'), '# HEART\n\n## Restrictions\n\n- Do not edit HEART.md.\n');
  writeFileSync(join(repo, 'sum.test.js'), "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('./sum.js');\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n");
  g('add', '-A');
  g('commit', '-q', '-m', 'the project');
  const bin = join(dir, 'bin', 'agent');
  writeFileSync(bin, agent, { mode: 0o755 });
  const raw = {
    version: 1,
    name: 'jailed',
    repo,
    agent: { harness: 'command', bin, args: over.args ?? [], prompt: over.prompt ?? 'Do one chunk.' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
    timeout: over.timeout ?? '60s',
    killAfter: '2s',
    stateDir: state,
    env: { HOME: user.home, PATH: over.path ?? `${NODE_DIR}:/usr/local/bin:/usr/bin:/bin`, HBTEST_OUT: out, HBTEST_OUTSIDE: outside, HBTEST_STATE: state },
    sandbox: { bin: SRT, allowHosts: over.allowHosts ?? [hostAddress()] },
  };
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('; '));
  const r = renderNow(v.spec);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  const files: Record<string, string> = {};
  mkdirSync(state, { recursive: true, mode: 0o700 });
  for (const f of r.files) {
    files[f.path] = f.content;
    mkdirSync(dirname(join(state, f.path)), { recursive: true });
    writeFileSync(join(state, f.path), f.content, { mode: f.mode });
  }
  const own = (p: string) => {
    chownSync(p, user.uid, user.gid);
    if (lstatSync(p).isDirectory()) for (const e of readdirSync(p)) own(join(p, e));
  };
  own(dir);
  return { user, dir, repo, state, outside, out, files };
}

/** One wake, by hand, as the scratch user: the wrapper as the scheduler runs it (`via`: runuser, or what starts it). */
function wake(c: JailCase, via: string[] = ['runuser']): { code: number; log: string; out: string } {
  const r = spawnSync(via[0]!, [...via.slice(1), '-u', c.user.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { encoding: 'utf8', timeout: 120_000 });
  const logf = join(c.state, 'runtime.log');
  const outf = join(c.state, 'agent.log');
  return {
    code: r.status ?? 128,
    log: existsSync(logf) ? readFileSync(logf, 'utf8') : `(no runtime.log) ${r.stderr}`,
    // agent.log: the agent's output (and the jail's own words before it), after each wake's start line.
    out: existsSync(outf) ? readFileSync(outf, 'utf8') : '',
  };
}

// --- One real wake whose agent tries each thing once, and says what happened, line by line.
const TRIES = `#!/bin/sh
# Each try's words go to stdout (agent.log): the agent can write nowhere else outside the repo.
try() {
  what=$1
  shift
  if out=$("$@" 2>&1); then r=done; else r="refused: $(printf '%s' "$out" | tr '\\n' ' ')"; fi
  printf '%s\\n' "$out" | sed "s/^/$what> /"
  printf '%s: %s\\n' "$what" "$r"
}
try write-outside sh -c 'echo x >"$HBTEST_OUTSIDE/escaped"'
try read-ssh cat "$HOME/.ssh/id_ed25519"
try edit-wrapper sh -c 'echo "echo pwned" >>"$HBTEST_STATE/heartbeat.sh"'
try crontab sh -c 'echo "* * * * * echo pwned" | crontab -'
try claude-settings sh -c 'echo "{\\"apiKeyHelper\\": \\"echo key\\"}" >"$HOME/.claude/settings.json"'
try host-not-allowed sh -c 'c=$(curl -sS --noproxy "" -o /dev/null -w "%{http_code}" "http://localhost:$HBTEST_PORT/denied") ; echo "http $c"; [ "$c" = 200 ]'
try host-allowed sh -c 'c=$(curl -sS --noproxy "" -o /dev/null -w "%{http_code}" "http://$HBTEST_HOST:$HBTEST_PORT/allowed") ; echo "http $c"; [ "$c" = 200 ]'
try edit-heart sh -c 'echo "- Anything goes." >>HEART.md'
try edit-spec sh -c 'echo "{}" >hbgen.json'
try git-info sh -c 'echo "* filter=x" >.git/info/attributes'
try git-worktrees sh -c 'mkdir -p .git/worktrees/w && echo /tmp >.git/worktrees/w/commondir'
try read-git-credentials cat "$HOME/.git-credentials"
try project-tests sh -c 'node --test'
try git-commit sh -c 'echo "one chunk" >CHUNK.md && git add -A && git commit -q -m "one chunk" && git log --oneline -1'
exit 0
`;

let suite: { c: JailCase; log: string; out: string; code: number; said: Map<string, string>; hits: () => string[]; secret: string; wrapperBefore: string; crontabBefore: string | null } | null = null;
let server: ChildProcess | null = null;
/** Folders the tests made, removed at the end. */
const made: string[] = [];

let failed: Error | null = null;
/** The one wake the refusal and success tests read (run once; a failure is said by each). */
async function theWake() {
  if (suite) return suite;
  if (failed) throw failed;
  try {
    return await wakeOnce();
  } catch (e) {
    failed = e as Error;
    server?.kill();
    throw e;
  }
}

async function wakeOnce() {
  need();
  // The local server runs in a process of its own: this one blocks in spawnSync during the wake.
  const hitsFile = join(mkdtempSync(join(tmpdir(), 'hbgen-jailsrv.')), 'hits');
  made.push(dirname(hitsFile));
  server = spawn(process.execPath, ['-e', `require('http').createServer((q, s) => { require('fs').appendFileSync(${JSON.stringify(hitsFile)}, q.url + '\\n'); s.end('hello\\n'); }).listen(0, '0.0.0.0', function () { console.log(this.address().port); });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    server!.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    server!.once('exit', () => reject(new Error('the local HTTP server did not start')));
  });
  const hits = () => (existsSync(hitsFile) ? readFileSync(hitsFile, 'utf8').split('\n').filter(Boolean) : []);
  const user = scratchUser('hbjail');
  // The person's secrets and client settings, in the scratch user's home.
  const secret = `SECRET-${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(user.home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(user.home, '.ssh', 'id_ed25519'), `${secret}\n`, { mode: 0o600 });
  mkdirSync(join(user.home, '.claude'), { recursive: true });
  for (const p of [join(user.home, '.ssh'), join(user.home, '.ssh', 'id_ed25519'), join(user.home, '.claude')]) chownSync(p, user.uid, user.gid);
  writeFileSync(join(user.home, '.git-credentials'), `https://ada:${secret}@example.com\n`, { mode: 0o600 });
  chownSync(join(user.home, '.git-credentials'), user.uid, user.gid);
  const agent = TRIES.replace('#!/bin/sh\n', `#!/bin/sh\nexport HBTEST_PORT=${port} HBTEST_HOST=${hostAddress()}\n`);
  const c = makeJailCase(user, agent);
  const wrapperBefore = readFileSync(join(c.state, 'heartbeat.sh'), 'utf8');
  const crontabBefore = crontabOf(user.name);
  const w = wake(c);
  const said = new Map<string, string>();
  for (const l of w.out.split('\n')) {
    const m = /^([a-z-]+): (done|refused: .*)$/.exec(l);
    if (m) said.set(m[1]!, m[2]!);
  }
  suite = { c, log: w.log, out: w.out, code: w.code, said, hits, secret, wrapperBefore, crontabBefore };
  return suite;
}

function crontabOf(name: string): string | null {
  const r = spawnSync('crontab', ['-u', name, '-l'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

function saidOf(s: NonNullable<typeof suite>, what: string): string {
  const v = s.said.get(what);
  assert.ok(v, `the agent did not report "${what}"; agent.log:\n${s.out}`);
  return v!;
}

test('the wake ran its agent inside the jail: `start wake 1 by hand jail`, then ok', async () => {
  const s = await theWake();
  assert.match(s.log, /hbgen jailed start wake 1 by hand jail\n/, s.log);
  assert.match(s.log, /hbgen jailed ok\n/, s.log);
  assert.is(s.code, 0, s.log);
});

test('refused: a write outside the repo (Read-only file system), and no file appears there', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'write-outside'), /^refused: .*Read-only file system/);
  assert.not.ok(existsSync(join(s.c.outside, 'escaped')), 'the file outside the repo was written');
});

test('refused: reading ~/.ssh/id_ed25519, and the secret is nowhere in the log', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'read-ssh'), /^refused: /);
  assert.not.ok(s.log.includes(s.secret) || s.out.includes(s.secret), 'the key was read');
});

test('refused: editing heartbeat.sh in the state folder; it is byte for byte as rendered', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'edit-wrapper'), /^refused: .*Read-only file system/);
  assert.is(readFileSync(join(s.c.state, 'heartbeat.sh'), 'utf8'), s.wrapperBefore);
});

test('refused: `crontab -` with a new table; the user\'s crontab is unchanged', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'crontab'), /^refused: /);
  assert.equal(crontabOf(s.c.user.name), s.crontabBefore, 'the crontab changed');
});

test('refused: writing ~/.claude/settings.json (an apiKeyHelper there would switch billing)', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'claude-settings'), /^refused: .*Read-only file system/);
  assert.not.ok(existsSync(join(s.c.user.home, '.claude', 'settings.json')), 'settings.json was written');
});

test('refused: a host not in the allowlist (localhost, the same local server): 403 from the jail\'s proxy, the server never asked', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'host-not-allowed'), /^refused: http 403/);
  assert.not.ok(s.hits().includes('/denied'), 'the request reached the server');
  // The control: the same server under an allowed name (sandbox.allowHosts) answers.
  assert.is(saidOf(s, 'host-allowed'), 'done', s.log);
  assert.ok(s.hits().includes('/allowed'), 'the allowed request did not reach the server');
});

test('refused: HEART.md, the spec file hbgen.json, .git/info and .git/worktrees (Read-only file system); HEART.md is unchanged', async () => {
  const s = await theWake();
  for (const what of ['edit-heart', 'edit-spec', 'git-info', 'git-worktrees']) assert.match(saidOf(s, what), /^refused: .*(Read-only file system|Permission denied|Not a directory)/, what);
  assert.is(readFileSync(join(s.c.repo, 'HEART.md'), 'utf8'), '# HEART\n\n## Restrictions\n\n- Do not edit HEART.md.\n');
  assert.not.ok(existsSync(join(s.c.repo, 'hbgen.json')) && readFileSync(join(s.c.repo, 'hbgen.json'), 'utf8') === '{}\n', 'hbgen.json was written');
});

test('refused: reading ~/.git-credentials (hidden by default), and the secret is nowhere in the log', async () => {
  const s = await theWake();
  assert.match(saidOf(s, 'read-git-credentials'), /^refused: /);
  assert.not.ok(s.log.includes(s.secret) || s.out.includes(s.secret), 'the credentials were read');
});

test('a jailed agent that writes .git/commondir (srt cannot deny a missing one): the wake ends error tampered git, exit 78', async () => {
  need();
  const c = makeJailCase(scratchUser('hbjgit'), '#!/bin/sh\nprintf "%s\\n" /tmp/elsewhere >.git/commondir\necho wrote\n');
  const w = wake(c);
  assert.match(w.log, /hbgen jailed error tampered git \.git, \.git\/commondir or \.git\/gitdir points elsewhere than before the wake\n/, w.log);
  assert.is(w.code, 78, w.log);
});

test('install during a jailed wake: srt\'s placeholder .git/gitdir (an empty file of mode 0444 on the host while the jail runs) is no "tampered git"', async () => {
  need();
  const h = makeHost('systemd-user');
  spawnSync('git', ['init', '-q', h.repo]);
  const go = join(h.root, 'go');
  // The agent waits (at most 60 s) until the test has run install during its wake.
  writeFileSync(h.bin, `#!/bin/sh\ni=0\nwhile [ ! -e '${go}' ] && [ "$i" -lt 300 ]; do sleep 0.2; i=$((i + 1)); done\necho done\n`, { mode: 0o755 });
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const first = await hb(h, 'install', { yes: true });
  assert.is(first.code, 0, first.out + first.err);
  const n = names(h.spec);
  const w = spawn('/usr/bin/env', ['-i', '/bin/sh', n.wrapper, '--now'], { stdio: 'ignore' });
  const ended = new Promise<number | null>((resolve) => w.on('exit', resolve));
  const gitdir = join(h.repo, '.git', 'gitdir');
  for (let i = 0; i < 150 && !existsSync(gitdir); i++) await new Promise((r) => setTimeout(r, 200));
  const st = lstatSync(gitdir);
  assert.ok(st.isFile() && st.size === 0 && (st.mode & 0o7777) === 0o444, `srt's placeholder is not as expected: mode ${st.mode.toString(8)}, ${st.size} bytes`);
  const again = await hb(h, 'install', { yes: true });
  writeFileSync(go, '');
  const code = await ended;
  assert.not.match(again.out + again.err, /tampered git|gitdir exists/, again.out + again.err);
  assert.is(again.code, 0, again.out + again.err);
  assert.is(code, 0, readFileSync(n.log, 'utf8'));
  // Gone once the jail ended; the same file left by anyone while no wake runs is still refused.
  assert.not.ok(existsSync(gitdir), 'srt left its placeholder');
  writeFileSync(gitdir, '', { mode: 0o444 });
  const refused = await hb(h, 'install', { yes: true });
  assert.match(refused.out + refused.err, /\.git\/gitdir exists: it points git at another directory/, refused.out + refused.err);
});

test('works: the project\'s own tests run offline inside the jail (node --test)', async () => {
  const s = await theWake();
  assert.is(saidOf(s, 'project-tests'), 'done', s.log);
  assert.match(s.out, /\nproject-tests> (# |ℹ )pass 1\n/, s.out);
});

test('works: git commit in the repo (the placeholders srt shows are ignored)', async () => {
  const s = await theWake();
  assert.is(saidOf(s, 'git-commit'), 'done', s.log);
  const log = spawnSync('git', ['-c', 'safe.directory=*', '-C', s.c.repo, 'log', '--format=%s'], { encoding: 'utf8' }).stdout;
  assert.match(log, /^one chunk\n/, log);
  const tree = spawnSync('git', ['-c', 'safe.directory=*', '-C', s.c.repo, 'show', '--name-only', '--format=', 'HEAD'], { encoding: 'utf8' }).stdout;
  assert.is(tree, 'CHUNK.md\n', 'the commit holds only the agent\'s file');
});

// --- srt runs the command line through `bash -c`, re-quoted: every argument still arrives byte for byte.
test('the agent\'s arguments and a hostile prompt reach it inside the jail byte for byte', async () => {
  need();
  const hostile = ['--', '-n', "'", '"', '$HOME', '${X}', '`id`', '$(id)', '%d', '\\', ';', '&&', '#', '*', '~', '', ']]>', 'a  b', '!x', 'ünï ✓ 🎉'];
  const prompt = `line one 'q' "dq" $HOME \`id\` $(id) \\ !x\nline two ünï ✓ 🎉\n-leading`;
  const user = scratchUser('hbjailq');
  const hex = (t: string) => Buffer.from(t, 'utf8').toString('hex');
  const c = makeJailCase(user, "#!/bin/sh\nfor a in \"$@\"; do printf 'ARG %s\\n' \"$(printf '%s' \"$a\" | od -An -tx1 | tr -d ' \\n')\"; done\n", { args: hostile, prompt });
  const w = wake(c);
  assert.is(w.code, 0, w.log);
  const got = [...w.out.matchAll(/^ARG ([0-9a-f]*)$/gm)].map((m) => m[1]!);
  assert.equal(got.slice(0, hostile.length), hostile.map(hex), w.out);
  assert.ok(got[hostile.length]!.startsWith(hex(prompt)), `the prompt changed on its way:\n${w.out}`);
  assert.is(got.length, hostile.length + 1, w.out);
});

// --- The deadline: nothing inside the jail outlives the wake.
const STUBBORN = `#!/bin/sh
# A child in a session of its own, one that ignores TERM, and a grandchild: all inside the jail.
setsid sleep 301 &
sh -c 'trap "" TERM; sleep 302' &
sh -c 'sleep 303 & wait' &
sleep 304
`;

// The boot clock, as the kernel counts a process's start (proc(5): /proc/uptime, and field 22
// of /proc/PID/stat in clock ticks).
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const bootSeconds = (): number => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);

/**
 * The processes of user `name` that started at `since` (boot-clock seconds) or later, "PID ARGS".
 * A scratch user's uid is reused once the user is removed, and a process another suite left
 * behind under that uid (started before this test) is none of this wake's.
 */
function userProcs(name: string, since: number): string[] {
  const r = spawnSync('ps', ['-u', name, '-o', 'pid=,args='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => {
      if (!l) return false;
      try {
        const stat = readFileSync(`/proc/${l.split(' ')[0]}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19]) / TICKS >= since;
      } catch {
        return false; // gone since the listing
      }
    });
}

/**
 * What is left of a wake of `user` since `since`, polled until nothing is or `ms` is over.
 * Polled, not looked at once: the kernel ends a PID namespace's processes after its init is
 * KILLed, and a busy machine runs that later. Every process the jail's agent starts sleeps
 * 300 s or more, so a survivor is still there at the end of the poll.
 */
function leftAfter(user: ScratchUser, since: number, ms = 30_000): string[] {
  const end = Date.now() + ms;
  let left = userProcs(user.name, since);
  while (left.length && Date.now() < end) {
    spawnSync('sleep', ['0.25']);
    left = userProcs(user.name, since);
  }
  // Whatever survived is this test's: ended here, so that it outlives neither the test nor the user.
  for (const l of left) spawnSync('kill', ['-s', 'KILL', l.split(' ')[0]!]);
  return left;
}

function toolDir(dir: string, tools: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const t of tools) {
    const src = ['/usr/bin', '/bin', '/usr/sbin'].map((d) => join(d, t)).find((p) => existsSync(p));
    if (!src) throw new Error(`tool ${t} not found`);
    symlinkSync(src, join(dir, t));
  }
  symlinkSync(process.execPath, join(dir, 'node'));
  return dir;
}

for (const mode of ['timeout(1)', 'the sh watchdog (no timeout, no setsid on PATH)'] as const) {
  test(`deadline under ${mode}: timeout logged, and no process of the jail survives (bwrap, srt, its proxies, setsid'd and TERM-ignoring children)`, async () => {
    need();
    const user = scratchUser('hbjailt');
    const bare = join(mkdtempSync(join(tmpdir(), 'hbgen-jailpath.')), 'bin');
    made.push(dirname(bare));
    const path =
      mode === 'timeout(1)'
        ? `${NODE_DIR}:/usr/bin:/bin`
        : toolDir(bare, ['env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice', 'ls', 'touch', '[', 'test', 'echo', 'readlink', 'tr', 'wc', 'grep', 'sed', 'chmod', 'ln', 'pwd', 'printf', 'kill', 'true', 'false', 'cksum', 'tail', 'which', 'bwrap', 'socat', 'rg', 'bash', 'sh', 'dash']);
    chmodSync(dirname(bare), 0o755);
    const c = makeJailCase(user, STUBBORN, { timeout: '4s', path });
    const since = bootSeconds();
    const t0 = Date.now();
    const w = wake(c);
    assert.is(w.code, 124, w.log);
    assert.match(w.log, /start wake 1 by hand jail\n/, w.log);
    assert.match(w.log, /hbgen jailed timeout after 4s\n/, w.log);
    assert.ok(Date.now() - t0 < 30_000, 'the wake ended in time');
    const left = leftAfter(user, since);
    assert.equal(left, [], `left running:\n${left.join('\n')}`);
    // srt's placeholders (empty .bashrc, .mcp.json, … made on the host while it runs) are gone.
    assert.equal(readdirSync(c.repo).sort(), ['.git', 'HEART.md', 'sum.js', 'sum.test.js'], 'files left in the repo');
  });
}

/**
 * A STAND-IN bwrap first on the wrapper's PATH: the real one, but srt's jail (its call with
 * --die-with-parent) held where a busy machine makes it slow: after bwrap's outer process has
 * cloned the sandbox's first process, and before that process calls setsid and arms its
 * parent-death signal (bwrap(1)'s own --block-fd is read there). It goes on when its hold,
 * which ignores TERM, ends: `srt gone` when srt is (the deadline ended it), so that it leaves
 * the agent's group with no parent left to die with; `past killAfter` not before the group's
 * KILL, so that it is still in the group, where as a PID namespace's init it ignores TERM.
 * The hold's start is marked in HBTEST_OUT/bwrap-held.
 */
function heldBwrap(dir: string, release: 'srt gone' | 'past killAfter'): string {
  const d = join(dir, 'held');
  mkdirSync(d, { recursive: true });
  const hold = release === 'srt gone' ? 'while kill -0 "$srt" 2>/dev/null; do sleep 0.2; done' : 'exec sleep 600';
  writeFileSync(
    join(d, 'bwrap'),
    `#!/bin/sh
case " $* " in
*" --die-with-parent "*)
  srt=$PPID
  echo held >>"$HBTEST_OUT/bwrap-held"
  exec 8<&0
  { trap '' TERM; ${hold}; } | exec /usr/bin/bwrap --block-fd 9 "$@" 9<&0 0<&8 8<&-
  ;;
esac
exec /usr/bin/bwrap "$@"
`,
    { mode: 0o755 },
  );
  return d;
}

// The wrapper's three ways to a deadline: timeout(1); the sh watchdog with a group of the agent's
// own (bash's job control, as /bin/sh); and without one (dash), where the agent's tree is listed.
const HELD_MODES = ['timeout(1)', 'the sh watchdog in bash (a group of its own)', 'the sh watchdog in dash (no group)'] as const;
for (const mode of HELD_MODES) {
  for (const release of ['srt gone', 'past killAfter'] as const) {
    test(`deadline while srt is still bringing the jail up (bwrap held between its clone and its setsid until ${release}), under ${mode}: timeout logged, and nothing of the jail survives`, async () => {
      need();
      const user = scratchUser('hbjailh');
      const top = mkdtempSync(join(tmpdir(), 'hbgen-jailheld.'));
      made.push(top);
      chmodSync(top, 0o755);
      const held = heldBwrap(top, release);
      const tools = ['env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice', 'ls', 'touch', '[', 'test', 'echo', 'readlink', 'tr', 'wc', 'grep', 'sed', 'chmod', 'ln', 'pwd', 'printf', 'kill', 'true', 'false', 'cksum', 'tail', 'which', 'socat', 'rg', 'bash', 'sh', 'dash'];
      const path = mode === 'timeout(1)' ? `${held}:${NODE_DIR}:/usr/bin:/bin` : `${held}:${toolDir(join(top, 'bin'), tools)}`;
      const c = makeJailCase(user, STUBBORN, { timeout: '4s', path });
      // bash as /bin/sh (the wrapper re-execs through it) in a mount namespace of this wake's own.
      const bash = join(top, 'bash');
      writeFileSync(bash, '#!/usr/bin/bash\nexec /usr/bin/bash "$@"\n', { mode: 0o755 });
      const since = bootSeconds();
      const t0 = Date.now();
      const w = mode.includes('bash')
        ? wake(c, ['/usr/bin/unshare', '-m', '/bin/sh', '-c', 'mount --bind "$0" /usr/bin/dash && exec "$@"', bash, 'runuser'])
        : wake(c);
      assert.is(readFileSync(join(c.out, 'bwrap-held'), 'utf8'), 'held\n', 'the jail was held once');
      assert.is(w.code, 124, w.log);
      assert.match(w.log, /hbgen jailed timeout after 4s\n/, w.log);
      assert.ok(Date.now() - t0 < 30_000, 'the wake ended in time');
      const left = leftAfter(user, since);
      assert.equal(left, [], `left running:\n${left.join('\n')}`);
    });
  }
}

test('a wrapper killed (SIGKILL) while srt is still bringing the jail up (bwrap held until srt is gone), under the sh watchdog in bash: its watchdog keeps the deadline, and nothing of the jail survives', async () => {
  need();
  const user = scratchUser('hbjailk');
  const top = mkdtempSync(join(tmpdir(), 'hbgen-jailheld.'));
  made.push(top);
  chmodSync(top, 0o755);
  const held = heldBwrap(top, 'srt gone');
  const tools = ['env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice', 'ls', 'touch', '[', 'test', 'echo', 'readlink', 'tr', 'wc', 'grep', 'sed', 'chmod', 'ln', 'pwd', 'printf', 'kill', 'true', 'false', 'cksum', 'tail', 'which', 'socat', 'rg', 'bash', 'sh', 'dash'];
  const c = makeJailCase(user, STUBBORN, { timeout: '4s', path: `${held}:${toolDir(join(top, 'bin'), tools)}` });
  const bash = join(top, 'bash');
  writeFileSync(bash, '#!/usr/bin/bash\nexec /usr/bin/bash "$@"\n', { mode: 0o755 });
  const since = bootSeconds();
  const child = spawn('/usr/bin/unshare', ['-m', '/bin/sh', '-c', 'mount --bind "$0" /usr/bin/dash && exec "$@"', bash, 'runuser', '-u', user.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { stdio: 'ignore' });
  const ended = new Promise<void>((r) => child.on('close', () => r()));
  // Once the jail is held (its srt started by the wrapper), the wrapper (the lock's owner) is killed.
  const mark = join(c.out, 'bwrap-held');
  const owner = join(c.state, 'heartbeat.lock.d', 'owner');
  const end = Date.now() + 60_000;
  while (!(existsSync(mark) && existsSync(owner)) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(mark), 'the jail was held');
  const wrapper = Number(readFileSync(owner, 'utf8').split(' ')[0]);
  assert.ok(wrapper > 1, `the lock's owner: ${wrapper}`);
  process.kill(wrapper, 'SIGKILL');
  await ended;
  // The deadline (4 s from the wake's start) and killAfter (2 s) pass; leftAfter polls 30 s more.
  const left = leftAfter(user, since);
  assert.equal(left, [], `left running:\n${left.join('\n')}`);
  assert.not.match(readFileSync(join(c.state, 'runtime.log'), 'utf8'), /hbgen jailed (timeout|fail|ok|quiet)/, 'the killed wrapper logged no outcome (its watchdog kept the deadline)');
});

test('a wrapper killed (SIGKILL) under timeout(1) while srt is still bringing the jail up: the jail that escaped its deadline is gone by the end of the next wake', async () => {
  need();
  const user = scratchUser('hbjailn');
  const top = mkdtempSync(join(tmpdir(), 'hbgen-jailheld.'));
  made.push(top);
  chmodSync(top, 0o755);
  const held = heldBwrap(top, 'srt gone');
  const c = makeJailCase(user, STUBBORN, { timeout: '4s', path: `${held}:${NODE_DIR}:/usr/bin:/bin` });
  const since = bootSeconds();
  const child = spawn('runuser', ['-u', user.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { stdio: 'ignore' });
  const ended = new Promise<void>((r) => child.on('close', () => r()));
  const mark = join(c.out, 'bwrap-held');
  const owner = join(c.state, 'heartbeat.lock.d', 'owner');
  const runuserChild = () => spawnSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' }).stdout.trim();
  const end = Date.now() + 60_000;
  while (!existsSync(mark) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(mark), 'the jail was held');
  // The wrapper: the lock's owner (mkdir lock), or runuser's child (flock).
  const wrapper = Number(existsSync(owner) ? readFileSync(owner, 'utf8').split(' ')[0] : runuserChild());
  assert.ok(wrapper > 1, `the wrapper: ${wrapper}`);
  process.kill(wrapper, 'SIGKILL');
  await ended;
  // timeout(1) keeps the deadline: its TERM ends srt, and the held jail leaves the group with
  // nothing armed. Seen here first, so that the next wake has something to sweep.
  const escaped = () => userProcs(user.name, since).filter((l) => / --die-with-parent /.test(l));
  const until = Date.now() + 30_000;
  while (!escaped().length && Date.now() < until) spawnSync('sleep', ['0.25']);
  spawnSync('sleep', ['4']);
  assert.ok(escaped().length > 0, 'the first wake\'s jail escaped its deadline (what the next wake must end)');
  const w = wake(c);
  assert.ok(w.code === 0 || w.code === 124, w.log);
  const left = leftAfter(user, since);
  assert.equal(left, [], `left running:\n${left.join('\n')}`);
});

// --- A broken machine during a jailed wake: the clock steps, the private tmp's disk fills.

/**
 * A STAND-IN date(1) first on the wrapper's PATH: the real one, whose clock reads `offset`
 * seconds off once the jail is up (its mark, .hbgen-jail, is in the private tmp): a clock
 * stepped by NTP or by hand while the agent runs. Every date call of the wrapper after the
 * agent started sees the step; the kernel's clocks (timeout(1), sleep, file times) do not.
 */
function steppedClock(dir: string, home: string, offset: number): string {
  const bin = join(dir, 'clock');
  mkdirSync(bin, { recursive: true });
  const mark = join(home, '.cache', 'hbgen', 'jailed', 'tmp', '.hbgen-jail');
  writeFileSync(join(bin, 'date'), `#!/bin/sh\nif [ -e '${mark}' ]; then\n  exec /usr/bin/date -d "@$(( $(/usr/bin/date +%s) + ${offset} ))" "$@"\nfi\nexec /usr/bin/date "$@"\n`, { mode: 0o755 });
  return bin;
}

/** Nothing half-written in the state folder: the counter a number, no temporary file, the lock released. */
function stateWhole(c: JailCase, wakes: number): void {
  assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), `${wakes}\n`, 'the wake counter');
  const left = readdirSync(c.state).filter((f) => f !== 'agent.log' && /\.tmp$|^agent\.|^lock|^billing\./.test(f));
  assert.equal(left, [], `left in the state folder: ${left.join(', ')}`);
}

// The deadline counts from the wake's start, and srt takes a few seconds to bring the jail up
// on a busy machine (its proxies' sockets first): 12 s leaves the agent time to run there too.
const STEP_TIMEOUT = 12;
for (const [offset, way] of [[-7200, 'back'], [7200, 'forward']] as const) {
  test(`a clock stepped 2 h ${way} while a jailed agent overruns: the log says timeout after ${STEP_TIMEOUT}s (never fail 124), nothing half-written`, async () => {
    need();
    const user = scratchUser('hbjailc');
    const dir = mkdtempSync(join(tmpdir(), 'hbgen-jailclock.'));
    made.push(dir);
    chmodSync(dir, 0o755);
    const clock = steppedClock(dir, user.home, offset);
    const c = makeJailCase(user, '#!/bin/sh\necho working\nexec sleep 600\n', { timeout: `${STEP_TIMEOUT}s`, path: `${clock}:${NODE_DIR}:/usr/local/bin:/usr/bin:/bin` });
    const w = wake(c);
    assert.match(w.log, /hbgen jailed start wake 1 by hand jail\n/, w.log);
    assert.match(w.out, /\nworking\n/, `the agent did not run: ${w.out}`);
    assert.match(w.log, new RegExp(`hbgen jailed timeout after ${STEP_TIMEOUT}s\n`), w.log);
    assert.not.match(w.log, /hbgen jailed fail/, w.log);
    assert.is(w.code, 124, w.log);
    stateWhole(c, 1);
  });
}

test('a clock stepped 2 h forward while a jailed agent exits 124 on its own well before the deadline: the log says fail 124, not timeout', async () => {
  need();
  const user = scratchUser('hbjailc');
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-jailclock.'));
  made.push(dir);
  chmodSync(dir, 0o755);
  const clock = steppedClock(dir, user.home, 7200);
  const c = makeJailCase(user, '#!/bin/sh\necho gave up\nexit 124\n', { timeout: '60s', path: `${clock}:${NODE_DIR}:/usr/local/bin:/usr/bin:/bin` });
  const w = wake(c);
  assert.match(w.out, /\ngave up\n/, w.out);
  assert.match(w.log, /hbgen jailed fail 124\n/, w.log);
  assert.not.match(w.log, /timeout after/, w.log);
  assert.is(w.code, 124, w.log);
  stateWhole(c, 1);
});

/**
 * A small tmpfs (256 KiB, the scratch user's) mounted on the folder that holds the jail's
 * private tmp (~/.cache/hbgen/jailed): a full disk there without filling this machine's.
 * Unmounted by the returned function.
 */
function smallDisk(user: ScratchUser): { dir: string; fill(): void; umount(): void } {
  const dir = join(user.home, '.cache', 'hbgen', 'jailed');
  mkdirSync(dir, { recursive: true });
  spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, join(user.home, '.cache')]);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=256k,mode=0700,uid=${user.uid},gid=${user.gid}`, 'tmpfs', dir], { encoding: 'utf8' });
  assert.is(m.status, 0, `mount a tmpfs on ${dir}: ${m.stderr}`);
  return {
    dir,
    // Beside the private tmp, on the same small disk: what the wake's own cleanup does not remove.
    fill: () => void spawnSync('runuser', ['-u', user.name, '--', 'sh', '-c', 'head -c 1048576 /dev/zero >"$0/filler"', dir]),
    umount: () => void spawnSync('umount', ['-l', dir]),
  };
}

test('the private tmp\'s disk fills during a jailed wake: the agent sees ENOSPC, its commit still lands (ok); the next wake starts with an empty private tmp', async () => {
  need();
  const user = scratchUser('hbjaild');
  const disk = smallDisk(user);
  try {
    const agent = '#!/bin/sh\necho "tmp holds: [$(ls -A "$TMPDIR" | grep -v -e "^gitignore$" -e "^\\.hbgen-jail$" -e "\\.sock$" -e "^claude-empty-" | tr "\\n" " ")]"\nhead -c 1048576 /dev/zero >"$TMPDIR/fill" || echo "fill failed"\necho "$HBGEN_WAKE" >CHUNK.md && git add -A && git commit -q -m "chunk $HBGEN_WAKE" && echo COMMITTED\n';
    const c = makeJailCase(user, agent);
    let w = wake(c);
    assert.match(w.out, /No space left on device\n[\s\S]*fill failed\n/, w.out);
    assert.match(w.out, /\nCOMMITTED\n/, w.out);
    assert.match(w.log, /hbgen jailed ok\n/, w.log);
    assert.is(w.code, 0, w.log);
    stateWhole(c, 1);
    w = wake(c);
    const second = w.out.slice(w.out.lastIndexOf('start wake 2'));
    assert.match(second, /\ntmp holds: \[\]\n/, `the second wake found the first one's files in its private tmp:\n${second}`);
    assert.match(second, /\nCOMMITTED\n/, second);
    assert.match(w.log.slice(w.log.lastIndexOf('start wake 2')), /\n\S+ hbgen jailed ok\n/, w.log);
    stateWhole(c, 2);
  } finally {
    disk.umount();
  }
});

test('the private tmp\'s disk is full before a jailed wake: error jail naming the private tmp, exit 78, the agent never ran, nothing half-written', async () => {
  need();
  const user = scratchUser('hbjaild');
  const disk = smallDisk(user);
  try {
    const c = makeJailCase(user, '#!/bin/sh\necho AGENT-RAN\ngit add -A && git commit -q -m chunk\n');
    disk.fill();
    const w = wake(c);
    assert.match(w.log, /hbgen jailed error jail cannot start: cannot write its private tmp \S+\/\.cache\/hbgen\/jailed\/tmp \(a full disk\?\); free space there\n/, w.log);
    assert.not.match(w.log + w.out, /AGENT-RAN/, w.out);
    assert.is(w.code, 78, w.log);
    const log = spawnSync('git', ['-c', 'safe.directory=*', '-C', c.repo, 'log', '--format=%s'], { encoding: 'utf8' }).stdout;
    assert.is(log, 'the project\n', 'a commit was made');
    const left = readdirSync(c.state).filter((f) => f !== 'agent.log' && /\.tmp$|^agent\.|^lock|^billing\./.test(f));
    assert.equal(left, [], `left in the state folder: ${left.join(', ')}`);
    assert.equal(readdirSync(join(disk.dir, 'tmp')), [], 'a half-written file was left in the private tmp');
  } finally {
    disk.umount();
  }
});

// --- The shell matrix: the jail's steps of the wrapper (srt found, the private tmp, the
// mark, the start line) under every shell as /bin/sh (also the /bin/sh inside the jail).
for (const sh of SHELLS) {
  test(`${sh.name}: a wake inside the jail starts, runs the agent and ends (start … jail, then quiet)`, async () => {
    need();
    const c = makeCase({ path: `${NODE_DIR}:${PATHS.full}`, spec: { timeout: '30s', killAfter: '2s', sandbox: { bin: SRT } } });
    made.push(c.dir);
    const r = await run(c, sh, { args: ['--now'], limitMs: 60_000 });
    assert.is(r.code, 0, c.log() + r.stderr);
    assert.match(c.log(), /hbgen tst start wake 1 by hand jail\n/, c.log());
    assert.match(c.log(), /hbgen tst quiet\n/, c.log());
  });
}

// --- The jail cannot start at wake time: `error jail …`, exit 78, and the agent never runs unjailed.
test('wake: srt missing (sandbox.bin gone) → error jail, exit 78, the agent never ran', async () => {
  const c = makeCase({ path: `${NODE_DIR}:${PATHS.full}`, spec: { sandbox: { bin: '/nonexistent/srt' } } });
  made.push(c.dir);
  const r = await run(c, SHELLS[0]!, { args: ['--now'] });
  assert.is(r.code, 78, c.log());
  assert.match(c.log(), /hbgen tst error jail cannot start: \/nonexistent\/srt is missing or not executable; /, c.log());
  assert.equal(c.runs(), [], 'the agent ran');
});

test('wake: an edited jail.json (a wider allowWrite) never runs → error jail, exit 78, the agent never ran', async () => {
  const c = makeCase({ path: `${NODE_DIR}:${PATHS.full}`, spec: { sandbox: { bin: SRT } } });
  made.push(c.dir);
  const cfg = join(c.state, 'jail.json');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('"allowWrite": [', '"allowWrite": [\n      "/",'));
  const r = await run(c, SHELLS[0]!, { args: ['--now'] });
  assert.is(r.code, 78, c.log());
  assert.match(c.log(), /hbgen tst error jail cannot start: .*jail\.json is not the policy rendered with this wrapper \(edited\?\); run hbgen install again\n/, c.log());
  assert.equal(c.runs(), [], 'the agent ran');
});

test('wake: srt not on PATH (no sandbox.bin) → error jail naming the fix, exit 78, the agent never ran', async () => {
  const c = makeCase({ spec: { sandbox: {} } });
  made.push(c.dir);
  const r = await run(c, SHELLS[0]!, { args: ['--now'] });
  assert.is(r.code, 78, c.log());
  assert.match(c.log(), /hbgen tst error jail cannot start: srt is not on PATH; install it \(npm install -g @anthropic-ai\/sandbox-runtime\) or set sandbox.bin/, c.log());
  assert.equal(c.runs(), [], 'the agent ran');
});

test('wake: bwrap gone from the PATH → error jail with the apt line, exit 78, the agent never ran', async () => {
  need();
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-nobwrap.'));
  made.push(dir);
  const bin = toolDir(join(dir, 'bin'), ['env', 'date', 'sleep', 'mkdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'touch', 'printf', 'kill', 'rg', 'socat', 'timeout', 'setsid', 'flock', 'tr', 'sed', 'grep', 'cksum', 'tail', 'wc', 'ln', 'ls', 'chmod', 'readlink']);
  const c = makeCase({ path: bin, spec: { sandbox: { bin: SRT } } });
  made.push(c.dir);
  const r = await run(c, SHELLS[0]!, { args: ['--now'] });
  assert.is(r.code, 78, c.log());
  assert.match(c.log(), /hbgen tst error jail cannot start: bwrap is not on PATH; install it \(apt-get install bubblewrap ripgrep socat\)\n/, c.log());
  assert.equal(c.runs(), [], 'the agent ran');
});

test('wake: srt fails before the jail is up (a bwrap that cannot start) → error jail, exit 78, the agent never ran', async () => {
  need();
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-badbwrap.'));
  made.push(dir);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
  // Time for srt to start and fail on a loaded machine (the default 2 s ran out first there).
  const c = makeCase({ path: `${bin}:${NODE_DIR}:${PATHS.full}`, spec: { sandbox: { bin: SRT }, timeout: '30s', killAfter: '2s' } });
  made.push(c.dir);
  const r = await run(c, SHELLS[0]!, { args: ['--now'], limitMs: 60_000 });
  assert.is(r.code, 78, c.log());
  assert.match(c.log(), /hbgen tst error jail cannot start: srt exited \d+ before the agent ran \(its message is in \S+\/agent\.log\)/, c.log());
  // srt's own words are the agent's output: in agent.log, after this wake's start line.
  assert.match(c.agentLog(), /start wake 1 by hand jail\n[\s\S]*bwrap/, c.agentLog());
  assert.equal(c.runs(), [], 'the agent ran');
});

// --- install: the jail is run for real before anything is written.
function probeSpec(path: string) {
  const home = mkdtempSync(join(tmpdir(), 'hbgen-jailhome.'));
  made.push(home);
  const repo = join(home, 'repo');
  mkdirSync(repo);
  const v = validateSpec({
    version: 1,
    name: 'probe',
    repo,
    agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '18:00', timezone: 'UTC' } },
    timeout: '10m',
    env: { HOME: home, PATH: path },
    stateDir: join(home, 'state'),
    sandbox: { bin: SRT, allowHosts: ['github.com'] },
  });
  if (!v.spec) throw new Error(v.errors.join('; '));
  return v.spec;
}

test('install\'s probe runs the jail for real here and passes (PATH with bwrap, rg, socat, node)', () => {
  need();
  const spec = probeSpec(`${NODE_DIR}:/usr/bin:/bin`);
  const r = probeJail(spec, jailSettings(jailPolicy(spec)!));
  assert.is(r.refusal, null);
  assert.is(r.bin, SRT);
});

test('install refuses a jail that cannot start: bwrap not on env.PATH, with the apt line that fixes it', () => {
  need();
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-nobwrap.'));
  made.push(dir);
  const bin = toolDir(join(dir, 'bin'), ['sh', 'rg', 'socat', 'env']);
  const spec = probeSpec(bin);
  const r = probeJail(spec, jailSettings(jailPolicy(spec)!));
  assert.is(r.refusal, 'sandbox: bwrap is not on env.PATH, and the jail needs it: apt-get install bubblewrap ripgrep socat, or set "sandbox": false to run the agent without the jail');
});

test('install refuses a jail whose bwrap cannot start (a bwrap that fails), with srt\'s own words', () => {
  need();
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-badbwrap.'));
  made.push(dir);
  const bin = toolDir(join(dir, 'bin'), ['sh', 'rg', 'socat', 'env', 'bash']);
  writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
  const spec = probeSpec(bin);
  const r = probeJail(spec, jailSettings(jailPolicy(spec)!));
  assert.ok(r.refusal, 'the probe passed with a bwrap that cannot start');
  assert.match(r.refusal!, /^sandbox: the jail cannot start here: /);
  assert.match(r.refusal!, /"sandbox": false/);
});

test('sandbox.bin reaching into the repo through a link is refused (the agent could rewrite the jail)', () => {
  const spec = probeSpec('/usr/bin:/bin');
  const inRepo = join(spec.repo, 'srt');
  writeFileSync(inRepo, '#!/bin/sh\n', { mode: 0o755 });
  const link = join(dirname(spec.repo), 'srt-link');
  symlinkSync(inRepo, link);
  const problems = codeInRepoProblems({ ...spec, sandbox: { bin: link } });
  assert.equal(problems.filter((p) => p.startsWith('sandbox.bin: ')).length, 1, problems.join('\n'));
  assert.equal(codeInRepoProblems({ ...spec, sandbox: { bin: SRT } }).filter((p) => p.startsWith('sandbox.bin')), []);
});

function panelOf(spec: ReturnType<typeof probeSpec>, jailBin: string | null): string {
  return panel({
    verb: 'install',
    spec,
    names: names(spec),
    specFile: '/x/hbgen.json',
    summary: 'fires at :07',
    bin: { realpath: spec.agent.bin, interpreter: null } as never,
    permissionMode: 'default',
    jailBin,
    billing: { result: 'not checked' } as never,
    stateFiles: [],
    statePath: '/x/state.json',
    pre: { ids: {}, hostFiles: [], writes: [], commands: [], checks: [], caveats: [], refusals: [] } as never,
    caveats: [],
  });
}

test('the install panel shows exactly what the jail allows: write, read, network, and that every process inherits it', () => {
  const spec = probeSpec('/usr/bin:/bin');
  const out = panelOf(spec, SRT);
  const home = spec.env.HOME;
  assert.ok(out.includes(`  jail       on: ${SRT} (bubblewrap, seccomp and a proxy; jail.json)\n`), out);
  // In a few lines: the repo's paths relative to it, HOME's as ~/…, the credential paths
  // counted (jail.json, in the panel's file list, and hbgen status name every one). Of the
  // paths it may never write, only those inside a folder it may write: the others (your
  // crontab, shell profiles, the schedulers' folders) are outside every write path anyway.
  assert.ok(out.includes('             write: the repo, ~/.cache/hbgen/probe/tmp; never: HEART.md, hbgen.json, .git/{gitdir,info,config.worktree,worktrees,modules} of the repo\n'), out);
  const secrets = jailPolicy(spec)!.denyRead.filter((p) => p.startsWith(`${home}/`)).length;
  assert.ok(secrets >= 18, String(secrets));
  assert.ok(out.includes(`             read: all but /root and ${secrets} credential paths (~/.ssh, ~/.aws, …)\n`), out);
  assert.ok(out.includes('             network: github.com; nothing else; all it starts is jailed too\n'), out);
  // A state folder inside the repo is inside a write path: named among what it may not write.
  const inRepo = validateSpec({ ...spec, stateDir: '.agent-platform' });
  assert.ok(inRepo.spec, String(inRepo.errors));
  assert.ok(panelOf(inRepo.spec!, SRT).includes('             write: the repo, ~/.cache/hbgen/probe/tmp; never: HEART.md, hbgen.json, .agent-platform, .git/{gitdir,info,config.worktree,worktrees,modules} of the repo\n'));
});

test('"sandbox": false: the panel says loudly that the agent runs with all your rights, and no jail.json is rendered', () => {
  const spec = { ...probeSpec('/usr/bin:/bin'), sandbox: false as const };
  const out = panelOf(spec, null);
  assert.match(out, /\n {2}jail {7}OFF \("sandbox": false\): THE AGENT RUNS WITH ALL YOUR RIGHTS: it can read ~\/\.ssh, write anywhere you can/);
  const r = renderNow(spec);
  assert.not.ok(r.files.some((f) => f.path === 'jail.json'));
  assert.not.match(r.files.find((f) => f.path === 'heartbeat.sh')!.content, /srt/);
});

// --- status: the jail as the panel shows it, from an install (stand-in systemctl, the real wrapper).
test('status: "sandbox": false is one loud line in the panel and jail.on false in --json', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const human = await hb(h, 'status');
  assert.match(human.out, /\n {2}jail +OFF \("sandbox": false\): THE AGENT RUNS WITH ALL YOUR RIGHTS/, human.out);
  const doc = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.equal(doc.jail, { on: false, bin: null, write: [], denyWrite: [], denyRead: [], hosts: [] });
});

test('status after a real jailed install and wake: the policy in the panel and in --json, the wake `start … jail`', async () => {
  need();
  const h = makeHost('systemd-user');
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  assert.match(inst.out, /\n {2}jail +on: .*node_modules\/\.bin\/srt \(bubblewrap, seccomp and a proxy; jail\.json\)\n/, inst.out);
  assert.ok(existsSync(join(names(h.spec).stateDir, 'jail.json')), 'jail.json installed');
  assert.is((await hb(h, 'wake')).code, 0);
  assert.match(readFileSync(join(names(h.spec).stateDir, 'runtime.log'), 'utf8'), / start wake 1 by hand jail\n/);
  const human = await hb(h, 'status');
  assert.is(human.code, 0, human.out);
  assert.match(human.out, /\n {2}jail +on: /, human.out);
  assert.match(human.out, /network: github\.com; nothing else\n/, human.out);
  assert.match(human.out, /every process the agent starts \(subagents, MCP servers, hooks, test runners\) is in the same jail\n/, human.out);
  const doc = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.is(doc.jail.on, true);
  assert.is(doc.jail.bin, SRT);
  assert.equal(doc.jail.hosts, ['github.com']);
  assert.ok(doc.jail.write.includes(h.spec.repo), JSON.stringify(doc.jail));
  assert.ok(doc.jail.denyWrite.includes(names(h.spec).stateDir), JSON.stringify(doc.jail));
});

test('doctor starts the jail as a fire does: with a working jail it passes; with a bwrap that cannot start (first on env.PATH) it says the jail cannot start, exit 1, though the smoke run still passes', async () => {
  need();
  const h = makeHost('systemd-user');
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-doctor-jail.'));
  made.push(dir);
  chmodSync(dir, 0o755);
  const first = join(dir, 'bin');
  mkdirSync(first);
  chmodSync(first, 0o755);
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${first}:${NODE_DIR}:/usr/bin:/bin` } });
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  const ok = await hb(h, 'doctor');
  assert.is(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /\n {2}ok {4}jail: \S+srt started a probe inside \S+\/jail\.json and it could not write outside the allowed folders\n/, ok.out);
  assert.match(ok.out, /\nit would run right now\n$/);
  // The host changes under the install: a bwrap that cannot start comes first on the wakes' PATH.
  writeFileSync(join(first, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
  const bad = await hb(h, 'doctor');
  assert.is(bad.code, 1, bad.out + bad.err);
  assert.match(bad.out, /\n {2}FAIL {2}jail: cannot start: the jail cannot start here: [^\n]*uid map[^\n]*\n/, bad.out);
  assert.match(bad.out, /ok {4}scheduler run: /, 'the smoke run itself starts no jail, and passes');
  assert.match(bad.out, /\nit would not run right now: jail; /, bad.out);
  // And a wake would indeed not run the agent: the wrapper refuses to start it unjailed.
  const w = await hb(h, 'wake');
  assert.is(w.code, 78, w.out + w.err);
  assert.match(readFileSync(join(names(h.spec).stateDir, 'runtime.log'), 'utf8'), / error jail cannot start: /);
});

test.after(() => {
  server?.kill();
  if (!process.env.HBTEST_KEEP) for (const d of made) rmSync(d, { recursive: true, force: true });
});

test.run();
