// Is the agent's client logged in on the user's fixed plan? Asked of the client itself, with
// its own status command, at install (src/host/install/billing.ts) and before every wake (the
// wrapper's hb_billing, templates/partials/heartbeat/55-billing.hbs). The two must reach the
// same verdict from the same output: the rules live here once, the wrapper's awk follows
// them word for word, and test/billing.test.ts feeds both the same outputs.
//
// What the clients print, read from the clients themselves (Claude Code 2.1.197, codex
// 0.171, HOME in a temporary folder, offline):
// - `claude auth status` prints one JSON object on stdout (exit 0 when logged in, 1 when not):
//   loggedIn, authMethod (none | third_party | api_key | api_key_helper | oauth_token |
//   claude.ai), apiProvider (firstParty, bedrock, vertex, …), apiKeySource when an API key
//   is in use (ANTHROPIC_API_KEY, apiKeyHelper, "/login managed key"), and for claude.ai
//   email, orgId, orgName and subscriptionType. A Console login ("/login managed key")
//   also says claude.ai, with an apiKeySource and no subscriptionType: it bills per token.
//   So the plan is claude.ai with a subscriptionType and no apiKeySource, or oauth_token (a
//   `claude setup-token` token, tied to the subscription), both on firstParty. But an
//   ANTHROPIC_AUTH_TOKEN (a bearer token for the API or a gateway, billed per token) is
//   also reported as authMethod "oauth_token" (seen with the real client; only `--text`
//   tells "Auth token: ANTHROPIC_AUTH_TOKEN" from "CLAUDE_CODE_OAUTH_TOKEN"). The agent's
//   env is exactly the spec's, which may not hold ANTHROPIC_AUTH_TOKEN: so oauth_token
//   counts as the plan only when that env gives the setup-token in CLAUDE_CODE_OAUTH_TOKEN.
// - `codex login status` prints one line on stderr: "Not logged in", "API key configured -
//   ***", "Logged in using ChatGPT", or "Logged in using <Amazon Bedrock API key | AWS access
//   keys | access token | personal access token | workload identity>". Only the ChatGPT
//   login is the plan.
import { credential, knownCredentials } from './credentials.ts';
import type { Spec } from './spec.ts';

export type BillingClient = 'claude-code' | 'codex';

/** The status command each client answers, after its binary. */
export const STATUS_ARGV: Record<BillingClient, readonly string[]> = {
  'claude-code': ['auth', 'status'],
  codex: ['login', 'status'],
};

/** How each client's user gets onto the plan, said after a refusal. */
export const BILLING_FIX: Record<BillingClient, string> = {
  'claude-code': 'run `claude`, then /login with your Claude subscription (or `claude setup-token` for a token of it)',
  codex: 'run `codex logout && codex login` and sign in with ChatGPT',
};

const COMMAND: Record<BillingClient, string> = { 'claude-code': 'claude auth status', codex: 'codex login status' };

export type Verdict = { ok: true; method: string; provider: string; identity: string; plan?: string } | { ok: false; saw: string };

/** The client a harness is checked with; `command` runs a program hbgen does not know. */
export function billingClient(agent: Spec['agent']): BillingClient | null {
  return agent.harness === 'command' ? null : agent.harness;
}

/** How long the wrapper lets the status command run: 20 s, or half the timeout when that is shorter. */
export function billingTimeout(timeoutSeconds: number): number {
  return Math.max(1, Math.min(20, Math.floor(timeoutSeconds / 2)));
}

/**
 * A value as the verdict shows it: characters outside a small safe set become "?" (the log
 * line is one line of plain text), at most 80 of them. The wrapper's awk does the same.
 */
export function shown(v: string): string {
  return v.replace(/[^A-Za-z0-9 ._@/:+*-]/g, '?').slice(0, 80);
}

/**
 * The verdict on what `claude auth status` printed on stdout and its exit status;
 * `setupToken`: the agent's env sets CLAUDE_CODE_OAUTH_TOKEN.
 */
