// The codex preset: OpenAI's codex CLI (npm @openai/codex), `codex exec`, everything hbgen
// knows of it in one descriptor (src/harness/types.ts). Each flag is proven against the real
// CLI in test/agents.test.ts.
import { join } from 'node:path';
import { configOverride, join2, optionValue, overrideAt } from '../argv.ts';
import type { ClientNeeds, HarnessPreset, PresetAgent, PresetSpec } from '../types.ts';

/** codex exec's event stream and no session file, after the preset's other flags. */
export const CODEX_STREAM = ['--json', '--ephemeral'];

/** codex's sandbox modes (--sandbox's possible values), each known as CLAUDE_MODES are. */
export const CODEX_SANDBOXES: Readonly<Record<string, 'bypass' | 'ok'>> = { 'read-only': 'ok', 'workspace-write': 'ok', 'danger-full-access': 'bypass' };

/** codex's approval policies (--ask-for-approval's possible values): when it asks a person; the sandbox holds whatever the answer. */
export const CODEX_APPROVALS: Readonly<Record<string, 'bypass' | 'ok'>> = { untrusted: 'ok', 'on-failure': 'ok', 'on-request': 'ok', never: 'ok' };

/** codex config keys that re-point its built-in provider (and the ChatGPT token) elsewhere, whatever their value. */
export const CODEX_URL_KEYS: readonly string[] = ['openai_base_url', 'chatgpt_base_url'];

const FIX = "remove it: the preset's workspace-write sandbox already lets codex write the repo, and --add-dir DIR gives it another folder";

function argv(agent: PresetAgent, jailed: boolean): string[] {
  const model = agent.model ? ['--model', agent.model] : [];
  // `codex exec`: non-interactive, approval policy "never" (exec has no approval flag);
  // the workspace-write sandbox lets it write the repo (and temp) only. --full-auto is
  // gone (0.171 rejects it) and the bypass flags are never used.
  // -c parses its value as TOML: the quotes make the level a TOML string whatever it is.
  // model_provider="openai": the built-in OpenAI provider, on the ChatGPT login, whatever
  // ~/.codex/config.toml (or a profile) names; codex 0.171 refuses a config that redefines
  // "openai" ("Built-in providers cannot be overridden"), so the pin cannot be re-pointed.
  // Jailed: danger-full-access, because codex's own workspace-write sandbox cannot start
  // inside srt: it is bubblewrap too, and srt forbids a nested user namespace (`codex
  // sandbox -P :workspace` inside srt, unprivileged user: "bwrap: No permissions to create
  // new namespace"), so every command the agent ran would fail. Inside the jail the
  // jail holds instead (`codex sandbox -P :danger-full-access` inside srt: the repo is
  // written, a file in HOME is "Read-only file system"). Outside the jail: workspace-write.
  // --json: one JSON event a line (thread.*, turn.*, item.*, error), read by the wrapper's
  // parser for the agent's messages and the usage; --ephemeral: no session
  // file is kept for a wake.
  return ['exec', '--sandbox', jailed ? 'danger-full-access' : 'workspace-write', '-c', 'model_provider="openai"', ...model, ...(agent.effort ? ['-c', `model_reasoning_effort="${agent.effort}"`] : []), ...CODEX_STREAM];
}

/** Why a `-c` override at args[i] moves codex off the plan or out of its sandbox, or undefined. */
function overrideBypass(args: readonly string[], i: number): string | undefined {
  const kv = overrideAt(args, i);
  const o = kv === undefined ? undefined : configOverride(kv);
  if (!o) return undefined;
  // model_provider="openai" is the preset's own pin (a `command` running codex may repeat it).
  const pin = o[0] === 'model_provider' && o[1] === 'openai';
  if (!pin && (o[0] === 'model_provider' || o[0] === 'model_providers' || o[0].startsWith('model_providers.') || o[0].endsWith('.model_provider'))) {
    return `-c ${o[0]}=… chooses or defines the model provider codex bills, and a provider other than the built-in "openai" on your ChatGPT login is billed per token; remove it (the preset pins model_provider="openai")`;
  }
  if (CODEX_URL_KEYS.some((k) => o[0] === k || o[0].endsWith(`.${k}`))) {
    return `-c ${o[0]}=… re-points codex's built-in OpenAI provider, so your ChatGPT login's token goes to that host instead of OpenAI's; remove it`;
  }
  if ((o[0] === 'sandbox_mode' || o[0].endsWith('.sandbox_mode')) && o[1] === 'danger-full-access') {
    return `-c ${o[0]}=danger-full-access runs codex with no sandbox; ${FIX}`;
  }
  return undefined;
}

