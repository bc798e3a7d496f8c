// Writing a rendered tree to disk and comparing one with it. Only these two functions touch
// the output folder, and they never touch a file that is not part of the tree.
import { lstatSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { RenderedFile } from '../generators/types.ts';
import { UserError } from './errors.ts';
import { writeAtomic } from './atomic.ts';

function inside(dir: string, rel: string): string {
  const full = join(dir, rel);
  const back = relative(dir, full);
  if (back.startsWith('..') || back.startsWith(sep)) throw new Error(`refusing to write ${rel} outside ${dir}`);
  return full;
}

/** Write (or replace) every file of the tree, atomically each, with its mode. */
export function writeTree(dir: string, files: RenderedFile[]): void {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new UserError([`${dir}: exists and is not a folder; choose another --out`]);
    for (const f of files) {
      const full = inside(dir, f.path);
      mkdirSync(dirname(full), { recursive: true });
      writeAtomic(full, f.content, f.mode, { sync: false });
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new UserError([`${err.path ?? dir}: cannot write the rendered tree (${err.code ?? err.message}); check that the folder is writable`]);
  }
}

function listFiles(dir: string, base = dir, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const st = lstatSync(full);
    if (st.isDirectory()) listFiles(full, base, out);
    else out.push(relative(base, full).split(sep).join('/'));
  }
  return out;
}

export interface Drift {
  path: string;
  kind: 'missing' | 'changed' | 'mode' | 'extra';
  diff: string;
}

/** Compare a folder with a fresh render: content, the executable bit, and files that should not be there. */
export async function compareTree(dir: string, files: RenderedFile[]): Promise<Drift[]> {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) throw new UserError([`${dir}: no such folder; render it first with \`hbgen render SPEC --out ${dir}\``]);
  const { createTwoFilesPatch } = await import('diff');
  const drift: Drift[] = [];
  const expected = new Set(files.map((f) => f.path));
  for (const f of files) {
    const full = join(dir, f.path);
    const fst = statSync(full, { throwIfNoEntry: false });
    if (!fst?.isFile()) {
      drift.push({ path: f.path, kind: 'missing', diff: createTwoFilesPatch(`a/${f.path}`, `b/${f.path}`, '', f.content, '(missing)', '(rendered)') });
      continue;
    }
    const actual = readFileSync(full, 'utf8');
    if (actual !== f.content) {
      drift.push({ path: f.path, kind: 'changed', diff: createTwoFilesPatch(`a/${f.path}`, `b/${f.path}`, actual, f.content, '(in folder)', '(rendered)') });
    }
    // Only what a repository can carry: git records a file as 100644 or 100755, the owner's
    // executable bit and nothing else (https://git-scm.com/book/en/v2/Git-Internals-Git-Objects, "Tree Objects"),
    // and a clone writes the other bits from the cloner's umask. A committed render must check
    // clean in any fresh clone, so 0444 and 0644 are the same file here; 0755 and 0644 are not.
    const exec = (fst.mode & 0o100) !== 0;
    if (exec !== ((f.mode & 0o100) !== 0)) {
      const word = (x: boolean) => (x ? 'executable' : 'not executable');
      drift.push({ path: f.path, kind: 'mode', diff: `mode of ${f.path}: ${word(exec)}, rendered ${word(!exec)}; \`chmod ${exec ? '-x' : '+x'} ${f.path}\` or render again\n` });
    }
  }
  for (const rel of listFiles(dir)) {
    if (!expected.has(rel)) {
      drift.push({ path: rel, kind: 'extra', diff: `extra file ${rel}: not part of the rendered tree; remove it\n` });
    }
  }
  return drift;
}
