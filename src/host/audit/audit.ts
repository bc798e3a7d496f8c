// The audit behind `hbgen status`: a pure reader. It reads the install (state.json, the
// state folder, the scheduler, the log, the clock) and returns what it found and the writes
// that would repair what it may repair (a RepairPlan: state-folder files hbgen wrote that
// differ, the health record in state.json), and writes nothing itself: applyRepairs
// (repair.ts) writes the plan, src/commands/status.ts prints. Drift is sha256 of the
// installed files against state.json and against a fresh render; also orphans, duplicates,
// a missing binary, a stale lock, the last outcome (or the wake that ended without one) and
// the next fire time.
import { agentDir } from '../../workspace.ts';
import { type WorkspaceStatus, workspaceStatus, workspaceText } from './workspace.ts';
import { untilReached } from '../../week.ts';
import { jailLines, jailOn, jailPolicy, tildeOf } from '../../jail.ts';
import { COMMAND } from '../../harness/registry.ts';
import { type LimitsFindings, limitsFindings, limitsLine } from '../../limits.ts';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import { DIGEST_DIR, DIGEST_STAMP_FILE, IDLE_FILE, WAKE_ENDS, generatedBy, isOneOf, type LogLine, olderGeneratedBy, pad2, parseLog, parseWakeDetail, SMOKE_DETAIL, TAMPERED_GIT } from '../../formats.ts';
import { hostZone, hostZoneProblem, wakesMissedIn } from './clock.ts';
import { failStreak, farPauses, lastFireEntryNote, schedulerClock, wakeSeconds, wakes, missedSince } from './health.ts';
import { localText, nextFire } from './next.ts';
import { offsetAt } from '../../zone-offsets.ts';
import type { Ctx, HostPaths } from '../backend.ts';
import { checkBin, permissionMode } from '../install/facts.ts';
import { READ_MAX, linkOnTheWay, lstatOrNull, mode4, readOrNull, readSoft, sha256, takeSkipped } from '../fsx.ts';
import { homeOf, type HostIO } from '../io.ts';
import { heartRemoved } from '../heart/mission.ts';
import { asleepFires, sleepFacts } from './asleep.ts';
import { catchUpCaveat } from './catchup.ts';
import { heartbeatRunningNow, lockInfo, runningWrappers } from '../proc/proc.ts';
import { hostEntries } from './inventory.ts';
import { codeInRepoProblems, stateInRepoProblem } from '../install/reach.ts';
import { agentLines, lastOutcome, logHistory, wakesDone } from './runtime-log.ts';
import { activePause } from './pause.ts';
import { activeFailPause } from './failpause.ts';
import { strayEntries, strayText } from './stray.ts';
import { allHostPaths, lookEverywhere, lostStateText, trustedSpec, untrustedRecords } from './found.ts';
import { type UsageFindings, usageFindings, usageLine, windowsLine } from './usage.ts';
import { pendingUpgrade, specChanged } from './upgrade.ts';
import { type State, statePath } from '../state.ts';
import { toolsPresent } from '../proc/tools.ts';
import { type Names, names } from '../../names.ts';
import { renderSpec } from '../../pipeline.ts';
import { type Plan, plan } from '../../schedule.ts';
import { FACTS, factsOf, type SchedulerId } from '../../scheduler-facts.ts';
import { SCHEDULERS } from '../../schedulers.ts';
import { digestOf, idleOf, type Spec, reserveOf } from '../../spec.ts';
import { fallbackInUse } from './fallback-state.ts';
import { foreignFiles } from './owners.ts';
import type { FileRepair, RepairPlan } from './repair.ts';
import { type Label, outcomeLabel } from '../../status-labels.ts';

/** The lines of runtime.log that end a wake (`error` included: a fault after `start`). */

/**
 * The last wake's `start` line when no line after it ends a wake (the skips of other fires
 * and the install check's lines do not), else null. Every start gets an outcome line
 * unless its wrapper was killed or the log could not take the line.
 */
export function wakeWithoutOutcome(all: LogLine[]): LogLine | null {
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.detail === SMOKE_DETAIL) continue;
    if (isOneOf(WAKE_ENDS, l.outcome)) return null;
    if (l.outcome === 'start') return l;
  }
  return null;
}

/** One problem: a stable code for scripts (docs/commands.md "hbgen status --json"), one sentence for people. */
export interface Problem {
  code: string;
  message: string;
}

/**
 * What the audit found, once, for both forms: the human panel (report) and --json
 * (statusJson) are two views of this object.
 */
export interface Findings {
  name: string;
  scheduler: string;
  repo: string;
  stateDir: string;
  /** state.json's word, or "not-installed" (nothing recorded, nothing found) and "unrecorded" (no readable state.json, but the scheduler runs it). */
  state: 'installed' | 'installing' | 'stopped' | 'not-installed' | 'unrecorded';
  /** The first line of the panel. */
  header: string;
  /** Why an install without problems is still not healthy (stopped, not installed): said under the header. */
  verdict?: Problem;
  /** Problems make it unhealthy; info lines are said as they are. */
  problems: Problem[];
  info: string[];
  /** Each info line's label in the panel (src/status-labels.ts); a line not here is a backend's, labelled by labelOf. */
  labels: Map<string, Label>;
  /** What the install is and did, label and text, said first. */
  about: [string, string][];
  lastWake: { time: string; outcome: string | null; number: number | null; endedAt: string | null } | null;
  nextFire: { iso: string; working: string; zone: string } | null;
  wakes: number | null;
  cap: number | null;
  billing: { result: string; method: string | null; identity: string | null; checkedAt: string | null } | null;
  heart: { changed: boolean | null } | null;
  running: { pid: number | null } | null;
  /** Wakes wait for the plan's limit to reset: healthy, the plan working as designed. */
  paused: { until: string; working: string; message: string } | null;
  /** The OS jail: what it allows, or on: false with `"sandbox": false`. */
  jail: { on: boolean; bin: string | null; write: string[]; denyWrite: string[]; denyRead: string[]; hosts: string[] };
  /** The wake's bounds (spec limits, src/limits.ts): on false with "limits": false or on kubernetes. */
  limits: LimitsFindings;
  /** The agent's own workspace ("workspace": "clone"): its branch in the repo, or null without one. */
  workspace: WorkspaceStatus | null;
  /** The wakes' tokens from their usage lines (src/host/audit/usage.ts). */
  usage: UsageFindings | null;
  checkedAt: string;
}

