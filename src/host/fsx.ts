// File primitives for the host lifecycle: checksums, atomic writes (temp file in the same
// folder, fsync, rename, fsync of the folder), and reads that say "absent" instead of
// throwing. Every write hbgen makes on a host goes through writeAtomic.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, readdirSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { writeAtomic } from '../atomic.ts';
import { UserError, fsError } from '../errors.ts';

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

/** How much of one file hbgen reads at most (state.json, scripts, host files, counters): far above any it writes. */
export const READ_MAX = 16 * 1024 * 1024;

/**
 * A file hbgen did not read: not a regular file (a FIFO would block the read forever, a
 * device such as /dev/zero never ends), a link where none is followed, or larger than the
 * reader takes. One sentence naming the file, as every user-facing error.
 */
export class SkippedFile extends UserError {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super([`${path} ${why}, so hbgen did not read it; remove it (hbgen and its wrapper write only regular files there)`]);
  }
}

function kindOf(st: Stats): string {
  const what = st.isFIFO() ? 'a FIFO (named pipe)' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : st.isDirectory() ? 'a folder' : 'a special file';
  return `${what}, not a regular file`;
}

/**
 * Open `path` for reading without ever blocking: O_NONBLOCK (opening a FIFO with no writer
 * returns at once instead of waiting), O_NOFOLLOW when links are not to be followed, then
 * fstat of what was opened (not of the name, which may change in between) must say regular
 * file. Returns the descriptor and its size, or null when there is no file.
 */
function openRegular(path: string, noFollow: boolean): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (noFollow ? constants.O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP' && noFollow) throw new SkippedFile(path, 'is a symbolic link');
    throw fsError(e, path, 'read');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SkippedFile(path, `is ${kindOf(st)}`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e instanceof UserError ? e : fsError(e, path, 'read');
  }
}

/** Read `length` bytes from `fd` at `position` (fewer when the file shrank meanwhile). */
function readAt(fd: number, path: string, position: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  let got = 0;
  try {
    while (got < length) {
      const k = readSync(fd, b, got, length - got, position + got);
      if (k === 0) break;
      got += k;
    }
  } catch (e) {
    throw fsError(e, path, 'read');
  }
  return b.subarray(0, got);
}

/**
 * The bytes of a regular file, or null when there is none. Never blocks and never reads
 * without bound: anything but a regular file (a FIFO, a device, a folder; a link to one),
 * or one larger than `max` bytes, throws SkippedFile. `noFollow` also refuses a link.
 */
export function readOrNull(path: string, max = READ_MAX, { noFollow = false } = {}): Buffer | null {
  const o = openRegular(path, noFollow);
  if (!o) return null;
  try {
    if (o.size > max) throw new SkippedFile(path, `is ${o.size} bytes, more than the ${max} hbgen reads of it`);
    return readAt(o.fd, path, 0, o.size);
  } finally {
    closeSync(o.fd);
  }
}

/**
 * The last `max` bytes of a regular file (from the first whole line in them when cut), its
 * size, and whether it was cut; null when there is none. A link is not followed. Throws
 * SkippedFile as readOrNull does for what is not a regular file.
 */
export function readTail(path: string, max: number): { bytes: Buffer; size: number; cut: boolean } | null {
  const o = openRegular(path, true);
  if (!o) return null;
  try {
    if (o.size <= max) return { bytes: readAt(o.fd, path, 0, o.size), size: o.size, cut: false };
    const b = readAt(o.fd, path, o.size - max, max);
    const nl = b.indexOf(0x0a);
    return { bytes: nl < 0 ? b.subarray(b.length) : b.subarray(nl + 1), size: o.size, cut: true };
  } finally {
    closeSync(o.fd);
  }
}

// What status, log and list skipped. They read files where the agent (or a process it left)
// may write, so each read there goes through readSoft (or runtime-log.ts's tail): a file
// that is not regular or too large is recorded here, once, and said by the command (one
// line per file), instead of hanging it or failing it as a whole. `partial`: read in part
// (the tail of a log larger than hbgen reads), said but no fault in itself.
export interface Skipped {
  path: string;
  message: string;
  partial: boolean;
}
const skipped = new Map<string, Skipped>();

/** readOrNull, but what it cannot read is recorded (takeSkipped) and read as absent. */
export function readSoft(path: string, max = READ_MAX, opts: { noFollow?: boolean } = {}): Buffer | null {
  try {
    return readOrNull(path, max, opts);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    noteSkipped(path, e.lines[0]!);
    return null;
  }
}

/** Record that `path` was skipped (or read only in part), and why: one sentence naming it. */
export function noteSkipped(path: string, message: string, partial = false): void {
  if (!skipped.has(path)) skipped.set(path, { path, message, partial });
}

/** The files skipped since the last call, and forget them. */
export function takeSkipped(): Skipped[] {
  const out = [...skipped.values()];
  skipped.clear();
  return out;
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

/**
 * Whether hbgen may write into `dir`, a folder at or under `base` (the state folder): every
 * component from `base` down to `dir`, `base` included, must be a real folder, never a
 * symbolic link (a write would land wherever the link points) nor anything else. Returns
 * the first offending component as a sentence, or null; a missing component is no finding
 * here (a write there fails on its own, and says so).
 */
export function linkOnTheWay(base: string, dir: string): string | null {
  if (dir !== base && !dir.startsWith(`${base}/`)) return `${dir} is outside ${base}`;
  const parts = dir.slice(base.length).split('/').filter(Boolean);
  let p = base;
  for (let i = 0; i <= parts.length; i++) {
    if (i > 0) p = `${p}/${parts[i - 1]}`;
    const st = lstatOrNull(p);
    if (!st) return null;
    if (st.isSymbolicLink()) return `${p} is a symbolic link`;
    if (!st.isDirectory()) return `${p} is not a folder`;
  }
  return null;
}
