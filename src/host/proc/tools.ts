// Host tools (systemctl, loginctl, launchctl, crontab, ps, flock) are found on the PATH of
// HostIO.env and run by absolute path with an argument array: never a shell string.
import { accessSync, constants, statSync } from 'node:fs';
import { posix } from 'node:path';
import { FACTS, type SchedulerId, type Tool } from '../../scheduler-facts.ts';
import type { HostIO } from '../io.ts';

/** The first regular, executable `name` in the folders of `path`, or null. */
export function findOnPath(name: string, path: string | undefined): string | null {
  if (name.includes('/')) return isExecutableFile(name) ? name : null;
  for (const dir of (path ?? '').split(':')) {
    if (!dir.startsWith('/')) continue; // an empty or relative entry would be the cwd
    const full = posix.join(dir, name);
    if (isExecutableFile(full)) return full;
  }
  return null;
}

/**
 * Whether the tools `scheduler` runs are on `path`, and which are missing: every one for
 * install, only those status and stop run for 'inspect'.
 */
export function toolsPresent(scheduler: SchedulerId, path: string | undefined, use: 'install' | 'inspect' = 'install'): { ok: boolean; missing: Tool[] } {
  const missing = FACTS[scheduler].tools.filter((t) => (use === 'install' || !t.installOnly) && !findOnPath(t.name, path));
  return { ok: missing.length === 0, missing };
}

export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface ToolResult {
  /** null when the program could not be started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The argv as run, for messages. */
  argv: string[];
}

/** First line of stderr (or stdout), for a one-sentence message. */
export function firstLine(r: ToolResult): string {
  const l = (r.stderr.trim() || r.stdout.trim()).split('\n')[0]?.trim() ?? '';
  return l || (r.code === null ? 'could not be started' : `exit ${r.code}`);
}

/**
 * Run `name args…` (name found on io.env.PATH) with io.env plus LC_ALL=C, so that the
 * output hbgen reads is in the C locale. Never throws for a non-zero exit.
 */
export async function runTool(io: HostIO, name: string, args: string[], opts: { input?: string | Buffer; timeoutMs?: number } = {}): Promise<ToolResult> {
  const argv = [name, ...args];
  const cmd = findOnPath(name, io.env.PATH);
  if (!cmd) return { code: null, stdout: '', stderr: `${name}: not found on PATH`, argv };
  const { execa } = await import('execa');
  const r = await execa(cmd, args, {
    env: { ...io.env, LC_ALL: 'C' },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    timeout: opts.timeoutMs ?? 60_000,
    cwd: '/',
    ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
  });
  const text = (v: unknown) => (typeof v === 'string' ? v : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : '');
  return { code: typeof r.exitCode === 'number' ? r.exitCode : null, stdout: text(r.stdout), stderr: text(r.stderr) || (r.exitCode === undefined ? (r.shortMessage ?? '') : ''), argv };
}
