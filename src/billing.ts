// Is the agent's client logged in on the user's fixed plan? Asked of the client itself, with
// its own status command, at install (src/host/billing.ts) and before every wake (the
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
