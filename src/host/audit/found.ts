// What stop and status act on: hbgen's own scheduler entries for a spec name, found on the
// host by that name (src/names.ts and each backend's derived paths), whether or not
// state.json is still there. state.json sits in a folder the agent may write and the user
// may delete (`git clean -fdx`), so it only confirms: a path it names that hbgen never
// writes for this name, a scheduler where nothing of hbgen's is found, a spec of another
// name or folder are reported as ignored and never acted on.
import { posix } from 'node:path';
import { type Names, names } from '../../names.ts';
import { SCHEDULER_IDS, SCHEDULERS, type SchedulerId } from '../../schedulers.ts';
import { type Spec, validateSpec } from '../../spec.ts';
import type { Backend, Ctx, HostPaths, StopPlan } from '../backend.ts';
import { lstatOrNull } from '../fsx.ts';
import { UserError } from '../../errors.ts';
import { shownWord } from '../../escape.ts';
import { type State, readState, specHash, statePath, writeState } from '../state.ts';
import { toolsPresent } from '../proc/tools.ts';
import { hostEntries, listInstalls } from './inventory.ts';

export interface Look {
  id: SchedulerId;
  backend: Backend;
  plan: StopPlan;
}

/**
 * The spec whose settings (timeout, killAfter, the schedule) describe the install: the one
 * state.json recorded when it is valid and names the same spec name, repo and state folder
 * as the spec file; otherwise the file's, with a note. Paths always come from the file.
 */
export function trustedSpec(s: State | null, fileSpec: Spec): { spec: Spec; notes: string[] } {
  if (!s) return { spec: fileSpec, notes: [] };
  const v = validateSpec(s.spec);
  if (!v.spec) return { spec: fileSpec, notes: [`state.json records a spec this hbgen cannot read (${v.errors[0]}); ignored`] };
  const differs = identityDiffers(s, v.spec, fileSpec);
  if (differs.length === 0) return { spec: v.spec, notes: [] };
  return { spec: fileSpec, notes: [`state.json records another ${differs.join(', ')} than the spec file; ignored: hbgen goes by the spec file`] };
}

/**
 * resume: state.json must record an install of this spec file (the same spec name, repo and
 * state folder), or there is nothing to resume. It is only compared: what resume installs
 * is the spec file, as install does (the agent may write state.json, and anything read
 * from it would run from the scheduler). Returns the panel's caveats.
 */
export function resumeNotes(prev: State | null, fileSpec: Spec, specFile: string, arg: string): string[] {
  const n = names(fileSpec);
  const again = `install from the spec file with \`hbgen install ${shownWord(arg)}\``;
  if (!prev) throw new UserError([`${statePath(n.stateDir)}: no install of "${fileSpec.name}" is recorded there, so there is nothing to resume; install it with \`hbgen install ${shownWord(arg)}\``]);
  // The recorded spec is not validated (it is not used); a record that is not an object names nothing.
  const recorded = (typeof prev.spec === 'object' && prev.spec !== null ? prev.spec : {}) as Spec;
  const differs = identityDiffers(prev, recorded, fileSpec);
  if (differs.length) throw new UserError([`${statePath(n.stateDir)}: it records another ${differs.join(', ')} than ${specFile}, so resume will not trust it; ${again}`]);
  return prev.specHash === specHash(fileSpec) ? [] : [`${specFile} changed since the recorded install; resume installs the file as it is now (state.json is only a record)`];
}

/** Which of name, repo and state folder the recorded spec has other than the spec file. */
export function identityDiffers(s: State, recorded: Spec, fileSpec: Spec): string[] {
  const differs: string[] = (['name', 'repo', 'stateDir'] as const).filter((k) => recorded[k] !== fileSpec[k]);
  if (s.name !== fileSpec.name && !differs.includes('name')) differs.unshift('name');
  return differs;
}

/** The schedulers to look in: the spec file's first, then every other whose tools are on PATH. */
export async function backendsToLook(fileSpec: Spec, path: string | undefined): Promise<{ id: SchedulerId; backend: Backend }[]> {
  const first = fileSpec.schedule.scheduler;
  const ids = [first, ...SCHEDULER_IDS.filter((id) => id !== first)].filter((id) => toolsPresent(id, path, 'inspect').ok);
  return Promise.all(ids.map(async (id) => ({ id, backend: await SCHEDULERS[id].backend() })));
}

/** Look in each scheduler for this install's entries (read-only); state.json confirms its own scheduler's. */
export async function lookEverywhere(ctx: Ctx, s: State | null, fileSpec: Spec, except?: string): Promise<Look[]> {
  const out: Look[] = [];
  for (const { id, backend } of await backendsToLook(fileSpec, ctx.io.env.PATH)) {
    if (id === except) continue;
    out.push({ id, backend, plan: await backend.planStop(ctx, s?.scheduler === id ? s : null) });
  }
  return out;
}

/** Every path any backend may write for this name. */
export async function allHostPaths(c: Pick<Ctx, 'home' | 'names'>): Promise<HostPaths> {
  const files: string[] = [];
  const dirs: string[] = [];
  for (const id of SCHEDULER_IDS) {
    const p = (await SCHEDULERS[id].backend()).hostPaths(c);
    files.push(...p.files);
    dirs.push(...p.dirs);
  }
  return { files, dirs };
}

