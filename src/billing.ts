// Is the agent's client logged in on the user's fixed plan? Asked of the client itself, with
// its own status command, at install (src/host/install/billing.ts) and before every wake (the
// wrapper's hb_billing, templates/partials/heartbeat/55-billing.hbs). The two must reach the
// same verdict from the same output: the rules are written once, as the awk programs of
// src/billing-rules.ts, which the wrapper renders in and install runs (verdict, fileHit).
//
// What the clients print, read from the clients themselves (Claude Code 2.1.197, codex
// 0.171, HOME in a temporary folder, offline):
// - `claude auth status` prints one JSON object on stdout (exit 0 when logged in, 1 when not):
//   loggedIn, authMethod (none | third_party | api_key | api_key_helper | oauth_token |
//   claude.ai), apiProvider (firstParty, bedrock, vertex, …), apiKeySource when an API key
//   is in use (ANTHROPIC_API_KEY, apiKeyHelper, "/login managed key"), and for claude.ai
//   email, orgId, orgName and subscriptionType. A Console login ("/login managed key")
//   also says claude.ai, with an apiKeySource and no subscriptionType: it bills per token
//   (2.1.332 says api_key). A subscription login beside a leftover Console key says claude.ai
//   with its subscriptionType and apiKeySource "/login managed key": the login's token is
//   sent, not the key (src/harness/claude-code/index.ts), so that is the plan too.
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
import { knownCredentials } from './credentials.ts';
import { PRESETS, presetOf, type HarnessPreset, type PresetId } from './harness/registry.ts';
import type { Spec } from './spec.ts';

/** A client whose status command hbgen knows: a preset (src/harness/registry.ts). */
export type BillingClient = PresetId;

const of = (client: BillingClient): HarnessPreset => presetOf(client)!;

/** The status command each client answers, after its binary (its descriptor's billing.statusArgv). */
export const STATUS_ARGV = Object.fromEntries(PRESETS.map((p) => [p.id, p.billing.statusArgv])) as Record<BillingClient, readonly string[]>;

/** The status command as the user would type it: "claude auth status". */
export const command = (client: BillingClient) => `${of(client).detect.command} ${of(client).billing.statusArgv.join(' ')}`;

export type Verdict = { ok: true; method: string; provider: string; identity: string; plan?: string } | { ok: false; saw: string };

/** The client a harness is checked with; `command` runs a program hbgen does not know. */
export function billingClient(agent: Spec['agent']): BillingClient | null {
  return presetOf(agent.harness)?.id ?? null;
}

/** How long the wrapper lets the status command run: 20 s, or half the timeout when that is shorter. */
export function billingTimeout(timeoutSeconds: number): number {
  return Math.max(1, Math.min(20, Math.floor(timeoutSeconds / 2)));
}

/** The agent's env gives Claude Code a setup-token (see the rules, src/billing-rules.ts VERDICT_AWK: oauth_token counts as the plan only then). */
export function hasSetupToken(env: Record<string, string | undefined>): boolean {
  return (env.CLAUDE_CODE_OAUTH_TOKEN ?? '') !== '';
}

/** What was seen when the command did not end in time. */
export function timedOut(client: BillingClient, seconds: number): string {
  return `${command(client)} did not answer within ${seconds} s`;
}

/** The refusal's tail, after what was seen: the same words in install's refusal and the wrapper's log line. */
export function notPlan(client: BillingClient): string {
  return `not a ${of(client).billing.plan} login, so the agent is not run on it; ${of(client).billing.fix}`;
}

// ---- What the agent can change between wakes -------------------
// The status commands above do not see everything that moves the run off the plan (checked
// with Claude Code 2.1.197 and codex 0.171 against a local capture server):
// - Claude Code applies the `env` block of every settings file to itself: an
//   ANTHROPIC_API_KEY in the repo's .claude/settings.local.json is sent as `x-api-key` while
//   `claude auth status` still says claude.ai / max. The agent can write that file.
// - codex reads a provider from ~/.codex/config.toml (and from the repo's .codex/config.toml
//   once the project is trusted) while `codex login status` says "Logged in using ChatGPT".
// So before every wake (and at install) these files are read for the keys that do it. The
// scan is by key name, wherever the key stands (fail closed), by FILES_AWK
// (src/billing-rules.ts), in the wrapper and at install.

/** The files checked before every wake for a harness (existing or not; order = report order): its descriptor's billing.files. */
export function billingFiles(spec: Pick<Spec, 'repo' | 'env' | 'agent'>): string[] {
  return presetOf(spec.agent.harness)?.billing.files(spec) ?? [];
}

/** The variable names whose presence as a key is a hit (the credential list; any other NAME_API_KEY too). */
export function billingKeyNames(): string[] {
  return knownCredentials();
}

export interface FileHit {
  file: string;
  key: string;
}

/** The refusal's words after "billing ": the same in install and the wrapper's log line. */
export function fileHitMessage(client: BillingClient, hit: FileHit): string {
  return `${hit.file}: ${hit.key} is set, and ${fileHitFix(client)}`;
}

/** What to do about a hit, after "FILE: KEY ...": the same words in install and the wrapper. */
export function fileHitFix(client: BillingClient): string {
  return of(client).billing.fileFix;
}