/** Problems said by other modules as "kind: …" get that kind as their code; the rest `fallback`. */
const KINDS: [RegExp, string][] = [
  [/^drift:/, 'drift'],
  [/^orphan:/, 'orphan'],
  [/^duplicate\b/, 'duplicate'],
  [/^unowned:/, 'unowned'],
  [/^missing binary:/, 'missing-binary'],
  [/^tampered:/, 'tampered'],
  [/^foreign owner:/, 'foreign-owner'],
];

export function problemOf(message: string, fallback: string): Problem {
  return { code: KINDS.find(([re]) => re.test(message))?.[1] ?? fallback, message };
}

const add = (f: Findings, code: string, message: string) => f.problems.push({ code, message });
/** An info line with the label the panel shows it under. */
const note = (f: Findings, label: Label, text: string) => {
  f.info.push(text);
  f.labels.set(text, label);
};
const addAll = (f: Findings, messages: string[], fallback: string) => f.problems.push(...messages.map((m) => problemOf(m, fallback)));

/** Healthy: no problem, and no verdict (stopped, not installed) either. */
export const healthy = (f: Findings) => f.problems.length === 0 && !f.verdict;

/**
 * The files the audit did not read (src/host/fsx.ts readSoft: a FIFO, a device, a link
 * where none is followed, too large), one line each: a problem, since hbgen and its wrapper
 * write only regular files there; a log read only in part is said as it is.
 */
function saySkipped(f: Findings): void {
  for (const k of takeSkipped()) {
    // A file a check of its own already names (runtime.log as a link: log-link) is said once.
    if (f.problems.some((p) => p.message.startsWith(`${k.path} `))) continue;
    if (k.partial) note(f, 'warn', k.message);
    else add(f, 'unreadable-file', k.message);
  }
}

/** One audit: what it found, and the writes that would repair what it may (applyRepairs writes them). */
export interface Audit {
  findings: Findings;
  repairs: RepairPlan;
}

/**
 * What an audit run again after applyRepairs knows: the files of the first plan that were
 * written (this status's repairs, on disk now, in the order the first audit planned them)
 * and those that could not be (drift, left as they are).
 */
export interface AfterRepairs {
  written: FileRepair[];
  failed: string[];
}

const nothing = (): RepairPlan => ({ files: [], record: null });

/**
 * The audit of one install: reads the host, writes nothing. `loaded` is the spec file as
 * read (paths and names come from it, never from state.json: src/host/audit/found.ts),
 * `state` state.json as read (found.ts readStateOrNote).
 */
export async function audit(loaded: { spec: Spec; file: string }, state: { s: State | null; notes: string[] }, io: HostIO, after?: AfterRepairs): Promise<Audit> {
  takeSkipped(); // what an earlier command in this process skipped is not this audit's
  const { spec: fileSpec, file } = loaded;
  const n = names(fileSpec);
  const { s, notes: unread } = state;
  const ctx: Ctx = { io, spec: fileSpec, names: n, home: homeOf(io), files: [], prev: s };
  const f = blank(fileSpec, n, s, io.now());
  if (!s) {
    await lostState(fileSpec, n, ctx, unread, f);
    saySkipped(f);
    return { findings: f, repairs: nothing() };
  }
  const { spec, notes } = trustedSpec(s, fileSpec);
  reachProblems(fileSpec, n, f);
  f.header = `hbgen status: "${s.name}" (${s.scheduler}), ${s.status} at ${s.time}, by hbgen ${s.hbgenVersion}`;
  folderLinks(n, f);
  addAll(f, foreignFiles(fileSpec, n), 'foreign-owner');
  const { text, last } = recordedFindings(spec, n, s, io, f);
  const paths = await lookAround(ctx, fileSpec, s, notes, f);
  if (s.status === 'stopped') {
    saySkipped(f);
    if (f.problems.length === 0) f.verdict = { code: 'stopped', message: 'stopped: there is no scheduler entry; `hbgen resume` installs it again' };
    return { findings: f, repairs: nothing() };
  }
  const drift = await installChecks(fileSpec, spec, file, s, n, ctx, paths, text, last, f, after);
  const fallback = fallbackInUse(n.stateDir, fileSpec);
  if (fallback) f.info.push(fallback);
  saySkipped(f);
  return { findings: f, repairs: { files: drift.write, record: healthRecord(n, s, drift.repairs, f, io) } };
}

/** What state.json and the state folder say the install did: billing, cap, wakes, the last wake, HEART.md, tokens. Returns runtime.log's text and the last wake. */
function recordedFindings(spec: Spec, n: Names, s: State, io: HostIO, f: Findings): { text: string; last: Wake | undefined } {
  f.billing = billingOf(s);
  f.cap = spec.cap ?? null;
  f.wakes = wakesDone(n.wakes);
  // runtime.log (and its rotated generation) read once, never through a link (lockAndLastOutcome reports one).
  const text = logHistory(n.log);
  const last = lastWakeOf(text, s.name);
  f.lastWake = !last ? null : { time: last.start.time, outcome: last.end?.outcome ?? null, number: parseWakeDetail(last.start.detail)?.n || null, endedAt: last.end?.time ?? null };
  f.heart = heartOf(spec, n);
  f.usage = usageFindings(parseLog(text, s.name), spec.schedule.hours.timezone, io.now(), spec.budget);
  const ul = usageLine(f.usage);
  if (ul) f.info.push(ul);
  const wl = windowsLine(f.usage, reserveOf(spec));
  if (wl) f.info.push(wl);
  // What the latest fire found of its own scheduler entry (it looks at every fire).
  const entry = lastFireEntryNote(parseLog(text, s.name), s.installedAt ?? s.time);
  if (entry) note(f, 'warn', `the fire of ${entry.time} found its scheduler entry not as installed: ${entry.detail}; \`hbgen install\` puts it back`);
  return { text, last };
}

/**
 * What the schedulers hold for this name beside state.json's record (entries elsewhere, and
 * under another name), and what of state.json is not trusted. Returns every path a backend
 * may write for the name.
 */
