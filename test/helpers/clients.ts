// The agent clients for the tests: the REAL ones from npm (installed once into a cache
// under the temp folder), logins the real clients read as the user's plan (credential
// files made by the test: no real login can be made here), and STAND-INS that answer the
// clients' status commands exactly as the real clients do for a subscription login.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The clients' versions, pinned in one place (test/clients.json), so that a new release
 * changes no test run by itself; `npm run clients:upgrade` moves the pin on purpose
 * (test/clients-upgrade.ts).
 */
export const PIN_FILE = join(import.meta.dirname, '..', 'clients.json');
export type Pins = Record<'@anthropic-ai/claude-code' | '@openai/codex', string>;
export function readPins(): Pins {
  return JSON.parse(readFileSync(PIN_FILE, 'utf8')) as Pins;
}
export const PINS = readPins();
/** npm's package@version words for the pins. */
export const pinnedSpecs = (pins: Pins): string[] => Object.entries(pins).map(([n, v]) => `${n}@${v}`);
/** The cache folder of a pin: its name carries the versions, so a changed pin installs afresh. */
export const cacheFor = (pins: Pins): string => join(tmpdir(), `hbgen-agent-clients-claude-code@${pins['@anthropic-ai/claude-code']}-codex@${pins['@openai/codex']}`);

// HBTEST_AGENT_CLIENTS: another cache folder (e.g. to see the skip when npm cannot install).
export const CLIENTS_CACHE = process.env.HBTEST_AGENT_CLIENTS ?? cacheFor(PINS);
const PACKAGES = pinnedSpecs(PINS);
/** The clients' PATH: node's folder first (codex.js starts `#!/usr/bin/env node`). */
export const CLIENT_PATH = [...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':');