export function claudeVerdict(stdout: string, code: number, setupToken: boolean): Verdict {
  const cmd = COMMAND['claude-code'];
  const text = stdout.trim();
  let o: Record<string, unknown> | null = null;
  if (text.startsWith('{') && text.endsWith('}')) {
    try {
      const v: unknown = JSON.parse(text);
      if (v && typeof v === 'object' && !Array.isArray(v)) o = v as Record<string, unknown>;
    } catch {
      o = null;
    }
  }
  if (!o || typeof o.authMethod !== 'string') return { ok: false, saw: `${cmd} printed no status hbgen can read (exit ${code})` };
  const str = (k: string) => (typeof o![k] === 'string' ? (o![k] as string) : '');
  const method = str('authMethod');
  const provider = str('apiProvider');
  const source = str('apiKeySource');
  const sub = str('subscriptionType');
  if (method === 'none' || o.loggedIn === false) return { ok: false, saw: `${cmd} says not logged in` };
  if (code === 0 && provider === 'firstParty' && source === '') {
    if (method === 'claude.ai' && sub !== '') return { ok: true, method, provider, identity: `Claude subscription login (${shown(sub)})`, plan: shown(sub) };
    if (method === 'oauth_token' && setupToken) return { ok: true, method, provider, identity: 'Claude subscription token (CLAUDE_CODE_OAUTH_TOKEN)' };
  }
  let saw = `${cmd} says authMethod "${shown(method)}"`;
  if (method === 'oauth_token' && !setupToken && code === 0 && provider === 'firstParty' && source === '') saw += ' with no CLAUDE_CODE_OAUTH_TOKEN in the agent\'s env (an ANTHROPIC_AUTH_TOKEN, billed per token, is reported so too)';
  if (source) saw += `, apiKeySource "${shown(source)}"`;
  if (provider !== 'firstParty') saw += `, apiProvider "${shown(provider)}"`;
  if (method === 'claude.ai' && sub === '' && !source) saw += ', no subscriptionType';
  if (code !== 0) saw += ` (exit ${code})`;
  return { ok: false, saw };
}

/** The verdict on what `codex login status` printed (stdout and stderr together) and its exit status. */
export function codexVerdict(output: string, code: number): Verdict {
  const cmd = COMMAND.codex;
  const lines = output.split('\n').map((l) => l.replace(/[\r \t]+$/, ''));
  if (code === 0 && lines.includes('Logged in using ChatGPT')) return { ok: true, method: 'chatgpt', provider: 'openai', identity: 'ChatGPT login' };
  if (lines.some((l) => l.startsWith('Not logged in'))) return { ok: false, saw: `${cmd} says not logged in` };
  // "API key configured - sk-t***-key" shows part of the key: only its first words are repeated.
  const said = lines.find((l) => l.startsWith('Logged in using ') || l.startsWith('API key configured'))?.replace(/^API key configured.*/, 'API key configured');
  if (said !== undefined) return { ok: false, saw: `${cmd} says "${shown(said)}"${code !== 0 ? ` (exit ${code})` : ''}` };
  return { ok: false, saw: `${cmd} printed no status hbgen can read (exit ${code})` };
}

export function verdict(client: BillingClient, stdout: string, stderr: string, code: number, setupToken = false): Verdict {
  return client === 'claude-code' ? claudeVerdict(stdout, code, setupToken) : codexVerdict(`${stdout}\n${stderr}`, code);
}

/** The agent's env gives Claude Code a setup-token (see claudeVerdict). */
export function hasSetupToken(env: Record<string, string | undefined>): boolean {
  return (env.CLAUDE_CODE_OAUTH_TOKEN ?? '') !== '';
}

/** What was seen when the command did not end in time. */
export function timedOut(client: BillingClient, seconds: number): string {
  return `${COMMAND[client]} did not answer within ${seconds} s`;
}

/** The refusal's tail, after what was seen: the same words in install's refusal and the wrapper's log line. */
export function notPlan(client: BillingClient): string {
  return `not a ${client === 'codex' ? 'ChatGPT' : 'subscription'} login, so the agent is not run on it; ${BILLING_FIX[client]}`;
}

// ---- What the agent can change between wakes (issue 24, items 1-3) -------------------
// The status commands above do not see everything that moves the run off the plan (checked
// with Claude Code 2.1.197 and codex 0.171 against a local capture server):
// - Claude Code applies the `env` block of every settings file to itself: an
//   ANTHROPIC_API_KEY in the repo's .claude/settings.local.json is sent as `x-api-key` while
//   `claude auth status` still says claude.ai / max. The agent can write that file.
// - codex reads a provider from ~/.codex/config.toml (and from the repo's .codex/config.toml
//   once the project is trusted) while `codex login status` says "Logged in using ChatGPT".
// So before every wake (and at install) these files are read for the keys that do it. The
// scan is by key name, wherever the key stands (fail closed), in the wrapper's awk and in
// settingsHits() below with the same rules.

/** Managed (policy) settings Claude Code reads on Linux and macOS; the agent cannot write them unless it runs as root. */
export const CLAUDE_MANAGED = ['/etc/claude-code/managed-settings.json', '/Library/Application Support/ClaudeCode/managed-settings.json'] as const;
/** Drop-in folders of managed settings (every *.json in them). */
export const CLAUDE_MANAGED_DIRS = ['/etc/claude-code/managed-settings.d'] as const;

/** The user's Claude Code folder as the agent's env gives it. */
function claudeDir(env: Record<string, string | undefined>): string {
  return env.CLAUDE_CONFIG_DIR?.startsWith('/') ? env.CLAUDE_CONFIG_DIR : `${env.HOME ?? ''}/.claude`;
}