async function lookAround(ctx: Ctx, fileSpec: Spec, s: State, notes: string[], f: Findings): Promise<HostPaths> {
  const n = ctx.names;
  const looks = await lookEverywhere(ctx, null, fileSpec, s.scheduler);
  const paths = await allHostPaths(ctx);
  addAll(f, notes, 'state-record');
  addAll(f, untrustedRecords(s, fileSpec.name, n, paths, looks), 'state-record');
  const elsewhere = looks.filter((l) => l.id !== s.scheduler).flatMap((l) => l.plan.found);
  for (const e of elsewhere) add(f, 'duplicate', `duplicate: the scheduler also runs ${e}, which state.json does not record; \`hbgen stop\` removes it`);
  // Entries under another spec name that run this install's wrapper: wakes nobody owns.
  for (const e of (await hostEntries(ctx.io, ctx.home)).entries.filter((x) => x.wrapper === n.wrapper && x.name !== fileSpec.name)) {
    add(f, 'unowned', `unowned: ${e.scheduler} runs this install's wrapper under the name "${e.name}" (${e.where.join(', ')}); \`hbgen stop --all\` removes it`);
  }
  await strayProblems(ctx, f);
  return paths;
}

/**
 * An install whose state folder, programs or loaded code the agent can rewrite (install,
 * resume and wake refuse these now; an install made before they did may still be so).
 */
function reachProblems(spec: Spec, n: Names, f: Findings): void {
  const st = stateInRepoProblem(spec, n);
  if (st) add(f, 'state-in-repo', `${st} (first run \`hbgen stop\` with the spec as it is, then change it and run \`hbgen install\`)`);
  for (const p of codeInRepoProblems(spec)) add(f, 'code-in-repo', `${p}, then run \`hbgen install\``);
}

/** The jail's policy as status shows it (src/jail.ts, from the spec alone). */
function jailFindings(spec: Spec): Findings['jail'] {
  const p = jailPolicy(spec);
  if (!p) return { on: false, bin: null, write: [], denyWrite: [], denyRead: [], hosts: [] };
  return { on: true, bin: p.bin || null, write: p.write, denyWrite: p.denyWrite, denyRead: p.denyRead, hosts: p.hosts };
}

/** Findings before any check: the install as the spec file names it. */
function blank(fileSpec: Spec, n: Names, s: State | null, now: Date): Findings {
  return {
    name: fileSpec.name,
    scheduler: s?.scheduler ?? fileSpec.schedule.scheduler,
    repo: fileSpec.repo,
    stateDir: n.stateDir,
    state: s ? s.status : 'not-installed',
    header: '',
    problems: [],
    info: [],
    labels: new Map(),
    about: [],
    lastWake: null,
    nextFire: null,
    wakes: null,
    cap: fileSpec.cap ?? null,
    billing: null,
    heart: null,
    running: null,
    paused: null,
    jail: jailFindings(fileSpec),
    limits: limitsFindings(fileSpec),
    workspace: workspaceStatus(fileSpec),
    usage: null,
    checkedAt: now.toISOString(),
  };
}

/**
 * The checks of an install that is not stopped: files, binary, scheduler, lock, log, clock.
 * Returns the drift of the installed files and the repairs planned for them.
 */
async function installChecks(fileSpec: Spec, spec: Spec, file: string, s: State, n: Names, ctx: Ctx, paths: HostPaths, text: string, last: Wake | undefined, f: Findings, after?: AfterRepairs): Promise<Drift> {
  const io = ctx.io;
  if (s.status === 'installing') add(f, 'unfinished', 'unfinished: an install did not finish (state.json says installing); run `hbgen install` again, or `hbgen stop` to remove what it wrote');
  const drift = recordedDrift(s, n, paths.files, f, await installedRender(spec), after);
  // The checks after this one read a file the plan puts back as it will be (the bytes status
  // prints its findings after), not as it is now.
  const planned = new Map(drift.write.map((r) => [r.path, r.content]));
  await renderDrift(fileSpec, file, s, n, drift.drifted, planned, f);
  // When the entry fires, worked out once for the scheduler's audit, the wakes' health, the host clock and the next fire.
  const when = plan(spec);
  // A scheduler that runs off this host (a cluster) leaves here only the state folder's
  // files: the binary, the lock, the log and the fires are the backend's audit to report.
  const here = !factsOf(s.scheduler)?.offHost;
  if (here) binaryCheck(spec, s, io, f);
  const heart = here ? heartRemoved(spec.repo, s) : null;
  if (heart) add(f, 'heart-missing', heart);
  const present = factsOf(s.scheduler) ? await schedulerAudit({ ...ctx, spec, prev: s, planned }, s, when, f) : false;
  if (here) await lockAndLastOutcome(spec, n, s, text, io, f);
  stateFileShapes(n, f);
  if (here) wakeHealth(spec, n, s, when, present, text, io, f);
  f.about = about(spec, n, s, drift.drifted, last, f, text);
  if (here && present && s.status === 'installed') f.nextFire = nextFireOf(spec, s, when, io.now());
  return drift;
}

/** No state.json: look for what the scheduler still runs for this name, and say how to remove it. */
async function lostState(fileSpec: Spec, n: Names, ctx: Ctx, unread: string[], f: Findings): Promise<void> {
  const found = (await lookEverywhere(ctx, null, fileSpec)).flatMap((l) => l.plan.found);
  await strayProblems(ctx, f);
  if (found.length === 0 && unread.length === 0) {
    f.header = `hbgen status: "${fileSpec.name}" is not installed (no ${statePath(n.stateDir)}); install it with \`hbgen install\``;
    f.verdict = { code: 'not-installed', message: `not installed: there is no ${statePath(n.stateDir)}; install it with \`hbgen install\`` };
    return;
  }
  f.state = 'unrecorded';
  f.header = `hbgen status: "${fileSpec.name}" is not recorded as installed (no readable ${statePath(n.stateDir)})${found.length ? ', but the scheduler still runs it' : ''}`;
  const lost = unread.length ? `${statePath(n.stateDir)} cannot be read` : lostStateText(n);
  addAll(f, unread, 'state-unreadable');
  for (const e of found) add(f, 'lost-state', `${lost}; the scheduler still runs ${e}; \`hbgen stop\` removes it`);
}

/**
 * Entries hbgen did not write that run this install's wrapper (src/host/audit/stray.ts): each
 * fires a full wake, stopped or not, so each is a problem naming it and how to remove it.
 */
async function strayProblems(ctx: Ctx, f: Findings): Promise<void> {
  const { strays, notes } = await strayEntries(ctx.io, ctx.home, ctx.names);
  for (const x of strays) add(f, 'stray', `stray: ${strayText(x, ctx.names.wrapper)}`);
  for (const l of notes) note(f, 'warn', l);
}