function version(bin: string): string | null {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { HOME: tmpdir(), PATH: CLIENT_PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The real executables of these pins, installed into CACHE once; or why they are not there. */
export function realClients(pins: Pins = PINS, cache = pins === PINS ? CLIENTS_CACHE : cacheFor(pins)): { claude: string; codex: string; versions: string } | { why: string } {
  const packages = pinnedSpecs(pins);
  const bin = (dir: string, n: string) => join(dir, 'node_modules', '.bin', n);
  const ready = (dir: string) => existsSync(bin(dir, 'claude')) && existsSync(bin(dir, 'codex'));
  if (!ready(cache)) {
    // Install beside the cache and rename it into place: a second test run never sees a
    // half-installed cache.
    const tmp = `${cache}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const r = spawnSync('npm', ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (r.status !== 0 || !ready(tmp)) {
      rmSync(tmp, { recursive: true, force: true });
      return { why: `npm install ${packages.join(' ')} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-3).join(' | ')}` };
    }
    try {
      renameSync(tmp, cache);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another run won the race
    }
  }
  // The real files, not the node_modules/.bin symlinks.
  const claude = realpathSync(bin(cache, 'claude'));
  const codex = realpathSync(bin(cache, 'codex'));
  const vc = version(claude);
  const vx = version(codex);
  if (!vc || !vx) return { why: `the cached clients in ${cache} do not start (claude --version: ${vc}, codex --version: ${vx}); delete that folder to reinstall` };
  // The cache must hold the pins (a folder given by HBTEST_AGENT_CLIENTS may not).
  const wantC = pins['@anthropic-ai/claude-code'];
  const wantX = pins['@openai/codex'];
  if (!vc.startsWith(`${wantC} `) || !vx.endsWith(` ${wantX}`)) {
    return { why: `the cached clients in ${cache} are ${vc}; ${vx}, not the pinned ${wantC} and ${wantX} (test/clients.json); delete that folder to reinstall` };
  }
  return { claude, codex, versions: `${vc}; ${vx}` };
}

/**
 * What `claude auth status` prints for a Claude Max subscription login: the fields and their
 * order as Claude Code 2.1.197 prints them (JSON.stringify with 2 spaces; seen from the real
 * client reading a login file, see subscriptionLogin), with an email and organisation as a
 * logged-in account has them.
 */
export const CLAUDE_SUBSCRIPTION_STATUS = `${JSON.stringify(
  { loggedIn: true, authMethod: 'claude.ai', apiProvider: 'firstParty', email: 'ada@example.com', orgId: '6c0b8f5e-1d2a-4c3b-9e8f-0a1b2c3d4e5f', orgName: "ada@example.com's Organization", subscriptionType: 'max' },
  null,
  2,
)}\n`;
/** What `codex login status` prints (on stderr) for a ChatGPT login, codex 0.171. */
export const CODEX_CHATGPT_STATUS = 'Logged in using ChatGPT\n';

/**
 * sh lines that answer the clients' own questions as a subscription login does (`--version`,
 * `auth --help`, `auth status`, `login status`) and fall through otherwise: the start of a
 * STAND-IN client, followed by what it does as the agent.
 */
export function subscriptionAnswers(): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    'case "$1 ${2-}" in',
    `  'auth status') printf '%s' ${q(CLAUDE_SUBSCRIPTION_STATUS)}; exit 0 ;;`,
    `  'login status') printf '%s' ${q(CODEX_CHATGPT_STATUS)} >&2; exit 0 ;;`,
    `  'auth --help') printf '%s\\n' 'Usage: claude auth [options] [command]' '' 'Commands:' '  login [options]   Sign in to your Anthropic account' '  logout            Log out from your Anthropic account' '  status [options]  Show authentication status'; exit 0 ;;`,
    `  '--version '*) echo '2.1.197 (Claude Code)'; exit 0 ;;`,
    'esac',
    '',
  ].join('\n');
}

/**
 * A STAND-IN in front of a real client: it answers the status command as a subscription
 * login and hands every other command line to the real client unchanged (so that the
 * preset's flags are still proven by the real client, past the wrapper's billing check).
 */
export function subscriptionShim(dir: string, realBin: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${subscriptionAnswers()}exec '${realBin.replace(/'/g, `'\\''`)}' "$@"\n`);
  chmodSync(p, 0o755);
  return p;
}

const b64url = (s: string) => Buffer.from(s).toString('base64url');

/**
 * Credential files under HOME that the REAL client reads as a login on the plan (made by the
 * test; the tokens are not real, so nothing can be sent with them): Claude Code's
 * ~/.claude/.credentials.json with a claude.ai OAuth login of the given subscription, and
 * codex's ~/.codex/auth.json with a ChatGPT login (an unsigned id token of a Plus plan).
 * Claude Code 2.1.197 then says authMethod "claude.ai" with that subscriptionType, and codex
 * 0.171 "Logged in using ChatGPT", both offline.
 */
export function subscriptionLogin(home: string, client: 'claude-code' | 'codex', subscription = 'max'): void {
  if (client === 'claude-code') {
    mkdirSync(join(home, '.claude'), { recursive: true });
    const expiresAt = Date.now() + 30 * 86_400_000;
    writeFileSync(
      join(home, '.claude', '.credentials.json'),
      JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat01-test-not-a-token', refreshToken: 'sk-ant-ort01-test', expiresAt, scopes: ['user:inference', 'user:profile'], subscriptionType: subscription } }),
      { mode: 0o600 },
    );
    return;
  }
  mkdirSync(join(home, '.codex'), { recursive: true });
  const jwt = `${b64url('{"alg":"RS256","typ":"JWT"}')}.${b64url(JSON.stringify({ email: 'ada@example.com', 'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: 'acct-test' }, exp: 4102444800 }))}.c2ln`;
  writeFileSync(
    join(home, '.codex', 'auth.json'),
    JSON.stringify({ OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: 'rt-test', account_id: 'acct-test' }, last_refresh: '2026-12-01T00:00:00Z' }),
    { mode: 0o600 },
  );
}

/**
 * Runs the real codex with ARGV and the prompt "hello" in DIR (a git repo, also its HOME),
 * in a process group of its own, until its header's `session id:` line (it then waits for
 * the network) or its exit, 30 s at most; its whole output and exit status. The preset's
 * --json is left out: with it codex prints events and no settings header, which
 * is what the callers read (test/stream.test.ts runs the real codex with --json).
 */
export function codexUntilHeader(codex: string, argv: string[], dir: string, path: string): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve) => {
    const p = spawn(codex, [...argv.filter((a) => a !== '--json'), '--', 'hello'], { env: { HOME: dir, PATH: path }, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const stop = () => {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const limit = setTimeout(stop, 30_000);
    const take = (b: Buffer) => {
      out += b.toString();
      if (/^session id: /m.test(out)) stop();
    };
    p.stdout.on('data', take);
    p.stderr.on('data', take);
    p.on('close', (code) => {
      clearTimeout(limit);
      resolve({ out, code });
    });
  });
}

/** One option of a client's --help: its names (-s, --sandbox), its whole text, the values it lists. */
export interface HelpOption {
  names: string[];
  text: string;
  values: string[];
}

/**
 * The options of a --help text (Claude Code's commander or codex's clap): every entry under
 * an "Options:" heading, its wrapped description joined, and the values it lists
 * ("(choices: "a", "b")", "[possible values: a, b]" or clap's "Possible values:" bullets).
 */
export function helpOptions(help: string): HelpOption[] {
  const out: HelpOption[] = [];
  let inOptions = false;
  let cur: HelpOption | undefined;
  for (const line of help.split('\n')) {
    if (/^\S/.test(line)) {
      inOptions = /^Options:/.test(line);
      cur = undefined;
      continue;
    }
    if (!inOptions) continue;
    const m = /^ {2,8}((?:-[A-Za-z0-9], )?--?[A-Za-z0-9][\w-]*(?:, --[\w-]+)*)(.*)$/.exec(line);
    if (m && !/^ {9,}/.test(line)) {
      cur = { names: m[1]!.split(', ').map((n) => n.trim()), text: m[2]!.trim(), values: [] };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    cur.text += ` ${line.trim()}`;
    const bullet = /^\s+- ([\w-]+):/.exec(line);
    if (bullet) cur.values.push(bullet[1]!);
  }
  for (const o of out) {
    const choices = /\(choices: ([^)]*)\)/.exec(o.text);
    if (choices) o.values.push(...[...choices[1]!.matchAll(/"([^"]*)"/g)].map((v) => v[1]!));
    const possible = /\[possible values: ([^\]]*)\]/.exec(o.text);
    if (possible) o.values.push(...possible[1]!.split(',').map((v) => v.trim()));
  }
  return out;
}

/** The --help texts the bypass list is kept in step with: claude --help; codex --help and codex exec --help. */
export function clientHelps(real: { claude: string; codex: string }): Record<'claude-code' | 'codex', string[]> {
  const help = (bin: string, args: string[]) => {
    const home = mkdtempSync(join(tmpdir(), 'hbgen-help-'));
    try {
      const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000, env: { HOME: home, PATH: CLIENT_PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
      return r.stdout;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
  return { 'claude-code': [help(real.claude, ['--help'])], codex: [help(real.codex, ['--help']), help(real.codex, ['exec', '--help'])] };
}

/** Whether a --help option is about permission checks, a bypass, the sandbox, approvals or trust. */
export const touchesPermissions = (o: HelpOption): boolean => /permission|bypass|danger|sandbox|approv|trust|yolo/i.test(`${o.names.join(' ')} ${o.text}`);

/**
 * uvu's `test` when the pinned clients are installed (`found` from realClients), else a
 * `test` whose every case fails saying why: a suite of the real clients never passes by
 * running nothing.
 */
export function clientTest(found: ReturnType<typeof realClients>): typeof test {
  if (!('why' in found)) return test;
  const failing = (name: string) => test(name, () => assert.unreachable(`the pinned agent clients are not installed: ${found.why}`));
  return failing as unknown as typeof test;
}
