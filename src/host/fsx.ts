// File primitives for the host lifecycle: checksums, atomic writes (temp file in the same
// folder, fsync, rename, fsync of the folder), and reads that say "absent" instead of
// throwing. Every write hbgen makes on a host goes through writeAtomic.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { writeAtomic } from '../atomic.ts';
import { fsError } from '../errors.ts';

export { fsError, writeAtomic };

export function sha256(b: Buffer | string): string {
  return createHash('sha256').update(b).digest('hex');
}

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw fsError(e, path, 'read');
  }
}

/** The bytes of a regular file, or null when there is none. */
export function readOrNull(path: string): Buffer | null {
  const st = lstatOrNull(path);
  if (!st) return null;
  try {
    return readFileSync(path);
  } catch (e) {
    throw fsError(e, path, 'read');
  }
}

/**
 * Create `dir` and its missing parents, each with `mode`.
 * Returns the folders created, outermost first, so that an undo can remove exactly them.
 */
export function mkdirs(dir: string, mode: number): string[] {
  const missing: string[] = [];
  for (let d = dir; d !== '/' && !lstatOrNull(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      mkdirSync(d, { mode });
      chmodSync(d, mode);
    } catch (e) {
      throw fsError(e, d, 'create');
    }
  }
  return missing;
}

/** Folders that mkdirs(dir) would create, outermost first. */
export function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; d !== '/' && !lstatOrNull(d); d = dirname(d)) missing.unshift(d);
  return missing;
}

export function mode4(m: number): string {
  return (m & 0o7777).toString(8).padStart(4, '0');
}

/** The names in a folder, sorted; none when it is missing or cannot be read. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