/** When the scheduler fires next (its own calendar: the working zone for systemd, the host clock else), or null within 8 days. */
function nextFireOf(spec: Spec, s: State, when: Plan, now: Date): Findings['nextFire'] {
  const work = spec.schedule.hours.timezone;
  const clock = schedulerClock(when, work, FACTS[s.scheduler as SchedulerId].hostClock);
  const at = nextFire(clock.entries, clock.zone, now);
  return at ? { iso: at.toISOString(), working: isoIn(at, work), zone: work } : null;
}

/** `at` as ISO-8601 in `zone`'s wall clock with its offset: "2026-12-01T08:07:00+01:00". */
export function isoIn(at: Date, zone: string): string {
  const off = offsetAt(zone, at.getTime());
  const local = new Date(at.getTime() + off * 60_000).toISOString().slice(0, 19);
  const a = Math.abs(off);
  return `${local}${off < 0 ? '-' : '+'}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`;
}

/** state.json's billing record as the JSON shows it (src/host/install/billing.ts BillingRecord). */
function billingOf(s: State): Findings['billing'] {
  const b = s.billing as Partial<State['billing']> | undefined;
  if (!b) return null;
  return { result: b.result ?? 'not checked', method: b.method ?? null, identity: b.identity ?? null, checkedAt: b.checkedAt ?? null };
}

/** The state-folder files as installed: the recorded spec rendered again, by path (empty when it does not render). */
async function installedRender(spec: Spec): Promise<Map<string, string>> {
  const r = await renderSpec(spec);
  return new Map(r.files.map((x) => [posix.join(names(spec).stateDir, x.path), x.content]));
}

/**
 * A file of the state folder that differs from what hbgen installed is put back (the
 * platform's rule: drift inside hbgen's own folder heals itself), when rendering the
 * recorded spec again gives exactly the bytes state.json recorded. Returns the write that
 * does it (applyRepairs makes it, atomically), or null. `planned`: the write an earlier
 * record of the same path already planned, which this one is judged after.
 */
function repairOf(r: Recorded, n: Names, installed: Map<string, string>, planned: FileRepair | undefined): FileRepair | null {
  const content = installed.get(r.path);
  if (!r.path.startsWith(`${n.stateDir}/`) || content === undefined || sha256(Buffer.from(content)) !== r.sha256) return null;
  // Only into a real folder: never through a state folder or host/ that is a link (reported by folderLinks).
  if (linkOnTheWay(n.stateDir, posix.dirname(r.path))) return null;
  const st = planned ? null : lstatOrNull(r.path);
  if (st && !st.isFile()) return null;
  return { path: r.path, content, mode: r.mode, was: planned || st ? 'changed' : 'missing' };
}

type Repair = NonNullable<State['repairs']>[number];
type Recorded = State['files'][number];

/** The installed files' drift: the paths still drifted, the writes that put the others back, and those repairs as state.json records them. */
interface Drift {
  drifted: Set<string>;
  write: FileRepair[];
  repairs: Repair[];
}

/**
 * The installed files against state.json; plans the repair of what it can (each a problem,
 * recorded in `repairs`). A file this audit already plans to put back is read as the write
 * leaves it; after applyRepairs (`after`), a file it wrote is this status's repair and one it
 * could not write stays drift.
 */
function recordedDrift(s: State, n: Names, hostFiles: string[], f: Findings, installed: Map<string, string>, after?: AfterRepairs): Drift {
  const out: Drift = { drifted: new Set(), write: [], repairs: [] };
  const planned = new Map<string, FileRepair>();
  const written = [...(after?.written ?? [])];
  // Repairs of earlier runs stay problems until an install (which writes state.json afresh).
  for (const r of s.repairs ?? []) {
    add(f, 'tampered', `tampered: ${r.path} differed from what hbgen installed and was put back at ${r.at}, but only a process with your rights could have changed it: find out which, then run \`hbgen install\` to clear this`);
  }
  // Only paths hbgen writes for this name: state.json may name others (reported, ignored).
  const files = [...s.files.filter((r) => r.path.startsWith(`${n.stateDir}/`)), ...s.hostFiles.filter((r) => hostFiles.includes(r.path))];
  for (const r of files) {
    const done = written[0]?.path === r.path ? written.shift() : undefined;
    const problem = done ? undefined : driftOf(r, n, planned.get(r.path));
    const fix = done ?? (problem && !after?.failed.includes(r.path) ? repairOf(r, n, installed, planned.get(r.path)) : null);
    if (fix) {
      // Put back, but someone wrote hbgen's own file: that is a problem, not a note.
      add(f, 'tampered', `tampered: ${r.path} differed from what hbgen installed (${fix.was}); hbgen put the installed bytes back, but only a process with your rights could have changed it (an agent's process left running, another program): find out which, then run \`hbgen install\` to clear this`);
      out.repairs.push({ path: r.path, at: f.checkedAt });
      if (!done) {
        out.write.push(fix);
        planned.set(r.path, fix);
      }
    } else if (problem) {
      add(f, 'drift', problem);
      out.drifted.add(r.path);
    }
  }
  return out;
}

/** Why an installed file is not as state.json recorded it, or undefined; one the plan puts back (`planned`) is judged by the bytes and mode it will have. */
function driftOf(r: Recorded, n: Names, planned: FileRepair | undefined): string | undefined {
  const st = planned ? { mode: planned.mode } : lstatOrNull(r.path);
  if (!st) return `drift: ${r.path} is missing; run \`hbgen install\` to put it back`;
  // State-folder files are never read through a link (the wrapper refuses one there); none is read when it is not a regular file.
  const read = planned ? Buffer.from(planned.content) : readOrProblem(r.path, r.path.startsWith(`${n.stateDir}/`));
  if (typeof read === 'string') return `drift: ${read}`;
  const h = sha256(read!);
  if (h !== r.sha256) return `drift: ${r.path} changed since install (sha256 ${h.slice(0, 12)}…, state.json ${r.sha256.slice(0, 12)}…); run \`hbgen install\` to restore it`;
  if ((st.mode & 0o7777) !== r.mode) return `drift: ${r.path} has mode ${mode4(st.mode)}, installed ${mode4(r.mode)}; run \`hbgen install\` to restore it`;
  return undefined;
}

/**
 * The state folder and its host/ must be real folders: the wrapper refuses a state folder
 * that is a link (every wake exits 78), and status never repairs through one (repairOf,
 * healthRecord plan no write there), so each is a problem to fix by hand, never healed.
 */
