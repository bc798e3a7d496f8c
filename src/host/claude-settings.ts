// Claude Code's settings files that the agent's claude will read, checked at install for a
// blanket bypass or a metered route the command line cannot see: permissions.defaultMode
// "bypassPermissions" (every tool runs with no permission check), apiKeyHelper (a script
// whose output Claude Code sends as an API key, billed per token) and credentials in the
// settings' own env block (Claude Code applies it to its own process, so
// `"env": {"CLAUDE_CODE_USE_BEDROCK": "1"}` moves it to Bedrock however clean the spec's env
// is). The files are the ones Claude Code reads for the repo and the user
// (code.claude.com/docs/en/settings#settings-files): <repo>/.claude/settings.json,
// <repo>/.claude/settings.local.json and <user dir>/settings.json, where the user dir is
// $CLAUDE_CONFIG_DIR, else $HOME/.claude, as the agent's env sets them (the spec's, not
// this shell's). A file that is not valid JSON is refused too: what it holds cannot be
// checked.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { credential, whyItBills } from '../credentials.ts';
import type { Spec } from '../spec.ts';
import { lstatOrNull } from './fsx.ts';

/** The settings files the agent's Claude Code reads, repo first. */
export function claudeSettingsFiles(spec: Spec): string[] {
  const dir = spec.env.CLAUDE_CONFIG_DIR?.startsWith('/') ? spec.env.CLAUDE_CONFIG_DIR : posix.join(spec.env.HOME!, '.claude');
  return [posix.join(spec.repo, '.claude/settings.json'), posix.join(spec.repo, '.claude/settings.local.json'), posix.join(dir, 'settings.json')];
}

/** What one parsed settings object holds that bypasses permissions or bills per token. */
function settingsProblems(file: string, s: Record<string, unknown>): string[] {
  const out: string[] = [];
  const perms = s.permissions;
  if (typeof perms === 'object' && perms !== null && (perms as Record<string, unknown>).defaultMode === 'bypassPermissions') {
    out.push(
      `${file}: permissions.defaultMode is "bypassPermissions", which runs every tool with no permission check; remove the key (hbgen's claude runs in acceptEdits mode) and allow the commands the agent needs with permissions.allow rules`,
    );
  }
  if ('apiKeyHelper' in s) {
    out.push(`${file}: apiKeyHelper is set, so Claude Code would send that script's output as an API key and bill every token to that account instead of your subscription; remove the key`);
  }
  const env = s.env;
  if (typeof env === 'object' && env !== null) {
    for (const k of Object.keys(env).sort()) {
      const c = credential(k);
      if (c) out.push(`${file}: env.${k} is set, and Claude Code applies this env to itself: ${whyItBills(c)}; remove it from the file`);
    }
  }
  return out;
}

/** Refusals for install: one sentence per problem, naming the file and the key. */
export function claudeSettingsRefusals(spec: Spec): string[] {
  const out: string[] = [];
  for (const file of claudeSettingsFiles(spec)) {
    if (!lstatOrNull(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      out.push(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}), so hbgen cannot check it for a permission bypass or an API key; make it readable or remove it`);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      out.push(`${file}: is not valid JSON, so hbgen cannot check it for a permission bypass or an API key (and Claude Code would ignore it); fix or remove the file`);
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      out.push(`${file}: is not a JSON object of settings, so hbgen cannot check it for a permission bypass or an API key; fix or remove the file`);
      continue;
    }
    out.push(...settingsProblems(file, parsed as Record<string, unknown>));
  }
  return out;
}
