// Reading a spec file: every way it can fail becomes a UserError naming the file.
import { readFileSync } from 'node:fs';
import { UserError } from './errors.ts';
import { type Spec, validateSpec } from './spec.ts';

export function parseSpecText(text: string, file: string): Spec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const why = (e as Error).message.replace(/^JSON\.parse: /, '');
    throw new UserError([`${file}: not valid JSON (${why}); fix the syntax and try again`]);
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
