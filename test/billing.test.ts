// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Billing verified with the clients' own tools: install asks the
// agent's client how it is logged in (`claude auth status`, `codex login status`), in the
// agent's own environment, and the wrapper asks again before every wake. Only the plan goes
// on; both reach the verdict written here by hand for each output (the rules themselves
// are written once, src/billing-rules.ts, and run by both).
// - The REAL clients from npm say what they say in each state that can be made here
//   (logged out, an API key, a third-party provider, an apiKeyHelper, a Console login, and a
//   subscription login read from credential files the test makes); each output is judged
//   by install and replayed to the rendered wrapper; both must give the expected verdict.
// - STAND-IN clients cover what the real ones cannot be made to print here (a client too old
//   to have the command, unreadable output, one that never answers).
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type BillingClient, billingTimeout, fileHitFix, notPlan } from '../src/billing.ts';
import { verdict } from '../src/billing-awk.ts';
import { CLAUDE_SUBSCRIPTION_STATUS, CLIENT_PATH, realClients, subscriptionAnswers, subscriptionLogin, clientTest } from './helpers/clients.ts';
import { names } from '../src/names.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';
import { PATHS, SHELLS, agentShell, type Case, makeCase, run, shell } from './helpers/wrapper.ts';

const dash = shell('dash');
const scratch = mkdtempSync(join(tmpdir(), 'hbgen-billing-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

interface Said {
  stdout: string;
  stderr: string;
  rc: number;
}

/**
 * A STAND-IN client for the wrapper: it answers its status command with the files of its
 * record folder (status.out on stdout, status.err on stderr, exit status.rc), noting the
 * environment, folder and stdin it was asked in, and otherwise runs as the agent (counts a run).
 */
function standInCase(client: BillingClient, path = PATHS.full, env: Record<string, string> = {}): Case {
  const c = makeCase({ path, env, spec: { agent: { harness: client }, timeout: '4s', killAfter: '1s' } });
  writeFileSync(
    c.bin,
    `#!${agentShell}
d=$HBTEST_DIR
case "$1 \${2-} \${3-}" in
  'auth status --text')
    # Claude Code 2.1.197's --text line for a setup token (asked when the env has one).
    echo 'Auth token: CLAUDE_CODE_OAUTH_TOKEN'
    exit 0
    ;;
  'auth status ' | 'login status ')
    env >"$d/billing-env"
    pwd -P >"$d/billing-pwd"
    readlink /proc/$$/fd/0 >"$d/billing-stdin"
    if [ -f "$d/status-forks" ]; then
      sleep 300 </dev/null >/dev/null 2>&1 &
      echo $! >"$d/status-kid"
    fi
    if [ -f "$d/status-hangs" ]; then
      echo $$ >"$d/status-pid"
      exec sleep 600
    fi
    cat "$d/status.out"
    cat "$d/status.err" >&2
    exit "$(cat "$d/status.rc")"
    ;;
esac
printf '%s\\n' "$$" >>"$d/runs"
exit 0
`,
  );
  return c;
}

function says(c: Case, s: Said): void {
  writeFileSync(join(c.rec, 'status.out'), s.stdout);
  writeFileSync(join(c.rec, 'status.err'), s.stderr);
  writeFileSync(join(c.rec, 'status.rc'), String(s.rc));
}

/**
 * The wrapper, replaying what the client said, must reach the expected verdict: the plan
 * (`saw` null) or a refusal in these words (a RegExp where the real client's exact words
 * vary). Install's side is checked against the same expectation (`installAgrees`).
 */
async function agrees(client: BillingClient, s: Said, what: string, saw: string | RegExp | null, setupToken = false): Promise<void> {
  const c = standInCase(client, PATHS.full, setupToken ? { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' } : {});
  says(c, s);
  const r = await run(c, dash, { args: ['--now'] });
  // Nothing of a key the client shows in part is repeated.
  assert.not.match(c.log() + r.stderr, /sk-/, what);
  if (saw === null) {
    assert.is(r.code, 0, `${what}: ${c.log()}`);
    assert.equal(c.outcomes(), ['start wake 1 by hand', 'quiet'], what);
    assert.is(c.runs().length, 1, `${what}: the agent ran`);
  } else {
    assert.is(r.code, 78, `${what}: ${c.log()}`);
    const tail = `: ${notPlan(client)}`;
    const line = c.outcomes().length === 1 ? c.outcomes()[0]! : '';
    assert.ok(line.startsWith('error billing ') && line.endsWith(tail), `${what}: ${c.log()}`);
    const said = line.slice('error billing '.length, line.length - tail.length);
    if (typeof saw === 'string') assert.is(said, saw, what);
    else assert.match(said, saw, what);
    assert.is(r.stderr, `hbgen tst: billing ${said}${tail}\n`, what);
    assert.is(c.runs().length, 0, `${what}: no agent`);
    assert.not.ok(existsSync(join(c.state, 'wakes')), `${what}: no wake counted`);
  }
}

/** Install's verdict (src/billing.ts, the same rules) on the same output, against the same expectation. */
function installAgrees(client: BillingClient, s: Said, what: string, want: string, ok: boolean, setupToken = false): void {
  const v = verdict(client, s.stdout, s.stderr, s.rc, setupToken);
  assert.is(v.ok, ok, what);
  assert.is(v.ok ? v.identity : v.saw, want, what);
}

// What the clients print, copied from the real clients (claude 2.1.197, codex 0.171) where
// they can be made to print it here, and from their code where not (marked).
const CLAUDE_SAID: [string, Said, boolean, string][] = [
  ['logged out', { stdout: '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n', stderr: '', rc: 1 }, false, 'claude auth status says not logged in'],
  ['ANTHROPIC_API_KEY', { stdout: '{\n  "loggedIn": true,\n  "authMethod": "api_key",\n  "apiProvider": "firstParty",\n  "apiKeySource": "ANTHROPIC_API_KEY"\n}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "api_key", apiKeySource "ANTHROPIC_API_KEY"'],
  ['Bedrock', { stdout: '{\n  "loggedIn": true,\n  "authMethod": "third_party",\n  "apiProvider": "bedrock"\n}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "third_party", apiProvider "bedrock"'],
  ['apiKeyHelper', { stdout: '{\n  "loggedIn": true,\n  "authMethod": "api_key_helper",\n  "apiProvider": "firstParty",\n  "apiKeySource": "apiKeyHelper"\n}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "api_key_helper", apiKeySource "apiKeyHelper"'],
  ['Console login ("/login managed key")', { stdout: '{\n  "loggedIn": true,\n  "authMethod": "claude.ai",\n  "apiProvider": "firstParty",\n  "apiKeySource": "/login managed key",\n  "email": null,\n  "orgId": null,\n  "orgName": null,\n  "subscriptionType": null\n}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "claude.ai", apiKeySource "/login managed key"'],
  ['claude.ai without a subscriptionType field (from the code)', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"firstParty"}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "claude.ai", no subscriptionType'],
  // Any other key source beside a subscription is not proven unsent: refused.
  ['subscription login with ANTHROPIC_API_KEY beside it (from the code)', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"firstParty","apiKeySource":"ANTHROPIC_API_KEY","subscriptionType":"max"}', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "claude.ai", apiKeySource "ANTHROPIC_API_KEY"'],
  ['claude.ai on Vertex (from the code)', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"vertex","subscriptionType":"max"}', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "claude.ai", apiProvider "vertex"'],
  ['subscription login (stand-in: the real output shape, with an account)', { stdout: CLAUDE_SUBSCRIPTION_STATUS, stderr: '', rc: 0 }, true, 'Claude subscription login (max)'],
  ['subscription login, compact JSON, pro', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"firstParty","email":null,"subscriptionType":"pro"}', stderr: 'a warning on stderr\n', rc: 0 }, true, 'Claude subscription login (pro)'],
  ['subscription login but exit 1', { stdout: CLAUDE_SUBSCRIPTION_STATUS, stderr: '', rc: 1 }, false, 'claude auth status says authMethod "claude.ai" (exit 1)'],
  ['oauth_token: a setup-token, or an ANTHROPIC_AUTH_TOKEN (the real client says the same for both)', { stdout: '{\n  "loggedIn": true,\n  "authMethod": "oauth_token",\n  "apiProvider": "firstParty"\n}\n', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "oauth_token" with no CLAUDE_CODE_OAUTH_TOKEN in the agent\'s env (an ANTHROPIC_AUTH_TOKEN, billed per token, is reported so too)'],
  ['oauth_token with an API key source (from the code)', { stdout: '{"loggedIn":true,"authMethod":"oauth_token","apiProvider":"firstParty","apiKeySource":"ANTHROPIC_API_KEY"}', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "oauth_token", apiKeySource "ANTHROPIC_API_KEY"'],
  ['a client without the command: its prompt answer', { stdout: 'Not logged in · Please run /login\n', stderr: '', rc: 1 }, false, 'claude auth status printed no status hbgen can read (exit 1)'],
  ['nothing at all', { stdout: '', stderr: '', rc: 0 }, false, 'claude auth status printed no status hbgen can read (exit 0)'],
  ['JSON that is not an object', { stdout: '["claude.ai"]\n', stderr: '', rc: 0 }, false, 'claude auth status printed no status hbgen can read (exit 0)'],
  ['text around the JSON', { stdout: 'Status:\n{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"firstParty","subscriptionType":"max"}\n', stderr: '', rc: 0 }, false, 'claude auth status printed no status hbgen can read (exit 0)'],
  ['odd characters in a value', { stdout: '{"loggedIn":true,"authMethod":"api key; rm -rf $HOME `x`","apiProvider":"firstParty"}', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "api key? rm -rf ?HOME ?x?"'],
  // The real 2.1.332 with a Max login and a leftover primaryApiKey: it sends the login's token only (the real-client test below).
  ['subscription login with a Console key beside it', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"firstParty","apiKeySource":"/login managed key","subscriptionType":"max"}', stderr: '', rc: 0 }, true, 'Claude subscription login (max; its leftover Console key is not sent)'],
  ['subscription login with a Console key, on Vertex (from the code)', { stdout: '{"loggedIn":true,"authMethod":"claude.ai","apiProvider":"vertex","apiKeySource":"/login managed key","subscriptionType":"max"}', stderr: '', rc: 0 }, false, 'claude auth status says authMethod "claude.ai", apiKeySource "/login managed key", apiProvider "vertex"'],
];
const CODEX_SAID: [string, Said, boolean, string][] = [
  ['logged out', { stdout: '', stderr: 'Not logged in\n', rc: 1 }, false, 'codex login status says not logged in'],
  ['API key (the real codex shows part of it)', { stdout: '', stderr: 'API key configured - sk-test-***a-key\nAuthentication is checked when you send a request.\n', rc: 0 }, false, 'codex login status says "API key configured"'],
  ['ChatGPT', { stdout: '', stderr: 'WARNING: proceeding, even though we could not create PATH aliases\nLogged in using ChatGPT\n', rc: 0 }, true, 'ChatGPT login'],
  ['ChatGPT, trailing blanks and CR', { stdout: 'Logged in using ChatGPT \r\n', stderr: '', rc: 0 }, true, 'ChatGPT login'],
  ['ChatGPT but exit 1', { stdout: '', stderr: 'Logged in using ChatGPT\n', rc: 1 }, false, 'codex login status says "Logged in using ChatGPT" (exit 1)'],
  ['Bedrock API key (from the binary)', { stdout: '', stderr: 'Logged in using Amazon Bedrock API key\n', rc: 0 }, false, 'codex login status says "Logged in using Amazon Bedrock API key"'],
  ['AWS access keys (from the binary)', { stdout: '', stderr: 'Logged in using AWS access keys\n', rc: 0 }, false, 'codex login status says "Logged in using AWS access keys"'],
  ['access token (from the binary)', { stdout: '', stderr: 'Logged in using access token\n', rc: 0 }, false, 'codex login status says "Logged in using access token"'],
  ['personal access token (from the binary)', { stdout: '', stderr: 'Logged in using personal access token\n', rc: 0 }, false, 'codex login status says "Logged in using personal access token"'],
  ['workload identity (from the binary)', { stdout: '', stderr: 'Logged in using workload identity\n', rc: 0 }, false, 'codex login status says "Logged in using workload identity"'],
  ['a ChatGPT line inside other text', { stdout: 'note: Logged in using ChatGPT elsewhere\n', stderr: '', rc: 0 }, false, 'codex login status printed no status hbgen can read (exit 0)'],
  ['an old codex: unknown subcommand', { stdout: '', stderr: "error: unrecognized subcommand 'status'\n", rc: 2 }, false, 'codex login status printed no status hbgen can read (exit 2)'],
];

test('install and the wrapper judge every claude auth status output alike (the plan: claude.ai with a subscriptionType and no API key source, or oauth_token with the setup-token in the agent\'s env, on firstParty)', async () => {
  for (const [what, s, ok, want] of CLAUDE_SAID) {
    installAgrees('claude-code', s, what, want, ok);
    await agrees('claude-code', s, `claude: ${what}`, ok ? null : want);
  }
  // oauth_token is the plan only when the agent's env gives CLAUDE_CODE_OAUTH_TOKEN.
  const oauth = CLAUDE_SAID.find(([w]) => w.startsWith('oauth_token:'))![1];
  installAgrees('claude-code', oauth, 'oauth_token with the setup-token', 'Claude subscription token (CLAUDE_CODE_OAUTH_TOKEN)', true, true);
  await agrees('claude-code', oauth, 'claude: oauth_token with CLAUDE_CODE_OAUTH_TOKEN in the spec env', null, true);
  const withKey = CLAUDE_SAID.find(([w]) => w.startsWith('oauth_token with'))![1];
  installAgrees('claude-code', withKey, 'oauth_token with an API key source and the setup-token', 'claude auth status says authMethod "oauth_token", apiKeySource "ANTHROPIC_API_KEY"', false, true);
  await agrees('claude-code', withKey, 'claude: oauth_token with an API key source, CLAUDE_CODE_OAUTH_TOKEN in the spec env', 'claude auth status says authMethod "oauth_token", apiKeySource "ANTHROPIC_API_KEY"', true);
});

test('install and the wrapper judge every codex login status output alike (the plan: "Logged in using ChatGPT" only)', async () => {
  for (const [what, s, ok, want] of CODEX_SAID) {
    installAgrees('codex', s, what, want, ok);
    await agrees('codex', s, `codex: ${what}`, ok ? null : want);
  }
});

test('every shell: a refusal and a pass, with timeout(1) and on the macOS PATH (the bound\'s fallback watcher)', async () => {
  for (const sh of SHELLS) {
    for (const path of [PATHS.full, PATHS.bare]) {
      const no = standInCase('claude-code', path);
      says(no, CLAUDE_SAID[1]![1]);
      let r = await run(no, sh, { args: ['--now'] });
      assert.is(r.code, 78, `${sh.name} ${path}: ${no.log()}`);
      assert.match(no.log(), / error billing claude auth status says authMethod "api_key", apiKeySource "ANTHROPIC_API_KEY": not a subscription login/);
      const yes = standInCase('codex', path);
      says(yes, CODEX_SAID[2]![1]);
      r = await run(yes, sh, { args: ['--now'] });
      assert.is(r.code, 0, `${sh.name} ${path}: ${yes.log()}`);
      assert.equal(yes.outcomes(), ['start wake 1 by hand', 'quiet'], sh.name);
    }
  }
});

test('the check runs as the agent does: exactly the spec env, in the repo, stdin /dev/null, whatever the caller had', async () => {
  const c = standInCase('claude-code');
  says(c, CLAUDE_SAID[8]![1]);
  const r = await run(c, dash, { args: ['--now'] });
  assert.is(r.code, 0, c.log());
  const env = readFileSync(join(c.rec, 'billing-env'), 'utf8').split('\n').filter(Boolean).sort();
  // The stand-in's own shell adds PWD (and nothing else from a caller that set JUNK_ENV).
  assert.equal(env, [`HBTEST_DIR=${c.rec}`, `HOME=${c.dir}`, `PATH=${PATHS.full}`, `PWD=${c.repo}`].sort());
  assert.is(readFileSync(join(c.rec, 'billing-pwd'), 'utf8').trim(), c.repo);
  assert.is(readFileSync(join(c.rec, 'billing-stdin'), 'utf8').trim(), '/dev/null');
});

test('a client that never answers: error billing after its own short timeout, no agent, nothing left running (every shell, with and without timeout(1))', async () => {
  // timeout 4s: the check may take 2 s (half the timeout, at most 20 s).
  assert.is(billingTimeout(4), 2);
  assert.is(billingTimeout(25 * 60), 20);
  for (const sh of SHELLS) {
    for (const path of [PATHS.full, PATHS.bare]) {
      const c = standInCase('claude-code', path);
      writeFileSync(join(c.rec, 'status-hangs'), '');
      const r = await run(c, sh, { args: ['--now'], limitMs: 20_000 });
      assert.is(r.code, 78, `${sh.name} ${path}: ${c.log()}`);
      assert.equal(c.outcomes(), [`error billing claude auth status did not answer within 2 s: ${notPlan('claude-code')}`], sh.name);
      assert.ok(r.ms < 6000, `${sh.name} ${path}: took ${r.ms} ms`);
      const pid = Number(readFileSync(join(c.rec, 'status-pid'), 'utf8'));
      await new Promise((res) => setTimeout(res, 200));
      const alive = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
      assert.ok(alive === '' || alive.startsWith('Z'), `${sh.name} ${path}: the hung client ${pid} is still there (${alive})`);
      assert.is(c.runs().length, 0);
    }
  }
});

// The billing check had a bound of its own (timeout(1) or the watchdog's timer) that ended
// only the client itself: a child the status command left behind lived on after the wake.
// It is bounded now as notify and ping are (hb_bounded).
test('a status command that leaves a child behind: the child is ended with the check (with and without timeout(1))', async () => {
  for (const path of [PATHS.full, PATHS.bare]) {
    const c = standInCase('codex', path);
    says(c, CODEX_SAID[2]![1]);
    writeFileSync(join(c.rec, 'status-forks'), '');
    const r = await run(c, dash, { args: ['--now'] });
    assert.is(r.code, 0, c.log());
    const kid = Number(readFileSync(join(c.rec, 'status-kid'), 'utf8'));
    const st = spawnSync('ps', ['-o', 'stat=', '-p', String(kid)], { encoding: 'utf8' }).stdout.trim();
    if (st !== '' && !st.startsWith('Z')) process.kill(kid, 'SIGKILL');
    assert.ok(st === '' || st.startsWith('Z'), `${path}: the status command's child ${kid} outlived the wake (${st})`);
  }
});

test('status: a wake refused on billing is "last wake could not run", and the panel and status name the verified login', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.' } });
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.err);
  assert.match(i.out, new RegExp(`\\n {2}billing {4}Claude subscription login \\(max\\), as \`${h.bin} auth status\` says in the agent's environment \\(2\\.1\\.197 \\(Claude Code\\)\\); asked again before every wake\\n`));
  let s = await hb(h, 'status');
  assert.match(s.out, /\n {2}billing +Claude subscription login \(max\) at install \(\d{4}-\d\d-\d\dT[\d:.]+Z\); the wrapper asks the client again before every wake\n/, s.out);
  // The client now says "not logged in" (the user logged out, or the agent changed its settings).
  writeFileSync(h.bin, `#!/bin/sh\ncase "$1 \${2-}" in 'auth status') printf '{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}\\n'; exit 1 ;; esac\necho agent ran\n`);
  const w = await hb(h, 'wake');
  assert.is(w.code, 78, w.out + w.err);
  s = await hb(h, 'status');
  assert.is(s.code, 1);
  assert.match(s.out + s.err, /last wake could not run: error billing claude auth status says not logged in: not a subscription login, so the agent is not run on it; run `claude`, then \/login/);
  assert.match(readFileSync(join(names(h.spec).stateDir, 'runtime.log'), 'utf8'), / error billing claude auth status says not logged in: [^\n]*\n$/, 'the wake ended there, no agent');
});

test('install: a client too old for the status command, or one whose answer cannot be read, is refused with what to do (stand-ins)', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.' } });
  writeFileSync(h.bin, `#!/bin/sh\ncase "$1" in --version) echo '1.0.40 (Claude Code)'; exit 0 ;; esac\necho "Usage: claude [options] [command] [prompt]"\n`);
  let r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.is(
    r.err,
    `hbgen: billing: ${h.bin} auth --help does not list a "status" command (1.0.40 (Claude Code)), so hbgen cannot verify that it runs on your subscription; update Claude Code (\`claude update\`, or npm install -g @anthropic-ai/claude-code), then install again\nhbgen: nothing was changed on this host\n`,
  );
  writeFileSync(h.bin, `#!/bin/sh\ncase "$1 \${2-}" in 'auth status') echo 'Logged in.'; exit 0 ;; esac\n${subscriptionAnswers()}echo agent ran\n`);
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.is(
    r.err,
    `hbgen: billing: claude auth status printed no status hbgen can read (exit 0), run in the agent's environment (the spec's env, in the repo): ${notPlan('claude-code')}; then install again\nhbgen: nothing was changed on this host\n`,
  );
  // command: nothing asked, and the panel says so.
  rewriteSpec(h, { agent: { harness: 'command', bin: h.bin, prompt: 'Do one chunk.' } });
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\n {2}billing {4}custom command: not checked, no API key reaches it; check your plan\n/);
});

// --- The real clients ------------------------------------------------------------------
const found = realClients();
if ('why' in found) {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n!!! SKIPPING the real-client billing tests: ${found.why}\n!!! Billing is NOT proven against the real clients on this run.\n${bar}\n\n`);
}
const real = 'why' in found ? null : found;
const t = clientTest(found);

let homes = 0;
function freshHome(): string {
  const h = join(scratch, `home${++homes}`);
  mkdirSync(h, { recursive: true });
  return h;
}

/** What the real client prints for its status command with this HOME, extra env and folder. */
function realSays(client: BillingClient, home: string, env: Record<string, string> = {}, cwd = home): Said {
  const bin = client === 'claude-code' ? real!.claude : real!.codex;
  const r = spawnSync(bin, client === 'claude-code' ? ['auth', 'status'] : ['login', 'status'], {
    env: { HOME: home, PATH: CLIENT_PATH, ...env },
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { stdout: r.stdout, stderr: r.stderr, rc: r.status ?? -1 };
}

t('the real claude in each state it can be put in here: only a subscription login or a setup-token passes, and the wrapper replaying its output agrees', async () => {
  const states: [string, () => Said, boolean, RegExp][] = [
    ['logged out', () => realSays('claude-code', freshHome()), false, /says not logged in$/],
    ['ANTHROPIC_API_KEY', () => realSays('claude-code', freshHome(), { ANTHROPIC_API_KEY: 'sk-ant-api03-test' }), false, /authMethod "api_key", apiKeySource "ANTHROPIC_API_KEY"$/],
    ['ANTHROPIC_AUTH_TOKEN', () => realSays('claude-code', freshHome(), { ANTHROPIC_AUTH_TOKEN: 'test' }), false, /authMethod "oauth_token" with no CLAUDE_CODE_OAUTH_TOKEN in the agent's env/],
    ['CLAUDE_CODE_USE_BEDROCK=1', () => realSays('claude-code', freshHome(), { CLAUDE_CODE_USE_BEDROCK: '1' }), false, /authMethod "third_party", apiProvider "bedrock"$/],
    ['CLAUDE_CODE_USE_VERTEX=1', () => realSays('claude-code', freshHome(), { CLAUDE_CODE_USE_VERTEX: '1' }), false, /authMethod "third_party", apiProvider "vertex"$/],
    [
      'an apiKeyHelper in the user settings',
      () => {
        const home = freshHome();
        mkdirSync(join(home, '.claude'));
        writeFileSync(join(home, '.claude', 'settings.json'), '{"apiKeyHelper": "echo sk-ant-api03-test"}');
        return realSays('claude-code', home);
      },
      false,
      /authMethod "api_key_helper", apiKeySource "apiKeyHelper"$/,
    ],
    [
      'a Console login (/login managed key)',
      () => {
        const home = freshHome();
        writeFileSync(join(home, '.claude.json'), '{"primaryApiKey": "sk-ant-api03-test"}');
        return realSays('claude-code', home);
      },
      false,
      // Claude Code 2.1.332 says api_key for a Console login (2.1.197 said claude.ai with no subscriptionType).
      /authMethod "api_key", apiKeySource "\/login managed key"$/,
    ],
    [
      'a subscription login (Max) read from credential files the test made',
      () => {
        const home = freshHome();
        subscriptionLogin(home, 'claude-code', 'max');
        return realSays('claude-code', home);
      },
      true,
      /./,
    ],
    ['a setup-token in CLAUDE_CODE_OAUTH_TOKEN', () => realSays('claude-code', freshHome(), { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' }), true, /./],
    [
      // The key is not sent (the next test watches the wire).
      'a Max login with a leftover Console key (primaryApiKey in ~/.claude.json)',
      () => {
        const home = freshHome();
        subscriptionLogin(home, 'claude-code', 'max');
        writeFileSync(join(home, '.claude.json'), '{"primaryApiKey": "sk-ant-api03-test"}');
        return realSays('claude-code', home);
      },
      true,
      /./,
    ],
    [
      // A login without the inference scope is no subscriber: the key is sent.
      'a login without the user:inference scope beside a Console key',
      () => {
        const home = freshHome();
        subscriptionLogin(home, 'claude-code', 'max');
        const f = join(home, '.claude', '.credentials.json');
        writeFileSync(f, readFileSync(f, 'utf8').replace('"user:inference",', ''));
        writeFileSync(join(home, '.claude.json'), '{"primaryApiKey": "sk-ant-api03-test"}');
        return realSays('claude-code', home);
      },
      false,
      /authMethod "api_key", apiKeySource "\/login managed key"$/,
    ],
  ];
  for (const [what, make, ok, saw] of states) {
    const s = make();
    const token = what.includes('setup-token');
    const v = verdict('claude-code', s.stdout, s.stderr, s.rc, token);
    assert.is(v.ok, ok, `${what}: ${JSON.stringify(s)}`);
    if (!v.ok) assert.match(v.saw, saw, what);
    else assert.match(v.identity, token ? /^Claude subscription token \(CLAUDE_CODE_OAUTH_TOKEN\)$/ : what.includes('leftover') ? /^Claude subscription login \(max; its leftover Console key is not sent\)$/ : /^Claude subscription login \(max\)$/);
    await agrees('claude-code', s, `real claude: ${what}`, ok ? null : saw, token);
  }
});

t('the real claude with a Max login and a leftover Console key sends the login\'s token and not the key; without the inference scope it sends the key', async () => {
  const seen: { auth?: string; key?: string }[] = [];
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!req.url?.startsWith('/v1/messages')) return void res.writeHead(404).end('{}');
      seen.push({ auth: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (d: Record<string, unknown>) => res.write(`event: ${d.type}\ndata: ${JSON.stringify(d)}\n\n`);
      ev({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });
      ev({ type: 'content_block_stop', index: 0 });
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } });
      ev({ type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const ask = async (scoped: boolean) => {
    const home = freshHome();
    subscriptionLogin(home, 'claude-code', 'max');
    const f = join(home, '.claude', '.credentials.json');
    if (!scoped) writeFileSync(f, readFileSync(f, 'utf8').replace('"user:inference",', ''));
    writeFileSync(join(home, '.claude.json'), '{"primaryApiKey": "sk-ant-api03-test"}');
    seen.length = 0;
    await new Promise<void>((resolve) => {
      const p = spawn(real!.claude, ['-p', '--model', 'sonnet', '--', 'hello'], { env: { HOME: home, PATH: CLIENT_PATH, ANTHROPIC_BASE_URL: url }, cwd: home, stdio: 'ignore' });
      const kill = setTimeout(() => p.kill('SIGKILL'), 60_000);
      p.on('close', () => (clearTimeout(kill), resolve()));
    });
    return [...seen];
  };
  try {
    const plan = await ask(true);
    assert.ok(plan.length > 0, 'the client called the stand-in API');
    for (const h of plan) assert.equal(h, { auth: 'Bearer sk-ant-oat01-test-not-a-token', key: undefined });
    const keyed = await ask(false);
    assert.ok(keyed.length > 0);
    for (const h of keyed) assert.equal(h, { auth: undefined, key: 'sk-ant-api03-test' });
  } finally {
    srv.close();
  }
});

t('the real codex in each state it can be put in here: only the ChatGPT login passes, and the wrapper replaying its output agrees', async () => {
  const keyHome = freshHome();
  const login = spawnSync(real!.codex, ['login', '--with-api-key'], { input: 'sk-test-not-a-key\n', env: { HOME: keyHome, PATH: CLIENT_PATH }, encoding: 'utf8', timeout: 60_000 });
  assert.is(login.status, 0, login.stderr);
  const chat = freshHome();
  subscriptionLogin(chat, 'codex');
  const states: [string, Said, boolean, RegExp][] = [
    ['logged out', realSays('codex', freshHome()), false, /says not logged in$/],
    ['logged out, OPENAI_API_KEY set', realSays('codex', freshHome(), { OPENAI_API_KEY: 'sk-test' }), false, /not logged in|API key/],
    ['codex login --with-api-key', realSays('codex', keyHome), false, /says "API key configured"$/],
    ['a ChatGPT login read from the auth.json the test made', realSays('codex', chat), true, /./],
  ];
  for (const [what, s, ok, saw] of states) {
    const v = verdict('codex', s.stdout, s.stderr, s.rc);
    assert.is(v.ok, ok, `${what}: ${JSON.stringify(s)}`);
    if (!v.ok) assert.match(v.saw, saw, what);
    await agrees('codex', s, `real codex: ${what}`, ok ? null : saw);
  }
});

/** A lifecycle host whose agent is a real client, logged in as `login` sets up its HOME. */
function realHost(client: BillingClient, env: Record<string, string> = {}): ReturnType<typeof makeHost> {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: client, bin: client === 'claude-code' ? real!.claude : real!.codex, prompt: 'Do one chunk.' }, env: { HOME: h.home, PATH: CLIENT_PATH, ...env } });
  return h;
}

t('install with the real claude: logged out is refused in one line; a subscription login is shown and recorded (method, provider, client version, time)', async () => {
  const h = realHost('claude-code');
  let r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.is(
    r.err,
    `hbgen: billing: claude auth status says not logged in, run in the agent's environment (the spec's env, in the repo): ${notPlan('claude-code')}; then install again\nhbgen: nothing was changed on this host\n`,
  );
  writeFileSync(join(h.home, '.claude.json'), '{"primaryApiKey": "sk-ant-api03-test"}');
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.match(r.err, /^hbgen: billing: claude auth status says authMethod "api_key", apiKeySource "\/login managed key", run in the agent's environment/);
  rmSync(join(h.home, '.claude.json'));
  subscriptionLogin(h.home, 'claude-code', 'pro');
  r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\n {2}billing {4}Claude subscription login \(pro\), as `\S+ auth status` says in the agent's environment \(\d+\.\d+\.\d+ \(Claude Code\)\); asked again before every wake\n/);
  const st = JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8'));
  assert.is(st.billing.result, 'subscription');
  assert.is(st.billing.method, 'claude.ai');
  assert.is(st.billing.provider, 'firstParty');
  assert.is(st.billing.identity, 'Claude subscription login (pro)');
  assert.match(st.billing.clientVersion, /^\d+\.\d+\.\d+ \(Claude Code\)$/);
  assert.match(st.billing.checkedAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(st.billing.command, [real!.claude, 'auth', 'status']);
});

t('install with the real codex: logged out and an API key login are refused; the ChatGPT login passes', async () => {
  const h = realHost('codex');
  let r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.is(r.err, `hbgen: billing: codex login status says not logged in, run in the agent's environment (the spec's env, in the repo): ${notPlan('codex')}; then install again\nhbgen: nothing was changed on this host\n`);
  assert.is(spawnSync(real!.codex, ['login', '--with-api-key'], { input: 'sk-test-not-a-key\n', env: { HOME: h.home, PATH: CLIENT_PATH }, timeout: 60_000 }).status, 0);
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1);
  assert.match(r.err, /^hbgen: billing: codex login status says "API key configured", run in the agent's environment/);
  rmSync(join(h.home, '.codex'), { recursive: true, force: true });
  subscriptionLogin(h.home, 'codex');
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\n {2}billing {4}ChatGPT login, as `\S+ login status` says in the agent's environment \(codex-cli [\d.]+\); asked again before every wake\n/);
});

// The wrapper reads the settings files before it asks the client: the key is
// named from the file (the real claude's own answer refuses them too: the status asserts).
t('after install the agent plants an apiKeyHelper, or a Bedrock switch, in the repo\'s Claude settings: the next wake is refused, uncounted; the real claude\'s own answer refuses them too', async () => {
  for (const [settings, saw, key] of [
    ['{"apiKeyHelper": "echo sk-ant-api03-test"}', 'claude auth status says authMethod "api_key_helper", apiKeySource "apiKeyHelper"', 'apiKeyHelper'],
    ['{"env": {"CLAUDE_CODE_USE_BEDROCK": "1"}}', 'claude auth status says authMethod "third_party", apiProvider "bedrock"', 'CLAUDE_CODE_USE_BEDROCK'],
  ] as const) {
    const c = makeCase({ path: CLIENT_PATH, spec: { agent: { harness: 'claude-code', bin: real!.claude }, timeout: '60s' } });
    subscriptionLogin(c.dir, 'claude-code');
    mkdirSync(join(c.repo, '.claude'));
    writeFileSync(join(c.repo, '.claude', 'settings.local.json'), settings);
    const r = await run(c, dash, { args: ['--now'], limitMs: 60_000 });
    assert.is(r.code, 78, c.log());
    assert.equal(c.outcomes(), [`error billing ${join(c.repo, '.claude', 'settings.local.json')}: ${key} is set, and ${fileHitFix('claude-code')}`]);
    assert.not.ok(existsSync(join(c.state, 'wakes')));
    const st = spawnSync(real!.claude, ['auth', 'status'], { env: { HOME: c.dir, PATH: CLIENT_PATH }, cwd: c.repo, encoding: 'utf8', timeout: 30_000 });
    const v = verdict('claude-code', st.stdout, st.stderr, st.status ?? -1);
    assert.equal(v, { ok: false, saw }, st.stdout);
  }
});

test.run();
