// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The claude-code and codex presets against the REAL clients (npm packages
// @anthropic-ai/claude-code and @openai/codex), run through the rendered heartbeat.sh with
// a temporary HOME and no credentials. Offline and logged out, an accepted command line
// gets as far as authentication (Claude Code: "Not logged in") or the network (Codex:
// reconnects until the wrapper's timeout), while a rejected flag fails at once ("unknown
// option" / exit 2). Every positive check has a negative control that shows it can fail.
// The clients are installed once into a cache under the temp folder and reused.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { names } from '../src/names.ts';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { init } from '../src/commands/init.ts';
import { EFFORTS, PERMISSION_OPTIONS, bypassArgs, harnessArgs } from '../src/harness.ts';
import { CLAUDE_MAX_TURNS, CLAUDE_MODES, CLAUDE_MODE_OPTIONS, CLAUDE_STREAM } from '../src/harness/claude-code/index.ts';
import { CODEX_APPROVALS, CODEX_SANDBOXES, CODEX_STREAM } from '../src/harness/codex/index.ts';
import type { HostIO } from '../src/host/io.ts';
import { loadSpec } from '../src/load.ts';
import { renderNow } from './helpers/render.ts';
import { JUNK_ENV, install, makeCase, run, shell } from './helpers/wrapper.ts';
import { CLIENTS_CACHE, CLIENT_PATH, clientHelps, codexUntilHeader, helpOptions, realClients, subscriptionLogin, subscriptionShim, touchesPermissions, clientTest } from './helpers/clients.ts';

// The agent's PATH: node's folder first (codex.js starts `#!/usr/bin/env node`).
const PATH = CLIENT_PATH;
const CACHE = CLIENTS_CACHE;

