// The command line each harness preset puts around the spec's own args. The wrapper runs
// `bin <harnessArgs> <agent.args> <promptSeparator> <prompt>`, stdin from /dev/null.
// Each flag is proven against the real CLI in test/agents.test.ts (npm packages
// @anthropic-ai/claude-code and @openai/codex): an accepted command line gets as far as
// authentication or the network, a rejected flag fails at once.
import { credential, whyItBills } from './credentials.ts';
import { CODEX_URL_KEYS, carrierIssue, helperIssue } from './billing-rules.ts';
import type { Spec } from './spec.ts';

/**
 * Claude Code's turn cap for one wake. `--max-turns`: "Limit the number of agentic turns
 * (print mode only). Exits with an error when the limit is reached. No limit by default."
 * (code.claude.com/docs/en/cli-reference). The wrapper's timeout bounds the wall clock;
 * this bounds a loop of tool calls inside it. A later `--max-turns N` in agent.args wins.
 */
export const CLAUDE_MAX_TURNS = 100;

/**
 * The reasoning effort levels each client takes, as the clients themselves list them:
 * Claude Code 2.1.197 `claude --help` says "--effort <level> … (low, medium, high, xhigh,
 * max)" (and ignores any other value with a warning); codex 0.171 reads
 * `model_reasoning_effort` as a free string and sends it to the model, whose levels
 * `codex debug models --bundled` lists (the union over its catalog). test/agents.test.ts
 * compares both lists with the real clients.
 */
export const EFFORTS = {
  'claude-code': ['low', 'medium', 'high', 'xhigh', 'max'],
  codex: ['low', 'medium', 'high', 'xhigh', 'max', 'ultra'],
} as const;
export const ALL_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max', 'ultra'] as const;

/**
 * The model and effort `hbgen init` pins for each preset (PRODUCT §8 asks for a pinned model;
 * Prefers medium effort): Claude Code's alias "sonnet" (it follows the current
 * Sonnet, as `claude --model sonnet` does) and a model codex 0.171 lists (`codex debug
 * models --bundled`, checked in test/agents.test.ts).
 */
export const PRESET_PINS = {
  'claude-code': { model: 'sonnet', effort: 'medium' },
  codex: { model: 'gpt-5.5', effort: 'medium' },
} as const;

/** Claude Code's event stream, after the preset's other flags: see harnessArgs. */
export const CLAUDE_STREAM = ['--output-format', 'stream-json', '--verbose', '--no-session-persistence'];
/** codex exec's event stream and no session file, after the preset's other flags. */
export const CODEX_STREAM = ['--json', '--ephemeral'];

/**
 * `jailed`: the wrapper runs the agent inside the jail (srt around the whole client), so the
 * preset lets the agent run shell commands; outside it the presets stay as they were.
 */
export function harnessArgs(agent: Spec['agent'], jailed = false): string[] {
  const model = agent.model ? ['--model', agent.model] : [];
  switch (agent.harness) {
    case 'claude-code':
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
    case 'codex':
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
    case 'command':
      return [];
  }
}

/**
 * What goes between the spec's args and the prompt: `--` for the presets, so that a
 * prompt starting with "-" is read as the prompt and not as an option (both CLIs honour
 * `--`); nothing for `command`, whose parser hbgen does not know.
 */
export function promptSeparator(agent: Spec['agent']): string[] {
  return agent.harness === 'command' ? [] : ['--'];
}

const CLAUDE_FIX = "remove it: the preset's acceptEdits mode already edits the repo unattended, and permissions.allow rules in the repo's .claude/settings.json allow the commands the agent needs";
const CODEX_FIX = "remove it: the preset's workspace-write sandbox already lets codex write the repo, and --add-dir DIR gives it another folder";

/**
 * What a Claude Code settings object holds that switches off every permission check or
 * bills per token, one clause each naming the key: permissions.defaultMode
 * "bypassPermissions", apiKeyHelper (a script whose output Claude Code sends as an API key),
 * and a credential in its env block (Claude Code applies that env to itself). Used for the
 * settings files (src/host/install/claude-settings.ts) and for `--settings JSON` in agent.args.
 */
