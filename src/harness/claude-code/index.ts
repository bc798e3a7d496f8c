// The claude-code preset: Claude Code (npm @anthropic-ai/claude-code), everything hbgen knows
// of it in one descriptor (src/harness/types.ts). Each flag is proven against the real CLI
// in test/agents.test.ts: an accepted command line gets as far as authentication or the
// network, a rejected flag fails at once.
import { join } from 'node:path';
import { join2, optionValue, optionValues } from '../argv.ts';
import type { ClientNeeds, HarnessPreset, PresetAgent, PresetSpec } from '../types.ts';

/**
 * Claude Code's turn cap for one wake. `--max-turns`: "Limit the number of agentic turns
 * (print mode only). Exits with an error when the limit is reached. No limit by default."
 * (code.claude.com/docs/en/cli-reference). The wrapper's timeout bounds the wall clock;
 * this bounds a loop of tool calls inside it. A later `--max-turns N` in agent.args wins.
 */
export const CLAUDE_MAX_TURNS = 100;

/** Claude Code's event stream, after the preset's other flags: see argv. */
export const CLAUDE_STREAM = ['--output-format', 'stream-json', '--verbose', '--no-session-persistence'];

/**
 * Claude Code's permission modes (the choices its --help lists for --permission-mode), each
 * known: "bypass" runs a tool with no person's or rule's yes (bypassPermissions: no check
 * at all; auto: a model decides, as codex's --approve-for-me does), "ok" keeps the checks.
 * test/agents.test.ts fails when the pinned client's --help lists a mode not named here.
 */
export const CLAUDE_MODES: Readonly<Record<string, 'bypass' | 'ok'>> = {
  acceptEdits: 'ok',
  auto: 'bypass',
  bypassPermissions: 'bypass',
  default: 'ok',
  dontAsk: 'ok',
  manual: 'ok',
  plan: 'ok',
};

/** The Claude Code options that take a permission mode (--inherit-permission-mode is hidden from --help, found in its bundle). */
export const CLAUDE_MODE_OPTIONS = ['--permission-mode', '--inherit-permission-mode'] as const;

/**
 * Claude Code's model aliases: "default" and the list its 2.1.197 bundle checks a name
 * against (sonnet, opus, haiku, fable, best, sonnet[1m], opus[1m], fable[1m], opusplan);
 * https://docs.anthropic.com/en/docs/claude-code/model-config lists the released ones.
 * A full model name (claude-…) is on no list the client prints.
 */
export const CLAUDE_ALIASES = ['default', 'best', 'sonnet', 'opus', 'haiku', 'fable', 'sonnet[1m]', 'opus[1m]', 'fable[1m]', 'opusplan'];

/** Managed (policy) settings Claude Code reads on Linux and macOS; the agent cannot write them unless it runs as root. */
export const CLAUDE_MANAGED = ['/etc/claude-code/managed-settings.json', '/Library/Application Support/ClaudeCode/managed-settings.json'] as const;
/** Drop-in folders of managed settings (every *.json in them). */
export const CLAUDE_MANAGED_DIRS = ['/etc/claude-code/managed-settings.d'] as const;

const FIX = "remove it: the preset's acceptEdits mode already edits the repo unattended, and permissions.allow rules in the repo's .claude/settings.json allow the commands the agent needs";

