// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// What the agent can change between wakes that the clients' status
// commands do not show. Checked with the REAL clients (Claude Code 2.1.197, codex 0.171,
// installed by test/helpers/clients.ts) and a local capture server standing in for the API:
// a key in the repo's .claude/settings.local.json is sent as x-api-key while `claude auth
// status` still says claude.ai / max; a provider in ~/.codex/config.toml is used while
// `codex login status` says ChatGPT. The wrapper reads those files before every wake and
// refuses (error billing, exit 78, no agent, uncounted); install reads them the same way.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileHitFix } from '../src/billing.ts';
import { fileHit, verdict } from '../src/billing-awk.ts';
import { billingFilesRefusal } from '../src/host/install/claude-settings.ts';
import { CLIENT_PATH, realClients, subscriptionAnswers, subscriptionLogin, clientTest } from './helpers/clients.ts';
import { SHELLS, agentShell, makeCase, run, shell } from './helpers/wrapper.ts';
import type { Spec } from '../src/spec.ts';

const dash = shell('dash');
const found = realClients();
const real = 'why' in found ? null : found;
const t = clientTest(found);

/** A capture server on 127.0.0.1: every request's x-api-key and authorization headers. */
async function capture(): Promise<{ url: string; seen: { key?: string; auth?: string }[]; close: () => void }> {
  const seen: { key?: string; auth?: string }[] = [];
  const srv = createServer((req, res) => {
    seen.push({ key: req.headers['x-api-key'] as string | undefined, auth: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"type":"error","error":{"type":"api_error","message":"capture"}}');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const a = srv.address() as { port: number };
  return { url: `http://127.0.0.1:${a.port}`, seen, close: () => srv.close() };
}

t('a key in the repo\'s .claude/settings(.local).json env is sent by the real claude as x-api-key (auth status still says max); the wake refuses before the agent starts', async () => {
  const srv = await capture();
  try {
    for (const [file, key, header] of [
      ['settings.local.json', 'ANTHROPIC_API_KEY', 'key'],
      ['settings.json', 'ANTHROPIC_API_KEY', 'key'],
      ['settings.local.json', 'ANTHROPIC_AUTH_TOKEN', 'auth'],
      // A header variable: the real claude sends the key beside the plan's token.
      ['settings.local.json', 'ANTHROPIC_CUSTOM_HEADERS', 'key'],
    ] as const) {
      const c = makeCase({ path: CLIENT_PATH, spec: { agent: { harness: 'claude-code', bin: real!.claude }, timeout: '60s' } });
      subscriptionLogin(c.dir, 'claude-code');
      mkdirSync(join(c.repo, '.claude'), { recursive: true });
      const secret = `sk-ant-api03-planted-${key}`;
      const value = key === 'ANTHROPIC_CUSTOM_HEADERS' ? `x-api-key: ${secret}` : secret;
      writeFileSync(join(c.repo, '.claude', file), JSON.stringify({ env: { [key]: value, ANTHROPIC_BASE_URL: srv.url } }));
      // The control: run as the agent runs, the real client says the plan and sends the key.
      const env = { HOME: c.dir, PATH: CLIENT_PATH };
      const st = spawnSync(real!.claude, ['auth', 'status'], { env, cwd: c.repo, encoding: 'utf8', timeout: 30_000 });
      assert.ok(verdict('claude-code', st.stdout, st.stderr, st.status ?? -1).ok, `auth status passes the old check: ${st.stdout}`);
      srv.seen.length = 0;
      // Asynchronously: the capture server answers from this process.
      await new Promise<void>((done) => {
        const p = spawn(real!.claude, ['-p', '--max-turns', '1', '--', 'hi'], { env, cwd: c.repo, stdio: 'ignore' });
        // Ended once the first request is captured (claude retries a failed one with back-off).
        const poll = setInterval(() => srv.seen.length && p.kill('SIGKILL'), 100);
        const stop = setTimeout(() => p.kill('SIGKILL'), 60_000);
        p.on('close', () => {
          clearInterval(poll);
          clearTimeout(stop);
          done();
        });
      });
      const sent = srv.seen.map((s) => (header === 'key' ? s.key : s.auth));
      assert.ok(sent.some((v) => v !== undefined && v.includes(secret)), `the real claude sent ${key}: ${JSON.stringify(srv.seen)}`);
      // The wake: refused before the agent starts, nothing sent, nothing counted.
      srv.seen.length = 0;
      const r = await run(c, dash, { args: ['--now'], limitMs: 60_000 });
      assert.is(r.code, 78, c.log());
      assert.equal(c.outcomes(), [`error billing ${join(c.repo, '.claude', file)}: ${key} is set, and ${fileHitFix('claude-code')}`]);
      assert.equal(srv.seen, [], 'the agent did not start');
      assert.not.ok(existsSync(join(c.state, 'wakes')));
    }
  } finally {
    srv.close();
  }
});

/** A stand-in claude/codex that answers the status commands as the plan; any other run is counted. */
function standIn(client: 'claude-code' | 'codex', env: Record<string, string> = {}, text = 'Auth token: CLAUDE_CODE_OAUTH_TOKEN') {
  const c = makeCase({ env, spec: { agent: { harness: client }, timeout: '4s', killAfter: '1s' } });
  writeFileSync(
    c.bin,
    `#!${agentShell}\ncase "$*" in 'auth status --text') echo '${text}'; exit 0 ;; esac\n${subscriptionAnswers()}printf 'x\\n' >>"$HBTEST_DIR/runs"\nexit 0\n`,
  );
  return c;
}

t('a provider in ~/.codex/config.toml (the real codex still says "Logged in using ChatGPT") or the repo\'s .codex/config.toml refuses the wake; model_provider "openai" does not', async () => {
  for (const [where, toml, key] of [
    ['home', 'model_provider = "metered"\n[model_providers.metered]\nname = "m"\nbase_url = "http://127.0.0.1:9/v1"\n', 'model_provider'],
    ['home', '[model_providers.metered]\nname = "m"\nexperimental_bearer_token = "sk-x"\n', 'experimental_bearer_token'],
    ['home', 'model_providers = { m = { name = "m", env_key = "MY_KEY" } }\n', 'env_key'],
    ['repo', "model_provider = 'azure'\n", 'model_provider'],
  ] as const) {
    const c = makeCase({ path: CLIENT_PATH, spec: { agent: { harness: 'codex', bin: real!.codex }, timeout: '30s' } });
    spawnSync('git', ['init', '-q', c.repo]);
    subscriptionLogin(c.dir, 'codex');
    const dir = where === 'home' ? join(c.dir, '.codex') : join(c.repo, '.codex');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.toml'), toml);
    const st = spawnSync(real!.codex, ['login', 'status'], { env: { HOME: c.dir, PATH: CLIENT_PATH }, cwd: c.repo, encoding: 'utf8', timeout: 30_000 });
    assert.ok(verdict('codex', st.stdout, st.stderr, st.status ?? -1).ok, `login status passes the old check: ${st.stderr}`);
    const r = await run(c, dash, { args: ['--now'], limitMs: 60_000 });
    assert.is(r.code, 78, c.log());
    assert.equal(c.outcomes(), [`error billing ${join(dir, 'config.toml')}: ${key} is set, and ${fileHitFix('codex')}`]);
    assert.not.ok(existsSync(join(c.state, 'wakes')));
    // install says the same
    assert.is(billingFilesRefusal(c.spec as Spec), `billing: ${join(dir, 'config.toml')}: ${key} is set, and ${fileHitFix('codex')}; then install again`);
  }
  // The control: the built-in provider named in the config passes the file check.
  const ok = standIn('codex');
  mkdirSync(join(ok.dir, '.codex'));
  writeFileSync(join(ok.dir, '.codex', 'config.toml'), 'model_provider = "openai"\nmodel = "gpt-5.5"\n');
  const r = await run(ok, dash, { args: ['--now'] });
  assert.is(r.code, 0, ok.log());
  assert.equal(ok.outcomes(), ['start wake 1 by hand', 'quiet']);
});

t('a setup token plus ANTHROPIC_AUTH_TOKEN in ~/.claude/settings.json: the real claude\'s JSON status is a clean setup token, --text is not; the wake refuses', async () => {
  const tok = { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test-not-a-token' };
  const c = makeCase({ path: CLIENT_PATH, env: tok, spec: { agent: { harness: 'claude-code', bin: real!.claude }, timeout: '60s' } });
  mkdirSync(join(c.dir, '.claude'), { recursive: true });
  writeFileSync(join(c.dir, '.claude', 'settings.json'), '{"env": {"ANTHROPIC_AUTH_TOKEN": "sk-gateway"}}');
  const env = { HOME: c.dir, PATH: CLIENT_PATH, ...tok };
  const st = spawnSync(real!.claude, ['auth', 'status'], { env, cwd: c.repo, encoding: 'utf8', timeout: 30_000 });
  assert.ok(verdict('claude-code', st.stdout, st.stderr, st.status ?? -1, true).ok, `the JSON passes the old check: ${st.stdout}`);
  const txt = spawnSync(real!.claude, ['auth', 'status', '--text'], { env, cwd: c.repo, encoding: 'utf8', timeout: 30_000 });
  assert.match(txt.stdout, /^Auth token: ANTHROPIC_AUTH_TOKEN$/m);
  const r = await run(c, dash, { args: ['--now'], limitMs: 60_000 });
  assert.is(r.code, 78, c.log());
  assert.match(c.outcomes()[0]!, /^error billing .*\/\.claude\/settings\.json: ANTHROPIC_AUTH_TOKEN is set/);
  assert.not.ok(existsSync(join(c.state, 'wakes')));
});

test('with a setup token the wrapper also asks `auth status --text`: any other auth token refuses, CLAUDE_CODE_OAUTH_TOKEN passes (stand-in printing 2.1.197\'s --text line)', async () => {
  const tok = { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test-not-a-token' };
  // The stand-in's JSON is a setup-token login (Claude Code 2.1.197's shape).
  const json = '{\n  "loggedIn": true,\n  "authMethod": "oauth_token",\n  "apiProvider": "firstParty"\n}';
  for (const [text, ok] of [['Auth token: ANTHROPIC_AUTH_TOKEN', false], ['Auth token: CLAUDE_CODE_OAUTH_TOKEN', true]] as const) {
    const c = standIn('claude-code', tok, text);
    writeFileSync(c.bin, `#!${agentShell}\ncase "$*" in 'auth status --text') echo '${text}'; exit 0 ;; 'auth status') printf '%s\\n' '${json}'; exit 0 ;; esac\nprintf 'x\\n' >>"$HBTEST_DIR/runs"\nexit 0\n`);
    const r = await run(c, dash, { args: ['--now'] });
    if (ok) {
      assert.is(r.code, 0, c.log());
      assert.equal(c.outcomes(), ['start wake 1 by hand', 'quiet']);
    } else {
      assert.is(r.code, 78, c.log());
      assert.match(c.outcomes()[0]!, /^error billing claude auth status --text does not say "Auth token: CLAUDE_CODE_OAUTH_TOKEN"/);
      assert.not.ok(existsSync(join(c.rec, 'runs')));
    }
  }
});

test('the wrapper\'s file scan and install\'s agree on hostile spellings (escaped keys, keys in other places, quoted TOML keys); clean files pass', async () => {
  const claude: [string, string | undefined][] = [
    ['{"permissions": {"allow": ["Bash(npm test)"]}, "env": {"FOO": "ANTHROPIC_API_KEY"}}', undefined],
    ['{"env": {"ANTHROPIC\\u005fAPI_KEY": "x"}}', 'ANTHROPIC?u005fAPI_KEY'],
    ['{"apiKeyHelper" : "echo x"}', 'apiKeyHelper'],
    ['{"env":{"OPENROUTER_API_KEY":"x"}}', 'OPENROUTER_API_KEY'],
    ['{"env":{"CLAUDE_CODE_USE_BEDROCK":"1"}}', 'CLAUDE_CODE_USE_BEDROCK'],
    ['{"env":{"CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD":"1"}}', 'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD'],
    // Judged by what they carry (src/billing-rules.ts carrierIssue, the same in both).
    ['{"env":{"ANTHROPIC_CUSTOM_HEADERS":"x-api-key: sk-ant-api03-x"}}', 'ANTHROPIC_CUSTOM_HEADERS'],
    ['{"env":{"ANTHROPIC_CUSTOM_HEADERS":"X-Team: a\\nAuthorization: Bearer x"}}', 'ANTHROPIC_CUSTOM_HEADERS'],
    ['{"env":{"ANTHROPIC_CUSTOM_HEADERS":"\\u0041uthorization: x"}}', 'ANTHROPIC_CUSTOM_HEADERS'],
    ['{"env":{"OTEL_EXPORTER_OTLP_HEADERS":"authorization=Bearer x"}}', 'OTEL_EXPORTER_OTLP_HEADERS'],
    ['{"env":{"ANTHROPIC_CUSTOM_HEADERS":"X-Team: a\\nX-Trace: 1"}}', undefined],
    ['{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:9"}}', 'ANTHROPIC_BASE_URL'],
    ['{"env":{"ANTHROPIC_BASE_URL":5}}', 'ANTHROPIC_BASE_URL'],
    ['{"env":{"ANTHROPIC_BASE_URL":"https://api.anthropic.com/"}}', undefined],
    ['{"env":{"ANTHROPIC_VERTEX_BASE_URL":"https://x.example"}}', 'ANTHROPIC_VERTEX_BASE_URL'],
    ['{"awsCredentialExport":"/bin/echo {}"}', 'awsCredentialExport'],
    ['{"otelHeadersHelper":"/bin/echo {}"}', 'otelHeadersHelper'],
  ];
  const codex: [string, string | undefined][] = [
    ['model = "gpt-5.5"\nmodel_provider = "openai"\n', undefined],
    ['"model_provider" = "x"\n', 'model_provider'],
    ['[model_providers.x]\n"env\\u005fkey" = "K"\n', 'a key with an escape'],
    ['[profiles.a]\nmodel_provider="x"\n', 'model_provider'],
    ['openai_base_url = "http://127.0.0.1:9/v1"\n', 'openai_base_url'],
    ['[profiles.a]\nchatgpt_base_url = "http://127.0.0.1:9"\n', 'chatgpt_base_url'],
  ];
  for (const [client, cases] of [['claude-code', claude], ['codex', codex]] as const) {
    for (const [text, want] of cases) {
      const c = standIn(client);
      const dir = client === 'codex' ? join(c.dir, '.codex') : join(c.repo, '.claude');
      const file = join(dir, client === 'codex' ? 'config.toml' : 'settings.json');
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, text);
      // Install's side of the same rules.
      assert.is(fileHit(client, [file])?.key, want?.replace(/[^A-Za-z0-9 ._@/:+*-]/g, '?'), text);
      const r = await run(c, dash, { args: ['--now'] });
      if (want === undefined) assert.equal(c.outcomes(), ['start wake 1 by hand', 'quiet'], text);
      else {
        assert.is(r.code, 78, c.log());
        assert.equal(c.outcomes(), [`error billing ${file}: ${want.replace(/[^A-Za-z0-9 ._@/:+*-]/g, '?')} is set, and ${fileHitFix(client)}`], text);
      }
    }
  }
});

test('every shell: a key in the repo\'s settings refuses the wake in the same words; a clean file passes', async () => {
  for (const sh of SHELLS) {
    const c = standIn('claude-code');
    mkdirSync(join(c.repo, '.claude'));
    const file = join(c.repo, '.claude', 'settings.local.json');
    writeFileSync(file, '{"env": {"ANTHROPIC_API_KEY": "sk-x"}}');
    let r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 78, `${sh.name}: ${c.log()}`);
    assert.equal(c.outcomes(), [`error billing ${file}: ANTHROPIC_API_KEY is set, and ${fileHitFix('claude-code')}`], sh.name);
    writeFileSync(file, '{"env": {"FOO": "1"}}');
    r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 0, `${sh.name}: ${c.log()}`);
  }
});

test.run();