function folderLinks(n: Names, f: Findings): void {
  const top = linkOnTheWay(n.stateDir, n.stateDir);
  if (top) {
    add(f, 'state-link', `${top}, which the wrapper refuses (every wake exits 78) and hbgen never writes through; replace it by a real folder (move the folder it points to into its place), then run \`hbgen install\``);
    return;
  }
  const host = linkOnTheWay(n.stateDir, posix.join(n.stateDir, 'host'));
  if (host) add(f, 'state-link', `${host}, which hbgen never writes through, so it repaired nothing there; remove it, then run \`hbgen install\` to write the real folder again`);
}

/** A file's bytes, or the sentence saying why hbgen did not read it (not a regular file, too large, a link when `noFollow`). */
function readOrProblem(path: string, noFollow: boolean): Buffer | string | null {
  try {
    return readOrNull(path, READ_MAX, { noFollow });
  } catch (e) {
    if (e instanceof UserError) return e.lines[0]!;
    throw e;
  }
}

/** The spec file against the install, and a fresh render of it against the installed files. */
async function renderDrift(fileSpec: Spec, file: string, s: State, n: Names, drifted: Set<string>, planned: ReadonlyMap<string, string>, f: Findings): Promise<void> {
  if (specChanged(fileSpec, s)) add(f, 'drift', `drift: ${file} changed since install; run \`hbgen install\` to apply it`);
  // Installed by another hbgen: its files differ from this hbgen's render by design, so the
  // one line says so (a note, not an alarm); a file changed since install is still drift above.
  if (pendingUpgrade(s)) {
    const render = await renderSpec(fileSpec);
    note(f, 'note', pendingUpgrade(s, render.errors.length ? undefined : render.files)!);
    return;
  }
  // A wrapper whose first comment is an older hbgen's sentence was rendered by that hbgen:
  // every file differs from this render by design (the sentence, and the sums that pin the
  // wrapper), so one note says so; a file changed since install is still drift above.
  const wrapper = readSoft(n.wrapper, READ_MAX, { noFollow: true });
  if (wrapper && !wrapper.includes(generatedBy(fileSpec.name)) && wrapper.includes(olderGeneratedBy(fileSpec.name))) {
    note(f, 'note', 'installed by an older hbgen (its files say "run hbgen render" where `hbgen install` is meant): `hbgen install` upgrades it, and until then every wake runs as installed');
    return;
  }
  const fresh = await renderSpec(fileSpec);
  if (fresh.errors.length) return;
  for (const r of fresh.files) {
    const p = posix.join(n.stateDir, r.path);
    if (drifted.has(p)) continue;
    const put = planned.get(p);
    const cur = put !== undefined ? Buffer.from(put) : readSoft(p, READ_MAX, { noFollow: true });
    if (cur !== null && !cur.equals(Buffer.from(r.content))) add(f, 'drift', `drift: a fresh render of ${file} differs from the installed ${p}; run \`hbgen install\` to update it`);
  }
}

/** The agent's binary and its interpreter, as at install. */
function binaryCheck(spec: Spec, s: State, io: HostIO, f: Findings): void {
  const bin = checkBin(spec.agent.bin, 'agent.bin', spec.env.PATH!, io);
  for (const p of bin.problems) add(f, 'missing-binary', `missing binary: ${p}`);
  if (bin.problems.length === 0 && bin.facts.realpath !== s.bin.realpath) note(f, 'note', `agent.bin now resolves to ${bin.facts.realpath} (${s.bin.realpath} at install)`);
}

/** The scheduler's own audit: its entry, duplicates, the next fire. Returns whether the entry is there. */
async function schedulerAudit(ctx: Ctx, s: State, when: Plan, f: Findings): Promise<boolean> {
  if (!toolsPresent(s.scheduler, ctx.io.env.PATH, 'inspect').ok) {
    add(f, 'no-tools', `the ${s.scheduler} tools are not on PATH, so hbgen cannot see the scheduler entry; run status where they are`);
    return false;
  }
  const a = await (await SCHEDULERS[s.scheduler].backend()).audit(ctx, s, when);
  addAll(f, a.problems, 'scheduler');
  f.info.push(...a.info);
  return a.present;
}

/**
 * What the log says a person should look at: failing wakes in a row, the cap reached,
 * fires the scheduler was due to make that left no line (src/host/audit/health.ts).
 */
function wakeHealth(spec: Spec, n: Names, s: State, when: Plan, present: boolean, text: string, io: HostIO, f: Findings): void {
  const lines = parseLog(text, s.name);
  failingOrPaused(spec, n, lines, f);
  // A jailed wake that left git a program to run outside the jail (heartbeat/81-gitcheck):
  // a problem until the install is made again, even after clean wakes (the wrapper names a
  // change once, in the wake that made it, and the program is still there). An install of
  // an unchanged spec changes nothing, so it does not clear it: stop and resume do (a new
  // installedAt), and the advice says so, after what the person must remove first.
  const installed = Date.parse(s.installedAt ?? s.time);
  const tampered = lines.filter((l) => l.outcome === 'error' && l.detail.startsWith(`${TAMPERED_GIT} `) && !(Date.parse(l.time) < installed)).at(-1);
  if (tampered) {
    add(f, 'tampered-git', `tampered git: the wake at ${tampered.time} left git a program to run outside the jail (${tampered.detail.slice(TAMPERED_GIT.length + 1)}); do not run git in that folder until you have removed what this names (the setting in that config, the hook, the .git file or commondir, or the whole repository the agent made), then run \`hbgen stop ${s.name}\` and \`hbgen resume\` to clear this`);
  }
  const far = farPauses(lines);
  if (far.count >= 2 && far.latest) {
    const l = far.latest;
    add(
      f,
      'limit-repeated',
      `repeated far pauses: ${far.count} wakes in a row hit the plan's limit with a reset more than a day away and no ok or quiet wake between (latest: limit ${l.detail} at ${l.time}); a weekly limit does not strike twice like that, so the agent's output may be imitating its client's message: read ${n.log}, and \`hbgen resume --now\` ends a pause`,
    );
  }
  pauseInfo(spec, n, io, f);
  idleInfo(spec, n, io, f);
  const done = wakesDone(n.wakes);
  if (spec.cap && done !== null && done >= spec.cap) {
    add(f, 'cap', `cap reached: ${done} of ${spec.cap} wakes done, so every wake is skipped (skip-cap) while the scheduler still fires; \`hbgen resume --reset-cap\` zeroes the counter after the panel, or raise "cap"`);
  }
  hostClockCheck(spec, s, when, io, f);
  const since = Date.parse(s.time);
  if (present && s.status === 'installed' && Number.isFinite(since)) {
    const clock = schedulerClock(when, spec.schedule.hours.timezone, FACTS[s.scheduler as SchedulerId].hostClock);
    const m = missedSince(lines, clock, since, io.now().getTime());
    const at = (t: number) => localText(new Date(t), clock.zone);
    // Fires the machine slept through are counted apart, not as faults (src/host/asleep.ts).
    const asleep = asleepFires(lines, [...m.recovered, ...m.open], clock, sleepFacts(io.now().getTime()));
    if (asleep.size) f.info.push(`missed (asleep): ${asleep.size} fire${asleep.size === 1 ? '' : 's'} in the last 24 h while the machine slept or was off; ${catchUpCaveat(spec)}`);
    const open = m.open.filter((t) => !asleep.has(t));
    if (open.length) {
      add(
        f,
        'missed-fire',
        `missed fire: the scheduler was due to fire at ${at(open[0]!)} and nothing was logged${open.length > 1 ? ` (${open.length} fires in the last 24 h left no line)` : ''}; likely: ${likelyCause(s.scheduler as SchedulerId)}`,
      );
    }
    // A miss the scheduler has since fired after is history (`hbgen log` keeps it), not an alarm.
    if (m.recovered.length && m.recoveredAt !== null) {
      note(f, 'note', `recovered: the scheduler missed ${m.recovered.length === 1 ? `the fire at ${at(m.recovered[0]!)}` : `${m.recovered.length} fires from ${at(m.recovered[0]!)}`} and fired again at ${at(m.recoveredAt)}; \`hbgen log\` keeps the history`);
    }
  }
}