export function claudeSettingsIssues(s: Record<string, unknown>): string[] {
  const out: string[] = [];
  const perms = s.permissions;
  const mode = typeof perms === 'object' && perms !== null ? (perms as Record<string, unknown>).defaultMode : undefined;
  if (typeof mode === 'string' && CLAUDE_MODES[mode] === 'bypass') {
    out.push(`permissions.defaultMode is "${mode}", which runs every tool with no permission check${mode === 'auto' ? ' but a model\'s' : ''}; remove the key (hbgen's claude runs in acceptEdits mode) and allow the commands the agent needs with permissions.allow rules`);
  }
  for (const k of Object.keys(s).sort()) {
    const h = helperIssue(k);
    if (h) out.push(`${h}; remove the key`);
  }
  const env = s.env;
  if (typeof env === 'object' && env !== null) {
    for (const [k, v] of Object.entries(env as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const c = credential(k);
      if (c) out.push(`env.${k} is set, and Claude Code applies this env to itself: ${whyItBills(c)}; remove the key`);
      const carried = typeof v === 'string' ? carrierIssue(k, v) : carrierIssue(k, '\u0001');
      if (carried) out.push(`env.${k} is set, and Claude Code applies this env to itself: ${carried}; remove the key`);
    }
  }
  return out;
}

/** The problems of an inline `--settings {JSON}`; a file path is read at install instead. */
function inlineSettingsIssues(value: string | undefined): string[] {
  if (!value?.trimStart().startsWith('{')) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? claudeSettingsIssues(parsed as Record<string, unknown>) : [];
  } catch {
    return []; // not JSON: Claude Code refuses it itself
  }
}