function argv(agent: PresetAgent, jailed: boolean): string[] {
  const model = agent.model ? ['--model', agent.model] : [];
  // -p/--print: headless, one prompt in, result out, exit (the trust dialog is skipped).
  // --permission-mode acceptEdits: file edits in the repo and basic file commands run
  // without asking; anything else that would ask is refused in print mode, so the run
  // never waits for a person. Not bypassPermissions (= --dangerously-skip-permissions);
  // widen it with permissions.allow rules in the repo's .claude/settings.json.
  // Jailed: --allowedTools Bash lets every shell command run (tests, builds, git commit)
  // without asking, still in acceptEdits mode, so the person's own permissions.deny rules
  // (deny wins over allow in Claude Code) and hooks still apply; the jail, not this list,
  // bounds what the commands reach. Never bypassPermissions: it would drop the deny rules
  // (and Claude Code 2.1.197 refuses it as root: "--dangerously-skip-permissions cannot be
  // used with root/sudo privileges for security reasons").
  // --output-format stream-json --verbose: one JSON event a line (print mode needs --verbose
  // for it), which the wrapper's parser reads for the result text, the usage and the
  // rate_limit_event (its reset as an epoch, and whether paid overage is in use).
  // --no-session-persistence: no session file per wake piles up in ~/.claude/projects.
  // --fallback-model: Claude Code 2.1.197 switches to it within the run when the model is
  // overloaded or not found; the wrapper also starts the next wakes on it once the model
  // was refused (src/model-fallback.ts), so that they do not ask for it again.
  return ['-p', ...model, ...(agent.fallbackModel ? ['--fallback-model', agent.fallbackModel] : []), ...(agent.effort ? ['--effort', agent.effort] : []), '--permission-mode', 'acceptEdits', ...(jailed ? ['--allowedTools', 'Bash'] : []), '--max-turns', String(CLAUDE_MAX_TURNS), ...CLAUDE_STREAM];
}

/** Why args[i] switches off Claude Code's permission checks, or undefined. */
function bypassAt(args: readonly string[], i: number): string | undefined {
  const a = args[i]!;
  const flag = a.split('=')[0]!;
  if (flag === '--dangerously-skip-permissions') return `${a} lets Claude Code run every tool with no permission check; ${FIX}`;
  if (flag === '--allow-dangerously-skip-permissions') return `${a} lets the session switch off every permission check; ${FIX}`;
  if (flag === '--permission-prompt-tool') return `${a} sends Claude Code's permission prompts to an MCP tool that may grant them, instead of refusing them; ${FIX}`;
  for (const o of CLAUDE_MODE_OPTIONS) {
    const mode = optionValue(args, i, o);
    if (mode !== undefined && CLAUDE_MODES[mode] === 'bypass') {
      return `${o} ${mode} runs Claude Code ${mode === 'auto' ? 'with a model, not you or your rules, approving each tool call' : 'with no permission check'}; ${FIX}`;
    }
  }
  return undefined;
}

/** The user's Claude Code folder as the agent's env gives it. */
function claudeDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.CLAUDE_CONFIG_DIR?.startsWith('/') ? env.CLAUDE_CONFIG_DIR : `${env.HOME ?? ''}/.claude`;
}

/** The files checked before every wake: the repo's and the user's settings, a `--settings FILE` of agent.args, the managed ones. */
function billingFiles(spec: PresetSpec): string[] {
  const files = optionValues(spec.agent.args, '--settings')
    .filter((f): f is string => !!f && !f.trimStart().startsWith('{'))
    .map((f) => (f.startsWith('/') ? f : join2(spec.repo, f)));
  return [join2(spec.repo, '.claude/settings.json'), join2(spec.repo, '.claude/settings.local.json'), join2(claudeDir(spec.env), 'settings.json'), ...files, ...CLAUDE_MANAGED];
}

/**
 * What Claude Code keeps of its runs in its folder (~/.claude, or CLAUDE_CONFIG_DIR), and what
 * the person's own client does with it later: shell-snapshots/ is sourced before every Bash
 * command, session-env/ holds scripts that hooks leave for the next command, projects/ holds
 * the transcripts a person resumes, file-history/ what /rewind restores, backups/ copies of
 * .claude.json it restores, plans/, tasks/ and todos/ are read back into a session, ide/ holds
 * the lock files that tell the person's client which IDE server to connect to, statsig/ and
 * cache/ feature flags and caches it trusts. Claude Code 2.1.197's bundle keeps these machine-
 * local entries as one Set (".claude.json", ".credentials.json", "projects", "sessions",
 * "todos", "shell-snapshots", "statsig", "file-history", "ide", "logs", "backups", … "plans",
 * "telemetry", "debug", "cache", "session-env", "paste-cache", "image-cache"). None of it is
 * writable in the jail any more: a jailed wake that appended to a shell snapshot ran its line
 * as the person, outside the jail, at the person's next Bash command. The jailed client gets
 * a folder of its own instead (ClientNeeds.own), through CLAUDE_CONFIG_DIR ("Override the
 * configuration directory", https://code.claude.com/docs/en/env-vars), and the list stays
 * here to say what the person's folder holds that the jail keeps away from the agent.
 */
