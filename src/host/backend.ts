// What every scheduler backend provides to the lifecycle commands, the undo journal, and
// the one rule for host files: hbgen replaces a file only when it recognises it as its own
// (the sha256 state.json recorded for it, whatever its format; its generated-by header; or
// bytes identical to what it would write); any other file is refused, never overwritten,
// because it may be the user's own or another install's.
import { rmdirSync, rmSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import type { RenderedFile } from '../../generators/types.ts';
import { GENERATED_BY_PREFIX, hasGeneratedBy, sleep } from '../formats.ts';
import { type Names, names } from '../names.ts';
import type { Plan } from '../schedule.ts';
import type { Spec } from '../spec.ts';
import { lstatOrNull, missingDirs, mkdirs, readOrNull, sha256, writeAtomic } from './fsx.ts';
import type { HostIO } from './io.ts';
import type { FileRecord, State } from './state.ts';

export interface Ctx {
  io: HostIO;
  spec: Spec;
  names: Names;
  home: string;
  /** The rendered tree (paths relative to the state folder). */
  files: RenderedFile[];
  /** state.json as found before this command, if any. */
  prev: State | null;
  /**
   * --apply: a backend that prints its commands for the person to run (facts.printsCommand,
   * kubernetes' kubectl) runs them itself instead. The other backends never see it set.
   */
  apply?: boolean;
  /**
   * status: the state-folder files its audit plans to put back (src/host/audit/audit.ts), by
   * path, with the bytes they will hold; a backend's audit reads such a file so, not as it is.
   */
  planned?: ReadonlyMap<string, string>;
}

export interface FilePlan {
  path: string;
  content: Buffer;
  mode: number;
  /** Bytes and mode there now (null: no file). */
  prior: Buffer | null;
  priorMode: number;
  action: 'create' | 'replace' | 'same';
  /** A file hbgen installed and someone changed since: the replace undoes that edit (the panel shows the diff). */
  edited?: boolean;
}

/** A command that changes the host, as argv, and what the panel says about it. */
export interface PlannedCommand {
  argv: string[];
  /** Shown after the command in the panel. */
  note?: string;
}

/** What a backend found before anything changes, for the panel and for apply. */
export interface Preflight<D = unknown> {
  refusals: string[];
  caveats: string[];
  hostFiles: FilePlan[];
  /** Besides files, what it writes, one line each (the panel lists them with the files). */
  writes: string[];
  /** Commands that change the host, in order (shown in the panel). */
  commands: PlannedCommand[];
  /** Read-only commands the install check runs (shown in the panel). */
  checks: string[][];
  /** True when the scheduler side already holds exactly this entry. */
  unchanged: boolean;
  ids: Record<string, string>;
  /** The backend's own findings, for its apply (cron's tables, systemd's unit states…). */
  data: D;
  /** The backend's own record in state.json. */
  stateExtra: Partial<State>;
  /** Commands the person runs, printed instead of run (without --apply): shown in the panel and after install. */
  printed?: PlannedCommand[];
  /** Panel rows this backend says otherwise, by label (kubernetes: the repo and the agent are in the pod). */
  rows?: [string, string][];
}

export interface Listing {
  ok: boolean;
  observed: string;
}

export interface StopPlan {
  refusals: string[];
  /** This install's entries the scheduler holds now, one phrase each ("your crontab's block …"). */
  found: string[];
  /** What stop leaves alone and why (an entry of another state folder, a file hbgen did not write). */
  notes: string[];
  /** Said when state.json records this scheduler but nothing of it is left. */
  absent: string;
  /** Does the removal, saying each step as it is done. */
  run(say: (line: string) => void): Promise<void>;
  /**
   * Without --apply, the removal a backend that prints its commands leaves to the person:
   * its lines, said as they are; stop then changes nothing (state.json stays as it is).
   */
  printed?: string[];
}

/**
 * The only host paths a backend ever writes for a spec name, derived from the name alone:
 * stop removes nothing else, whatever state.json lists.
 */
export interface HostPaths {
  files: string[];
  /** Folders install may create for those files (removed by stop when empty). */
  dirs: string[];
}

/** An entry hbgen did not write that runs an install's wrapper (src/host/audit/stray.ts). */
export interface StrayEntry {
  /** Where it is: "line 4 of your crontab", or the file's path. */
  where: string;
  /** The line as it reads (shortened), or null for a file. */
  text: string | null;
  /** How the person removes it, one clause. */
  fix: string;
}

/**
 * Does `text` name `wrapper` as a whole path: bare between blanks, quotes, tags or `=`
 * (never inside a longer path), or as one of `quoted` (the scheduler's own quoting)?
 */
export function runsWrapper(text: string, wrapper: string, quoted: string[]): boolean {
  if (quoted.some((q) => text.includes(q))) return true;
  return new RegExp(`(?:^|[\\s'"=>])${escapeRe(wrapper)}(?=$|[\\s'"<;&|)])`, 'm').test(text);
}

/** One hbgen entry of any spec name found on the host (for `hbgen list` and `stop --all`). */
export interface HostEntry {
  /** The spec name its file name or markers carry. */
  name: string;
  /** Where it is, one path or phrase each (the unit files, "lines 1–5 of your crontab"). */
  where: string[];
  /** The heartbeat.sh it runs, recognised by entryOwner (see wrapperIn); null when none is. */
  wrapper: string | null;
  /** Its bytes, each with the name of the copy install keeps in <stateDir>/host/. */
  copies: { copy: string; bytes: Buffer }[];
  /** What changes the entry without changing its file (src/host/audit/tamper.ts): drop-ins, the scheduler's environment. */
  tampered?: string[];
}

/** What one backend found of hbgen's entries, whatever their name. */
export interface Inventory {
  /** Where it looks, as a person would name it. */
  place: string;
  /** False when it could not look: neither its tools on PATH nor its folder there. */
  looked: boolean;
  /** Why it did not look, when not for want of its tools or folder (kubernetes: list asks no cluster). */
  why?: string;
  entries: HostEntry[];
  notes: string[];
}

export interface Audit {
  problems: string[];
  info: string[];
  /** The scheduler holds the entry and will fire it: a next fire is real, a missed one means something. */
  present: boolean;
}

/** One scheduler's host side; D is what its preflight hands its apply. */
export interface Backend<D = unknown> {
  preflight(c: Ctx): Promise<Preflight<D>>;
  apply(c: Ctx, p: Preflight<D>, j: Journal): Promise<void>;
  /** Does the scheduler list the entry now, as installed? */
  listed(c: Ctx): Promise<Listing>;
  /** The files and folders it writes for c's spec name. */
  hostPaths(c: Pick<Ctx, 'home' | 'names'>): HostPaths;
  /**
   * Everything stop needs checked before it changes anything, then the doing. It finds
   * this install's entries by the spec name, with or without state.json; `s` (this
   * scheduler's record, or null) only confirms them.
   */
  planStop(c: Ctx, s: State | null): Promise<StopPlan>;
  /** Read-only: orphan, duplicates, scheduler state, next fire. */
  audit(c: Ctx, s: State, plan: Plan): Promise<Audit>;
  /**
   * Read-only: every hbgen entry of any spec name where this backend writes them, with the
   * wrapper each runs. `toolsOnPath`: its inspecting tools are on PATH (a backend without
   * a folder of its own looks only then).
   */
  inventory(c: Pick<Ctx, 'io' | 'home'>, toolsOnPath: boolean): Promise<Inventory>;
  /**
   * Read-only, for `hbgen list`: what changes every entry of this scheduler at once without
   * changing a file (systemd's manager environment), asked once for all its entries.
   */
  sharedTamper?(io: HostIO): Promise<string[]>;
  /**
   * Read-only: entries this scheduler would run that hbgen did not write and that run
   * `c.names.wrapper` by its path (src/host/audit/stray.ts); `own` holds where hbgen's own
   * entries of any name are (the inventory's `where`), which are none of these.
   */
  strays?(c: Pick<Ctx, 'io' | 'home' | 'names'>, own: Set<string>): Promise<{ found: StrayEntry[]; notes: string[] }>;
  /**
   * Refuses, as a usage error (exit 2) before anything is read, a command-line option this
   * backend cannot honour (kubernetes: resume --reset-cap, whose counter is in the pod).
   */
  refuseOptions?(c: Pick<Ctx, 'spec' | 'names'>, options: { resetCap?: boolean }): void;
  /**
   * For `hbgen init`: whether this scheduler suits this host, and why (said to the person).
   * Init takes the first that fits, in registry order; a backend without it is never chosen.
   */
  detect?(io: HostIO, platform: string): Promise<{ fits: boolean; why: string }>;
  /**
   * `hbgen wake` for a scheduler whose wrapper is not on this host: says where the wake runs
   * and how to start one there (it throws a UserError). Absent: the wrapper here runs.
   */
  wake?(c: Ctx): Promise<number>;
}

// ------------------------------------------------------------------ undo journal

export class Journal {
  private steps: { what: string; undo: () => Promise<void> | void }[] = [];
  push(what: string, undo: () => Promise<void> | void): void {
    this.steps.push({ what, undo });
  }
  /** Undo every step, newest first; a failing step is reported and the rest still run. */
  async rollback(): Promise<{ undone: string[]; failed: string[] }> {
    const undone: string[] = [];
    const failed: string[] = [];
    while (this.steps.length) {
      const s = this.steps.pop()!;
      try {
        await s.undo();
        undone.push(s.what);
      } catch (e) {
        const msg = (e as { lines?: string[] }).lines?.join('; ') ?? (e as Error).message;
        failed.push(`${s.what}: ${msg}`);
      }
    }
    return { undone, failed };
  }
}

// ------------------------------------------------------------------ host files

/**
 * Whether hbgen may write `content` to `path`, and what is there now. `recorded` is the
 * file's entry in the previous state.json, if any.
 */
export function planFile(path: string, content: Buffer, mode: number, spec: Spec, names: Names, recorded: FileRecord | undefined): { plan?: FilePlan; refusal?: string } {
  const st = lstatOrNull(path);
  if (!st) return { plan: { path, content, mode, prior: null, priorMode: 0, action: 'create' } };
  if (st.isSymbolicLink()) return { refusal: `${path} is a symbolic link; hbgen never writes through links: remove the link, then run the command again` };
  if (!st.isFile()) return { refusal: `${path} exists and is not a file; move it away, then run the command again` };
  const cur = readOrNull(path)!;
  const priorMode = st.mode & 0o7777;
  if (cur.equals(content)) return { plan: { path, content, mode, prior: cur, priorMode, action: priorMode === mode ? 'same' : 'replace' } };
  const hasOurHeader = hasGeneratedBy(cur, spec.name);
  const hash = sha256(cur);
  // A file state.json recorded with these very bytes is hbgen's, whatever its format: JSON
  // (jail.json) has no comment to carry the generated-by line.
  if (recorded && recorded.sha256 === hash) return { plan: { path, content, mode, prior: cur, priorMode, action: 'replace' } };
  // hbgen's own file (its header, recorded in state.json) changed since install: drift that
  // install repairs, after the panel has shown the edit it undoes.
  if (hasOurHeader && recorded) return { plan: { path, content, mode, prior: cur, priorMode, action: 'replace', edited: true } };
  if (hasOurHeader) {
    // A file of the same spec name that this state folder did not write: another install
    // (another repo or stateDir) owns it. A state-folder file rendered with `hbgen render
    // --out` into the state folder is the user's copy of our own output: replaceable.
    if (path.startsWith(`${names.stateDir}/`)) return { plan: { path, content, mode, prior: cur, priorMode, action: 'replace' } };
    return {
      refusal: `${path} was written by another hbgen install of a spec named "${spec.name}" (${names.stateDir}/state.json does not record it); stop that install with \`hbgen stop\` and its spec, or give this spec another name`,
    };
  }
  // A state-folder file state.json records (jail.json, which has no header) edited since:
  // drift, put back as status puts it back, after the panel has shown the edit.
  if (recorded && path.startsWith(`${names.stateDir}/`)) return { plan: { path, content, mode, prior: cur, priorMode, action: 'replace', edited: true } };
  if (cur.includes(GENERATED_BY_PREFIX)) {
    return { refusal: `${path} was written by hbgen for another spec; hbgen will not overwrite it: stop that install first, or give this spec another name` };
  }
  return {
    refusal: `${path} already exists and hbgen did not write it; hbgen never overwrites such a file: move it away (e.g. \`mv '${path}' '${path}.bak'\`) or give the spec another name, then run the command again`,
  };
}

/** Write a planned file (creating missing folders), with its undo in the journal. */
export function writePlanned(p: FilePlan, j: Journal, dirMode = 0o755): string[] {
  if (p.action === 'same') return [];
  const dirs = missingDirs(dirname(p.path));
  if (dirs.length) {
    mkdirs(dirname(p.path), dirMode);
    j.push(`removed the folder${dirs.length > 1 ? 's' : ''} ${dirs.join(', ')}`, () => {
      for (const d of [...dirs].reverse()) rmdirIfEmpty(d);
    });
  }
  writeAtomic(p.path, p.content, p.mode);
  j.push(p.prior === null ? `removed ${p.path}` : `restored ${p.path}`, () => {
    if (p.prior === null) rmSync(p.path, { force: true });
    else writeAtomic(p.path, p.prior, p.priorMode);
  });
  return dirs;
}

export function rmdirIfEmpty(d: string): boolean {
  try {
    rmdirSync(d);
    return true;
  } catch {
    return false;
  }
}

export function record(p: { path: string; content: Buffer; mode: number }): FileRecord {
  return { path: p.path, sha256: sha256(p.content), mode: p.mode };
}

/** Poll `cond` until true or `ms` passed; true when it came true. */
export async function pollUntil(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  let wait = 50;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= end) return false;
    await sleep(wait);
    wait = Math.min(wait * 2, 500);
  }
}

