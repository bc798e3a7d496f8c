// install's safety envelope on a temporary host (HOME, repo and stand-in tools in a temp
// folder; install runs in-process with --dry-run, so nothing on the real host is touched):
// the invoking shell's credentials, classified by src/credentials.ts (refused for the
// clients that read them, never a setting without a credential), Claude Code's settings
// files (a blanket bypass, an apiKeyHelper, a credential in their env block, a file that
// is not JSON) and the panel's agent rows (permission mode or sandbox, model, effort, tiers).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { credential } from '../src/credentials.ts';
import { hb, makeHost, rewriteSpec, tree, type Host } from './helpers/lifecycle.ts';

type Harness = 'claude-code' | 'codex' | 'command';
const HARNESSES: Harness[] = ['claude-code', 'codex', 'command'];
const NOTHING = 'hbgen: nothing was changed on this host\n';

function host(harness: Harness, agent: Record<string, unknown> = {}): Host {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness, bin: h.bin, prompt: 'Do one chunk.', ...agent } as never });
  return h;
}

const dryRun = (h: Host, env: Record<string, string> = {}) => hb(h, 'install', { dryRun: true, env });

const shellRefusal = (name: string) => {
  const c = credential(name)!;
  return `hbgen: ${name}, set in this shell, is ${c.what}: ${c.bills}; the wrapper strips it from the agent, but a run of the agent from this shell would not: run \`unset ${name}\` (and remove it from your shell profile), then install again\n`;
};

