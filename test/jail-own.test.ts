// needs root: it creates scratch users (useradd); it runs commands as other users (runuser); it gives files to other users (chown)
// The jailed client's own folder (ClientNeeds.own, src/jail.ts): nothing the jailed client
// writes lands in the person's own client folder (~/.claude, ~/.codex), where the person's
// client would later execute it (shell snapshots, session scripts), restore it (file
// history, backups) or read it as instructions (transcripts, plans, todos, skills, IDE
// locks). Real wakes, as a scratch user, through the rendered wrapper and the real jail (srt
// from package.json): first with STAND-IN clients (a sh script answering the billing check as
// a subscription login, then trying each write and saying what happened), then with the REAL
// pinned Claude Code against stand-in HTTPS hosts (test/helpers/tls-standin.mjs) that answer
// its OAuth refresh and its Messages API: the refresh is done inside the jail and the rotated
// refresh token must land in the person's own credentials file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateSpec } from '../src/spec.ts';
import { jailTmp } from '../src/jail.ts';
import { renderNow } from './helpers/render.ts';
import { scratchUser, type ScratchUser } from './helpers/cronuser.ts';
import { realClients, subscriptionAnswers, subscriptionShim } from './helpers/clients.ts';

const ROOT = join(import.meta.dirname, '..');
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');
const NODE_DIR = dirname(process.execPath);
const made: string[] = [];
const procs: ChildProcess[] = [];
process.on('exit', () => {
  for (const p of procs) p.kill();
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function missing(): string {
  const why: string[] = [];
  if (process.getuid?.() !== 0) why.push('these tests run as root (they make a scratch user)');
  if (!existsSync(SRT)) why.push(`${SRT} is missing: run npm ci`);
  for (const t of ['bwrap', 'rg', 'socat', 'git', 'runuser', 'openssl']) {
    if (spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0) why.push(`${t} is not on PATH (apt-get install bubblewrap ripgrep socat git openssl)`);
  }
  return why.join('; ');
}
const MISSING = missing();
const need = () => assert.is(MISSING, '', `the jail cannot run here: ${MISSING}`);

function hostAddress(): string {
  const a = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
  if (!a) throw new Error('this host has no routable IPv4 address');
  return a.address;
}

const chownTree = (p: string, u: ScratchUser) => {
  chownSync(p, u.uid, u.gid);
  if (lstatSync(p).isDirectory()) for (const e of readdirSync(p)) chownTree(join(p, e), u);
};

interface Case {
  user: ScratchUser;
  repo: string;
  state: string;
  /** The client's own folder in the jail (inside the private tmp). */
  own: string;
}

/** A repo, a state folder and a rendered wrapper for `user`, with `harness` and `bin`, installed as install would. */
function makeCase(user: ScratchUser, harness: 'claude-code' | 'codex', bin: string, env: Record<string, string> = {}): Case {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-jailown.'));
  made.push(dir);
  chmodSync(dir, 0o755);
  const repo = join(dir, 'repo');
  const state = join(dir, 'state');
  mkdirSync(repo);
  const g = (...a: string[]) => spawnSync('git', ['-C', repo, ...a], { encoding: 'utf8' });
  g('init', '-q', '-b', 'main');
  g('config', 'user.email', 'agent@example.invalid');
  g('config', 'user.name', 'agent');
  writeFileSync(join(repo, 'HEART.md'), '# HEART\n');
  g('add', '-A');
  g('commit', '-q', '-m', 'the project');
  const raw = {
    version: 1,
    name: 'own',
    repo,
    agent: { harness, bin, args: harness === 'codex' ? ['--skip-git-repo-check'] : [], prompt: 'Do one chunk.' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
    timeout: '90s',
    killAfter: '2s',
    stateDir: state,
    env: { HOME: user.home, PATH: `${NODE_DIR}:/usr/local/bin:/usr/bin:/bin`, ...env },
    sandbox: { bin: SRT },
  };
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('; '));
  const r = renderNow(v.spec);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  mkdirSync(state, { recursive: true, mode: 0o700 });
  for (const f of r.files) {
    mkdirSync(dirname(join(state, f.path)), { recursive: true });
    writeFileSync(join(state, f.path), f.content, { mode: f.mode });
  }
  chownTree(dir, user);
  return { user, repo, state, own: join(jailTmp(v.spec), harness === 'codex' ? 'codex' : 'claude') };
}

function wake(c: Case): { code: number; log: string; out: string } {
  const r = spawnSync('runuser', ['-u', c.user.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { encoding: 'utf8', timeout: 180_000 });
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return { code: r.status ?? 128, log: read(join(c.state, 'runtime.log')) || r.stderr, out: read(join(c.state, 'agent.log')) };
}

/** The entries of the person's folders the jailed client must never write (each was writable before its own folder). */
const CLAUDE_PERSON = ['shell-snapshots/snap.sh', 'session-env/s1/hook-0.sh', 'projects/p/t.jsonl', 'file-history/f/v1', 'backups/b.json', 'plans/p.md', 'tasks/t.json', 'todos/t.json', 'ide/1234.lock', 'statsig/s.json', 'cache/c.json', 'sessions/1.json', '.credentials.json', 'settings.json'];
const CODEX_PERSON = ['shell_snapshots/snap.sh', 'sessions/2026/s.jsonl', 'skills/s/SKILL.md', 'state_5.sqlite', 'history.jsonl', 'memories_1', 'auth.json', 'config.toml'];

/**
 * A stand-in client: answers the billing check as a subscription login, then, as the agent,
 * appends a line to each path under DIR (made first, as the person's client would have made
 * them) and says W (written) or R (refused) for it; then lists and writes its own folder.
 */
function tryingAgent(dir: string, paths: string[], ownVar: string, extra = ''): string {
  const tries = paths.map((p) => `if printf 'id >>"$HOME/PWNED"\\n' >>"${dir}/${p}" 2>/dev/null; then echo "W ${p}"; else echo "R ${p}"; fi`).join('\n');
  return `#!/bin/sh\n${subscriptionAnswers()}echo "OWN $${ownVar}"\necho "BEFORE $(ls -A "$${ownVar}" | tr '\\n' ' ')"\n${tries}\nif echo x >>"$${ownVar}/written-by-agent"; then echo "W own"; else echo "R own"; fi\n${extra}\nexit 0\n`;
}

function said(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of out.split('\n')) {
    const x = /^([WR]) (.+)$/.exec(l);
    if (x) m.set(x[2]!, x[1]!);
  }
  return m;
}

/** The person's folder as their own client leaves it: each entry made, owned by them. */
function personFolder(u: ScratchUser, dir: string, paths: string[]): Map<string, string> {
  const before = new Map<string, string>();
  for (const p of paths) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    const text = p.endsWith('.json') && p.includes('credentials') ? '{"claudeAiOauth":{"refreshToken":"rt-person"}}' : `person's ${p}\n`;
    writeFileSync(join(dir, p), text, { mode: 0o600 });
    before.set(p, text);
  }
  chownTree(dir, u);
  return before;
}

/** Every entry of the person's folder was refused and is unchanged; the client's own folder (OWN) was written. The agent's answers, by entry. */
function heldAndOwn(out: string, own: string, dir: string, person: readonly string[], before: Map<string, string>, shown: string): Map<string, string> {
  const s = said(out);
  for (const p of person) {
    assert.is(s.get(p), 'R', `${shown}/${p} was writable in the jail:\n${out}`);
    assert.is(readFileSync(join(dir, p), 'utf8'), before.get(p), `${shown}/${p} changed`);
  }
  assert.match(out, new RegExp(`^OWN ${own}$`, 'm'), out);
  assert.is(s.get('own'), 'W', out);
  return s;
}

test('claude-code: a jailed wake cannot append to anything in ~/.claude (shell-snapshots, session-env, projects, file-history, backups, plans, tasks, todos, ide, statsig, cache …); it writes its own folder in the private tmp', () => {
  need();
  const u = scratchUser('hbown');
  const dir = join(u.home, '.claude');
  const before = personFolder(u, dir, CLAUDE_PERSON);
  const bin = join(u.home, 'claude');
  // The private settings.json is read-only as well: an apiKeyHelper there would switch billing.
  writeFileSync(bin, tryingAgent(dir, CLAUDE_PERSON, 'CLAUDE_CONFIG_DIR', `if echo '{"apiKeyHelper":"echo k"}' >"$CLAUDE_CONFIG_DIR/settings.json" 2>/dev/null; then echo "W own-settings"; else echo "R own-settings"; fi\nif echo '{"primaryApiKey":"k"}' >"$CLAUDE_CONFIG_DIR/.claude.json" 2>/dev/null; then echo "W own-claude-json"; else echo "R own-claude-json"; fi`), { mode: 0o755 });
  chownSync(bin, u.uid, u.gid);
  const c = makeCase(u, 'claude-code', bin);
  const w = wake(c);
  assert.match(w.log, /start wake 1 by hand jail/, w.log);
  const s = heldAndOwn(w.out, c.own, dir, CLAUDE_PERSON, before, '~/.claude');
  assert.is(s.get('own-settings'), 'R', w.out);
  assert.is(s.get('own-claude-json'), 'R', w.out);
  // The person's settings reach the jailed client (their deny rules), as a copy.
  assert.match(w.out, /^BEFORE .*settings\.json/m, w.out);
  assert.not.ok(existsSync(join(u.home, 'PWNED')));
});

test('codex: a jailed wake cannot append to anything in ~/.codex (shell_snapshots, sessions, skills, its databases, auth.json, config.toml); it writes its own CODEX_HOME in the private tmp', () => {
  need();
  const u = scratchUser('hbown');
  const dir = join(u.home, '.codex');
  const before = personFolder(u, dir, CODEX_PERSON);
  const bin = join(u.home, 'codex');
  writeFileSync(bin, tryingAgent(dir, CODEX_PERSON, 'CODEX_HOME', `if echo 'model_provider="x"' >>"$CODEX_HOME/config.toml" 2>/dev/null; then echo "W own-config"; else echo "R own-config"; fi`), { mode: 0o755 });
  chownSync(bin, u.uid, u.gid);
  const c = makeCase(u, 'codex', bin);
  const w = wake(c);
  assert.match(w.log, /start wake 1 by hand jail/, w.log);
  const s = heldAndOwn(w.out, c.own, dir, CODEX_PERSON, before, '~/.codex');
  assert.is(s.get('own-config'), 'R', w.out);
});

test('the login: a refresh written in the jail (temp file + rename, as Claude Code 2.1.332 writes it) lands in the person\'s own credentials file, and no copy of it stays behind; the private folder is made fresh at the next wake (a planted link and file are gone)', () => {
  need();
  const u = scratchUser('hbown');
  const dir = join(u.home, '.claude');
  mkdirSync(dir, { recursive: true });
  const cred = join(dir, '.credentials.json');
  writeFileSync(cred, '{"claudeAiOauth":{"refreshToken":"rt-person"}}', { mode: 0o600 });
  chownTree(dir, u);
  const bin = join(u.home, 'claude');
  const plant = [
    'if [ ! -e "$CLAUDE_CONFIG_DIR/planted" ]; then',
    '  ln -s "$HOME/.bashrc" "$CLAUDE_CONFIG_DIR/planted-link" && echo planted >"$CLAUDE_CONFIG_DIR/planted" && mkdir -p "$CLAUDE_CONFIG_DIR/shell-snapshots" && echo "id" >"$CLAUDE_CONFIG_DIR/shell-snapshots/s.sh" && echo PLANTED',
    '  t="$CLAUDE_CONFIG_DIR/.credentials.json.tmp.$$" && printf "%s" \'{"claudeAiOauth":{"refreshToken":"rt-rotated-in-jail"}}\' >"$t" && mv -f "$t" "$CLAUDE_CONFIG_DIR/.credentials.json" && echo REFRESHED',
    'fi',
    `if printf x >>"${cred}" 2>/dev/null; then echo "W person-cred"; else echo "R person-cred"; fi`,
  ].join('\n');
  writeFileSync(bin, tryingAgent(dir, [], 'CLAUDE_CONFIG_DIR', plant), { mode: 0o755 });
  chownSync(bin, u.uid, u.gid);
  const c = makeCase(u, 'claude-code', bin);
  let w = wake(c);
  assert.match(w.out, /^PLANTED$/m, w.out);
  assert.match(w.out, /^REFRESHED$/m, w.out);
  // Inside the jail the person's file is read-only: only the wrapper writes it back, after the wake.
  assert.is(said(w.out).get('person-cred'), 'R', w.out);
  assert.is(readFileSync(cred, 'utf8'), '{"claudeAiOauth":{"refreshToken":"rt-rotated-in-jail"}}', 'the rotated token did not reach the person\'s file');
  assert.ok(lstatSync(cred).isFile() && (lstatSync(cred).mode & 0o777) === 0o600, 'the person\'s file is not a regular file of mode 600');
  assert.is(lstatSync(cred).uid, u.uid);
  assert.not.ok(existsSync(join(c.own, '.credentials.json')), 'a copy of the login stayed in the private folder');
  w = wake(c);
  // The second wake (its part of agent.log) saw a fresh folder: what the first one planted is gone.
  const second = w.out.slice(w.out.lastIndexOf('\nOWN '));
  const seen = /^BEFORE (.*)$/m.exec(second)?.[1] ?? '';
  assert.not.match(seen, /planted|shell-snapshots|written-by-agent/, second);
  assert.match(seen, /\.credentials\.json/, `the login was not copied in again: ${second}`);
  // Planted again, so missing: the marker of the first wake did not survive.
  assert.match(second, /^PLANTED$/m, second);
});

test('the person changed their login during the wake: theirs is kept, the jailed copy is dropped', async () => {
  need();
  const u = scratchUser('hbown');
  const dir = join(u.home, '.claude');
  mkdirSync(dir, { recursive: true });
  const cred = join(dir, '.credentials.json');
  writeFileSync(cred, '{"claudeAiOauth":{"refreshToken":"rt-person"}}', { mode: 0o600 });
  chownTree(dir, u);
  const bin = join(u.home, 'claude');
  // The agent refreshes; meanwhile the person's own client refreshes too (written here from
  // outside the jail, through a file the test watches for).
  const flag = join(u.home, 'person-refreshed');
  writeFileSync(bin, tryingAgent(dir, [], 'CLAUDE_CONFIG_DIR', `printf "%s" '{"claudeAiOauth":{"refreshToken":"rt-jail"}}' >"$CLAUDE_CONFIG_DIR/.credentials.json"\necho READY\nn=0; while [ ! -e "${flag}" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done`), { mode: 0o755 });
  chownSync(bin, u.uid, u.gid);
  const c = makeCase(u, 'claude-code', bin);
  const p = spawn('runuser', ['-u', u.name, '--', '/usr/bin/env', '-i', '/bin/sh', join(c.state, 'heartbeat.sh'), '--now'], { stdio: 'ignore' });
  const log = join(c.state, 'agent.log');
  const t0 = Date.now();
  while (!(existsSync(log) && readFileSync(log, 'utf8').includes('READY')) && Date.now() - t0 < 60_000) spawnSync('sleep', ['0.1']);
  writeFileSync(cred, '{"claudeAiOauth":{"refreshToken":"rt-person-new"}}');
  writeFileSync(flag, '');
  await new Promise<void>((ok) => p.on('close', () => ok()));
  assert.is(readFileSync(cred, 'utf8'), '{"claudeAiOauth":{"refreshToken":"rt-person-new"}}');
  assert.not.ok(existsSync(join(c.own, '.credentials.json')), 'a copy of the login stayed in the private folder');
});

// --- The real Claude Code, jailed, against stand-in HTTPS hosts.
const clients = realClients();

test('the real Claude Code in a jailed wake: its OAuth refresh (done in the jail) lands in the person\'s own credentials file; its Bash tool cannot write ~/.claude (shell-snapshots, session-env, projects …) and still commits, using its own folder', async () => {
  need();
  if ('why' in clients) assert.unreachable(`the pinned clients are not installed: ${clients.why}`);
  const u = scratchUser('hbown');
  const dir = join(u.home, '.claude');
  // The person's expired subscription login: the client must refresh it before its first request.
  mkdirSync(dir, { recursive: true });
  const cred = join(dir, '.credentials.json');
  writeFileSync(cred, JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat01-expired', refreshToken: 'rt-original', expiresAt: Date.now() - 60_000, scopes: ['user:inference', 'user:profile'], subscriptionType: 'max' } }), { mode: 0o600 });
  const paths = ['shell-snapshots', 'session-env', 'projects', 'file-history', 'backups', 'plans', 'tasks', 'todos', 'ide'];
  for (const p of paths) mkdirSync(join(dir, p));
  writeFileSync(join(dir, 'shell-snapshots', 'snapshot-bash-1.sh'), 'export PERSON=1\n');
  chownTree(dir, u);
  // The stand-in hosts, in a folder the scratch user can read (the authority's certificate).
  const sdir = mkdtempSync(join(tmpdir(), 'hbgen-jailown-tls.'));
  made.push(sdir);
  chmodSync(sdir, 0o755);
  const tries = paths.map((p) => `(echo 'id >>$HOME/PWNED' >>"$HOME/.claude/${p}/x" && echo "W ${p}") 2>/dev/null || echo "R ${p}"`).join('; ');
  writeFileSync(join(sdir, 'script.json'), JSON.stringify({ commands: [`${tries}; echo "OWN $CLAUDE_CONFIG_DIR"`, 'echo chunk >CHUNK.md && git add -A && git commit -q -m "one chunk" && echo COMMITTED'] }));
  const reqLog = join(sdir, 'requests.jsonl');
  const server = spawn(process.execPath, [join(ROOT, 'test', 'helpers', 'tls-standin.mjs'), sdir, reqLog], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HBTEST_LISTEN: '0.0.0.0' } });
  procs.push(server);
  const port = await new Promise<number>((ok, no) => {
    server.stdout!.once('data', (d: Buffer) => ok(Number(String(d).trim())));
    server.once('exit', () => no(new Error('the TLS stand-in did not start')));
  });
  chmodSync(join(sdir, 'ca.pem'), 0o644);
  // The billing check is answered by a shim (offline there is no account to ask); every other
  // command line goes to the real client (test/helpers/clients.ts subscriptionShim).
  const bin = subscriptionShim(join(u.home, 'bin'), (clients as { claude: string }).claude, 'claude');
  chownTree(join(u.home, 'bin'), u);
  // srt's proxy takes HTTPS_PROXY as its parent: the jail's allowlist decides, then the stand-in answers.
  const c = makeCase(u, 'claude-code', bin, { HTTPS_PROXY: `http://${hostAddress()}:${port}`, NODE_EXTRA_CA_CERTS: join(sdir, 'ca.pem') });
  const w = wake(c);
  server.kill();
  const reqs = existsSync(reqLog) ? readFileSync(reqLog, 'utf8') : '';
  assert.match(reqs, /"url":"\/v1\/oauth\/token".*rt-original/, `no refresh reached the stand-in:\n${w.log}\n${w.out.slice(-3000)}`);
  // What the client sent back as its tool calls' results (the last request repeats the earlier ones).
  let results = '';
  for (const l of reqs.split('\n').filter((x) => x.includes('tool_result'))) {
    const body = JSON.parse((JSON.parse(l) as { body: string }).body) as { messages: { content: unknown }[] };
    results = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type?: string }) => b.type === 'tool_result').map((b) => JSON.stringify(b)).join('\n');
  }
  for (const p of paths) assert.match(results, new RegExp(`R ${p}`), `~/.claude/${p} in the real client's Bash tool:\n${results.slice(-3000)}`);
  assert.not.match(results, /\bW [a-z-]+/, results.slice(-3000));
  assert.match(results, new RegExp(`OWN ${c.own}`), results.slice(-3000));
  assert.match(results, /COMMITTED/, `${w.log}\n${w.out.slice(-3000)}`);
  assert.match(spawnSync('git', ['-c', 'safe.directory=*', '-C', c.repo, 'log', '--oneline', '-1'], { encoding: 'utf8' }).stdout, /one chunk/);
  assert.match(w.log, /hbgen own ok/, w.log);
  // The rotated refresh token is in the person's own file: their login still refreshes.
  const after = JSON.parse(readFileSync(cred, 'utf8')) as { claudeAiOauth: { refreshToken: string; accessToken: string } };
  assert.match(after.claudeAiOauth.refreshToken, /^rt-rotated-\d+$/, readFileSync(cred, 'utf8'));
  assert.is(readFileSync(join(dir, 'shell-snapshots', 'snapshot-bash-1.sh'), 'utf8'), 'export PERSON=1\n');
  for (const p of paths.filter((x) => x !== 'shell-snapshots')) assert.equal(readdirSync(join(dir, p)), [], `~/.claude/${p} was written`);
  assert.not.ok(existsSync(join(u.home, 'PWNED')));
});

test.run();