const found = realClients();
if ('why' in found) {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n!!! SKIPPING the real-client preset tests: ${found.why}\n!!! The claude-code and codex presets are NOT proven on this run.\n${bar}\n\n`);
}
const real = 'why' in found ? null : found;
const t = clientTest(found);
if (real) process.stdout.write(`real clients: ${real.versions} (${CACHE})\n`);

const dash = shell('dash');

// The wrapper asks the client how it bills before every wake; a real login cannot be made
// here, so a STAND-IN answers that one question as a subscription login and hands every
// other command line to the real client (test/helpers/clients.ts).
const shims = mkdtempSync(join(tmpdir(), 'hbgen-shims-'));
process.on('exit', () => rmSync(shims, { recursive: true, force: true }));
const shim = (bin: string) => subscriptionShim(join(shims, String(Math.random()).slice(2)), bin, bin.endsWith('codex') || bin.includes('codex') ? 'codex' : 'claude');

test.before(() => {
  // Nothing on this host may log the clients in.
  for (const k of Object.keys(process.env)) if (/^(ANTHROPIC_|CLAUDE_CODE_|OPENAI_|CODEX_)/.test(k)) delete process.env[k];
});

t('claude-code preset: the real claude accepts the command line and stops at "Not logged in"; no API key reaches it', async () => {
  const prompt = '--help is how this prompt starts; the preset puts -- before it';
  const c = makeCase({ path: PATH, spec: { agent: { harness: 'claude-code', bin: shim(real!.claude), model: 'sonnet', prompt }, timeout: '60s', killAfter: '2s' } });
  // The caller's environment (JUNK_ENV) holds ANTHROPIC_API_KEY and OPENAI_API_KEY: with a
  // key, claude -p does not say "Not logged in" but tries the API (see the control below).
  assert.ok(JUNK_ENV.ANTHROPIC_API_KEY);
  const r = await run(c, dash, { limitMs: 90_000 });
  const log = c.log();
  const out = c.agentLog();
  assert.is(r.code, 1, log + out);
  assert.equal(c.outcomes(), ['start wake 1', 'fail 1'], log);
  assert.match(out, /Not logged in/);
  assert.not.match(out, /unknown option|error: /i);
  // It ran in the temporary HOME the spec gave it.
  assert.ok(existsSync(join(c.dir, '.claude.json')) || existsSync(join(c.dir, '.claude')), `no Claude state in ${c.dir}: ${readdirSync(c.dir)}`);
  assert.equal(harnessArgs(c.spec.agent), ['-p', '--model', 'sonnet', '--permission-mode', 'acceptEdits', '--max-turns', String(CLAUDE_MAX_TURNS), ...CLAUDE_STREAM]);
});

t('claude-code controls: a bad flag is "unknown option"; without -- a dashed prompt is read as an option', async () => {
  const bad = makeCase({ path: PATH, spec: { agent: { harness: 'claude-code', bin: shim(real!.claude), model: 'sonnet', args: ['--no-such-flag'] }, timeout: '60s' } });
  let r = await run(bad, dash, { limitMs: 90_000 });
  assert.is(r.code, 1, bad.log() + bad.agentLog());
  assert.match(bad.agentLog(), /unknown option '--no-such-flag'/);
  assert.not.match(bad.agentLog(), /Not logged in/);
  // The same preset flags by hand (harness "command", so no --) with a prompt starting "-x".
  const agent = { harness: 'claude-code' as const, bin: real!.claude, model: 'sonnet', prompt: '', args: [] };
  const noSep = makeCase({ path: PATH, spec: { agent: { harness: 'command', bin: real!.claude, args: harnessArgs(agent), prompt: '-x marks the spot' }, timeout: '60s' } });
  r = await run(noSep, dash, { limitMs: 90_000 });
  assert.match(noSep.agentLog(), /unknown option '-x marks the spot/);
  assert.not.match(noSep.agentLog(), /Not logged in/);
});

t('billing control: with ANTHROPIC_API_KEY in its environment the same claude never says "Not logged in"', () => {
  const home = join(tmpdir(), `hbgen-agents-home-${process.pid}`);
  mkdirSync(home, { recursive: true });
  const agent = { harness: 'claude-code' as const, bin: real!.claude, model: 'sonnet', prompt: '', args: [] };
  // Run directly (not through the wrapper, which would strip the key), killed after 4 s.
  const r = spawnSync('timeout', ['-k', '1', '4', real!.claude, ...harnessArgs(agent), '--', 'hello'], {
    env: { HOME: home, PATH, ANTHROPIC_API_KEY: 'sk-ant-api03-not-a-real-key' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: home,
  });
  rmSync(home, { recursive: true, force: true });
  assert.not.match(r.stdout + r.stderr, /Not logged in/, 'the key was ignored: the check above would prove nothing');
  assert.not.match(r.stdout + r.stderr, /unknown option/);
});

t('codex preset: the real codex exec accepts the command line (jail off here: workspace-write; pinned model and provider) and waits for the network until the timeout', async () => {
  const prompt = '-x is how this prompt starts; the preset puts -- before it';
  const c = makeCase({ path: PATH, spec: { agent: { harness: 'codex', bin: shim(real!.codex), model: 'gpt-5.5', prompt }, timeout: '6s', killAfter: '2s' } });
  // codex exec refuses a folder that is not a git repository (without --skip-git-repo-check).
  assert.is(spawnSync('git', ['init', '-q', c.repo]).status, 0);
  const r = await run(c, dash, { limitMs: 60_000 });
  const log = c.log();
  const out = c.agentLog();
  assert.is(r.code, 124, log + out);
  assert.equal(c.outcomes(), ['start wake 1', 'timeout after 6s'], log);
  // With --json codex prints no settings header but its events, which the wrapper's parser
  // turns into readable lines: the turn started and met the network ("ERROR: Reconnecting"),
  // and no JSON reached the log. (The header's settings, with the same flags but --json,
  // are read by the tests below through codexHeader; the wrapper tests' specs set "sandbox":
  // false, so codex runs in its own workspace-write sandbox here.)
  assert.match(out, /^ERROR: (Reconnecting|stream disconnected|failed to connect|error sending request)/im);
  assert.not.match(log + out, /"type":"/);
  assert.equal(c.usages(), ['usage in=0 out=0 cache=0 (the stream gave none)'], log);
  assert.not.match(out, /unexpected argument|Not inside a trusted directory/);
  assert.ok(existsSync(join(c.dir, '.codex')), 'codex used the temporary HOME');
  assert.equal(harnessArgs(c.spec.agent), ['exec', '--sandbox', 'workspace-write', '-c', 'model_provider="openai"', '--model', 'gpt-5.5', ...CODEX_STREAM]);
});

t('codex controls: a bad flag exits 2 at once; without -- a dashed prompt is read as an option', async () => {
  const bad = makeCase({ path: PATH, spec: { agent: { harness: 'codex', bin: shim(real!.codex), model: 'gpt-5.5', args: ['--no-such-flag'] }, timeout: '30s' } });
  spawnSync('git', ['init', '-q', bad.repo]);
  let r = await run(bad, dash, { limitMs: 60_000 });
  assert.is(r.code, 2, bad.log() + bad.agentLog());
  assert.equal(bad.outcomes(), ['start wake 1', 'fail 2']);
  assert.match(bad.agentLog(), /unexpected argument '--no-such-flag'/);
  const agent = { harness: 'codex' as const, bin: real!.codex, model: 'gpt-5.5', prompt: '', args: [] };
  const noSep = makeCase({ path: PATH, spec: { agent: { harness: 'command', bin: real!.codex, args: harnessArgs(agent), prompt: '-x marks the spot' }, timeout: '30s' } });
  spawnSync('git', ['init', '-q', noSep.repo]);
  r = await run(noSep, dash, { limitMs: 60_000 });
  assert.is(r.code, 2, noSep.log() + noSep.agentLog());
  assert.match(noSep.agentLog(), /unexpected argument '-x'/);
});

// ---- agent.effort and the bypass flags: the real clients take the preset's
// effort flags, list the same levels as EFFORTS, and treat each refused argument as the
// blanket bypass it is.

/** claude run directly (not through the wrapper), killed after 20 s; its output. */
function claudeDirect(args: string[]): string {
  const home = mkdtempSync(join(tmpdir(), 'hbgen-agents-claude-'));
  const r = spawnSync('timeout', ['-k', '1', '20', real!.claude, ...args, '--', 'hello'], {
    env: { HOME: home, PATH },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: home,
  });
  rmSync(home, { recursive: true, force: true });
  return r.stdout + r.stderr;
}

/**
 * codex exec run directly in a fresh git repo until it has printed its settings header
 * (it then waits for the network), or until it exits; its output and exit status.
 */
function codexHeader(args: string[], setup?: (home: string) => void): Promise<{ out: string; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-agents-codex-'));
  spawnSync('git', ['init', '-q', dir]);
  setup?.(dir);
  return codexUntilHeader(real!.codex, ['exec', ...args], dir, PATH).then((r) => {
    rmSync(dir, { recursive: true, force: true });
    return r;
  });
}

const header = (out: string, key: string) => out.match(new RegExp(`^${key}: (.*)$`, 'm'))?.[1];

t('effort levels: the real claude --help and codex\'s bundled model catalog list exactly the levels hbgen accepts', () => {
  const help = spawnSync(real!.claude, ['--help'], { env: { HOME: tmpdir(), PATH }, encoding: 'utf8' }).stdout;
  const m = help.replace(/\s+/g, ' ').match(/--effort <level> Effort level for the current session \(([^)]*)\)/);
  assert.ok(m, help);
  assert.equal(m![1]!.split(', '), [...EFFORTS['claude-code']]);
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-agents-models-'));
  const cat = spawnSync(real!.codex, ['debug', 'models', '--bundled'], { env: { HOME: dir, PATH }, encoding: 'utf8', timeout: 30_000 });
  rmSync(dir, { recursive: true, force: true });
  assert.is(cat.status, 0, cat.stderr);
  const levels = new Set<string>();
  for (const model of JSON.parse(cat.stdout).models) for (const l of model.supported_reasoning_levels ?? []) levels.add(l.effort);
  assert.equal([...levels].sort(), [...EFFORTS.codex].sort());
});

t('claude-code effort: the real claude takes --effort with every level hbgen accepts and stops at "Not logged in"; a level it does not know is named and ignored (control)', async () => {
  const c = makeCase({ path: PATH, spec: { agent: { harness: 'claude-code', bin: shim(real!.claude), model: 'sonnet', effort: 'xhigh' }, timeout: '60s', killAfter: '2s' } });
  const r = await run(c, dash, { limitMs: 90_000 });
  assert.is(r.code, 1, c.log() + c.agentLog());
  assert.match(c.agentLog(), /Not logged in/);
  assert.not.match(c.agentLog(), /unknown option|Unknown --effort value|error: /i);
  assert.equal(harnessArgs(c.spec.agent), ['-p', '--model', 'sonnet', '--effort', 'xhigh', '--permission-mode', 'acceptEdits', '--max-turns', String(CLAUDE_MAX_TURNS), ...CLAUDE_STREAM]);
  for (const effort of EFFORTS['claude-code']) {
    const out = claudeDirect(harnessArgs({ harness: 'claude-code', bin: real!.claude, prompt: '', args: [], effort }));
    assert.match(out, /Not logged in/, effort);
    assert.not.match(out, /Unknown --effort value|unknown option/, `${effort}: ${out}`);
  }
  // The control: codex's "ultra" is not a claude level; claude says so and drops it.
  const out = claudeDirect(['-p', '--effort', 'ultra', '--permission-mode', 'acceptEdits']);
  assert.match(out, /Unknown --effort value 'ultra' — ignoring it and using the default effort\. Valid values: low, medium, high, xhigh, max\./);
});

t('codex effort: the real codex exec runs with the pinned model_reasoning_effort; it takes any string (so hbgen checks the level), and a malformed override fails (control)', async () => {
  for (const effort of EFFORTS.codex) {
    const args = harnessArgs({ harness: 'codex', bin: real!.codex, prompt: '', args: [], model: 'gpt-5.5', effort }).slice(1);
    let r = await codexHeader(args);
    // Once seen on a loaded machine: a run that printed nothing at all (no header, no error).
    // One more run tells a slow start from a refused command line, which prints its error.
    if (r.out.trim() === '') r = await codexHeader(args);
    assert.is(header(r.out, 'reasoning effort'), effort, r.out);
    assert.is(header(r.out, 'model'), 'gpt-5.5', r.out);
    assert.match(header(r.out, 'sandbox') ?? '', /^workspace-write/, r.out);
  }
  const bogus = await codexHeader(['-c', 'model_reasoning_effort="bogus"']);
  assert.is(header(bogus.out, 'reasoning effort'), 'bogus', 'codex takes any level: if it now refuses one, EFFORTS may lean on it');
  let r = await codexHeader(['-c', 'model_reasoning_effort']);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /Invalid override \(missing '='\): model_reasoning_effort/);
  r = await codexHeader(['-c', 'model_reasoning_effort=["high"]']);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /invalid type: sequence, expected a string/);
});

t('bypass flags: every codex form hbgen refuses runs the real codex with no sandbox; the preset and a workspace-write override keep it (control)', async () => {
  const forms = [
    ['--yolo'],
    ['--dangerously-bypass-approvals-and-sandbox'],
    ['--sandbox', 'danger-full-access'],
    ['--sandbox=danger-full-access'],
    ['-s', 'danger-full-access'],
    ['-sdanger-full-access'],
    ['-c', 'sandbox_mode=danger-full-access'],
    ['-csandbox_mode="danger-full-access"'],
    ['--config', " sandbox_mode = 'danger-full-access' "],
    ['--config=sandbox_mode="danger-full-access"'],
  ];
  for (const args of forms) {
    assert.is(bypassArgs(args).length, 1, `hbgen refuses ${args.join(' ')}`);
    const r = await codexHeader(args);
    assert.is(header(r.out, 'sandbox'), 'danger-full-access', `${args.join(' ')}: ${r.out}`);
  }
  for (const args of [[], ['-c', 'sandbox_mode="workspace-write"']]) {
    assert.equal(bypassArgs(args), []);
    const r = await codexHeader([...harnessArgs({ harness: 'codex', bin: real!.codex, prompt: '', args: [] }).slice(1), ...args]);
    assert.match(header(r.out, 'sandbox') ?? '', /^workspace-write/, r.out);
  }
});

// Codex 0.171's trust-widening flags are live (the real codex exec accepts
// each and starts), and hbgen refuses each in agent.args, as it refuses any -c that chooses
// or defines the model provider.
t('trust flags: the real codex exec accepts --dangerously-bypass-hook-trust, --trust and --approve-for-me; hbgen refuses them and every -c model_provider(s) override', async () => {
  for (const flag of ['--dangerously-bypass-hook-trust', '--trust', '--approve-for-me']) {
    assert.is(bypassArgs([flag]).length, 1, `hbgen refuses ${flag}`);
    assert.match(bypassArgs([flag])[0]!.message, new RegExp(`^${flag} .*; remove it`));
    const r = await codexHeader([flag]);
    assert.match(r.out, /^session id: /m, `${flag} is accepted by codex: ${r.out}`);
  }
  for (const args of [['-c', 'model_provider="metered"'], ['-cmodel_provider=azure'], ['--config', 'model_providers.x.base_url="http://127.0.0.1:9"'], ['--config=model_providers={}'], ['-c', 'profiles.p.model_provider="x"']]) {
    assert.is(bypassArgs(args).length, 1, `hbgen refuses ${args.join(' ')}`);
  }
  assert.equal(bypassArgs(['-c', 'model_reasoning_effort="high"', '--skip-git-repo-check', '-c', 'model_provider="openai"']), [], 'control: the preset\'s own pin is allowed');
});

// A provider in ~/.codex/config.toml moves codex off the ChatGPT login
// ("Logged in using ChatGPT" still); the preset's -c model_provider="openai" moves it back,
// and codex itself refuses a config that redefines the built-in "openai".
t('codex provider pin: the real codex exec runs a config\'s metered provider without the pin, "openai" with the preset\'s argv; redefining "openai" is refused by codex', async () => {
  const metered = (home: string) => {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex', 'config.toml'), 'model_provider = "metered"\n[model_providers.metered]\nname = "m"\nbase_url = "http://127.0.0.1:9/v1"\nexperimental_bearer_token = "sk-test"\n');
  };
  const preset = harnessArgs({ harness: 'codex', bin: real!.codex, prompt: '', args: [] }).slice(1);
  assert.ok(preset.join(' ').includes('-c model_provider="openai"'), preset.join(' '));
  let r = await codexHeader([], metered);
  assert.is(header(r.out, 'provider'), 'metered', `control: the config switches the provider: ${r.out}`);
  r = await codexHeader(preset, metered);
  assert.is(header(r.out, 'provider'), 'openai', r.out);
  r = await codexHeader(preset, (home) => {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex', 'config.toml'), '[model_providers.openai]\nname = "o"\nbase_url = "http://127.0.0.1:9/v1"\n');
  });
  assert.match(r.out, /Built-in providers cannot be overridden/, r.out);
  assert.not.match(r.out, /^session id: /m, r.out);
});

// The codex model the README, docs/, the fixtures and these tests name is one
// codex 0.171 lists (`codex debug models --bundled`).
t('codex model: every codex model the README, docs/ and the codex fixture name is in the real codex\'s bundled catalog', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-agents-models-'));
  const cat = spawnSync(real!.codex, ['debug', 'models', '--bundled'], { env: { HOME: dir, PATH }, encoding: 'utf8', timeout: 30_000 });
  rmSync(dir, { recursive: true, force: true });
  const slugs = new Set<string>(JSON.parse(cat.stdout).models.map((m: { slug: string }) => m.slug));
  const root = join(import.meta.dirname, '..');
  const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const named = pages.flatMap((p) => [...readFileSync(join(root, p), 'utf8').matchAll(/"(gpt-[a-z0-9.-]+)"/g)].map((m) => m[1]!));
  named.push(JSON.parse(readFileSync(join(root, 'fixtures/specs/codex.json'), 'utf8')).agent.model);
  assert.ok(named.length >= 2, String(named));
  for (const m of named) assert.ok(slugs.has(m), `${m} is not in codex debug models --bundled: ${[...slugs].join(' ')}`);
});

t('bypass flags: every claude form hbgen refuses is the real claude\'s bypass (as root it refuses to start with it); the preset\'s acceptEdits is not (control)', () => {
  const root = process.getuid!() === 0;
  for (const args of [['--dangerously-skip-permissions'], ['--allow-dangerously-skip-permissions'], ['--permission-mode', 'bypassPermissions'], ['--permission-mode=bypassPermissions']]) {
    assert.is(bypassArgs(args).length, 1, `hbgen refuses ${args.join(' ')}`);
    const out = claudeDirect(['-p', ...args]);
    assert.not.match(out, /unknown option|is invalid/, out);
    if (root) assert.match(out, /--dangerously-skip-permissions cannot be used with root\/sudo privileges/, `${args.join(' ')}: ${out}`);
    else assert.match(out, /Not logged in/, out);
  }
  const out = claudeDirect(harnessArgs({ harness: 'claude-code', bin: real!.claude, prompt: '', args: [] }));
  assert.match(out, /Not logged in/);
  assert.not.match(out, /root\/sudo/);
});

t('bypass list in step with the pinned clients: every --help option about permissions, the sandbox, approvals or trust, and every value it lists, is known to hbgen', () => {
  const values: Record<string, Readonly<Record<string, 'bypass' | 'ok'>>> = {
    ...Object.fromEntries(CLAUDE_MODE_OPTIONS.map((o) => [o, CLAUDE_MODES])),
    '--sandbox': CODEX_SANDBOXES,
    '--ask-for-approval': CODEX_APPROVALS,
  };
  const helps = clientHelps(real!);
  let seen = 0;
  for (const client of ['claude-code', 'codex'] as const) {
    const known = PERMISSION_OPTIONS[client];
    for (const help of helps[client]) {
      for (const o of helpOptions(help).filter(touchesPermissions)) {
        seen++;
        const name = o.names.find((n) => n.startsWith('--'))!;
        assert.ok(Object.hasOwn(known, name), `${client} --help lists ${name} (${o.text.slice(0, 160)}), which src/harness.ts PERMISSION_OPTIONS does not know: classify it (and refuse it in bypassArgs if it bypasses)`);
        for (const v of o.values) {
          if (name === '--permission-prompts') continue; // who answers a prompt; denied with no host
          assert.ok(values[name] && Object.hasOwn(values[name], v), `${client} --help lists ${name} ${v}, which src/harness.ts does not know: classify it`);
        }
      }
    }
  }
  assert.ok(seen >= 8, `the --help parser found ${seen} options`);
  // Every bypass the list knows is refused, in every form the clients take.
  for (const client of ['claude-code', 'codex'] as const) {
    for (const [flag, kind] of Object.entries(PERMISSION_OPTIONS[client])) if (kind === 'bypass') assert.is(bypassArgs([flag]).length, 1, `hbgen refuses ${flag}`);
  }
  for (const [flag, table] of Object.entries(values)) {
    for (const [v, kind] of Object.entries(table)) {
      const n = kind === 'bypass' ? 1 : 0;
      assert.is(bypassArgs([flag, v]).length, n, `${flag} ${v}`);
      assert.is(bypassArgs([`${flag}=${v}`]).length, n, `${flag}=${v}`);
    }
  }
});

t('bypass flags: the real claude takes the hidden --inherit-permission-mode bypassPermissions (as root it refuses to start with it), which hbgen refuses', () => {
  for (const args of [['--inherit-permission-mode', 'bypassPermissions'], ['--inherit-permission-mode=bypassPermissions']]) {
    assert.equal(bypassArgs(args).map((b) => b.index), [0], `hbgen refuses ${args.join(' ')}`);
    const out = claudeDirect(['-p', ...args]);
    assert.not.match(out, /unknown option|is invalid/, out);
    if (process.getuid!() === 0) assert.match(out, /cannot be used with root\/sudo privileges/, `${args.join(' ')}: ${out}`);
  }
  assert.equal(bypassArgs(['--inherit-permission-mode', 'acceptEdits']), [], 'control: a mode with checks passes');
});

t('Claude settings: the real claude (as root) takes a bypass from the repo\'s .claude/settings.json or --settings JSON unless the preset\'s --permission-mode acceptEdits is given, which install refuses either way', () => {
  const bypass = JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } });
  assert.is(bypassArgs(['--settings', bypass]).length, 1);
  assert.match(claudeDirect(['-p', '--settings', bypass]), /cannot be used with root\/sudo privileges/);
  const repo = mkdtempSync(join(tmpdir(), 'hbgen-agents-settings-'));
  mkdirSync(join(repo, '.claude'));
  writeFileSync(join(repo, '.claude', 'settings.json'), bypass);
  const inRepo = (args: string[]) => {
    const r = spawnSync('timeout', ['-k', '1', '20', real!.claude, ...args, '--', 'hello'], { env: { HOME: repo, PATH }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: repo });
    return r.stdout + r.stderr;
  };
  assert.match(inRepo(['-p']), /cannot be used with root\/sudo privileges/, 'the repo setting is a live bypass without the preset');
  const preset = inRepo(harnessArgs({ harness: 'claude-code', bin: real!.claude, prompt: '', args: [] }));
  assert.match(preset, /Not logged in/);
  assert.not.match(preset, /root\/sudo/);
  rmSync(repo, { recursive: true, force: true });
});

// The README's quick start with the real clients: hbgen init (answers on a terminal) →
// render → the wrapper, in a fresh git repo with a temporary HOME.
for (const which of ['claude', 'codex'] as const) {
  t(`quick start with the real ${which}: init finds it on PATH, the rendered wrapper runs it`, async () => {
    const dir = mkdtempSync(join(tmpdir(), `hbgen-quick-${which}-`));
    const repo = join(dir, 'repo');
    const home = join(dir, 'home');
    mkdirSync(home, { recursive: true });
    // Logged in on the plan as far as the real client can tell (credential files made by the
    // test), so that the wrapper's billing check lets the agent start.
    subscriptionLogin(home, which === 'claude' ? 'claude-code' : 'codex');
    spawnSync('git', ['init', '-q', repo]);
    // Only the one client on PATH (init would ask which one when it finds both).
    const only = join(dir, 'path');
    mkdirSync(only);
    symlinkSync(join(CACHE, 'node_modules', '.bin', which), join(only, which));
    const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
    stdin.isTTY = true;
    // the agent found (not "command"), every 1h, 00:00 to 24:00, every day, timeout 20s
    // (codex waits for the network until then; the billing check and codex's start-up must
    // fit before it on a busy machine).
    stdin.end(['a', '1h', '00:00', 'd', 'a', '20s'].map((l) => `${l}\n`).join(''));
    let said = '';
    const io: HostIO = {
      env: { HOME: home, PATH: `${only}:${PATH}`, USER: 'ada', LOGNAME: 'ada', TZ: 'Europe/Berlin' },
      uid: process.getuid!(),
      user: 'ada',
      cwd: repo,
      stdin,
      out: (x) => (said += x),
      err: () => {},
      now: () => new Date(),
    };
    assert.is(await init({}, io), 0);
    assert.match(said, /hbgen\.json is complete/, said);
    const loaded = loadSpec(join(repo, 'hbgen.json'));
    assert.is(loaded.agent.bin, which === 'claude' ? real!.claude : real!.codex);
    // The presets' command lines against the real clients, without the jail: the
    // clients inside the jail are the jail-clients work's tests (src/jail-clients.ts).
    const spec = { ...loaded, sandbox: false as const };
    const r = renderNow(spec);
    const state = names(spec).stateDir;
    install(state, Object.fromEntries(r.files.map((f) => [f.path, f.content])));
    const res = await run(null, dash, { script: join(state, 'heartbeat.sh'), limitMs: 60_000 });
    const log = readFileSync(join(state, 'runtime.log'), 'utf8');
    const out = readFileSync(join(state, 'agent.log'), 'utf8');
    // The real client's own status command passed the wrapper's billing check; its tokens are
    // not real, so the agent then waits for the network until the timeout.
    assert.not.match(log, /error billing/);
    assert.match(log, / start wake 1$/m);
    // codex 0.171 gives up on its own after its reconnect rounds (about 20 s here, so as long
    // as the timeout): then its last word is the network's, and it exits 1.
    const gaveUp = which === 'codex' && res.code === 1 && /^ERROR: workspace routing discovery failed$/m.test(out);
    assert.ok(res.code === 124 || gaveUp, log + out);
    if (which === 'claude') {
      assert.not.match(out, /Not logged in/);
    } else {
      // codex exec --json prints events, no header or prompt echo: the wrapper's parser
      // writes its errors readably to agent.log (the turn ran and met the network), and no JSON.
      assert.match(out, /^ERROR: (Reconnecting|stream disconnected|failed to connect|error sending request)/im, out);
      assert.not.match(log + out, /"type":"/);
    }
    assert.not.match(out, /unknown option|unexpected argument/);
    rmSync(dir, { recursive: true, force: true });
  });
}

test.run();