/**
 * state.json keeps what the last status concluded (read by `hbgen list` and by a person),
 * rewritten only when that changed or a file was put back, so that a healthy install is not
 * rewritten each time; never through a link (folderLinks says it). Null: nothing to write.
 */
function healthRecord(n: Names, s: State, repairs: Repair[], f: Findings, io: HostIO): RepairPlan['record'] {
  const healthy = f.problems.length === 0;
  const problems = f.problems.map((p) => p.message);
  if (!repairs.length && s.health && s.health.healthy === healthy && s.health.problems.join('\n') === problems.join('\n')) return null;
  if (linkOnTheWay(n.stateDir, n.stateDir)) return null;
  const rec = repairs.length ? { ...s, repairs: [...(s.repairs ?? []), ...repairs] } : s;
  return { stateDir: n.stateDir, state: { ...rec, health: { checkedAt: io.now().toISOString(), healthy, problems } } };
}

/** The install at a glance: where, when, what ran last, and what the agent reads next. */
function about(spec: Spec, n: Names, s: State, drifted: Set<string>, w: Wake | undefined, f: Findings, log: string): [string, string][] {
  const h = spec.schedule.hours;
  const out: [string, string][] = [
    ['repo', spec.repo],
    ['hours', `${h.start}–${h.end} ${h.timezone}, ${h.days ? h.days.join(' ') : 'every day'}; every ${spec.schedule.every}, timeout ${spec.timeout}`],
    ['wrapper', drifted.has(n.wrapper) ? 'changed since install (see below)' : `${n.wrapper}, as installed`],
    ['agent', agentText(spec)],
    ['billing', billingText(f.billing)],
    ...jailLines(spec, null).map((l, i): [string, string] => [i === 0 ? 'jail' : '', l]),
    ['limits', limitsLine(spec)],
  ];
  if (spec.until) {
    const ended = untilReached(spec, Date.parse(f.checkedAt));
    out.push(['until', `${spec.until.replace('T', ' ')} ${h.timezone}${ended ? ': the job has ended, its fires log skip-ended and run no agent; `hbgen stop` removes its entry' : ': the job ends then'}`]);
  }
  const digest = digestOf(spec);
  if (digest) out.push(['digest', digestText(digest, h.timezone, n, log, s.name)]);
  if (w) {
    const secs = wakeSeconds(w);
    const took = w.end ? `, ${w.end.outcome}${w.end.detail ? ` ${w.end.detail}` : ''}${secs === null ? ' (its length unknown: the clock was stepped during it)' : ` after ${secs} s`}` : ', no outcome yet';
    out.push(['last wake', `${w.start.detail.replace(/^wake /, '')} at ${w.start.time}${took}`]);
  }
  const ws = f.workspace;
  if (ws) out.push(['workspace', `${tildeOf(spec)(ws.dir)}: ${workspaceText(ws)}`]);
  if (f.heart) out.push(['HEART.md', f.heart.changed === null ? 'no wake has read it yet' : f.heart.changed ? 'changed since the last wake: the next one reads it' : 'unchanged since the last wake']);
  const state = readSoft(posix.join(agentDir(spec), 'STATE.md'))?.toString('utf8');
  for (const [label, section] of [['next', 'Next'], ['blockers', 'Blockers']] as const) {
    const first = state ? firstLineOf(state, section) : undefined;
    if (first) out.push([label, `${first} (STATE.md)`]);
  }
  return out;
}

/**
 * The digest's time, and what became of the last one, as the wrapper's own `note digest …`
 * line says (heartbeat/33-digest): sent, skipped (nothing happened that day) or not sent, and
 * why. The stamp (never read through a link) only says when the last was due: the wrapper
 * writes it before it runs the digest, and also at the first fire, which sends none.
 */
function digestText(d: { at: string }, zone: string, n: Names, log: string, name: string): string {
  const stamp = readSoft(posix.join(n.stateDir, DIGEST_STAMP_FILE), READ_MAX, { noFollow: true })?.toString('utf8').split('\n')[0] ?? '';
  const due = /^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/.test(stamp) ? stamp : null;
  const dir = posix.join(n.stateDir, DIGEST_DIR);
  const said = [...parseLog(log, name)].reverse().find((l) => l.outcome === 'note' && /^digest\b/.test(l.detail));
  const what = said?.detail.replace(/^digest:? ?/, '') ?? '';
  const at = due ?? said?.time ?? '';
  let last: string;
  if (!said) last = due ? `the last was due ${due}, and runtime.log holds no line saying what became of it` : 'none sent yet';
  else if (/^sent for /.test(what)) last = `the last went ${at} (${what})`;
  else if (/^skipped: /.test(what)) last = `the last, due ${at}, was skipped and none sent: ${what.slice('skipped: '.length)}`;
  else if (/^not sent: /.test(what)) last = `the last, due ${at}, was not sent: ${what.slice('not sent: '.length)}`;
  else if (/^none sent yet/.test(what)) last = 'none sent yet';
  else last = `the last, due ${at}: ${what}`;
  const kept = lstatOrNull(dir)?.isDirectory() ? `${dir}/ keeps them` : `${dir}/ will keep them`;
  return `${d.at} ${zone}, at the first fire at or after it; ${last} (${kept})`;
}

