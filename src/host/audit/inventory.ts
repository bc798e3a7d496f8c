// Every hbgen install of this user on this host, for `hbgen list` and `hbgen stop --all`,
// found without a spec file: the entries each backend holds under any spec name (its own
// folder, or `crontab -l`), each with the heartbeat.sh it runs (read back from the entry and
// recognised by entryOwner, as stop recognises its own), hence its state folder; and the
// state folders in the default places (src/spec.ts defaultStateDir), which alone show an
// install whose entry is gone. state.json is read for display only (name, repo, status)
// and to tell whether an entry is the one it records; no path is taken from it.
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import type { LogLine } from '../../formats.ts';
import { SCHEDULER_IDS, SCHEDULERS, type SchedulerId } from '../../schedulers.ts';
import { defaultStateDir, validateSpec } from '../../spec.ts';
import { workspaceStatus, workspaceText } from './workspace.ts';
import type { HostEntry } from '../backend.ts';
import { READ_MAX, lstatOrNull, readSoft, sha256, takeSkipped } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { lastOutcomeIn } from './runtime-log.ts';
import { type State, readState, statePath } from '../state.ts';
import { toolsPresent } from '../proc/tools.ts';

export interface FoundEntry extends HostEntry {
  scheduler: SchedulerId;
}

export interface HostEntries {
  entries: FoundEntry[];
  /** Each backend looked at, and where. */
  looked: { id: SchedulerId; place: string }[];
  /** Each backend not looked at, and why. */
  notLooked: { id: SchedulerId; why: string }[];
  notes: string[];
}

/** hbgen's entries of any name on every backend this host lets hbgen look at. */
export async function hostEntries(io: HostIO, home: string): Promise<HostEntries> {
  const out: HostEntries = { entries: [], looked: [], notLooked: [], notes: [] };
  for (const id of SCHEDULER_IDS) {
    const tools = toolsPresent(id, io.env.PATH, 'inspect');
    const inv = await (await SCHEDULERS[id].backend()).inventory({ io, home }, tools.ok);
    out.notes.push(...inv.notes);
    if (!inv.looked) {
      const missing = tools.missing.map((t) => t.name).join(', ');
      out.notLooked.push({ id, why: inv.why ?? `${missing ? `${missing} not on PATH` : `${inv.place} cannot be read`}${inv.place.startsWith('/') ? ` and no ${inv.place}` : ''}` });
      continue;
    }
    out.looked.push({ id, place: inv.place });
    out.entries.push(...inv.entries.map((e) => ({ ...e, scheduler: id })));
  }
  return out;
}

/** The folders that hold the default state folders (src/spec.ts defaultStateDir), for every scheduler and both XDG choices. */
export function stateRoots(io: HostIO, home: string): string[] {
  const envs = [{ HOME: home }, ...(io.env.XDG_STATE_HOME ? [{ HOME: home, XDG_STATE_HOME: io.env.XDG_STATE_HOME }] : [])];
  const roots = SCHEDULER_IDS.flatMap((scheduler) => envs.map((env) => posix.dirname(defaultStateDir({ name: 'x', env, schedule: { scheduler } }))));
  return [...new Set(roots)];
}

export type InstallState = 'active' | 'stopped' | 'orphan' | 'unowned' | 'drifted' | 'tampered' | 'unknown';

export interface InstallRow {
  name: string;
  scheduler: string;
  repo: string | null;
  stateDir: string | null;
  state: InstallState;
  /** The hbgen that installed it (state.json), or null without a state.json. */
  version: string | null;
  lastOutcome: { outcome: string; detail: string; time: string } | null;
  entries: string[];
  /** The agent's own workspace ("workspace": "clone"), as one line (src/host/audit/workspace.ts), or null. */
  workspace?: string;
}

export interface Installs extends HostEntries {
  rows: InstallRow[];
  roots: string[];
}

/** state.json of a folder, or null (with a note when it is there but unreadable). */
function stateOf(dir: string, notes: string[], cache: Map<string, State | null>): State | null {
  if (cache.has(dir)) return cache.get(dir)!;
  let s: State | null = null;
  try {
    s = readState(dir);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    notes.push(e.lines[0]!.split(';')[0]!);
  }
  cache.set(dir, s);
  return s;
}

/**
 * Is the installed wrapper the one state.json records and the one the entry checks before
 * it runs it (its SHA-256 is in the entry: generators/entry.ts; state.json may sit where the
 * agent writes, the entry does not), and every host file the copy in <stateDir>/host/?
 */
function inStep(e: FoundEntry, s: State, dir: string): boolean {
  const rec = s.files.find((r) => r?.path === e.wrapper);
  // Never through a link, never what is not a regular file (recorded, and said by list).
  const cur = readSoft(e.wrapper!, READ_MAX, { noFollow: true });
  const sum = cur ? sha256(cur) : '';
  if (!rec || !cur || sum !== rec.sha256 || !e.copies.some((c) => c.bytes.includes(sum))) return false;
  return e.copies.every((c) => readSoft(posix.join(dir, 'host', c.copy), READ_MAX, { noFollow: true })?.equals(c.bytes) === true);
}

/**
 * Something changes what the entry runs without changing its file (a drop-in, the
 * scheduler's environment: src/host/audit/tamper.ts), or status found hbgen's files edited and put
 * them back (state.json's repairs, or its last health record says so): not healthy.
 */
