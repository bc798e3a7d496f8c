// Reading a spec file: every way it can fail becomes a UserError naming the file.
import { readFileSync } from 'node:fs';
import { UserError } from './errors.ts';
import { type Spec, validateSpec } from './spec.ts';

/** V8's JSON error as one line, with a line and column where it names a position. */
function jsonProblem(text: string, e: Error): string {
  const pos = /at position (\d+)/.exec(e.message);
  const at = pos ? Number(pos[1]) : undefined;
  const what = e.message.split(/[\n,]/)[0]!.replace(/ in JSON at position \d+.*$/, '').trim();
  if (at === undefined) return what.replace(/\s+/g, ' ');
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const col = at - before.lastIndexOf('\n');
  return `${what} at line ${line}, column ${col}`;
}

export function parseSpecText(text: string, file: string): Spec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UserError([`${file}: not valid JSON (${jsonProblem(text, e as Error)}); fix the syntax and try again`]);
  }
  const r = validateSpec(raw);
  if (r.errors) throw new UserError(r.errors.map((l) => `${file}: ${l}`));
  return r.spec;
}

export function loadSpec(file: string): Spec {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file; pass the path of your spec (default ./hbgen.json) or create one with `hbgen init`'
        : code === 'EISDIR'
          ? 'is a folder, not a spec file; pass the path of the JSON spec'
          : code === 'EACCES'
            ? 'permission denied; make the file readable'
            : `cannot be read (${code ?? (e as Error).message})`;
    throw new UserError([`${file}: ${why}`]);
  }
  return parseSpecText(text, file);
}
