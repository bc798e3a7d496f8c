// The command line each harness preset puts around the spec's own args, and the rules on
// agent.args that hold for every harness. The wrapper runs
// `bin <harnessArgs> <agent.args> <promptSeparator> <prompt>`, stdin from /dev/null. Each
// preset's flags, efforts and bypass forms are in its descriptor (src/harness/<id>/index.ts,
// listed in src/harness/registry.ts); this module asks the registry.
import { credential, whyItBills } from './credentials.ts';
import { carrierIssue, helperIssue } from './billing-rules.ts';
import { CLAUDE_MODES } from './harness/claude-code/index.ts';
import { PRESETS, presetOf, type PresetId } from './harness/registry.ts';
import type { PermissionKind } from './harness/types.ts';
import { optionValue } from './harness/argv.ts';
import type { Spec } from './spec.ts';

/** The reasoning effort levels each preset's client takes (its descriptor's `efforts`; test/agents.test.ts compares them with the real clients). */
export const ALL_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max', 'ultra'] as const;
export const EFFORTS = Object.fromEntries(PRESETS.map((p) => [p.id, p.efforts])) as Record<PresetId, readonly (typeof ALL_EFFORTS)[number][]>;

/**
 * The model and effort `hbgen init` pins for each preset (PRODUCT §8 asks for a pinned model;
 * Prefers medium effort), from its descriptor.
 */
export const PRESET_PINS = Object.fromEntries(PRESETS.map((p) => [p.id, p.pins])) as Record<PresetId, { model: string; effort: string }>;

/**
 * `jailed`: the wrapper runs the agent inside the jail (srt around the whole client), so the
 * preset lets the agent run shell commands; outside it the presets stay as they were.
 * `command` adds nothing.
 */
export function harnessArgs(agent: Spec['agent'], jailed = false): string[] {
  return presetOf(agent.harness)?.argv(agent, jailed) ?? [];
}

/**
 * What goes between the spec's args and the prompt: `--` for the presets, so that a
 * prompt starting with "-" is read as the prompt and not as an option (both CLIs honour
 * `--`); nothing for `command`, whose parser hbgen does not know.
 */
export function promptSeparator(agent: Spec['agent']): string[] {
  return agent.harness === 'command' ? [] : ['--'];
}

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

/**
 * Every option of the clients' --help (claude --help, codex --help, codex exec --help) that
 * names a permission check, a bypass, the sandbox, approvals or trust, each known, per preset
 * (its descriptor's `permissionOptions`): "bypass" is refused in agent.args whatever its
 * value, "value" is refused for a bypassing value, "ok" keeps the checks. test/agents.test.ts
 * reads the pinned clients' --help and fails on such an option or value not named there, so
 * that a new client's bypass cannot pass unnoticed.
 */
export const PERMISSION_OPTIONS = Object.fromEntries(PRESETS.map((p) => [p.id, p.permissionOptions])) as Record<PresetId, Readonly<Record<string, PermissionKind>>>;

/** Why args[i] switches off a client's permission checks or sandbox (every preset's forms), or undefined. */
function bypassAt(args: readonly string[], i: number): string | undefined {
  for (const p of PRESETS) {
    const why = p.bypassAt(args, i);
    if (why) return why;
    const settings = p.settingsOption ? inlineSettingsIssues(optionValue(args, i, p.settingsOption)) : [];
    if (settings.length) return `the ${p.settingsOption} JSON: ${settings.join('; and ')}`;
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
  const own = presetOf(harness)?.jail.holds ?? "the command's own permission rules, if any, only filter what it asks for";
  return `a harness allowlist is not a jail: ${own}; the jail (srt) around the whole agent process tree is what holds`;
}

/**
 * The panel's line with the jail off ("sandbox": false): what the agent cannot do unattended
 * and how to allow it.
 */
export function jailOffLine(harness: Spec['agent']['harness']): string {
  return presetOf(harness)?.jail.off ?? 'jail off: the command runs with your full rights (every file you can read or write, any host); remove "sandbox": false to run it jailed';
}
