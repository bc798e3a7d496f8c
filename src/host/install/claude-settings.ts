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
// this shell's), and a `--settings FILE` of agent.args (inline `--settings {JSON}` is
// checked by spec validation). A file that is not valid JSON is refused too: what it
// holds cannot be checked. The agent can write the repo's files after install; the
// preset's explicit --permission-mode acceptEdits still wins over their defaultMode.
import { readFileSync, readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { billingClient, billingFiles, fileHitMessage } from '../../billing.ts';
import { fileHit } from '../../billing-awk.ts';
import { CLAUDE_MANAGED } from '../../harness/claude-code/index.ts';
import { presetOf } from '../../harness/registry.ts';
import { claudeSettingsIssues } from '../../harness.ts';
import type { Spec } from '../../spec.ts';
import { lstatOrNull } from '../fsx.ts';

/** The settings files the agent's Claude Code reads: the repo's, the user's, then any `--settings FILE` in agent.args (relative to the repo, where the agent starts). */
export function claudeSettingsFiles(spec: Spec): string[] {
  const dir = spec.env.CLAUDE_CONFIG_DIR?.startsWith('/') ? spec.env.CLAUDE_CONFIG_DIR : posix.join(spec.env.HOME!, '.claude');
  const args = spec.agent.args;
  const given = args.flatMap((a, i) => (a === '--settings' ? [args[i + 1]] : a.startsWith('--settings=') ? [a.slice('--settings='.length)] : []));
  const files = given.filter((f): f is string => !!f && !f.trimStart().startsWith('{')).map((f) => posix.resolve(spec.repo, f));
  return [posix.join(spec.repo, '.claude/settings.json'), posix.join(spec.repo, '.claude/settings.local.json'), posix.join(dir, 'settings.json'), ...files, ...CLAUDE_MANAGED];
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
    out.push(...claudeSettingsIssues(parsed as Record<string, unknown>).map((m) => `${file}: ${m}`));
  }
  return out;
}

/**
 * The wrapper's check before every wake, at install (src/billing.ts billingFiles and
 * fileHit, the same rules): the first key in the client's settings or config files that moves the run off
 * the plan, as one refusal; the files the client cannot read are skipped, as it skips them.
 */
export function billingFilesRefusal(spec: Spec): string | undefined {
  const client = billingClient(spec.agent);
  if (!client) return undefined;
  const paths = billingFiles(spec);
  const d = presetOf(client)?.billing.filesDir;
  if (d) {
    try {
      for (const f of readdirSync(d).sort()) if (f.endsWith('.json')) paths.push(posix.join(d, f));
    } catch {
      // no drop-in folder
    }
  }
  // A missing or unreadable file is skipped by the rules (the client cannot read it either).
  const hit = fileHit(client, paths);
  return hit && `billing: ${fileHitMessage(client, hit)}; then install again`;
}