/** A stop plan that found nothing and will do nothing. */
export function nothingToStop(absent: string, notes: string[] = [], refusals: string[] = []): StopPlan {
  return { refusals, found: [], notes, absent, run: async () => {} };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whose a scheduler entry found by its name is: this install's ('ours': hbgen's
 * generated-by line for this name, and it runs this state folder's heartbeat.sh), another
 * state folder's install of the same name ('other'), or not hbgen's at all. `quoted` is
 * the wrapper path as the target writes it; the bare path counts only between quotes,
 * blanks or tags, so that /a/x/heartbeat.sh never matches inside /b/a/x/heartbeat.sh.
 */
export function entryOwner(content: string, c: { spec: Pick<Spec, 'name'>; names: Pick<Names, 'wrapper'> }, quoted: string): 'ours' | 'other' | 'not-hbgen' {
  if (!hasGeneratedBy(content, c.spec.name)) return 'not-hbgen';
  const bare = new RegExp(`(?:^|[\\s'">])${escapeRe(c.names.wrapper)}(?=$|[\\s'"<])`, 'm');
  return content.includes(quoted) || bare.test(content) ? 'ours' : 'other';
}

/**
 * A host file at one of the derived paths, before stop: missing, ours (the sha256
 * state.json recorded, or without a record hbgen's own content for this install), changed
 * (recorded, but edited since), or someone else's (left alone).
 */
export function derivedFileState(path: string, recorded: FileRecord | undefined, c: Pick<Ctx, 'spec' | 'names'>, quoted: string): 'missing' | 'ours' | 'changed' | 'other' | 'not-hbgen' {
  const b = readOrNull(path);
  if (b === null) return 'missing';
  if (recorded) return sha256(b) === recorded.sha256 ? 'ours' : 'changed';
  return entryOwner(b.toString('utf8'), c, quoted);
}

/** Why stop leaves a file at a derived path alone. */
export function leftAlone(path: string, why: 'other' | 'not-hbgen', name: string): string {
  return why === 'other'
    ? `left ${path}: it is hbgen's "${name}" of another state folder; stop that install with its own spec`
    : `left ${path}: hbgen did not write it`;
}

export function changedRefusal(path: string): string {
  return `${path} was changed after hbgen installed it (its sha256 differs from state.json); hbgen will not delete a file it did not write: restore it or delete it yourself, then run the command again`;
}

/**
 * The heartbeat.sh an entry of `name` runs, or null. `path` is the entry's last word as
 * the backend read it back; it counts only when it is a state folder's heartbeat.sh and
 * entryOwner, the recogniser stop goes by, finds the entry to be that folder's with the
 * word quoted by the target's own function (src/escape.ts): so `hbgen list` and
 * `stop --all` never call an entry this install's that stop would not.
 */
export function wrapperIn(content: string, name: string, path: string | null, quote: (s: string) => string): string | null {
  if (path === null || !path.startsWith('/') || posix.basename(path) !== 'heartbeat.sh') return null;
  const n = names({ name, repo: '/', stateDir: posix.dirname(path) });
  if (n.wrapper !== path) return null; // not normalized: hbgen never writes such a path
  return entryOwner(content, { spec: { name }, names: n }, quote(path)) === 'ours' ? path : null;
}

/**
 * Each way to read `line` as "… <unit> WORD" where WORD, read back by `unquote`, quotes
 * back (by `quote`) to exactly the text after the unit: the wrapper path the target wrote.
 */
export function lastWordBack(line: string, unit: string, quote: (s: string) => string, unquote: (w: string) => string | null): string | null {
  const sep = ` ${unit} `;
  for (let i = line.indexOf(sep); i >= 0; i = line.indexOf(sep, i + 1)) {
    const word = line.slice(i + sep.length);
    const p = unquote(word);
    if (p !== null && quote(p) === word) return p;
  }
  return null;
}
