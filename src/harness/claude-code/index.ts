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
 * Claude Code's own folder (~/.claude, or CLAUDE_CONFIG_DIR) is split: what it keeps of its
 * runs is writable, everything else is not. The documented layout
 * (https://docs.anthropic.com/en/docs/claude-code/settings, "memory" and "slash commands")
 * puts the person's configuration there: settings.json, CLAUDE.md, agents/, commands/,
 * skills/, hooks and the statusline scripts that settings.json names (anywhere in the
 * folder), plugins/ with their own hooks; all of it runs or is read by the person's own
 * interactive Claude Code, outside the jail. The folder itself stays read-only, so a name
 * that is not listed here (a new script, a new plugin) cannot be written either.
 * CLAUDE_STATE is Claude Code 2.1.197's own list of the machine-local entries of that folder
 * (its bundle keeps it as a Set beside the config entries: ".claude.json",
 * ".credentials.json", "projects", "sessions", "todos", "shell-snapshots", "statsig",
 * "file-history", "ide", "logs", "backups", … "plans", "telemetry", "debug", "cache",
 * "session-env", "paste-cache", "image-cache"), the folders of it; strace of `claude -p`
 * showed writes only into projects/, sessions/, backups/, telemetry/, debug/ and
 * plugins/store/ (a built-in plugin's record: refused, and claude goes on).
 */
export const CLAUDE_STATE = ['projects', 'sessions', 'todos', 'shell-snapshots', 'statsig', 'file-history', 'ide', 'logs', 'backups', 'plans', 'telemetry', 'debug', 'cache', 'session-env', 'paste-cache', 'image-cache', 'tasks', 'traces', 'usage-data'];

function claudeState(dir: string): Pick<ClientNeeds, 'write' | 'writeFiles' | 'denyDirs'> {
  return {
    write: CLAUDE_STATE.map((d) => join(dir, d)),
    // Rewritten in place at every OAuth refresh (its writer opens the file itself, no temp
    // file and rename in the folder): see the note at `hosts`.
    writeFiles: [join(dir, '.credentials.json')],
    denyDirs: [],
  };
}

/**
 * Claude Code 2.1.197 in the jail; `configDir`: the spec's CLAUDE_CONFIG_DIR, when it sets one.
 * With CLAUDE_CONFIG_DIR, Claude Code keeps everything there, .claude.json too (seen:
 * `CLAUDE_CONFIG_DIR=$HOME/cfg claude -p hi` made cfg/{.claude.json, projects, sessions,
 * telemetry, backups}).
 */
function needs(home: string, configDir: string | undefined): ClientNeeds {
  if (configDir) {
    // .claude.json then lies inside the writable folder: denied, and seeded so that srt binds
    // the deny rule to a real file (claude rewrites it by temp file + rename: the rename onto
    // the read-only file fails, which claude survives as it does a read-only HOME).
    const json = join(configDir, '.claude.json');
    return {
      ...needs(home, undefined),
      ...claudeState(configDir),
      denyWrite: [join(configDir, 'settings.json'), join(configDir, 'settings.local.json'), json],
      seed: [{ path: join(configDir, 'settings.json'), content: '{}\n' }, { path: json, content: '{}\n' }],
    };
  }
  return {
    ...claudeState(join(home, '.claude')),
    denyWrite: [
      // Settings: apiKeyHelper, env credentials, permissions.defaultMode, hooks (src/harness.ts
      // settingsIssues). settings.local.json is read at user level too.
      join(home, '.claude', 'settings.json'),
      join(home, '.claude', 'settings.local.json'),
      // ~/.claude.json holds `primaryApiKey`, which Claude Code 2.1.197 sends as an API key
      // (its bundle: `if(!e.primaryApiKey)return null;return{key:e.primaryApiKey,source:"/login
      // managed key"}`), and user-scope mcpServers: writable, it would switch billing. It lies
      // in HOME itself, which the jail never makes writable, and claude rewrites it by a temp
      // file + rename in HOME (strace: openat ~/.claude.json.tmp.PID.*, rename, mkdir
      // ~/.claude.json.lock). Denied, claude still runs: HOME read-only (chmod 555), `claude -p
      // hello` got its 7 EACCES on ~/.claude.json.tmp.* and still said "Not logged in" in 2 s.
      // Listed so that the panel says it; srt places nothing for it (its folder is read-only).
      join(home, '.claude.json'),
    ],
    // settings.json is read at every start; a /dev/null placeholder would be unreadable.
    // settings.local.json is optional and only created if the person has one.
    seed: [{ path: join(home, '.claude', 'settings.json'), content: '{}\n' }],
    // ~/.claude/.credentials.json stays WRITABLE: the subscription's OAuth refresh replaces
    // the access AND refresh token (the bundle: POST grant_type:"refresh_token" to TOKEN_URL
    // platform.claude.com/v1/oauth/token, then `{access_token:l,refresh_token:c=e,...}=a`:
    // the answer's refresh token replaces the old one) and writes them there; denied, the new
    // refresh token is lost and the login dies at the next expiry (not runnable offline). What it holds is an OAuth login, which the wrapper's billing check before every
    // wake reads again (`claude auth status`): a Console login written there is refused then.
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
    needs: (home, env) => needs(home, env.CLAUDE_CONFIG_DIR),
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