export const CLAUDE_STATE = ['projects', 'sessions', 'todos', 'shell-snapshots', 'statsig', 'file-history', 'ide', 'logs', 'backups', 'plans', 'telemetry', 'debug', 'cache', 'session-env', 'paste-cache', 'image-cache', 'tasks', 'traces', 'usage-data'];

/**
 * The person's configuration the jailed client still reads, read-only, through a link in its
 * own folder (where the person has it): the global instructions CLAUDE.md, subagents,
 * commands, skills, output styles and installed plugins (https://code.claude.com/docs/en/settings,
 * "memory", "sub-agents", "slash commands", "skills", "plugins"). Offered because they are the
 * person's own rules for any session (a "never push to main" in CLAUDE.md holds unattended
 * too); read-only because the person's folder is read-only in the jail, whatever the link's
 * name. The agent may replace a link in its own folder: that changes its own wake only.
 */
export const CLAUDE_LINKS = ['CLAUDE.md', 'agents', 'commands', 'skills', 'output-styles', 'plugins'];

/** The jailed client's own folder (ClientNeeds.own): what the wrapper puts there from the person's folder. */
function claudeOwn(person: string, configDir: string | undefined): NonNullable<ClientNeeds['own']> {
  return {
    env: 'CLAUDE_CONFIG_DIR',
    name: 'claude',
    person,
    copies: [
      // The person's settings, so that their permissions.deny rules and hooks still apply
      // (the panel says so); a copy made by the wrapper, not a link: srt resolves a denied
      // link to its target and would leave the link itself replaceable in a writable folder,
      // while a denied regular file is a read-only bind the agent cannot write, rename or
      // remove (EBUSY). Denied: an apiKeyHelper, env credentials or a provider switch written
      // mid-wake would change billing (src/harness.ts settingsIssues). settings.json is read
      // at every start; where the person has none, `{}` (an empty file is unreadable JSON).
      { name: 'settings.json', seed: '{}\n', deny: true },
      // Read at user level too; only copied where the person has one.
      { name: 'settings.local.json', deny: true },
      // With CLAUDE_CONFIG_DIR, Claude Code keeps .claude.json there (seen:
      // `CLAUDE_CONFIG_DIR=$HOME/cfg claude -p hi` made cfg/{.claude.json, projects, sessions,
      // telemetry, backups}). Never the person's (primaryApiKey, mcpServers, their projects'
      // trust): `{}`, denied. Claude rewrites it by a temp file + rename (strace: openat
      // .claude.json.tmp.PID.*, rename): the rename onto the read-only bind fails, which claude
      // survives as it does a read-only HOME (2.1.332 against the stand-in API: the wake
      // completes, its tool runs and it commits; test/jail-own.test.ts).
      { name: '.claude.json', seed: '{}\n', deny: true, fresh: true },
    ],
    links: CLAUDE_LINKS,
    // The subscription's OAuth login (Linux: .credentials.json). Its refresh replaces the
    // access AND the refresh token (the bundle: POST grant_type:"refresh_token" to TOKEN_URL
    // platform.claude.com/v1/oauth/token; the answer's refresh token replaces the old one,
    // which stops working), and Claude Code 2.1.332 writes it by a temp file + rename in its
    // folder (strace: openat .credentials.json.tmp.*, rename onto .credentials.json): a link
    // to the person's file would be replaced by a file in the private folder, and the person's
    // login would die at its next refresh. So the wrapper copies the file in, and after the
    // wake writes a changed one back into the person's file (unless the person's changed
    // meanwhile): test/jail-own.test.ts refreshes through the real client in the jail and
    // finds the rotated token in the person's file. A CLAUDE_CODE_OAUTH_TOKEN login needs no
    // file. What it holds is checked again before every wake by the billing check, which
    // reads the person's own folder outside the jail (`claude auth status`).
    login: '.credentials.json',
    // macOS keeps the login in the Keychain, under a service name that Claude Code 2.1.332
    // suffixes with a hash of CLAUDE_CONFIG_DIR when that is set (its bundle: `r=n?"":`-${
    // sha256(o).substring(0,8)}`` in the name "Claude Code-credentials…"), so the jailed
    // client would look for a login of its own folder and find none.
    // CLAUDE_SECURESTORAGE_CONFIG_DIR names the folder that name is made from instead (empty:
    // the default, no suffix): the person's. Not on Linux, where it would also move the
    // credentials file back into the person's folder, read-only in the jail. Not run here
    // (no macOS host in the tests): from the bundle alone.
    keychainEnv: { CLAUDE_SECURESTORAGE_CONFIG_DIR: configDir ?? '' },
  };
}

