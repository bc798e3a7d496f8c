// The one atomic file write, shared by `render --out` and every host write (host/fsx.ts
// re-exports it). Kept apart from fsx.ts so that a render does not load node:crypto.
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsError } from './errors.ts';

/**
 * Write `content` to `path` with `mode` so that a reader sees the old file or the new one,
 * never half of one. `sync: false` skips the fsyncs: for a preview (`render --out`), where
 * surviving a power cut is not worth their cost.
 */
export function writeAtomic(path: string, content: Buffer | string, mode: number, { sync = true } = {}): void {
  const tmp = `${path}.hbgen-tmp-${process.pid}`;
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      const b = typeof content === 'string' ? Buffer.from(content) : content;
      let off = 0;
      while (off < b.length) off += writeSync(fd, b, off);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, mode); // the umask must not decide a mode
    renameSync(tmp, path);
    if (sync) syncDir(dirname(path));
  } catch (e) {
    rmSync(tmp, { force: true });
    throw fsError(e, path, 'write');
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic.
  }
}

