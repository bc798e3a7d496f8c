// Host tools (systemctl, loginctl, launchctl, crontab, ps, flock) are found on the PATH of
// HostIO.env and run by absolute path with an argument array: never a shell string.
import { accessSync, constants, statSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import type { HostIO } from './io.ts';

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

/** runTool that turns a failure into a UserError naming the command. */
export async function mustRun(io: HostIO, name: string, args: string[], fix: string): Promise<ToolResult> {
  const r = await runTool(io, name, args);
  if (r.code !== 0) throw new UserError([`\`${[name, ...args].join(' ')}\` failed (${firstLine(r)}); ${fix}`]);
  return r;
}