type Wake = ReturnType<typeof wakes>[number];

/** The latest wake in the log (its start, and its end when it has one). */
function lastWakeOf(text: string, name: string): Wake | undefined {
  return wakes(parseLog(text, name)).at(-1);
}

/** HEART.md against the checksum the last wake left: changed (the next wake reads it), null before any wake read it; null without a HEART.md. */
function heartOf(spec: Spec, n: Names): Findings['heart'] {
  const heart = readSoft(posix.join(spec.repo, 'HEART.md'));
  if (!heart) return null;
  const sum = readSoft(posix.join(n.stateDir, 'heart.sum'), 4096, { noFollow: true })?.toString('utf8').trim();
  // The wrapper keeps HEART.md's SHA-256 hex (a CRC could be matched by a rewrite).
  return { changed: sum ? sum !== sha256(heart) : null };
}

/**
 * The agent as the wakes run it: the harness, the model and effort, the tiers and the
 * fallback model (the model map the wake prompt names), the permission mode its command line
 * sets, and the token policy (the day's budget, or that usage is only logged).
 */
function agentText(spec: Spec): string {
  const a = spec.agent;
  const mode = `permission mode ${permissionMode(a, jailOn(spec))}`;
  if (a.harness === COMMAND) return `${a.harness}: ${a.bin}; model and ${mode.replace(/^permission mode not set by hbgen \(harness "command": your args decide\)$/, 'permissions: your args decide')}`;
  const tiers = a.models ? `; tiers ${Object.entries(a.models).map(([k, v]) => `${k}=${v}`).join(', ')}` : '';
  const budget = spec.budget === undefined ? 'no daily budget (usage logged)' : `a budget of ${spec.budget.toLocaleString('en-US')} tokens a day`;
  const r = reserveOf(spec);
  const reserve = r.fiveHour || r.weekly ? `; reserve ${[r.fiveHour ? `${r.fiveHour}% of the 5-hour window` : '', r.weekly ? `${r.weekly}% of the weekly window` : ''].filter(Boolean).join(', ')}` : '';
  return `${a.harness}: model ${a.model ?? "the client's default"}, effort ${a.effort ?? "the client's default"}${tiers}${a.fallbackModel ? `, fallback ${a.fallbackModel}` : ''}; ${mode}; ${budget}${reserve}`;
}

/** The billing row, from the findings' record (billingOf): what the client said of its login at install; the wrapper asks again before every wake (a refusal is an `error billing` line). */
function billingText(b: Findings['billing']): string {
  if (b?.result === 'subscription' && b.identity) return `${b.identity} at install (${b.checkedAt ?? 'time not recorded'}); the wrapper asks the client again before every wake`;
  if (b?.result === 'subscription') return 'judged by the environment only, by an earlier hbgen; `hbgen install` has the client itself asked, at install and before every wake';
  return 'not checked (custom command)';
}