/**
 * Claude Code in the jail. `configDir`: the spec env's CLAUDE_CONFIG_DIR, when it sets one
 * (that folder is then the person's, treated as ~/.claude is).
 */
function needs(home: string, configDir: string | undefined): ClientNeeds {
  const person = configDir ?? join(home, '.claude');
  return {
    write: [],
    writeFiles: [],
    // Nothing of the person's folder is writable: it is not in the jail's write list at all.
    // Named here so that the panel and status say it; srt places nothing for them.
    denyWrite: [
      // ~/.claude.json holds `primaryApiKey`, which Claude Code 2.1.197 sends as an API key
      // (its bundle: `if(!e.primaryApiKey)return null;return{key:e.primaryApiKey,source:"/login
      // managed key"}`), and user-scope mcpServers. It lies in HOME itself, never writable in
      // the jail; with CLAUDE_CONFIG_DIR it lies inside the person's folder.
      ...(configDir ? [] : [join(home, '.claude.json')]),
    ],
    denyDirs: [],
    seed: [],
    own: claudeOwn(person, configDir),
    hosts: [
      // The API, and (logged out) the only host it resolved: strace -e sendto showed DNS
      // queries for api.anthropic.com only; inside srt, srt -d: "Allowed by config rule:
      // api.anthropic.com:443". Its feature flags and 1P events go there too.
      'api.anthropic.com',
      // OAuth token refresh: the bundle's TOKEN_URL:"https://platform.claude.com/v1/oauth/token".
      'platform.claude.com',
      // Left out: http-intake.logs.us5.datadoghq.com (telemetry, in the bundle), claude.ai
      // and claude.com (browser login pages, never used by -p), downloads.claude.ai (updates).
    ],
    // The bundle reads both (22 and 11 mentions); NONESSENTIAL_TRAFFIC switches off
    // telemetry, error reporting, the auto-updater and feedback.
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1' },
  };
}

