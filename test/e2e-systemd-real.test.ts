// needs root: it starts a real systemd user manager for a scratch user; it gives files to other users (chown)
// The jail, end to end: what a new user does with the README's Quick start and
// the claude-code preset, jailed (the default), on a REAL scheduler, with the REAL client.
// A scratch user with its own real `systemd --user` (test/helpers/systemd-user.ts) has a tiny
// git repo whose `npm test` runs offline, runs `hbgen init` there, fills in what init leaves to
// them, and `hbgen install --yes` (the built CLI, bin/hbgen.cjs). The timer then fires by
// itself and the wake runs the real `claude` (test/helpers/clients.ts) inside the jail against
// a STAND-IN Messages API on 127.0.0.1 (test/helpers/model-standin.mjs) whose answers are tool
// calls: run the repo's tests and commit, then read ~/.ssh/id_ed25519, then write outside the
// repo. The commit lands with the tests' output, the key never reaches the "model", the write
// outside fails.
//
// What the test sets that a new user would not (each said where it is done):
// - Auth: offline there is no real login. The spec's env gets CLAUDE_CODE_OAUTH_TOKEN, a
//   setup-token (`claude setup-token`) that hbgen's billing check accepts as the plan (src/billing.ts);
//   the token is made up and only the stand-in sees it. (A claude.ai login file instead makes
//   Claude Code 2.1.197 ask api.anthropic.com for the account first, which offline never answers.)
// - The API: ANTHROPIC_BASE_URL points at the stand-in on this host's routable address
//   (listening there) with sandbox.allowHosts [that address]: a loopback entry is refused by
//   validation (the jail's proxy would open every local service). The address is not on srt's
//   NO_PROXY, so the client sends it through srt's proxy, exactly the way it sends
//   api.anthropic.com.
// - The first fire: schedule.minute is the next whole minute at least 45 s away, so that the
//   timer fires during the test (as in test/lifecycle-systemd-real.test.ts).
// Where a real user manager, the jail or the client cannot run here, the suite FAILS saying why.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { validateSpec } from '../src/spec.ts';
import { realClients } from './helpers/clients.ts';
import { HBGEN, ROOT } from './helpers/cli.ts';
import { realOrFail, startUserManager, type Run, type UserManager } from './helpers/systemd-user.ts';

const real = realOrFail(test, 'e2e-systemd-real');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const made: string[] = [];

let M: UserManager;
let server: ChildProcess | null = null;
/** What the run left for the tests below to read. */
let run: { repo: string; log: string; requests: { url: string; body: string }[]; secret: string; before: string; at: number; installOut: string } | null = null;

/** The Bash tool calls the stand-in asks for, in order. */
const STEPS = {
  tests: 'npm test >test-output.txt 2>&1 && git add -A && git commit -q -m "tests pass" && git log --oneline -1',
  secret: 'cat ~/.ssh/id_ed25519',
  outside: 'echo pwned >"$HOME/escaped" && echo WROTE-HOME; echo pwned >"$HOME/src/escaped" && echo WROTE-BESIDE',
};
const ORDER = [STEPS.tests, STEPS.secret, STEPS.outside];

/** The user's command in `cwd` with `env` (on top of the manager's: HOME, XDG_RUNTIME_DIR, LANG, TZ). */
function as(cwd: string, env: Record<string, string>, argv: string[]): Run {
  return M.as(['sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', cwd, 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv]);
}

/** Every tool_result the client sent the stand-in, by tool_use id (the last copy: a later request repeats earlier ones). */
function toolResults(requests: { body: string }[]): Map<string, { text: string; error: boolean }> {
  const out = new Map<string, { text: string; error: boolean }>();
  for (const r of requests) {
    let j: { messages?: { content?: unknown }[] };
    try {
      j = JSON.parse(r.body);
    } catch {
      continue;
    }
    for (const m of j.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as { type?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]) {
        if (b.type !== 'tool_result' || !b.tool_use_id) continue;
        const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
        out.set(b.tool_use_id, { text, error: b.is_error === true });
      }
    }
  }
  return out;
}