function tampered(e: FoundEntry, s: State): boolean {
  if (e.tampered?.length || (Array.isArray(s.repairs) && s.repairs.length)) return true;
  return Array.isArray(s.health?.problems) && s.health.problems.some((p) => typeof p === 'string' && p.startsWith('tampered:'));
}

/** One entry's row: unowned unless the state.json beside its wrapper records it as installed. */
function entryRow(e: FoundEntry, s: State | null): InstallRow {
  const dir = e.wrapper ? posix.dirname(e.wrapper) : null;
  let state: InstallState = 'unowned';
  if (dir && s && s.name === e.name && s.scheduler === e.scheduler && s.status !== 'stopped') state = tampered(e, s) ? 'tampered' : inStep(e, s, dir) ? 'active' : 'drifted';
  return row(e.name, e.scheduler, dir, s, state, e.where);
}

function row(name: string, scheduler: string, dir: string | null, s: State | null, state: InstallState, entries: string[]): InstallRow {
  const repo = typeof s?.spec?.repo === 'string' ? s.spec.repo : null;
  const last: LogLine | null = dir ? lastOutcomeIn(posix.join(dir, 'runtime.log'), name) : null;
  const version = typeof s?.hbgenVersion === 'string' ? s.hbgenVersion : null;
  const spec = s?.spec?.workspace === 'clone' ? validateSpec(s.spec).spec : undefined;
  const ws = spec ? workspaceStatus(spec) : null;
  return { name, scheduler, repo, stateDir: dir, state, version, lastOutcome: last ? { outcome: last.outcome, detail: last.detail, time: last.time } : null, entries, ...(ws ? { workspace: workspaceText(ws) } : {}) };
}

/**
 * One folder's row, or null; a fault reading it (permissions, an I/O error) becomes a note
 * naming it, so that one bad state folder never fails the whole list.
 */
function oneFolder(where: string, notes: string[], look: () => InstallRow | null): InstallRow | null {
  try {
    return look();
  } catch (e) {
    if (!(e instanceof UserError) && !(e as NodeJS.ErrnoException)?.code) throw e;
    notes.push(`skipped ${where}: ${e instanceof UserError ? e.lines[0] : (e as Error).message}`);
    return null;
  }
}

/** Every state folder with a state.json directly under the default roots. */
function stateFolders(roots: string[]): string[] {
  const out: string[] = [];
  for (const r of roots) {
    let names: string[] = [];
    try {
      names = readdirSync(r).sort();
    } catch {
      continue;
    }
    // Any state.json there, whatever it is: stateOf reads it (or says why it did not).
    for (const n of names) {
      try {
        if (lstatOrNull(statePath(posix.join(r, n)))) out.push(posix.join(r, n));
      } catch {
        // a folder hbgen may not look into is no install it can show
      }
    }
  }
  return out;
}

/** Every install this user has on this host, one row per entry, and per state folder whose entry is gone. */
export async function listInstalls(io: HostIO, home: string): Promise<Installs> {
  const found = await hostEntries(io, home);
  // What reaches every entry of a scheduler at once (systemd's manager environment), asked once per scheduler.
  for (const id of new Set(found.entries.map((e) => e.scheduler))) {
    const shared = toolsPresent(id, io.env.PATH, 'inspect').ok ? await (await SCHEDULERS[id].backend()).sharedTamper?.(io) : undefined;
    if (shared?.length) for (const e of found.entries) if (e.scheduler === id) e.tampered = [...(e.tampered ?? []), ...shared];
  }
  const cache = new Map<string, State | null>();
  const rows: InstallRow[] = [];
  for (const e of found.entries) {
    const r = oneFolder(e.wrapper ? posix.dirname(e.wrapper) : e.where.join(', '), found.notes, () => entryRow(e, e.wrapper ? stateOf(posix.dirname(e.wrapper), found.notes, cache) : null));
    if (r) rows.push(r);
  }
  const roots = stateRoots(io, home);
  const dirs = [...new Set([...found.entries.flatMap((e) => (e.wrapper ? [posix.dirname(e.wrapper)] : [])), ...stateFolders(roots)])];
  const lookedAt = new Set<string>(found.looked.map((l) => l.id));
  for (const dir of dirs) {
    const r = oneFolder(dir, found.notes, () => {
      const s = stateOf(dir, found.notes, cache);
      if (!s) return null;
      const here = found.entries.filter((e) => e.wrapper === posix.join(dir, 'heartbeat.sh'));
      // Written where the agent may write: shown, never followed.
      const scheduler = String(s.scheduler);
      if (s.status === 'stopped' && here.length === 0) return row(s.name, scheduler, dir, s, 'stopped', []);
      if (s.status !== 'stopped' && !here.some((e) => e.name === s.name && e.scheduler === scheduler)) return row(s.name, scheduler, dir, s, lookedAt.has(scheduler) ? 'orphan' : 'unknown', []);
      return null;
    });
    if (r) rows.push(r);
  }
  // What was not read (a FIFO, a device, a link, a log read only in part), one note per file.
  found.notes.push(...takeSkipped().map((k) => k.message));
  rows.sort((a, b) => a.name.localeCompare(b.name) || a.scheduler.localeCompare(b.scheduler) || (a.stateDir ?? '').localeCompare(b.stateDir ?? ''));
  return { ...found, rows, roots };
}