// VERDICT_AWK's rules for `claude auth status` (src/billing-rules.ts; what it prints: src/billing.ts):
// the JSON on stdout; the plan is claude.ai with a subscriptionType and no apiKeySource, or
// oauth_token with tok=1, both on firstParty with exit 0.
// A subscription login with a leftover Console key (`primaryApiKey` in ~/.claude.json) is the
// plan too: Claude Code 2.1.332 says claude.ai, its subscriptionType AND apiKeySource "/login
// managed key", and sends only the login's token (its bundle: `if(e.isSubscriber)return{apiKey:
// null,authToken:e.oauthAccessToken}`; the real client against a stand-in API sent
// "Authorization: Bearer <the login's token>" and no x-api-key, test/billing.test.ts). A login
// without the inference scope is no subscriber: it says api_key and sends the key (refused).
// Any other apiKeySource (ANTHROPIC_API_KEY, apiKeyHelper) stays refused: not proven unsent.
const VERDICT_RULE = String.raw`FILENAME == ARGV[1] && which == "claude-code" { t = t $0 "\n"; next }`;
const VERDICT_END = String.raw`cmd = "claude auth status"
x = t
sub(/^[ \t\r\n]+/, "", x)
sub(/[ \t\r\n]+$/, "", x)
if (substr(x, 1, 1) != "{" || substr(x, length(x), 1) != "}" || substr(val("authMethod"), 1, 1) != "s") {
  print "no " cmd " printed no status hbgen can read (exit " rc ")"
  exit
}
m = str("authMethod"); p = str("apiProvider"); src = str("apiKeySource"); sb = str("subscriptionType")
if (m == "none" || val("loggedIn") == "lfalse") { print "no " cmd " says not logged in"; exit }
if (rc == 0 && p == "firstParty" && m == "claude.ai" && sb != "" && src == "/login managed key") { print "ok claude.ai firstParty Claude subscription login (" shown(sb) "; its leftover Console key is not sent)"; exit }
if (rc == 0 && p == "firstParty" && src == "") {
  if (m == "claude.ai" && sb != "") { print "ok claude.ai firstParty Claude subscription login (" shown(sb) ")"; exit }
  if (m == "oauth_token" && tok) { print "ok oauth_token firstParty Claude subscription token (CLAUDE_CODE_OAUTH_TOKEN)"; exit }
}
s = cmd " says authMethod \"" shown(m) "\""
if (m == "oauth_token" && !tok && rc == 0 && p == "firstParty" && src == "") s = s " with no CLAUDE_CODE_OAUTH_TOKEN in the agent's env (an ANTHROPIC_AUTH_TOKEN, billed per token, is reported so too)"
if (src != "") s = s ", apiKeySource \"" shown(src) "\""
if (p != "firstParty") s = s ", apiProvider \"" shown(p) "\""
if (m == "claude.ai" && sb == "" && src == "") s = s ", no subscriptionType"
if (rc != 0) s = s " (exit " rc ")"
print "no " s`;