/** The first non-empty line under `## SECTION` of a Markdown text, without its bullet. */
function firstLineOf(md: string, section: string): string | undefined {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^#{1,3}\\s+${section}\\b`, 'i').test(l));
  if (at < 0) return undefined;
  for (const l of lines.slice(at + 1)) {
    if (/^#{1,3}\s/.test(l)) return undefined;
    const t = l.replace(/^\s*(?:[-*+]|\d+\.)\s+/, '').trim();
    if (t) return t.length > 120 ? `${t.slice(0, 120)}…` : t;
  }
  return undefined;
}

/** cron and launchd read the host clock: a host now in another zone (laptops travel) misses wakes. */
function hostClockCheck(spec: Spec, s: State, when: Plan, io: HostIO, f: Findings): void {
  if (s.status !== 'installed' || !factsOf(s.scheduler)?.hostClock) return;
  const zone = hostZone(io.etc);
  const clash = hostZoneProblem(spec, zone);
  if (!clash || zone === null) return;
  const missed = wakesMissedIn(when, spec.schedule.hours.timezone, zone, io.now().getTime());
  add(f, 'host-clock', `host clock: ${clash}; in the next 24 hours that would miss ${missed} of the expected wakes`);
}

/**
 * The job paused itself after failing wakes (heartbeat/19-failpause), said in place of
 * `failing` since its fires now cost nothing and wait for the person; else failing wakes in
 * a row.
 */
function failingOrPaused(spec: Spec, n: Names, lines: LogLine[], f: Findings): void {
  const streak = failStreak(lines);
  const fp = activeFailPause(n.stateDir);
  if (fp) {
    add(
      f,
      'paused-failing',
      `paused after ${fp.count} failure${fp.count === 1 ? '' : 's'} since ${localText(new Date(fp.since), spec.schedule.hours.timezone)}: ${fp.last || 'no outcome line kept'}; hbgen resume --now (its fires log skip-paused and run no agent; an edit of HEART.md or the install of a changed spec also ends the pause; see ${n.log})`,
    );
  } else if (streak.count >= FAILS_IN_A_ROW && streak.latest) {
    const l = streak.latest;
    const tail = outputOf(lines, n);
    add(
      f,
      'failing',
      `failing: the last ${streak.count} wakes in a row ended fail, denied, timeout or error (latest: ${l.outcome}${l.detail ? ` ${l.detail}` : ''} at ${l.time})${tail.length ? `; its agent's last output (${n.agentLog}): ${tail.map((t) => JSON.stringify(t)).join(' ')}` : ''}; see ${n.log}, fix it, then check with \`hbgen wake\``,
    );
  }
}

/**
 * The idle backoff (heartbeat/37-idle): healthy, said so that idle is not taken for broken.
 * The record is "N PAID[ NOTBEFORE]": the streak, or the agent's own "Next useful wake: not
 * before" line of STATE.md, which the wrapper never honours past PAID + idleEvery.
 */
function idleInfo(spec: Spec, n: Names, io: HostIO, f: Findings): void {
  const idle = idleOf(spec);
  const m = /^(\d{1,9}) (\d{1,10})(?: (\d{1,10}))?$/.exec(readSoft(posix.join(n.stateDir, IDLE_FILE), READ_MAX, { noFollow: true })?.toString('utf8').split('\n')[0] ?? '');
  if (!idle.after || !m) return;
  const zone = spec.schedule.hours.timezone;
  const look = (Number(m[2]) + idle.every) * 1000;
  if (Number(m[1]) >= idle.after) {
    note(f, 'note', `idle, not broken: the last ${m[1]} wakes changed nothing, so fires until ${localText(new Date(look), zone)} log skip-idle and run no agent, unless the repo, HEART.md or STATE.md changes first`);
    return;
  }
  const asked = Math.min(Number(m[3] ?? 0) * 1000, look);
  if (asked <= io.now().getTime()) return;
  note(f, 'note', `idle, not broken: the agent asked for no wake before ${localText(new Date(asked), zone)} (its "Next useful wake: not before" line in STATE.md), so fires until then log skip-idle and run no agent, unless the repo, HEART.md or STATE.md changes first`);
}

/** The plan's limit: wakes wait for its reset (healthy, the plan working as designed). */
function pauseInfo(spec: Spec, n: Names, io: HostIO, f: Findings): void {
  const p = activePause(n.stateDir, io.now());
  if (!p) return;
  f.paused = { until: p.until.toISOString(), working: localText(p.until, spec.schedule.hours.timezone), message: p.message };
  note(f, 'note', `paused by the plan's limit until ${localText(p.until, spec.schedule.hours.timezone)}${p.message ? ` (the agent's client said: ${JSON.stringify(p.message)})` : ''}: wakes until then are skipped (skip-limit); \`hbgen resume --now\` ends the pause by hand`);
}

/** status is unhealthy after this many failing wakes in a row. */
const FAILS_IN_A_ROW = 3;

/**
 * The last lines the latest wake's agent printed: from agent.log, never from runtime.log
 * (the wrapper's records only), so that nothing the agent printed is read as a record.
 */
function outputOf(lines: LogLine[], n: Names, max = 3): string[] {
  const start = [...lines].reverse().find((l) => l.outcome === 'start' && /^wake /.test(l.detail));
  return start ? agentLines(n.agentLog, start, max) : [];
}

/** Why a scheduler that holds the entry may not have fired it. */
function likelyCause(id: SchedulerId): string {
  return `the machine was asleep or off at that time, or the host clock or its zone changed; or ${FACTS[id].missedCause}`;
}

/** The wrapper's lock (held, stale) and the last outcome in runtime.log. */
/**
 * The files the wrapper writes in the state folder, as the wrapper needs them: plain files
 * with one name. A hard link there shares its content with a file elsewhere (the wrapper
 * would append to it, or truncate it), a FIFO or device would block or redirect it. The
 * wrapper refuses such a runtime.log or agent.log (every wake exits 78) and replaces the
 * others without writing through them; either way someone put it there. A symbolic link at
 * runtime.log is lockAndLastOutcome's problem.
 */
function stateFileShapes(n: Names, f: Findings): void {
  for (const base of ['runtime.log', 'runtime.log.1', 'agent.log', 'agent.log.1', 'wake.marker', 'wakes', 'heart.sum', 'streak', 'paused', 'failpause', 'idle', 'limits']) {
    const p = posix.join(n.stateDir, base);
    const st = lstatOrNull(p);
    if (!st || (base === 'runtime.log' && st.isSymbolicLink())) continue;
    // The wrapper opens both logs to append, and refuses either when it is not a plain file with one name.
    const then = base === 'runtime.log' || base === 'agent.log' ? 'it refuses this one, so every wake exits 78' : 'it does not write through this one';
    let what: string | undefined;
    if (st.isSymbolicLink()) what = 'is a symbolic link';
    else if (!st.isFile()) what = 'is not a plain file (a FIFO, a device, a socket or a folder)';
    else if (st.nlink > 1) what = `has ${st.nlink} names: a hard link shares its content with another file`;
    if (what) add(f, 'state-link', `${p} ${what}: the wrapper never makes one, and ${then}; remove it (someone put it there), and keep the state folder where the agent cannot write`);
  }
}

async function lockAndLastOutcome(spec: Spec, n: Names, s: State, text: string, io: HostIO, f: Findings): Promise<void> {
  const lk = await lockInfo(io, spec, n);
  if (lk.held || lk.overdue) f.running = { pid: lk.pid || (await runningWrappers(io, n)).running[0]?.wrapper.pid || null };
  if (lk.stale) add(f, 'stale-lock', `stale lock: ${lk.detail}; \`hbgen stop\` clears it (the next wake would also take it over)`);
  else if (lk.overdue) add(f, 'overdue', `overdue: a heartbeat of this install is still running (${lk.detail}); \`hbgen stop\` ends it`);
  else if (lk.held) note(f, 'note', `a heartbeat is running now (${lk.detail})`);
  // A link there was planted (the wrapper never makes one); it is not followed.
  if (lstatOrNull(n.log)?.isSymbolicLink()) {
    add(f, 'log-link', `${n.log} is a symbolic link, which the wrapper refuses (every wake exits 78); remove it`);
    return;
  }
  const all = parseLog(text, s.name);
  const open = wakeWithoutOutcome(all);
  if (open && !lk.held && !(await heartbeatRunningNow(io, spec, n))) {
    const wake = parseWakeDetail(open.detail)?.n ?? '?';
    add(f, 'no-outcome', `wake ${wake} started at ${open.time} has no outcome line: its wrapper was killed (SIGKILL, out of memory, power loss) or runtime.log could not be written (the scheduler's log says which; see ${n.log})`);
    return;
  }
  const last = lastOutcome(all);
  if (!last) {
    note(f, 'note', `last outcome: no wake logged yet in ${n.log}`);
    return;
  }
  const said = `${last.outcome}${last.detail ? ` ${last.detail}` : ''} at ${last.time}`;
  // Before the install now recorded (stop and resume made it again): no longer the problem wakeHealth reports.
  if (last.outcome === 'error' && last.detail.startsWith(`${TAMPERED_GIT} `)) note(f, Date.parse(last.time) < Date.parse(s.installedAt ?? s.time) ? 'note' : 'problem', `last outcome: ${said}`);
  else if (last.outcome === 'error') add(f, 'last-error', `last wake could not run: ${said} (see ${n.log}); fix it, then check with \`hbgen wake\``);
  else note(f, outcomeLabel(last.outcome), `last outcome: ${said}`);
}