/** Why args[i] switches off codex's sandbox, approvals or trust, or undefined. */
function bypassAt(args: readonly string[], i: number): string | undefined {
  const a = args[i]!;
  const flag = a.split('=')[0]!;
  if (flag === '--dangerously-bypass-approvals-and-sandbox' || flag === '--yolo') return `${a} runs codex with no sandbox and no approvals; ${FIX}`;
  const sandbox = optionValue(args, i, '--sandbox', '-s');
  if (sandbox !== undefined && CODEX_SANDBOXES[sandbox] === 'bypass') return `--sandbox ${sandbox} runs codex with no sandbox; ${FIX}`;
  if (flag === '--dangerously-bypass-hook-trust') return `${a} runs every enabled codex hook (a program from the repo or config) with no hook trust; remove it`;
  if (flag === '--trust') return `${a} makes codex trust the repo for good, so a .codex/config.toml the agent writes there (a provider, MCP commands outside the sandbox) is loaded; remove it`;
  if (flag === '--approve-for-me') return `${a} sends codex's requests for more than the sandbox allows to an automatic reviewer that may grant them, instead of refusing them; remove it (exec never asks a person)`;
  return overrideBypass(args, i);
}

/** codex's home as the agent's env gives it. */
function codexHome(env: Readonly<Record<string, string | undefined>>): string {
  return env.CODEX_HOME?.startsWith('/') ? env.CODEX_HOME : `${env.HOME ?? ''}/.codex`;
}

/** The files checked before every wake: config.toml, a --profile's, the repo's. */
function billingFiles(spec: PresetSpec): string[] {
  const args = spec.agent.args;
  // A --profile NAME layers $CODEX_HOME/NAME.config.toml on top of config.toml.
  const profiles = args.flatMap((a, i) => (a === '-p' || a === '--profile' ? [args[i + 1]] : a.startsWith('--profile=') ? [a.slice(10)] : [])).filter((p): p is string => !!p && !p.includes('/'));
  return [join2(codexHome(spec.env), 'config.toml'), ...profiles.map((p) => join2(codexHome(spec.env), `${p}.config.toml`)), join2(spec.repo, '.codex/config.toml')];
}

/**
 * codex's own folder (CODEX_HOME, default ~/.codex) holds, beside its configuration
 * (https://developers.openai.com/codex/config-reference, "AGENTS.md", "rules", "custom
 * prompts", "skills", "subagents"), what it keeps of its runs and reads back later:
 * shell_snapshots/ (sourced before its shell commands), sessions/ (the transcripts `codex
 * resume` continues), skills/ (instructions it loads), its state databases, memories and
 * history. None of it is writable in the jail: the jailed codex gets a CODEX_HOME of its own
 * (ClientNeeds.own; "CODEX_HOME … defaults to ~/.codex", codex's own docs) and the person's
 * folder is read-only. CODEX_CONFIG: the person's configuration the jailed codex still reads.
 */
export const CODEX_CONFIG = { files: ['config.toml', 'AGENTS.md', 'AGENTS.override.md'], dirs: ['prompts', 'rules', 'agents'] };