/** `key=value` of a codex `-c` override, the key and value without spaces or TOML quotes. */
function configOverride(kv: string): [string, string] | undefined {
  const eq = kv.indexOf('=');
  if (eq < 0) return undefined;
  const unquote = (v: string) => v.trim().replace(/^('''|"""|'|")(.*)\1$/s, '$2').trim();
  return [unquote(kv.slice(0, eq)), unquote(kv.slice(eq + 1))];
}

/** The -c/--config override an argument starts (with its value attached or in the next argument). */
function overrideAt(args: readonly string[], i: number): string | undefined {
  const a = args[i]!;
  if (a === '-c' || a === '--config') return args[i + 1];
  if (a.startsWith('--config=')) return a.slice('--config='.length);
  if (a.startsWith('-c')) return a.slice(a.startsWith('-c=') ? 3 : 2);
  return undefined;
}

/** The value of `--name value`, `--name=value` or (short) `-xvalue`/`-x=value` starting at args[i]. */
function optionValue(args: readonly string[], i: number, long: string, short?: string): string | undefined {
  const a = args[i]!;
  if (a === long || (short && a === short)) return args[i + 1];
  if (a.startsWith(`${long}=`)) return a.slice(long.length + 1);
  if (short && a.startsWith(short) && a.length > short.length) return a.slice(a.startsWith(`${short}=`) ? short.length + 1 : short.length);
  return undefined;
}

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

/** codex's sandbox modes (--sandbox's possible values), each known as CLAUDE_MODES are. */
export const CODEX_SANDBOXES: Readonly<Record<string, 'bypass' | 'ok'>> = { 'read-only': 'ok', 'workspace-write': 'ok', 'danger-full-access': 'bypass' };

/** codex's approval policies (--ask-for-approval's possible values): when it asks a person; the sandbox holds whatever the answer. */
export const CODEX_APPROVALS: Readonly<Record<string, 'bypass' | 'ok'>> = { untrusted: 'ok', 'on-failure': 'ok', 'on-request': 'ok', never: 'ok' };

/**
 * Every option of the clients' --help (claude --help, codex --help, codex exec --help) that
 * names a permission check, a bypass, the sandbox, approvals or trust, each known: "bypass"
 * is refused in agent.args whatever its value, "value" is refused for a bypassing value
 * (CLAUDE_MODES, CODEX_SANDBOXES, -c keys), "ok" keeps the checks. test/agents.test.ts reads
 * the pinned clients' --help and fails on such an option or value not named here, so that a
 * new client's bypass cannot pass unnoticed.
 */
export const PERMISSION_OPTIONS: Readonly<Record<'claude-code' | 'codex', Readonly<Record<string, 'bypass' | 'value' | 'ok'>>>> = {
  'claude-code': {
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
  codex: {
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
};

/** Why args[i] switches off the client's permission checks or sandbox, or undefined. */
function bypassAt(args: readonly string[], i: number): string | undefined {
  const a = args[i]!;
  const flag = a.split('=')[0]!;
  if (flag === '--dangerously-skip-permissions') return `${a} lets Claude Code run every tool with no permission check; ${CLAUDE_FIX}`;
  if (flag === '--allow-dangerously-skip-permissions') return `${a} lets the session switch off every permission check; ${CLAUDE_FIX}`;
  if (flag === '--permission-prompt-tool') return `${a} sends Claude Code's permission prompts to an MCP tool that may grant them, instead of refusing them; ${CLAUDE_FIX}`;
  for (const o of CLAUDE_MODE_OPTIONS) {
    const mode = optionValue(args, i, o);
    if (mode !== undefined && CLAUDE_MODES[mode] === 'bypass') {
      return `${o} ${mode} runs Claude Code ${mode === 'auto' ? 'with a model, not you or your rules, approving each tool call' : 'with no permission check'}; ${CLAUDE_FIX}`;
    }
  }
  if (flag === '--dangerously-bypass-approvals-and-sandbox' || flag === '--yolo') return `${a} runs codex with no sandbox and no approvals; ${CODEX_FIX}`;
  const sandbox = optionValue(args, i, '--sandbox', '-s');
  if (sandbox !== undefined && CODEX_SANDBOXES[sandbox] === 'bypass') return `--sandbox ${sandbox} runs codex with no sandbox; ${CODEX_FIX}`;
  const settings = inlineSettingsIssues(optionValue(args, i, '--settings'));
  if (settings.length) return `the --settings JSON: ${settings.join('; and ')}`;
  if (flag === '--dangerously-bypass-hook-trust') return `${a} runs every enabled codex hook (a program from the repo or config) with no hook trust; remove it`;
  if (flag === '--trust') return `${a} makes codex trust the repo for good, so a .codex/config.toml the agent writes there (a provider, MCP commands outside the sandbox) is loaded; remove it`;
  if (flag === '--approve-for-me') return `${a} sends codex's requests for more than the sandbox allows to an automatic reviewer that may grant them, instead of refusing them; remove it (exec never asks a person)`;
  const kv = overrideAt(args, i);
  const o = kv === undefined ? undefined : configOverride(kv);
  // model_provider="openai" is the preset's own pin (a `command` running codex may repeat it).
  const pin = o && o[0] === 'model_provider' && o[1] === 'openai';
  if (o && !pin && (o[0] === 'model_provider' || o[0] === 'model_providers' || o[0].startsWith('model_providers.') || o[0].endsWith('.model_provider'))) {
    return `-c ${o[0]}=… chooses or defines the model provider codex bills, and a provider other than the built-in "openai" on your ChatGPT login is billed per token; remove it (the preset pins model_provider="openai")`;
  }
  const urlKey = o && CODEX_URL_KEYS.find((k) => o[0] === k || o[0].endsWith(`.${k}`));
  if (urlKey) {
    return `-c ${o![0]}=… re-points codex's built-in OpenAI provider, so your ChatGPT login's token goes to that host instead of OpenAI's; remove it`;
  }
  if (o && (o[0] === 'sandbox_mode' || o[0].endsWith('.sandbox_mode')) && o[1] === 'danger-full-access') {
    return `-c ${o[0]}=danger-full-access runs codex with no sandbox; ${CODEX_FIX}`;
  }
  return undefined;
}

/**
 * Arguments that switch off the client's own permission checks or sandbox, refused in
 * agent.args for every harness (a `command` may start claude or codex too). The forms are
 * the ones the real clients accept (test/agents.test.ts): Claude Code's commander takes
 * `--opt value` and `--opt=value`; codex's clap also takes `-svalue`, `-s=value`, and `-c`
 * overrides parsed as TOML, so quoted or spaced values count too.
 */
export function bypassArgs(args: readonly string[]): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  args.forEach((_, i) => {
    const why = bypassAt(args, i);
    if (why) out.push({ index: i, message: why });
  });
  return out;
}

/**
 * The panel's line with the jail on: a harness allowlist is not a jail, and which one holds.
 */
export function jailHoldsLine(harness: Spec['agent']['harness']): string {
  const own =
    harness === 'claude-code'
      ? "Claude Code's permission rules (and its own sandbox settings) only filter its tool calls"
      : harness === 'codex'
        ? "codex runs with --sandbox danger-full-access because its own sandbox cannot start inside the jail"
        : "the command's own permission rules, if any, only filter what it asks for";
  return `a harness allowlist is not a jail: ${own}; the jail (srt) around the whole agent process tree is what holds`;
}

/**
 * The panel's line with the jail off ("sandbox": false): what the agent cannot do unattended
 * and how to allow it.
 */
export function jailOffLine(harness: Spec['agent']['harness']): string {
  switch (harness) {
    case 'claude-code':
      return 'jail off: the agent edits files in the repo but every shell command not allowed in advance (npm test, make, git commit) is refused unattended; remove "sandbox": false to run it jailed with shell commands allowed, or allow commands with permissions.allow rules in the repo\'s .claude/settings.json (they then run with your full rights)';
    case 'codex':
      return 'jail off: codex runs in its own workspace-write sandbox: it writes the repo and temp only, with no network (so no git push, no npm install); remove "sandbox": false to run it jailed with the hosts of sandbox.allowHosts, or add -c sandbox_workspace_write.network_access=true to agent.args (any host then)';
    default:
      return 'jail off: the command runs with your full rights (every file you can read or write, any host); remove "sandbox": false to run it jailed';
  }
}