// name → the harnesses whose install refuses it in the shell (command: every credential).
const SHELL: [string, Harness[]][] = [
  ['ANTHROPIC_API_KEY', ['claude-code', 'command']],
  ['ANTHROPIC_AUTH_TOKEN', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_BEDROCK', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_VERTEX', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_FOUNDRY', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_ANTHROPIC_AWS', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_MANTLE', ['claude-code', 'command']],
  ['CLAUDE_CODE_USE_GATEWAY', ['claude-code', 'command']],
  ['OPENAI_API_KEY', ['codex', 'command']],
  ['CODEX_API_KEY', ['codex', 'command']],
  ['AZURE_OPENAI_API_KEY', ['codex', 'command']],
  ['AWS_ACCESS_KEY_ID', HARNESSES],
  ['AWS_SECRET_ACCESS_KEY', HARNESSES],
  ['AWS_SESSION_TOKEN', HARNESSES],
  ['AWS_BEARER_TOKEN_BEDROCK', HARNESSES],
  ['GOOGLE_APPLICATION_CREDENTIALS', HARNESSES],
  ['GEMINI_API_KEY', ['command']],
];

test('shell: each credential is refused, with what it is and why it bills, for the harnesses whose client reads it', async () => {
  const hosts = Object.fromEntries(HARNESSES.map((x) => [x, host(x)])) as Record<Harness, Host>;
  for (const [name, refusedFor] of SHELL) {
    for (const harness of HARNESSES) {
      const h = hosts[harness];
      const r = await dryRun(h, { [name]: 'sk-test-123' });
      if (refusedFor.includes(harness)) {
        assert.is(r.code, 1, `${harness} ${name}`);
        assert.is(r.err, `${shellRefusal(name)}${NOTHING}`, `${harness} ${name}`);
        assert.is((await dryRun(h, { [name]: '' })).code, 0, `${harness} ${name}: an empty variable is no credential`);
      } else {
        assert.is(r.code, 0, `${harness} ${name}: ${r.err}`);
      }
    }
  }
  // The exact sentence once, written out.
  const r = await dryRun(hosts['claude-code'], { CLAUDE_CODE_USE_BEDROCK: '1' });
  assert.is(
    r.err,
    "hbgen: CLAUDE_CODE_USE_BEDROCK, set in this shell, is Claude Code's switch to Amazon Bedrock: Claude Code then sends every request there and bills it per token to that account instead of your subscription; the wrapper strips it from the agent, but a run of the agent from this shell would not: run `unset CLAUDE_CODE_USE_BEDROCK` (and remove it from your shell profile), then install again\n" +
      NOTHING,
  );
});

test('shell: two credentials, one refusal each', async () => {
  const r = await dryRun(host('command'), { OPENAI_API_KEY: 'x', AWS_SESSION_TOKEN: 'y', AWS_REGION: 'eu-west-1' });
  assert.is(r.code, 1);
  assert.is(r.err, `${shellRefusal('AWS_SESSION_TOKEN')}${shellRefusal('OPENAI_API_KEY')}${NOTHING}`);
});

test('shell: settings without a credential pass for every harness, and nothing is called "an inherited API key"', async () => {
  const env = { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1', AWS_CA_BUNDLE: '/etc/ssl/corp.pem', AWS_PROFILE: 'dev', AZURE_OPENAI_ENDPOINT: 'https://x', ANTHROPIC_BASE_URL: 'https://x', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-x' };
  for (const harness of HARNESSES) {
    for (const [k, v] of Object.entries(env)) {
      const r = await dryRun(host(harness), { [k]: v });
      assert.is(r.code, 0, `${harness} ${k}: ${r.err}`);
      assert.not.match(r.err + r.out, /inherited API key/);
    }
  }
});

const CLAUDE_SETTINGS_CASES = (h: Host): [string, string, string][] => [
  [
    join(h.repo, '.claude/settings.json'),
    JSON.stringify({ permissions: { allow: ['Bash(npm test)'], defaultMode: 'bypassPermissions' } }),
    `permissions.defaultMode is "bypassPermissions", which runs every tool with no permission check; remove the key (hbgen's claude runs in acceptEdits mode) and allow the commands the agent needs with permissions.allow rules`,
  ],
  [
    join(h.repo, '.claude/settings.local.json'),
    JSON.stringify({ apiKeyHelper: '/bin/echo sk-ant-api03-x' }),
    "apiKeyHelper is set, so Claude Code would send that script's output as an API key and bill every token to that account instead of your subscription; remove the key",
  ],
  [
    join(h.home, '.claude/settings.json'),
    JSON.stringify({ env: { AWS_REGION: 'us-east-1', CLAUDE_CODE_USE_BEDROCK: '1' } }),
    "env.CLAUDE_CODE_USE_BEDROCK is set, and Claude Code applies this env to itself: CLAUDE_CODE_USE_BEDROCK is Claude Code's switch to Amazon Bedrock: Claude Code then sends every request there and bills it per token to that account instead of your subscription; remove the key",
  ],
  [join(h.repo, '.claude/settings.json'), '{"permissions": {"defaultMode": "acceptEdits"},}', 'is not valid JSON, so hbgen cannot check it for a permission bypass or an API key (and Claude Code would ignore it); fix or remove the file'],
  [join(h.home, '.claude/settings.json'), '["bypassPermissions"]', 'is not a JSON object of settings, so hbgen cannot check it for a permission bypass or an API key; fix or remove the file'],
];

function put(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

test("Claude settings: the repo's and the user's files are refused for a bypass, an apiKeyHelper, a credential in env, or no JSON, naming the file and key", async () => {
  for (const harness of ['claude-code', 'command'] as const) {
    const h = host(harness);
    for (const [file, text, why] of CLAUDE_SETTINGS_CASES(h)) {
      put(file, text);
      const before = [tree(h.home), tree(h.repo)];
      const r = await dryRun(h);
      assert.is(r.code, 1, `${harness} ${file}: ${text}`);
      assert.is(r.err, `hbgen: ${file}: ${why}\n${NOTHING}`);
      assert.equal([tree(h.home), tree(h.repo)], before);
      // The same file with a setting that keeps the checks on passes.
      put(file, JSON.stringify({ permissions: { defaultMode: 'acceptEdits', allow: ['Bash(npm test)'] }, env: { AWS_REGION: 'us-east-1' } }));
      assert.is((await dryRun(h)).code, 0, `${harness} ${file} cleaned`);
    }
  }
});

test('Claude settings: a `--settings FILE` in agent.args is read too, relative to the repo', async () => {
  const h = host('claude-code', { args: ['--settings', 'ci/claude.json'] });
  put(join(h.repo, 'ci/claude.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
  const r = await dryRun(h);
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`^hbgen: ${h.repo}/ci/claude\\.json: permissions\\.defaultMode is "bypassPermissions"`));
  const abs = join(h.root, 'elsewhere.json');
  put(abs, '{"apiKeyHelper": "/bin/true"}');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'x', args: [`--settings=${abs}`] } });
  assert.match((await dryRun(h)).err, new RegExp(`^hbgen: ${abs}: apiKeyHelper is set`));
});