/** codex-cli 0.171.0 in the jail; `codexDir`: the person's CODEX_HOME or ~/.codex. */
function needs(codexDir: string): ClientNeeds {
  return {
    // `codex exec --sandbox workspace-write -- hello` (HOME empty) created in its CODEX_HOME
    // state_5.sqlite, logs_2.sqlite, thread_history_1.sqlite, memories_1, goals_1, queue_1
    // (each with -wal/-shm made as it runs), installation_id, .sandbox_migration, and the
    // folders sessions/, shell_snapshots/, thread-writer-locks/, skills/, tmp/arg0-linux/
    // (its sandbox helpers), .tmp/: all of it now in its own folder, made fresh per wake.
    write: [],
    writeFiles: [],
    denyWrite: [],
    denyDirs: [],
    seed: [],
    own: {
      env: 'CODEX_HOME',
      name: 'codex',
      person: codexDir,
      copies: [
        // model_provider, a provider's env_key / base_url, forced_login_method (billing), MCP
        // servers: the person's, copied (a denied regular file: see claude-code's copies) and
        // read-only. Empty where the person has none: codex's own default, and a denied file
        // that is missing would be /dev/null, which codex 0.171 cannot read ("Error: Failed to
        // read config file …/config.toml: Permission denied (os error 13)").
        { name: 'config.toml', seed: '', deny: true },
      ],
      // The global instructions, custom prompts, command rules and subagents, read-only (see
      // CLAUDE_LINKS for why offered). Not skills/: codex writes its built-in skills there
      // (skills/.system) at every start, so its folder stays its own, and the person's own
      // skills are not offered in a jailed wake.
      links: [...CODEX_CONFIG.files.filter((f) => f !== 'config.toml'), ...CODEX_CONFIG.dirs],
      // A ChatGPT login's tokens are refreshed at auth.openai.com/oauth/token and written back
      // to auth.json, the refresh token rotated: copied in and written back after the wake as
      // claude-code's .credentials.json is. An API key written there is refused by the billing
      // check before the next wake (`codex login status` says "API key configured").
      login: 'auth.json',
    },
    hosts: [
      // The ChatGPT login's model endpoint (chatgpt.com/backend-api/codex, 7 mentions in the
      // binary); logged out, strace saw a DNS query for chatgpt.com.
      'chatgpt.com',
      // Token refresh: https://auth.openai.com/oauth/token in the binary.
      'auth.openai.com',
      // Left out on purpose: api.openai.com, the per-token API route (logged out codex asked
      // DNS for it 17 times and waited "Reconnecting... waiting for network"): with a ChatGPT
      // login the model is at chatgpt.com, and a key the agent slipped in cannot bill there.
      // Also left out: api.github.com (its release check, /repos/openai/codex/releases/latest),
      // ab.chatgpt.com (experiments).
    ],
    env: {},
  };
}

// VERDICT_AWK's rules for `codex login status` (src/billing-rules.ts): the "Logged in using
// ChatGPT" line (stdout or stderr) with exit 0 is the plan.
const VERDICT_RULE = String.raw`which == "codex" {
  l = $0
  sub(/[\r \t]+$/, "", l)
  if (l == "Logged in using ChatGPT") chat = 1
  if (l ~ /^Not logged in/) notin = 1
  if (!hassaid && (l ~ /^Logged in using / || l ~ /^API key configured/)) {
    # "API key configured - sk-t***-key" shows part of the key: only its first words are repeated.
    said = l
    if (l ~ /^API key configured/) said = "API key configured"
    hassaid = 1
  }
}`;
const VERDICT_END = String.raw`cmd = "codex login status"
if (rc == 0 && chat) { print "ok chatgpt openai ChatGPT login"; exit }
if (notin) { print "no " cmd " says not logged in"; exit }
if (hassaid) { print "no " cmd " says \"" shown(said) "\"" (rc != 0 ? " (exit " rc ")" : ""); exit }
print "no " cmd " printed no status hbgen can read (exit " rc ")"
exit`;

// FILES_AWK's scan of codex's TOML: experimental_bearer_token, env_key, openai_base_url,
// chatgpt_base_url, or model_provider with any value other than "openai", bare, quoted or
// dotted; a quoted key with an escape.
const FILES_BEGIN = String.raw`re = "(^|[ \t{,." q "\"])(experimental_bearer_token|env_key|${CODEX_URL_KEYS.join('|')}|model_provider)[" q "\"]?[ \t]*="
esc = "\"[^\"=]*\\\\[^\"=]*\"[ \t]*="`;
const FILES_LINE = String.raw`sub(/\r$/, "", l)
if (l ~ esc) found("a key with an escape", f)
while (match(l, re)) {
  k = substr(l, RSTART, RLENGTH)
  l = substr(l, RSTART + RLENGTH)
  sub(/^[^a-z]*/, "", k)
  sub(/[^a-z_]*$/, "", k)
  if (k != "model_provider") found(k, f)
  v = l
  sub(/^[ \t]*/, "", v)
  c = substr(v, 1, 1)
  if (c != "\"" && c != q) found(k, f)
  v = substr(v, 2)
  if (substr(v, 1, 7) != "openai" c) found(k, f)
}`;