export const preset = {
  id: 'claude-code',
  label: 'Claude Code',
  argv,
  // Claude Code 2.1.197 `claude --help` says "--effort <level> … (low, medium, high, xhigh,
  // max)" (and ignores any other value with a warning).
  efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  // The alias "sonnet" follows the current Sonnet, as `claude --model sonnet` does.
  pins: { model: 'sonnet', effort: 'medium' },
  permissionOptions: {
    '--dangerously-skip-permissions': 'bypass',
    '--allow-dangerously-skip-permissions': 'bypass',
    // Sends every permission prompt to an MCP tool that may grant it (hidden from --help).
    '--permission-prompt-tool': 'bypass',
    '--permission-mode': 'value',
    '--inherit-permission-mode': 'value',
    '--settings': 'value',
    // "none" denies what would prompt; "host" asks the SDK host or --permission-prompt-tool.
    '--permission-prompts': 'ok',
    '--print': 'ok',
    '--restricted': 'ok',
    '--safe-mode': 'ok',
  },
  bypassAt,
  settingsOption: '--settings',
  tools(pick) {
    const allowed = pick('--allowedTools');
    return `${pick('--permission-mode')}${allowed ? ` ${allowed}` : ''}: edits${allowed ? ' and every shell command' : ''} without asking${allowed ? ' (the jail bounds what they reach)' : '; a shell command the client would ask about is refused'}; your own permissions.deny rules still apply`;
  },
  jail: {
    holds: "Claude Code's permission rules (and its own sandbox settings) only filter its tool calls",
    off: 'jail off: the agent edits files in the repo but every shell command not allowed in advance (npm test, make, git commit) is refused unattended; remove "sandbox": false to run it jailed with shell commands allowed, or allow commands with permissions.allow rules in the repo\'s .claude/settings.json (they then run with your full rights)',
    needs: (home, env) => needs(home, env.CLAUDE_CONFIG_DIR?.startsWith('/') ? env.CLAUDE_CONFIG_DIR : undefined),
  },
  // src/credentials.ts says what each is and why it bills.
  credentials: [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_FOUNDRY_API_KEY',
    'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
    'ANTHROPIC_AWS_API_KEY',
    'ANTHROPIC_BEDROCK_MANTLE_API_KEY',
    'ANTHROPIC_IDENTITY_TOKEN',
    'ANTHROPIC_IDENTITY_TOKEN_FILE',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
    'CLAUDE_CODE_USE_FOUNDRY',
    'CLAUDE_CODE_USE_ANTHROPIC_AWS',
    'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
    'CLAUDE_CODE_USE_MANTLE',
    'CLAUDE_CODE_USE_GATEWAY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_BEARER_TOKEN_BEDROCK',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'AZURE_CLIENT_SECRET',
    'AZURE_CLIENT_CERTIFICATE_PATH',
  ],
  billing: {
    statusArgv: ['auth', 'status'],
    plan: 'subscription',
    fix: 'run `claude`, then /login with your Claude subscription (or `claude setup-token` for a token of it)',
    fileFix: 'Claude Code applies it to itself and would bill an API key or another provider instead of your subscription; remove the key',
    files: billingFiles,
    filesDir: CLAUDE_MANAGED_DIRS[0],
    verdict: { rule: VERDICT_RULE, end: VERDICT_END },
    // A client from before `claude auth status` would read "auth status" as a prompt: its
    // help must list the command before the command is asked.
    precheck: {
      argv: ['auth', '--help'],
      stdout: /^\s*status\b/m,
      refusal: 'does not list a "status" command{version}, so hbgen cannot verify that it runs on your subscription; update Claude Code (`claude update`, or npm install -g @anthropic-ai/claude-code), then install again',
    },
    // `auth status` says oauth_token for an ANTHROPIC_AUTH_TOKEN (billed per token) too; only
    // --text names the variable in use (Claude Code 2.1.197). The wrapper asks it too.
    tokenMethod: 'oauth_token',
    claudeSettings: true,
  },
  stream: 'claude',
  limit: 'claude',
  model: {
    // Claude Code 2.1.197, from its bundle: "There's an issue with the selected model (M). It
    // may not exist or you may not have access to it." and, on a cloud deployment, "The model M
    // is not available on your … deployment."
    refusals: ["There's an issue with the selected model (", 'It may not exist or you may not have access to it', 'deployment. Try switching to'],
    catalog: { list: CLAUDE_ALIASES, from: "Claude Code's aliases", fullName: /^claude-[a-z0-9.-]+(\[1m\])?$/ },
    // The aliases' order is Claude Code's own (https://docs.claude.com/en/docs/claude-code/model-config:
    // haiku "fast and efficient", sonnet "for daily coding", opus "for complex reasoning"),
    // and each follows the newest model of its family. The fallback is the tier below the
    // pinned model, which every plan that has the pinned one has too.
    initModels(catalog, pinned) {
      const tiers = { fast: 'haiku', general: 'sonnet', strong: 'opus' };
      const ids = new Set(catalog.map((m) => m.slug));
      if (!Object.values(tiers).every((t) => ids.has(t))) return { notes: ["Claude Code's aliases lack haiku, sonnet or opus: no tiers written"] };
      const below: Record<string, string> = { opus: 'sonnet', sonnet: 'haiku' };
      return { models: tiers, ...(below[pinned] ? { fallbackModel: below[pinned] } : {}), notes: [] };
    },
    // A subagent whose model is "inherit" runs on the lead's model (https://docs.claude.com/en/docs/claude-code/sub-agents).
    inherit: 'inherit',
  },
  instructionFiles: ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md'],
  denyRuleFiles: (repo, home) => [join2(repo, '.claude/settings.json'), join2(repo, '.claude/settings.local.json'), join2(home, '.claude/settings.json')],
  // Claude Code's client (a Bun executable, 2.1.x) aborts before it prints its version under
  // an RLIMIT_DATA of 512M and starts at 576M (measured): under rlimits, where limits.memory
  // bounds each process's data, a smaller bound leaves no wake that can run.
  memoryMin: '1G',
  // Claude Code's old local installer put the binary in ~/.claude/local and only an alias on PATH.
  detect: { command: 'claude', offPath: '.claude/local/claude' },
} as const satisfies HarnessPreset<'claude-code'>;
