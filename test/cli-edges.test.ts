// Through the built CLI (bin/hbgen.cjs) as a user meets them:
// a spec file that holds JSON but not an object, and a reader that closes the pipe early
// (`hbgen status | head -1`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HBGEN, hbgen } from './helpers/cli.ts';

let tmp = '';
test.before.each(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hbgen-edges-'));
});
test.after.each(() => rmSync(tmp, { recursive: true, force: true }));

/** A host of its own: HOME, a repo, an agent and a cron spec whose state folder is outside the repo. */
function host(): { env: NodeJS.ProcessEnv; spec: string; state: string } {
  const home = join(tmp, 'home');
  const state = join(tmp, 'state');
  for (const d of [home, state, join(tmp, 'repo')]) mkdirSync(d);
  writeFileSync(join(tmp, 'agent'), '#!/bin/sh\necho agent ran\n', { mode: 0o755 });
  const spec = join(tmp, 'hbgen.json');
  writeFileSync(
    spec,
    JSON.stringify({
      version: 1,
      name: 'docs',
      repo: join(tmp, 'repo'),
      agent: { harness: 'command', bin: join(tmp, 'agent'), prompt: 'Do one chunk.' },
      schedule: { scheduler: 'cron', every: '30m', minute: 7, hostTimezone: 'Etc/UTC', hours: { start: '08:00', end: '23:00', timezone: 'Etc/UTC' } },
      timeout: '10m',
      env: { HOME: home, PATH: '/usr/bin:/bin' },
      stateDir: state,
    }),
  );
  return { env: { HOME: home, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' }, spec, state };
}

// ------------------------------------------------------------------ every command, every fault

const COMMANDS: [string, (spec: string) => string[]][] = [
  ['render', (s) => ['render', s]],
  ['check', (s) => ['check', s, tmp]],
  ['install', (s) => ['install', s, '--yes']],
  ['status', (s) => ['status', s]],
  ['stop', (s) => ['stop', s]],
  ['resume', (s) => ['resume', s, '--yes']],
  ['wake', (s) => ['wake', s]],
  ['log', (s) => ['log', s]],
  ['plan', (s) => ['plan', s]],
];

test('a spec that is null, [], "x", 42 or true is one line naming the file (must be a JSON object), exit 1, in every command that reads a spec', () => {
  const env = { HOME: join(tmp, 'home'), PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
  mkdirSync(env.HOME);
  for (const value of ['null', '[]', '"x"', '42', 'true']) {
    const file = join(tmp, 'hbgen.json');
    writeFileSync(file, `${value}\n`);
    for (const [name, args] of COMMANDS) {
      const r = hbgen(args(file), { env, cwd: tmp });
      const what = `${name} with ${value}`;
      assert.is(r.stderr, `hbgen: ${file}: (spec): must be a JSON object holding the spec; see \`hbgen schema\`\n`, what);
      assert.is(r.code, 1, what);
      assert.is(r.stdout, '', what);
    }
  }
});

// ------------------------------------------------------------------ a closed stdout

/**
 * Run hbgen with its stdout on a pipe into `head -1` that is already closed: the shell
 * writes a first line, then probes the pipe until a write fails (head has read its line and
 * exited), and only then starts hbgen, so its first write meets the closed pipe every time.
 * SIGPIPE is ignored for the probes only as far as sh goes (Node ignores it anyway).
 */
function intoClosedPipe(args: string[], env: NodeJS.ProcessEnv): { code: number; stderr: string; head: string } {
  const rc = join(tmp, 'rc');
  const script = '{ trap "" PIPE; echo first; while echo probe 2>/dev/null; do sleep 0.02; done; "$@"; echo $? > "$HBGEN_RC"; } | head -1';
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', process.execPath, HBGEN, ...args], { env: { ...env, HBGEN_RC: rc }, cwd: tmp, encoding: 'utf8', timeout: 60_000 });
  return { code: Number(readFileSync(rc, 'utf8')), stderr: r.stderr, head: r.stdout };
}

test('render, status, log and list with stdout into `head -1` that closed early end quietly: their own exit status, their usual stderr, no stack trace', () => {
  const h = host();
  const lines: string[] = [];
  for (let i = 1; i <= 200; i++) lines.push(`2025-01-0${1 + (i % 5)}T09:07:00Z hbgen docs start wake ${i}`, `2025-01-0${1 + (i % 5)}T09:08:00Z hbgen docs ok`);
  writeFileSync(join(h.state, 'runtime.log'), `${lines.join('\n')}\n`);
  for (const args of [['render', h.spec], ['status', h.spec], ['log', h.spec], ['list']]) {
    const what = args[0]!;
    // The same command read to its end: what it says on stderr and how it exits.
    const full = hbgen(args, { env: h.env, cwd: tmp });
    assert.ok(full.stdout.length > 0, `${what} writes to stdout, so the closed pipe is met`);
    assert.not.match(full.stderr, /EPIPE|\n\s+at /, what);
    const r = intoClosedPipe(args, h.env);
    assert.is(r.head, 'first\n', what);
    assert.not.match(r.stderr, /EPIPE|node:events|Unhandled|\n\s+at /, `${what}: no stack trace:\n${r.stderr}`);
    assert.is(r.stderr, full.stderr, `${what}: stderr holds only what the command always says there`);
    assert.is(r.code, full.code, `${what}: the exit status it has when read to the end`);
  }
  // status, log and list say nothing on stderr, so nothing at all appears there.
  for (const args of [['status', h.spec], ['list']]) assert.is(intoClosedPipe(args, h.env).stderr, '', args[0]);
});

test('other failures to write stdout (a full disk) are still one line on stderr and a failing exit', () => {
  const h = host();
  const r = spawnSync('/bin/sh', ['-c', '"$@" > /dev/full', 'sh', process.execPath, HBGEN, 'render', h.spec], { env: h.env, cwd: tmp, encoding: 'utf8' });
  assert.is(r.status, 74);
  assert.match(r.stderr, /^hbgen: the output could not be written \(ENOSPC\); check where standard output goes \(a full disk, a closed file\)$/m);
  assert.not.match(r.stderr, /\n\s+at /);
});

test.run();
