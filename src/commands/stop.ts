// hbgen stop [SPEC]: remove this install's scheduler entry and host files, found by the
// spec name (state.json, when it is still there, only confirms them: see src/host/audit/found.ts),
// end a heartbeat running now (only processes proven to be this install's, see
// src/host/proc/proc.ts), clear a stale lock; keep runtime.log and state.json (marked stopped).
// Everything is checked before anything is changed; a second stop says "already stopped".
// With the state folder gone (`git clean -fdx`), it still removes what the scheduler runs
// for this name, when its content is hbgen's own for this state folder.
import { UserError } from '../errors.ts';
import { shownWord } from '../escape.ts';
import { type Ctx, rmdirIfEmpty } from '../host/backend.ts';
import { type Look, allHostPaths, lookByWrapper, lookEverywhere, lostStateText, readStateOrNote, trustedSpec, untrustedRecords } from '../host/audit/found.ts';
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { lstatOrNull } from '../host/fsx.ts';
import { removeExclude } from '../host/install/exclude.ts';
import { workspaceBranch, workspaceDir, workspaceOn } from '../workspace.ts';
import { wakesDone } from '../host/audit/runtime-log.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { acquireOpLock } from '../host/proc/lock.ts';
import { clearStaleLock, endHeartbeats, lockInfo, runningWrappers } from '../host/proc/proc.ts';
import { type State, refuseForeignState, statePath, writeState } from '../host/state.ts';
import { toolsPresent } from '../host/proc/tools.ts';
import { type Names, names } from '../names.ts';
import type { Spec } from '../spec.ts';
import { checkApply, line, loadFor } from './common.ts';
import { specForStop } from '../spec-arg.ts';
import { strayEntries, strayText } from '../host/audit/stray.ts';

/** The spec stop goes by, its names, the install's record and what reading it noted. */
async function stopSpec(io: HostIO, argv: { spec: string; apply?: boolean }): Promise<{ fileSpec: Spec; n: Names; s: State | null; unread: string[] }> {
  // By name with its spec file gone (or rewritten to name another install): the record's spec.
  const how = await specForStop(io, argv.spec);
  const fileSpec = 'spec' in how ? how.spec : loadFor(io, how.file).spec;
  checkApply(fileSpec, argv.apply);
  const n = names(fileSpec);
  const { s, notes } = readStateOrNote(n);
  return { fileSpec, n, s, unread: 'note' in how ? [how.note, ...notes] : notes };
}

export async function stop(argv: { spec: string; all?: boolean; apply?: boolean }, io: HostIO): Promise<number> {
  const { fileSpec, n, s, unread } = await stopSpec(io, argv);
  // Before the scheduler is looked at: stop as another user would remove that user's entries, and write state.json as them.
  refuseForeignState(n.stateDir, io.uid, `hbgen stop ${shownWord(argv.spec)}`);
  const scheduler = fileSpec.schedule.scheduler;
  const t = toolsPresent(scheduler, io.env.PATH, 'inspect').missing[0]?.name;
  if (t) {
    throw new UserError([`${t} is not on PATH, so hbgen cannot remove the ${scheduler} entry; run stop where ${t} is available (PATH=${io.env.PATH ?? ''})`, 'nothing was changed on this host']);
  }
  // Paths and names from the spec file; timeout and killAfter as installed, when state.json agrees.
  const { spec, notes: specNotes } = trustedSpec(s, fileSpec);
  const notes = [...unread, ...specNotes];
  const ctx: Ctx = { io, spec: fileSpec, names: n, home: homeOf(io), files: [], prev: s, apply: argv.apply };
  const lock = await acquireOpLock(io);
  try {
    return await stopLocked(io, argv, { fileSpec, n, s, spec, notes, ctx });
  } finally {
    lock.release();
  }
}

/** What stopLocked goes by: the spec file's spec and names, state.json, the trusted spec, the notes so far. */
export interface StopWhat {
  fileSpec: Spec;
  n: Names;
  s: State | null;
  spec: Spec;
  notes: string[];
  ctx: Ctx;
}

/**
 * stop's work, under hbgen's lock (the caller holds it: stop itself, or install undoing a
 * first wake whose required checks failed). Returns 0 when the install is stopped; throws
 * when something still runs its wrapper that hbgen did not write (src/host/audit/stray.ts).
 */