test("Claude settings: codex reads none of them; CLAUDE_CONFIG_DIR in the spec's env moves the user's file; this shell's HOME is not the agent's", async () => {
  const h = host('codex');
  for (const [file, text] of CLAUDE_SETTINGS_CASES(h).slice(0, 3)) put(file, text);
  assert.is((await dryRun(h)).code, 0, 'codex never reads Claude settings');

  const c = host('claude-code');
  const dir = join(c.root, 'claude-config');
  put(join(dir, 'settings.json'), JSON.stringify({ apiKeyHelper: '/bin/true' }));
  assert.is((await dryRun(c)).code, 0, 'not read without CLAUDE_CONFIG_DIR');
  rewriteSpec(c, { env: { HOME: c.home, PATH: '/usr/bin:/bin', CLAUDE_CONFIG_DIR: dir } });
  const r = await dryRun(c);
  assert.is(r.code, 1);
  assert.match(r.err, new RegExp(`^hbgen: ${dir}/settings\\.json: apiKeyHelper is set`));

  // A bypass in the invoking user's own ~/.claude (not the spec's HOME) is not the agent's.
  const other = host('claude-code');
  const shellHome = join(other.root, 'shell-home');
  put(join(shellHome, '.claude/settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
  assert.is((await dryRun(other, { HOME: shellHome })).code, 0);
});

test('panel: the permission mode or sandbox, the model, the effort and the tiers', async () => {
  const models = { fast: 'haiku', strong: 'opus' };
  let r = await dryRun(host('claude-code', { model: 'sonnet', effort: 'high', models }));
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\n {2}agent {6}claude-code: \S+ \(run by \/bin\/sh\); permission mode acceptEdits\n/);
  assert.match(r.out, /\n {2}model {6}sonnet, effort high; tiers fast=haiku, strong=opus \(named in the wake prompt\)\n/);
  r = await dryRun(host('codex', { model: 'gpt-5.5', effort: 'xhigh' }));
  assert.match(r.out, /\n {2}agent {6}codex: \S+ \(run by \/bin\/sh\); sandbox workspace-write\n/);
  assert.match(r.out, /\n {2}model {6}gpt-5.5, effort xhigh\n/);
  assert.not.match(r.out, /no model pinned/);
  r = await dryRun(host('codex'));
  assert.match(r.out, /\n {2}model {6}the client's default, effort the client's default\n/);
  // A preset without a pinned model is a warning, not silence.
  assert.match(r.out, /\ncaveats:\n(.*\n)* {2}- no model pinned: agent\.model is not set, so codex runs whatever its own default is today, .*; set agent\.model and agent\.effort \(hbgen init writes both\)\n/);
  // A field left out says nothing on its own row: it is named on the one row of what is not set.
  assert.match(r.out, /\n {2}none {7}[^\n]*\bbudget\b[^\n]*\(docs\/spec\.md\)\n/);
  // The day's budget in its own row.
  const b = host('claude-code', { model: 'sonnet' });
  rewriteSpec(b, { budget: 5_000_000 } as never);
  r = await dryRun(b);
  assert.match(r.out, /\n {2}budget {5}5,000,000 tokens a day \(in \+ out \+ cache of the usage lines, the day in Europe\/Berlin\): once reached, the day's further wakes are skipped \(skip-budget\)\n/, r.out);
  r = await dryRun(host('command', { models }));
  assert.match(r.out, /\n {2}model {6}not set by hbgen \(harness "command": your args decide\); tiers fast=haiku, strong=opus \(named in the wake prompt\)\n/);
});

test.run();