export const preset = {
  id: 'codex',
  label: 'Codex',
  argv,
  // codex 0.171 reads `model_reasoning_effort` as a free string and sends it to the model,
  // whose levels `codex debug models --bundled` lists (the union over its catalog).
  efforts: ['low', 'medium', 'high', 'xhigh', 'max', 'ultra'],
  // A model codex 0.171 lists (`codex debug models --bundled`, checked in test/agents.test.ts).
  pins: { model: 'gpt-5.5', effort: 'medium' },
  permissionOptions: {
    '--dangerously-bypass-approvals-and-sandbox': 'bypass',
    '--yolo': 'bypass',
    '--dangerously-bypass-hook-trust': 'bypass',
    '--trust': 'bypass',
    '--approve-for-me': 'bypass',
    '--sandbox': 'value',
    '--config': 'value',
    // When codex asks a person; the sandbox holds whatever the answer.
    '--ask-for-approval': 'ok',
    // Web search with "no per-call approval": a tool, not a permission check.
    '--search': 'ok',
  },
  bypassAt,
  tools: (pick) => `${pick('--sandbox')}, approval never: commands run inside codex's own sandbox without asking`,
  jail: {
    holds: 'codex runs with --sandbox danger-full-access because its own sandbox cannot start inside the jail',
    off: 'jail off: codex runs in its own workspace-write sandbox: it writes the repo and temp only, with no network (so no git push, no npm install); remove "sandbox": false to run it jailed with the hosts of sandbox.allowHosts, or add -c sandbox_workspace_write.network_access=true to agent.args (any host then)',
    needs: (home, env) => needs(env.CODEX_HOME || join(home, '.codex')),
  },
  // src/credentials.ts says what each is and why it bills.
  credentials: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'CODEX_ACCESS_TOKEN', 'OPENAI_IDENTITY_TOKEN_FILE', 'AZURE_OPENAI_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK', 'GOOGLE_APPLICATION_CREDENTIALS'],
  billing: {
    statusArgv: ['login', 'status'],
    plan: 'ChatGPT',
    fix: 'run `codex logout && codex login` and sign in with ChatGPT',
    fileFix: 'codex would bill another provider or an API key instead of your ChatGPT login; remove the key (the preset pins model_provider="openai")',
    files: billingFiles,
    verdict: { rule: VERDICT_RULE, end: VERDICT_END },
    filesScan: { begin: FILES_BEGIN, line: FILES_LINE },
  },
  stream: 'codex',
  limit: 'codex',
  model: {
    // The OpenAI server's words, which codex 0.171 prints as they come ({"detail":"The 'M'
    // model is not supported when using Codex with a ChatGPT account."}, openai/codex issues
    // 14266 and 17642), and the API's error code model_not_found (listed in the codex 0.171
    // binary's error codes).
    refusals: ['model is not supported when using Codex with a ChatGPT account', 'model_not_found', 'does not exist or you do not have access to it'],
    // The catalog shipped with the binary, read offline.
    catalog: { argv: ['debug', 'models', '--bundled'], from: '`codex debug models --bundled`' },
    // The catalog's order (priority) is its model picker's, not a ranking by strength, and
    // which model is fast or strong is said only in prose: init writes no tiers. It does
    // name, for the pinned model, the successor the catalog itself gives (its upgrade), the
    // model codex would move a person to once the pinned one is retired.
    initModels(catalog, pinned) {
      const notes = ["no model tiers written: codex's catalog orders its models for its picker, not by strength; name them in agent.models if you want subagent tiers"];
      const next = catalog.find((m) => m.slug === pinned)?.upgrade;
      return next && next !== pinned && catalog.some((m) => m.slug === next) ? { fallbackModel: next, notes } : { notes };
    },
  },
  instructionFiles: ['AGENTS.md', 'AGENTS.override.md'],
  detect: { command: 'codex' },
  // codex exec refuses a folder outside a git repository unless told it is fine.
  outsideGit: { args: ['--skip-git-repo-check'], note: 'codex exec refuses a folder outside a git repository, so agent.args holds --skip-git-repo-check; run `git init` and remove it if you prefer' },
  // codex refreshes its login in auth.json: it needs a writable copy, not the Secret's read-only file.
  podLogin: { key: 'auth.json', init: 'codex-login', dir: (env, home) => (env.CODEX_HOME && env.CODEX_HOME.startsWith('/') ? env.CODEX_HOME : join(home, '.codex')) },
} as const satisfies HarnessPreset<'codex'>;