/** What state.json names that hbgen never writes for this name or folder: reported, then ignored. */
export function untrustedRecords(s: State, name: string, n: Names, paths: HostPaths, looks: Look[]): string[] {
  const notes: string[] = [];
  const never = (what: string) => notes.push(`state.json names ${what}, which hbgen never writes for "${name}"; ignored`);
  for (const r of s.hostFiles ?? []) if (!paths.files.includes(r.path)) never(r.path);
  for (const r of s.files ?? []) if (!r.path.startsWith(`${n.stateDir}/`)) never(r.path);
  for (const d of s.createdDirs ?? []) if (!paths.dirs.includes(d)) never(`the folder ${d}`);
  if (!(SCHEDULER_IDS as readonly string[]).includes(s.scheduler)) notes.push(`state.json names the scheduler "${s.scheduler}", which hbgen does not know; ignored`);
  else {
    const where = looks.filter((l) => l.plan.found.length).map((l) => l.id);
    if (where.length && !where.includes(s.scheduler)) notes.push(`state.json names the scheduler ${s.scheduler}, but hbgen's entry for this spec is in ${where.join(' and ')}; ignored`);
  }
  return notes;
}

/** How the loss reads: the whole state folder, or only state.json in it. */
export function lostStateText(n: Names): string {
  return lstatOrNull(n.stateDir) ? `${posix.join(n.stateDir, 'state.json')} is gone` : 'the state folder is gone';
}

/** state.json, or null with a note when it is not readable: stop and status then go by the name. */
export function readStateOrNote(n: Names): { s: State | null; notes: string[] } {
  try {
    return { s: readState(n.stateDir), notes: [] };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    return { s: null, notes: [`${e.lines[0]!.split(';')[0]}; ignored: hbgen goes by the spec name`] };
  }
}

/**
 * For `stop --all`: the entries under another spec name that run this state folder's
 * heartbeat.sh (read back from each entry and recognised by entryOwner, as stop recognises
 * its own: a file hbgen did not write, or another folder's, is never among them), on the
 * schedulers stop looks in (`byName`). Each is planned as stop plans an entry of that name,
 * and planned again when it runs: an earlier removal may have changed the same crontab.
 */
export async function lookByWrapper(ctx: Ctx, fileSpec: Spec, byName: Look[]): Promise<{ looks: Look[]; notes: string[] }> {
  const reach = new Set<string>(byName.map((l) => l.id));
  const looks: Look[] = [];
  const notes: string[] = [];
  for (const e of (await hostEntries(ctx.io, ctx.home)).entries) {
    if (e.wrapper !== ctx.names.wrapper || e.name === fileSpec.name) continue;
    if (!reach.has(e.scheduler)) {
      notes.push(`left ${e.where.join(', ')}: it runs this install's wrapper, but the ${e.scheduler} tools are not on PATH; run stop --all where they are`);
      continue;
    }
    const spec: Spec = { ...fileSpec, name: e.name, stateDir: ctx.names.stateDir };
    const c: Ctx = { ...ctx, spec, names: names(spec), prev: null };
    const backend = await SCHEDULERS[e.scheduler].backend();
    const plan = await backend.planStop(c, null);
    const run = async (say: (l: string) => void) => {
      const again = await backend.planStop(c, null);
      if (again.refusals.length) throw new UserError(again.refusals);
      await again.run(say);
    };
    if (plan.found.length || plan.refusals.length) looks.push({ id: e.scheduler, backend, plan: { ...plan, run } });
    else notes.push(...plan.notes);
  }
  return { looks, notes };
}

/**
 * Installs of the same spec file under another name (the spec was renamed): their entries
 * still fire, nobody's any more. Found through every install's state.json that records this
 * spec file; each is then looked for by its own name and state folder, as stop would.
 */
export async function lookRenamed(ctx: Ctx, fileSpec: Spec, specFile: string): Promise<Look[]> {
  const looks: Look[] = [];
  for (const row of (await listInstalls(ctx.io, ctx.home)).rows) {
    if (row.name === fileSpec.name || !row.stateDir || row.entries.length === 0) continue;
    let rec: State | null = null;
    try {
      rec = readState(row.stateDir);
    } catch {
      continue;
    }
    if (!rec || rec.specFile !== specFile || !(SCHEDULER_IDS as readonly string[]).includes(rec.scheduler)) continue;
    const spec: Spec = { ...fileSpec, name: row.name, stateDir: row.stateDir };
    const c: Ctx = { ...ctx, spec, names: names(spec), prev: rec };
    const backend = await SCHEDULERS[rec.scheduler].backend();
    const plan = await backend.planStop(c, rec);
    const stateDir = row.stateDir;
    const old = rec;
    // After its entries go, the old record says stopped, so that status and list agree.
    const run = async (say: (l: string) => void) => {
      await plan.run(say);
      const now = ctx.io.now().toISOString();
      writeState(stateDir, { ...old, status: 'stopped', time: now, stoppedAt: now });
      say(`marked ${statePath(stateDir)} stopped`);
    };
    if (plan.found.length || plan.refusals.length) looks.push({ id: rec.scheduler, backend, plan: { ...plan, run, found: plan.found.map((f) => `${f} (the spec's earlier name "${row.name}")`) } });
  }
  return looks;
}
