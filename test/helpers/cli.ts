// Run the built CLI (bin/hbgen.cjs → dist/) the way a user does, as a child process.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const HBGEN = join(ROOT, 'bin', 'hbgen.cjs');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function hbgen(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; prefix?: string[] } = {}): Run {
  const argv = [...(opts.prefix ?? []), process.execPath, HBGEN, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    input: opts.input ?? '',
    encoding: 'utf8',
  });
  if (r.error) throw r.error;
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}