/** codex's home as the agent's env gives it. */
function codexHome(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME?.startsWith('/') ? env.CODEX_HOME : `${env.HOME ?? ''}/.codex`;
}

const join2 = (a: string, b: string) => `${a.replace(/\/+$/, '')}/${b}`;

/** The files checked before every wake for a harness (existing or not; order = report order). */
export function billingFiles(spec: Pick<Spec, 'repo' | 'env' | 'agent'>): string[] {
  const client = billingClient(spec.agent);
  if (client === 'codex') {
    const args = spec.agent.args;
    // A --profile NAME layers $CODEX_HOME/NAME.config.toml on top of config.toml.
    const profiles = args.flatMap((a, i) => (a === '-p' || a === '--profile' ? [args[i + 1]] : a.startsWith('--profile=') ? [a.slice(10)] : [])).filter((p): p is string => !!p && !p.includes('/'));
    return [join2(codexHome(spec.env), 'config.toml'), ...profiles.map((p) => join2(codexHome(spec.env), `${p}.config.toml`)), join2(spec.repo, '.codex/config.toml')];
  }
  if (client === 'claude-code') {
    const args = spec.agent.args;
    const given = args.flatMap((a, i) => (a === '--settings' ? [args[i + 1]] : a.startsWith('--settings=') ? [a.slice('--settings='.length)] : []));
    const files = given.filter((f): f is string => !!f && !f.trimStart().startsWith('{')).map((f) => (f.startsWith('/') ? f : join2(spec.repo, f)));
    return [join2(spec.repo, '.claude/settings.json'), join2(spec.repo, '.claude/settings.local.json'), join2(claudeDir(spec.env), 'settings.json'), ...files, ...CLAUDE_MANAGED];
  }
  return [];
}

/** The variable names whose presence as a key is a hit (the credential list; any other NAME_API_KEY too). */
export function billingKeyNames(): string[] {
  return knownCredentials();
}

export interface FileHit {
  file: string;
  key: string;
}

/**
 * The first key in a Claude settings file's text that bills per token: a credential
 * variable (src/credentials.ts) or apiKeyHelper, as a JSON object key anywhere in the file
 * (a key with any backslash escape counts too: no settings key needs one, and one could spell
 * a credential's name, as in ANTHROPIC\u005fAPI_KEY).
 */
export function claudeTextHit(text: string): string | undefined {
  const re = /"((?:[^"\\]|\\.)*)"[ \t\r\n]*:/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const key = m[1]!;
    // No settings key needs an escape; one could spell a credential's name (\u005f).
    if (key.includes('\\')) return shown(key);
    if (key === 'apiKeyHelper' || credential(key)) return key;
  }
  return undefined;
}

/**
 * The first key of a codex config.toml that chooses a provider other than "openai" or gives
 * one a credential: model_provider with any other value, experimental_bearer_token, env_key
 * (bare, quoted or dotted, wherever they stand; a quoted key with an escape counts too).
 */
export function codexTextHit(text: string): string | undefined {
  const re = /(^|[ \t{,.'"])(experimental_bearer_token|env_key|model_provider)['"]?[ \t]*=/g;
  for (const line of text.split('\n')) {
    const l = line.replace(/\r$/, '');
    if (/"[^"=]*\\[^"=]*"[ \t]*=/.test(l)) return 'a key with an escape';
    re.lastIndex = 0;
    for (let m = re.exec(l); m; m = re.exec(l)) {
      if (m[2] !== 'model_provider') return m[2];
      const rest = l.slice(m.index + m[0].length).replace(/^[ \t]*/, '');
      if (!/^(["'])openai\1/.test(rest)) return 'model_provider';
    }
  }
  return undefined;
}

/** The first hit in the files (read by the caller; a missing one is skipped). */
export function fileHit(client: BillingClient, files: { file: string; text: string }[]): FileHit | undefined {
  for (const { file, text } of files) {
    if (client === 'claude-code' && text.length > 1048576) return { file, key: '(the file, larger than 1 MiB)' };
    const key = client === 'codex' ? codexTextHit(text) : claudeTextHit(text);
    if (key) return { file, key };
  }
  return undefined;
}

/** The refusal's words after "billing ": the same in install and the wrapper's log line. */
export function fileHitMessage(client: BillingClient, hit: FileHit): string {
  return `${hit.file}: ${hit.key} is set, and ${fileHitFix(client)}`;
}

/** What to do about a hit, after "FILE: KEY ...": the same words in install and the wrapper. */
export function fileHitFix(client: BillingClient): string {
  return client === 'codex'
    ? 'codex would bill another provider or an API key instead of your ChatGPT login; remove the key (the preset pins model_provider="openai")'
    : 'Claude Code applies it to itself and would bill an API key or another provider instead of your subscription; remove the key';
}
