// SPEC on the command line is a spec file, or the name of an install (users of
// `systemctl --user status NAME` and `brew services info NAME` expect the name to work).
// A word that is no file but could be a spec's "name" is looked up as `hbgen list` finds
// installs (src/host/inventory.ts); its spec file is the one its state.json records, and
// is taken only when that file still exists and still names this install (the same name
// and state folder), since state.json is a record, not a source of paths to trust.
import { existsSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from './errors.ts';
import { NAME_PATTERN } from './formats.ts';
import { homeOf, type HostIO } from './host/io.ts';
import { readState } from './host/state.ts';
import { loadSpec } from './load.ts';
import { closest } from './suggest.ts';
import { names } from './names.ts';
import { type Spec, validateSpec } from './spec.ts';

/** The one state folder of the install named `name`, as `hbgen list` finds it. */
async function installDir(io: HostIO, name: string): Promise<string> {
  const { listInstalls } = await import('./host/audit/inventory.ts');
  const all = (await listInstalls(io, homeOf(io))).rows;
  const rows = all.filter((r) => r.name === name && r.stateDir);
  const dirs = [...new Set(rows.map((r) => r.stateDir!))];
  if (dirs.length === 0) {
    // A mistyped name ("dcos") is told the install it meant, as a mistyped command or field is.
    const near = closest(name, [...new Set(all.filter((r) => r.stateDir).map((r) => r.name))]);
    const meant = near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
    throw new UserError([`${name}: no such file, and no install of that name on this host${meant}; \`hbgen list\` shows the installs by name (or give the spec file's path)`]);
  }
  if (dirs.length > 1) throw new UserError([`${name}: ${dirs.length} installs have that name (state folders ${dirs.join(', ')}); give the spec file's path instead`]);
  return dirs[0]!;
}

/** A folder as SPEC is its hbgen.json, the file `hbgen init FOLDER` writes; anything else is itself. */
function folderSpec(io: HostIO, arg: string): string {
  let dir = false;
  try {
    dir = statSync(posix.resolve(io.cwd, arg)).isDirectory();
  } catch {
    // Not there, or not reachable (ENOTDIR, EACCES): the file's own reading says which.
  }
  if (!dir) return arg;
  const file = posix.join(arg, 'hbgen.json');
  if (existsSync(posix.resolve(io.cwd, file))) return file;
  throw new UserError([`${arg}: is a folder with no hbgen.json in it; pass the spec file's path, or create one there with \`hbgen init ${arg}\``]);
}

/** Nothing at `p` (ENOENT, ENOTDIR); an entry hbgen may not look at (EACCES) is left to loadSpec to name. */
function noEntry(p: string): boolean {
  try {
    statSync(p);
    return false;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/**
 * A spec path that names no file: the installs this host has are named, since the likeliest
 * reason is a command run from another folder than the spec's (`hbgen status NAME` works
 * from anywhere). With no install, the plain sentence.
 */
async function missingSpec(io: HostIO, arg: string): Promise<never> {
  const { listInstalls } = await import('./host/audit/inventory.ts');
  let found: string[] = [];
  try {
    found = [...new Set((await listInstalls(io, homeOf(io))).rows.map((r) => r.name))];
  } catch {
    found = [];
  }
  const create = 'or create one with `hbgen init`';
  if (found.length === 0) throw new UserError([`${arg}: no such file; pass the path of your spec (default ./hbgen.json) ${create}`]);
  const shown = found.length > 5 ? `${found.slice(0, 5).join(', ')} and ${found.length - 5} more (\`hbgen list\`)` : found.join(', ');
  throw new UserError([`${arg}: no such file; this host has ${found.length === 1 ? 'the install' : 'the installs'} ${shown}: name one (\`hbgen status ${found[0]}\`), pass the path of your spec, ${create}`]);
}

/** The spec file SPEC names: the file itself (a folder's hbgen.json), or the recorded spec file of the install named SPEC. */
export async function resolveSpecArg(io: HostIO, arg: string): Promise<string> {
  arg = folderSpec(io, arg);
  if (existsSync(posix.resolve(io.cwd, arg))) return arg;
  if (!NAME_PATTERN.test(arg)) return noEntry(posix.resolve(io.cwd, arg)) ? missingSpec(io, arg) : arg;
  const dir = await installDir(io, arg);
  const r = recordedSpec(arg, dir);
  const forget = `\`hbgen forget ${arg}\` removes its state folder once it is stopped`;
  if (r.gone) throw new UserError([`${arg}: the install in ${dir} was made from ${r.file ?? 'a spec file its state.json does not name'}, which is gone; give the spec file's new path, or, if it was renamed or deleted, ${forget}`]);
  if (r.other) throw new UserError([`${arg}: the install in ${dir} records the spec file ${r.file}, which no longer names it (another name or state folder, or it does not load); give the spec file's path, or ${forget}`]);
  return r.file!;
}

/**
 * The spec file an install's state.json records, and whether it is gone or now names
 * another install (renamed: another "name" or state folder; or it no longer loads).
 */
export function recordedSpec(name: string, dir: string): { file: string | null; gone: boolean; other: boolean } {
  let file: string | null = null;
  try {
    const f = readState(dir)?.specFile;
    file = typeof f === 'string' ? f : null;
  } catch {
    file = null;
  }
  if (!file || !existsSync(file)) return { file, gone: true, other: false };
  try {
    const spec = loadSpec(file);
    return { file, gone: false, other: !(spec.name === name && names(spec).stateDir === dir) };
  } catch {
    return { file, gone: false, other: true };
  }
}

/**
 * What `hbgen stop SPEC` stops: the spec file, as resolveSpecArg finds it (SPEC itself, or
 * the install's recorded spec file where it still names the install); else, for a NAME whose
 * spec file is gone or rewritten, the spec its state.json recorded at install. The agent can
 * delete or rewrite a spec file kept in the repo, and the wakes must still be stoppable then.
 * The record decides nothing new: its name must be the NAME typed and its state folder the
 * one that record sits in, so every identity stop uses still derives from that name, as with
 * a spec file. The install is looked up once.
 */
export async function specForStop(io: HostIO, arg: string): Promise<{ file: string } | { spec: Spec; note: string }> {
  arg = folderSpec(io, arg);
  if (!NAME_PATTERN.test(arg) || existsSync(posix.resolve(io.cwd, arg))) return { file: arg };
  const dir = await installDir(io, arg);
  const r = recordedSpec(arg, dir);
  if (!r.gone && !r.other) return { file: r.file! };
  let raw: unknown;
  try {
    raw = readState(dir)?.spec;
  } catch {
    raw = undefined;
  }
  const v = raw === undefined ? null : validateSpec(raw);
  if (!v?.spec || v.spec.name !== arg || names(v.spec).stateDir !== dir) {
    throw new UserError([`${arg}: its spec file ${r.file ?? '(none recorded)'} is ${r.gone ? 'gone' : 'no longer this install\'s'}, and ${dir}/state.json holds no spec of that name and state folder to stop it from; \`hbgen list\` shows what runs, and \`systemctl --user\`, \`crontab -e\` or \`launchctl\` remove an entry by hand`]);
  }
  return { spec: v.spec, note: `the spec file ${r.file ?? '(none recorded)'} is ${r.gone ? 'gone' : 'no longer this install\'s (another name or state folder, or it does not load)'}: stopping from the spec ${dir}/state.json recorded at install` };
}
