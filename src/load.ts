// Reading a spec file: every way it can fail becomes a UserError naming the file.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from './errors.ts';
import { type Spec, formatPath, validateSpec } from './spec.ts';

/** The largest spec file hbgen reads; a real spec is a few hundred bytes. */
export const MAX_SPEC_BYTES = 1024 * 1024;

/** Line and column (both from 1) of a position in the text. */
function lineCol(text: string, at: number): string {
  const before = text.slice(0, at);
  return `line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
}

/** V8's JSON error as one line, with a line and column where it names a position. */
function jsonProblem(text: string, e: Error): string {
  const pos = /at position (\d+)/.exec(e.message);
  const at = pos ? Number(pos[1]) : undefined;
  const what = e.message.split(/[\n,]/)[0]!.replace(/ in JSON at position \d+.*$/, '').trim();
  if (at === undefined) return what.replace(/\s+/g, ' ');
  return `${what} at ${lineCol(text, at)}`;
}

/** Index just past the JSON string literal that opens at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

interface Frame {
  path: (string | number)[];
  keys?: Map<string, number>; // an object's keys and where each first appears; none for an array
  key?: string; // the object's current key
  index: number; // the array's current element
  expectKey: boolean;
  reported: boolean;
}

/**
 * The first repeated key of each object of an already parsed JSON text, with the positions
 * of both. JSON.parse keeps the last silently ("timeout": "25m", "timeout": "1s" is 1s).
 */
export function duplicateKeys(text: string): { path: (string | number)[]; first: number; again: number }[] {
  const found: { path: (string | number)[]; first: number; again: number }[] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    const top = stack[stack.length - 1];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end)) as string;
        const first = top.keys.get(key);
        if (first === undefined) top.keys.set(key, i);
        else if (!top.reported) {
          found.push({ path: [...top.path, key], first, again: i });
          top.reported = true;
        }
        top.key = key;
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === '{' || c === '[') {
      const path = top ? [...top.path, top.keys ? top.key! : top.index] : [];
      stack.push({ path, keys: c === '{' ? new Map() : undefined, index: 0, expectKey: true, reported: false });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
    i++;
  }
  return found;
}

/** Byte offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629), or -1. */
export function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // How many continuation bytes follow, and the range allowed for the first of them: no
    // overlong forms, no surrogates
    // (ED A0–BF), nothing above U+10FFFF.
    const [n, lo, hi] =
      c >= 0xc2 && c <= 0xdf ? [1, 0x80, 0xbf]
      : c === 0xe0 ? [2, 0xa0, 0xbf]
      : c === 0xed ? [2, 0x80, 0x9f]
      : c >= 0xe1 && c <= 0xef ? [2, 0x80, 0xbf]
      : c === 0xf0 ? [3, 0x90, 0xbf]
      : c === 0xf4 ? [3, 0x80, 0x8f]
      : c >= 0xf1 && c <= 0xf3 ? [3, 0x80, 0xbf]
      : [0, 0, 0];
    if (n === 0 || i + n >= b.length) return i; // not a lead byte, or cut short by the end
    if (b[i + 1]! < lo || b[i + 1]! > hi) return i;
    for (let k = 2; k <= n; k++) if (b[i + k]! < 0x80 || b[i + k]! > 0xbf) return i;
    i += n + 1;
  }
  return -1;
}

function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file; pass the path of your spec (default ./hbgen.json) or create one with `hbgen init`';
  if (code === 'EISDIR') return 'is a folder, not a spec file; pass the path of the JSON spec';
  if (code === 'EACCES') return 'permission denied; make the file readable';
  return `cannot be read (${code ?? (e as Error).message})`;
}

/**
 * The file's bytes, read with a bound: a regular file of at most MAX_SPEC_BYTES. A device,
 * pipe or socket is refused before a byte is read (`/dev/zero` never ends), and a file
 * that grows past the bound while it is read is refused too. O_NONBLOCK: opening a FIFO
 * with no writer would otherwise wait forever.
 */
function readSpecBytes(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UserError([`${file}: ${readProblem(e)}`]);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UserError([`${file}: ${readProblem({ code: 'EISDIR' })}`]);
    if (!st.isFile()) throw new UserError([`${file}: is not a regular file (a device, pipe or socket); save the spec in a file and pass its path`]);
    const tooBig = `is over 1 MiB (${MAX_SPEC_BYTES} bytes), the most a spec may be; pass the spec file itself`;
    if (st.size > MAX_SPEC_BYTES) throw new UserError([`${file}: ${tooBig}`]);
    const buf = Buffer.allocUnsafe(MAX_SPEC_BYTES + 1);
    let n = 0;
    for (let r = -1; r !== 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_SPEC_BYTES) throw new UserError([`${file}: grew while it was read and ${tooBig}`]);
    return buf.subarray(0, n);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError([`${file}: ${readProblem(e)}`]);
  } finally {
    closeSync(fd);
  }
}

/**
 * The spec's text. A UTF-8 byte order mark is accepted and dropped: Windows editors write
 * one, RFC 8259 lets a parser ignore it, and it carries nothing. Bytes that are not UTF-8
 * are refused with their offset: decoding would replace them, and a replaced byte in
 * `repo` names another folder.
 */
export function decodeSpec(buf: Buffer, file: string): string {
  const bom = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  const bad = invalidUtf8At(buf);
  if (bad >= 0) {
    const line = buf.subarray(0, bad).filter((x) => x === 0x0a).length + 1;
    throw new UserError([`${file}: not valid UTF-8 at byte offset ${bad} (counting from 0, on line ${line}); save the file as UTF-8`]);
  }
  return buf.toString('utf8', bom);
}

/** The deepest nesting a spec may have; a real one is 4 levels deep (kubernetes.resources.limits). */
export const MAX_SPEC_DEPTH = 64;

/**
 * Where the text first nests deeper than MAX_SPEC_DEPTH objects and arrays, or -1. One pass,
 * before JSON.parse: a file of 100 KB nested 50 000 levels made the reading below cost the
 * square of its depth (and V8 ran out of memory). Brackets inside strings do not count; an
 * unterminated string ends the scan (JSON.parse then names it).
 */
export function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_SPEC_DEPTH) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}

export function parseSpecText(text: string, file: string): Spec {
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new UserError([`${file}: nested more than ${MAX_SPEC_DEPTH} levels deep at ${lineCol(text, deep)}, where a spec is at most 4 deep; write the spec's own fields (see \`hbgen schema\`)`]);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UserError([`${file}: not valid JSON (${jsonProblem(text, e as Error)}); fix the syntax and try again`]);
  }
  const dups = duplicateKeys(text);
  if (dups.length) {
    throw new UserError(
      dups.map((d) => `${file}: ${formatPath(d.path)}: the key appears twice, at ${lineCol(text, d.first)} and at ${lineCol(text, d.again)}; JSON keeps only the last, so remove one`),
    );
  }
  const r = validateSpec(raw);
  if (r.errors) throw new UserError(r.errors.map((l) => `${file}: ${l}`));
  return r.spec;
}

export function loadSpec(file: string): Spec {
  return parseSpecText(decodeSpec(readSpecBytes(file), file), file);
}