real('a new user: init in a tiny repo, install --yes on the real systemd user manager, and the timer fires a jailed wake of the real claude', async () => {
  const clients = realClients();
  if ('why' in clients) assert.unreachable(`the real clients are not installed: ${clients.why}`);
  const claude = (clients as { claude: string }).claude;
  // The built CLI that `npm test` made before any suite ran: building again here would
  // replace dist/ under the suites running beside this one.
  assert.ok(existsSync(join(ROOT, 'bin/hbgen.cjs')) && readdirSync(join(ROOT, 'dist')).some((f) => f.endsWith('.cjs')), 'the CLI is not built: run npm run build (npm test does it first)');
  M = await startUserManager('hbgen-e2e');
  const home = M.user.home;
  const own = (p: string) => spawnSync('chown', ['-R', `${M.user.uid}:${M.user.gid}`, p]);

  // The person's secret, and a git identity, as any developer has them.
  const secret = `SECRET-${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n-----END OPENSSH PRIVATE KEY-----\n`, { mode: 0o600 });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ada\n\temail = ada@example.com\n');
  // The tiny project: `npm test` runs its test offline and says so.
  const repo = join(home, 'src', 'proj');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'package.json'), `${JSON.stringify({ name: 'proj', version: '1.0.0', private: true, scripts: { test: 'node test.js' } }, null, 2)}\n`);
  writeFileSync(join(repo, 'sum.js'), 'exports.sum = (a, b) => a + b;\n');
  writeFileSync(join(repo, 'test.js'), "const assert = require('node:assert');\nconst { sum } = require('./sum.js');\nassert.strictEqual(sum(2, 3), 5);\nconsole.log('sum: 1 test passed');\n");
  // `claude` on the person's PATH, as `npm install -g` leaves it (a link to the package's binary).
  const bin = join(home, 'bin');
  mkdirSync(bin);
  symlinkSync(claude, join(bin, 'claude'));
  own(home);
  const shell = { PATH: `${bin}:/usr/bin:/bin`, USER: M.user.name, LOGNAME: M.user.name };
  for (const argv of [['git', 'init', '-q', '-b', 'main'], ['git', 'add', '-A'], ['git', 'commit', '-q', '-m', 'the project']]) {
    const r = as(repo, shell, argv);
    assert.is(r.code, 0, `${argv.join(' ')}: ${r.err}`);
  }
  const before = as(repo, shell, ['git', 'rev-parse', 'HEAD']).out.trim();

  // The stand-in model, on the host's loopback.
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-e2e-model.'));
  made.push(dir);
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ commands: ORDER }));
  const reqLog = join(dir, 'requests.jsonl');
  const addr = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  assert.ok(addr, 'this host has no routable IPv4 address for the stand-in model');
  server = spawn(process.execPath, [join(ROOT, 'test/helpers/model-standin.mjs'), join(dir, 'script.json'), reqLog], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HBTEST_LISTEN: addr } });
  const port = await new Promise<number>((ok, no) => {
    server!.stdout!.once('data', (d: Buffer) => ok(Number(String(d).trim())));
    server!.once('exit', () => no(new Error('the stand-in model did not start')));
  });

  // Quick start step 2: `hbgen init`, in the repo.
  const init = as(repo, shell, [process.execPath, HBGEN, 'init']);
  assert.is(init.code, 0, init.out + init.err);
  assert.match(init.out, /scheduler +systemd-user/, init.out);
  assert.match(init.out, /agent +Claude Code \(harness "claude-code"\)/, init.out);
  // What init leaves to the person (it never guesses them), and the test's own settings (see the top).
  const specFile = join(repo, 'hbgen.json');
  const spec = JSON.parse(readFileSync(specFile, 'utf8'));
  let at = Math.ceil((Date.now() + 45_000) / 60_000) * 60_000;
  if (new Date(at).getUTCMinutes() === 0) at += 60_000;
  spec.schedule = { ...spec.schedule, every: '1h', minute: new Date(at).getUTCMinutes(), hours: { start: '00:00', end: '24:00', timezone: 'UTC' } };
  spec.timeout = '3m';
  spec.env = { ...spec.env, ANTHROPIC_BASE_URL: `http://${addr}:${port}`, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-e2e-not-a-token' };
  spec.sandbox = { ...spec.sandbox, allowHosts: [addr!] };
  // srt is not on the person's PATH: init names hbgen's own copy (README Quick start, step 5).
  assert.match(String(spec.sandbox?.bin), /\/node_modules\/\.bin\/srt$/, JSON.stringify(spec.sandbox));
  writeFileSync(specFile, `${JSON.stringify(spec, null, 2)}\n`);
  own(specFile);
  // Quick start step 3: the mission in HEART.md (install refuses the template as init left it).
  const heart = join(repo, 'HEART.md');
  writeFileSync(heart, readFileSync(heart, 'utf8').replace(/^## Mission\n/m, '## Mission\n\nKeep the docs current.\n'));
  own(heart);

  // Quick start step 7: install (the loginctl STAND-IN first on PATH: no logind here).
  const inst = as(repo, { ...shell, PATH: `${M.linger.bin}:${shell.PATH}` }, [process.execPath, HBGEN, 'install', '--yes']);
  assert.is(inst.code, 0, inst.out + inst.err);
  assert.ok(Date.now() < at - 5_000, `install ended too late for the planned fire at ${new Date(at).toISOString()}`);

  const v = validateSpec(spec);
  if (!v.spec) assert.unreachable(v.errors.join('\n'));
  const log = names(v.spec!).log;
  // The fire, then the wake's outcome: at most 3 minutes after the planned minute.
  const ended = (t: string) => /^\S+ hbgen proj (ok|quiet|fail|timeout|error|limit)\b(?!.* smoke$).*$/m.test(t);
  const text = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  while (Date.now() < at + 180_000 && !ended(text())) await sleep(1_000);
  const requests = existsSync(reqLog) ? readFileSync(reqLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { url: string; body: string }) : [];
  run = { repo, log: text(), requests, secret, before, at, installOut: inst.out };
  if (process.env.HBTEST_KEEP) process.stderr.write(`requests: ${readFileSync(reqLog, 'utf8').slice(0, 20000)}\n`);
  assert.ok(ended(run.log), `no outcome in ${log} by ${new Date(at + 180_000).toISOString()}:\n${run.log}`);
});

function done() {
  if (!run) assert.unreachable('the run above did not get this far');
  return run!;
}

real('the install panel showed the jail on, with the stand-in\'s host the only one added', () => {
  const r = done();
  assert.match(r.installOut, /\n {2}jail +on: .*srt \(bubblewrap, seccomp and a proxy; jail\.json\)\n/, r.installOut);
  // The stand-in listens on this host's routable address (a loopback entry is refused).
  const m = /network: api\.anthropic\.com, platform\.claude\.com, (\d+\.\d+\.\d+\.\d+); nothing else;/.exec(r.installOut);
  assert.ok(m, r.installOut);
  assert.not.match(m![1]!, /^127\./);
});

real('runtime.log: the timer\'s wake (not one by hand) started in the jail and ended ok', () => {
  const r = done();
  assert.match(r.log, /^\S+ hbgen proj start wake 1 jail$/m, r.log);
  assert.not.match(r.log, /by hand/, r.log);
  assert.match(r.log, /^\S+ hbgen proj ok$/m, r.log);
});

real('the agent ran the repo\'s tests and committed their output: the commit is in the repo', () => {
  const r = done();
  const results = toolResults(r.requests);
  const tests = results.get('toolu_0');
  assert.ok(tests, `the stand-in never got the result of "${STEPS.tests}"; requests: ${r.requests.length}`);
  assert.not.ok(tests!.error, tests!.text);
  const git = (...a: string[]) => spawnSync('git', ['-c', 'safe.directory=*', '-C', r.repo, ...a], { encoding: 'utf8' }).stdout;
  assert.is(git('log', '-1', '--format=%s').trim(), 'tests pass');
  assert.is(git('rev-parse', 'HEAD~1').trim(), r.before, 'the commit is on top of the project as it was');
  const output = git('show', 'HEAD:test-output.txt');
  assert.match(output, /^sum: 1 test passed$/m, `the committed test output: ${output}`);
  assert.match(tests!.text, /tests pass/, tests!.text);
});

real('the agent could not read ~/.ssh/id_ed25519: the stand-in got the refusal, and the key is in no request', () => {
  const r = done();
  const got = toolResults(r.requests).get('toolu_1');
  assert.ok(got, `the stand-in never got the result of "${STEPS.secret}"`);
  assert.ok(got!.error, got!.text);
  assert.match(got!.text, /id_ed25519: No such file or directory/, got!.text);
  for (const q of r.requests) assert.not.ok(q.body.includes(r.secret), `the key reached the stand-in in a request to ${q.url}`);
});

real('the agent could not write outside the repo: Read-only file system, and no file there', () => {
  const r = done();
  const got = toolResults(r.requests).get('toolu_2');
  assert.ok(got, `the stand-in never got the result of "${STEPS.outside}"`);
  assert.match(got!.text, /escaped: Read-only file system[\s\S]*escaped: Read-only file system/, got!.text);
  assert.not.match(got!.text, /WROTE/, got!.text);
  assert.not.ok(existsSync(join(M.user.home, 'escaped')), '~/escaped was written');
  assert.not.ok(existsSync(join(M.user.home, 'src', 'escaped')), '~/src/escaped was written');
});

test.after(async () => {
  server?.kill();
  await M?.stop();
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

test.run();