export async function stopLocked(io: HostIO, argv: { spec: string; all?: boolean }, w: StopWhat): Promise<number> {
  const { fileSpec, n, s, spec, notes, ctx } = w;
  const scheduler = fileSpec.schedule.scheduler;
  const byName = await lookEverywhere(ctx, s, fileSpec);
  // --all: also what runs this wrapper under another name (shown before it goes).
  const extra = argv.all ? await lookByWrapper(ctx, fileSpec, byName) : { looks: [], notes: [] };
  const looks = [...byName, ...extra.looks];
  notes.push(...extra.notes);
  const refusals = looks.flatMap((l) => l.plan.refusals);
  if (refusals.length) throw new UserError([...refusals, 'nothing was changed on this host']);
  // A backend that prints its removal for the person (without --apply): said, and nothing changes.
  const printed = looks.flatMap((l) => l.plan.printed ?? []);
  if (printed.length) {
    for (const l of printed) line(io, l);
    return 0;
  }
  const lk = await lockInfo(io, spec, n);
  const { running, all } = await runningWrappers(io, n);
  const found = looks.filter((l) => l.plan.found.length);
  const say = (l: string) => line(io, `  ${l}`);
  if (found.length === 0 && running.length === 0 && !lk.stale && (!s || s.status === 'stopped')) {
    line(io, s ? `hbgen: "${fileSpec.name}" is already stopped; nothing changed (\`hbgen resume ${shownWord(argv.spec)}\` installs it again)` : `hbgen: no install of "${fileSpec.name}" is recorded in ${statePath(n.stateDir)}, and no scheduler holds hbgen's entry for it; nothing to stop`);
    for (const l of [...notes, ...looks.flatMap((x) => x.plan.notes)]) say(l);
    await refuseStrays(io, ctx, argv.spec, say);
    return 0;
  }
  line(io, `hbgen stop: "${fileSpec.name}" (${found.length ? [...new Set(found.map((l) => l.id))].join(', ') : (s?.scheduler ?? scheduler)})`);
  const own = byName.some((l) => l.plan.found.length);
  if (own && !s) say(`${lostStateText(n)}; removing what the scheduler still runs for "${fileSpec.name}", found by its name`);
  else if (own && s?.status === 'stopped') say('state.json says stopped, but the scheduler still runs this spec\'s entry');
  for (const l of [...notes, ...(s ? untrustedRecords(s, fileSpec.name, n, await allHostPaths(ctx), byName) : []), ...looks.flatMap((x) => x.plan.notes)]) say(l);
  if (extra.looks.length) say(`--all: these run ${n.wrapper} under another spec name, and go too:`);
  for (const l of extra.looks) for (const f of l.plan.found) say(`  ${l.id}: ${f}`);
  await removeEntries(looks, s, say);
  for (const l of await endHeartbeats(io, spec, running, all)) say(l);
  const after = await lockInfo(io, spec, n);
  if (after.kind === 'mkdir' && !after.held) {
    clearStaleLock(n);
    say(`removed the stale lock ${n.lockDir} (${after.detail.replace(`${n.lockDir}: `, '')})`);
  }
  await finish(io, ctx, s, say);
  await refuseStrays(io, ctx, argv.spec, say);
  line(io, `hbgen: stopped "${fileSpec.name}"; \`hbgen ${s ? 'resume' : 'install'} ${shownWord(argv.spec)}\` installs it again`);
  return 0;
}

/**
 * An entry hbgen did not write that still runs this install's wrapper (a copy of the job
 * line outside hbgen's crontab block, a unit or LaunchAgent of another name) keeps waking it:
 * the install is not called stopped while one is there. hbgen never edits it (a crontab line
 * outside its block is the person's byte): each is named with how to remove it, exit 1.
 */
async function refuseStrays(io: HostIO, ctx: Ctx, arg: string, say: (l: string) => void): Promise<void> {
  const { strays, notes } = await strayEntries(io, ctx.home, ctx.names);
  for (const l of notes) say(l);
  if (strays.length === 0) return;
  throw new UserError([
    ...strays.map((x) => strayText(x, ctx.names.wrapper)),
    `so "${ctx.spec.name}" is not stopped: hbgen's own entries are gone, but ${strays.length === 1 ? 'that entry still wakes' : 'those entries still wake'} it; remove ${strays.length === 1 ? 'it' : 'them'} as said, then run \`hbgen stop ${shownWord(arg)}\` again`,
  ]);
}

