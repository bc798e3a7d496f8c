// The recipes' copy of the source (test/scheduler-recipe.test.ts, test/preset-recipe.test.ts):
// the tree a contributor edits, copied with node_modules linked, what it holds before and
// after the recipe's edits, and commands run in it.
import { cpSync, readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';

/** Copies the source of `root` into `copy` (node_modules linked, not copied). */
export function copySource(root: string, copy: string): void {
  for (const e of ['src', 'generators', 'templates', 'bin', 'package.json', 'tsconfig.json']) cpSync(join(root, e), join(copy, e), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
}

/** Every file below `dir` (relative to it) with its bytes, without the generated and built ones. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const r = relative(dir, p);
      if (r === 'node_modules' || r === 'dist' || r === 'src/gen') continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.set(r, readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out;
}

/** A command run in `copy` (or opts.cwd): its status and its output, stdout then stderr. */
export function runner(copy: string) {
  return (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => {
    const r = spawnSync(cmd, args, { cwd: opts.cwd ?? copy, env: opts.env ?? process.env, encoding: 'utf8', timeout: 600_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
}