/** Each scheduler's removal, or, for the one state.json names, that nothing was left. */
async function removeEntries(looks: Look[], s: State | null, say: (l: string) => void): Promise<void> {
  for (const l of looks) {
    if (l.plan.found.length) await l.plan.run(say);
    else if (s?.scheduler === l.id) say(l.plan.absent);
  }
}

/** The folders install created (only those hbgen creates for this name), then state.json marked stopped. */
async function finish(io: HostIO, ctx: Ctx & { names: Names; spec: Spec }, s: State | null, say: (l: string) => void): Promise<void> {
  const n = ctx.names;
  if (!s) {
    const kept = keptText(n, false);
    if (kept) say(`kept ${kept}`);
    return;
  }
  const dirs = (await allHostPaths(ctx)).dirs;
  const created = (s.createdDirs ?? []).filter((d) => dirs.includes(d));
  for (const d of created.sort((a, b) => b.length - a.length)) if (rmdirIfEmpty(d)) say(`removed the folder ${d} (install created it)`);
  const now = io.now().toISOString();
  // Only the block install added, in the file install recorded, under this install's name.
  const ex = s.exclude && s.exclude.path === posix.join(ctx.spec.repo, '.git/info/exclude') && removeExclude(s.exclude.path, ctx.spec.name) ? s.exclude.path : null;
  if (ex) say(`removed hbgen's block from ${ex} (install added it: the control files, out of the agent's commits)`);
  writeState(n.stateDir, { ...s, status: 'stopped', time: now, stoppedAt: now });
  say(`kept ${keptText(n, true) ?? `${n.log} and ${statePath(n.stateDir)} (marked stopped)`}`);
  say(`kept ${ctx.spec.repo} as it is: stop never touches the repo's files (HEART.md, STATE.md, the journal, the agent's work)`);
  if (workspaceOn(ctx.spec)) say(`kept the agent's clone ${workspaceDir(ctx.spec)} and branch ${workspaceBranch(ctx.spec.name)} in the repo: \`hbgen forget ${ctx.spec.name}\` removes the clone after showing what it holds and asking`);
}

/** What each file hbgen leaves in the state folder is, for the "kept" line (no commas: they separate the entries). */
const KEPT: Record<string, string> = {
  'runtime.log': 'the wake log',
  'agent.log': "the agent's output",
  'state.json': 'marked stopped: the record `hbgen resume` looks for',
  wakes: 'the wake counter',
  aside: 'where each wake writes its count before moving it into place',
  'heartbeat.sh': 'the wrapper: nothing runs it now',
  'window.sh': 'the gate',
  'claim.sh': 'the claim helper',
  host: 'copies of the removed scheduler files',
  'heart.sum': "the HEART.md checksum of the last wake",
};

/** Exactly what stays in the state folder, entry by entry, said in one line; null when it cannot be listed (or is empty). */
function keptText(n: Names, marked: boolean): string | null {
  let entries: string[] = [];
  try {
    entries = readdirSync(n.stateDir).sort();
  } catch {
    return null;
  }
  if (entries.length === 0) return null;
  // The folder may sit in the repo, where the agent names files: no control character reaches
  // the terminal, and a flood of files is counted, not listed.
  const MAX = 30;
  const said = entries.slice(0, MAX).map((e) => {
    const isDir = lstatOrNull(posix.join(n.stateDir, e))?.isDirectory();
    const count = e === 'wakes' ? wakesDone(n.wakes) : null;
    const known = e === 'state.json' && !marked ? 'not readable: left as it is' : KEPT[e];
    const what = known ? `${known}${count !== null ? `: ${count}` : ''}` : undefined;
    return `${e.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')}${isDir ? '/' : ''}${what ? ` (${what})` : ''}`;
  });
  if (entries.length > MAX) said.push(`and ${entries.length - MAX} more`);
  return `in ${n.stateDir}: ${said.join(', ')}`;
}
