// hbgen status [SPEC]: a read-only audit. Exit 0 healthy, 1 otherwise. Reports drift
// (sha256 of the installed files against state.json and against a fresh render), orphans,
// duplicates, a missing binary, a stale lock, the last outcome (or the wake that ended
// without one) and the next fire time.
import { posix } from 'node:path';
import { type LogLine, parseLog, parseLogLine } from '../formats.ts';
import { posixCksum } from '../host/cksum.ts';
import { hostZone, hostZoneProblem, wakesMissedIn } from '../host/clock.ts';
import { failStreak, missedFires, schedulerClock, wakes } from '../host/health.ts';
import { localText } from '../host/next.ts';
import type { Ctx } from '../host/backend.ts';
import { checkBin } from '../host/facts.ts';
import { lstatOrNull, mode4, readOrNull, sha256, writeAtomic } from '../host/fsx.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { heartbeatRunningNow, lockInfo } from '../host/proc.ts';
import { hostEntries } from '../host/inventory.ts';
import { lastOutcome, logHistory, wakesDone } from '../host/runtime-log.ts';
import { activePause } from '../host/pause.ts';
import { allHostPaths, lookEverywhere, lostStateText, readStateOrNote, trustedSpec, untrustedRecords } from '../host/found.ts';
import { type State, specHash, statePath, writeState } from '../host/state.ts';
import { toolsPresent } from '../host/tools.ts';
import { type Names, names } from '../names.ts';
import { renderSpec } from '../pipeline.ts';
import { plan } from '../schedule.ts';
import { SCHEDULER_IDS, SCHEDULERS, type SchedulerId } from '../schedulers.ts';
import type { Spec } from '../spec.ts';
import { line, loadFor } from './common.ts';

/** The lines of runtime.log that end a wake (`error` included: a fault after `start`). */
const ENDS_A_WAKE: ReadonlySet<string> = new Set(['ok', 'quiet', 'fail', 'timeout', 'error', 'limit']);

/**
 * The last wake's `start` line when no line after it ends a wake (the skips of other fires
 * and the install check's lines do not), else null. Every start gets an outcome line
 * unless its wrapper was killed or the log could not take the line.
 */
export function wakeWithoutOutcome(all: LogLine[]): LogLine | null {
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.detail === 'smoke') continue;
    if (ENDS_A_WAKE.has(l.outcome)) return null;
    if (l.outcome === 'start') return l;
  }
  return null;
}

/** What the audit found: problems make it unhealthy, info lines are said as they are. */
interface Findings {
  problems: string[];
  info: string[];
  /** What the install is and did, label and text, said first. */
  about?: [string, string][];
}

export async function status(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec: fileSpec, file } = loadFor(io, argv.spec);
  // Paths and names come from the spec file, never from state.json (src/host/found.ts).
  const n = names(fileSpec);
  const { s, notes: unread } = readStateOrNote(n);
  const ctx: Ctx = { io, spec: fileSpec, names: n, home: homeOf(io), files: [], prev: s };
  if (!s) return await lostState(fileSpec, n, ctx, io, unread);
  const { spec, notes } = trustedSpec(s, fileSpec);
  line(io, `hbgen status: "${s.name}" (${s.scheduler}), ${s.status} at ${s.time}, by hbgen ${s.hbgenVersion}`);
  const f: Findings = { problems: [], info: [] };
  const looks = await lookEverywhere(ctx, null, fileSpec, s.scheduler);
  const paths = await allHostPaths(ctx);
  f.problems.push(...notes, ...untrustedRecords(s, fileSpec.name, n, paths, looks));
  const elsewhere = looks.filter((l) => l.id !== s.scheduler).flatMap((l) => l.plan.found);
  for (const e of elsewhere) f.problems.push(`duplicate: the scheduler also runs ${e}, which state.json does not record; \`hbgen stop\` removes it`);
  // Entries under another spec name that run this install's wrapper: wakes nobody owns.
  for (const e of (await hostEntries(io, ctx.home)).entries.filter((x) => x.wrapper === n.wrapper && x.name !== fileSpec.name)) {
    f.problems.push(`unowned: ${e.scheduler} runs this install's wrapper under the name "${e.name}" (${e.where.join(', ')}); \`hbgen stop --all\` removes it`);
  }
  if (s.status === 'stopped') {
    if (f.problems.length === 0) {
      line(io, `  stopped: there is no scheduler entry; \`hbgen resume\` installs it again`);
      return 1;
    }
    return report(io, f);
  }
  if (s.status === 'installing') f.problems.push('unfinished: an install did not finish (state.json says installing); run `hbgen install` again, or `hbgen stop` to remove what it wrote');
  const drifted = recordedDrift(s, n, paths.files, f, await installedRender(spec));
  await renderDrift(fileSpec, file, s, n, drifted, f);
  binaryCheck(spec, s, io, f);
  const present = (SCHEDULER_IDS as readonly string[]).includes(s.scheduler) ? await schedulerAudit(spec, n, s, io, f) : false;
  // runtime.log (and its rotated generation) read once, never through a link (lockAndLastOutcome reports one).
  const text = logHistory(n.log);
  await lockAndLastOutcome(spec, n, s, text, io, f);
  wakeHealth(spec, n, s, present, text, io, f);
  f.about = about(spec, n, s, drifted, text);
  recordHealth(n, s, f, io);
  return report(io, f);
}

function report(io: HostIO, f: Findings): number {
  const w = Math.max(0, ...(f.about ?? []).map(([k]) => k.length));
  for (const [k, v] of f.about ?? []) line(io, `  ${k.padEnd(w)}  ${v}`);
  for (const i of f.info) line(io, `  ok       ${i}`);
  for (const p of f.problems) line(io, `  problem  ${p}`);
  const count = f.problems.length;
  line(io, count === 0 ? 'healthy' : `${count} problem${count === 1 ? '' : 's'}`);
  return count === 0 ? 0 : 1;
}

/** No state.json: look for what the scheduler still runs for this name, and say how to remove it. */
async function lostState(fileSpec: Spec, n: Names, ctx: Ctx, io: HostIO, unread: string[]): Promise<number> {
  const found = (await lookEverywhere(ctx, null, fileSpec)).flatMap((l) => l.plan.found);
  if (found.length === 0 && unread.length === 0) {
    line(io, `hbgen status: "${fileSpec.name}" is not installed (no ${statePath(n.stateDir)}); install it with \`hbgen install\``);
    return 1;
  }
  line(io, `hbgen status: "${fileSpec.name}" is not recorded as installed (no readable ${statePath(n.stateDir)})${found.length ? ', but the scheduler still runs it' : ''}`);
  const lost = unread.length ? `${statePath(n.stateDir)} cannot be read` : lostStateText(n);
  const f: Findings = { problems: [...unread], info: [] };
  for (const e of found) f.problems.push(`${lost}; the scheduler still runs ${e}; \`hbgen stop\` removes it`);
  return report(io, f);
}

/** The state-folder files as installed: the recorded spec rendered again, by path (empty when it does not render). */
async function installedRender(spec: Spec): Promise<Map<string, string>> {
  const r = await renderSpec(spec);
  return new Map(r.files.map((x) => [posix.join(names(spec).stateDir, x.path), x.content]));
}

/**
 * A file of the state folder that differs from what hbgen installed is put back (the
 * platform's rule: drift inside hbgen's own folder heals itself), when rendering the
 * recorded spec again gives exactly the bytes state.json recorded; atomically, so a wake
 * running the old wrapper keeps reading its own copy. Returns the repair said, or null.
 */
function repair(r: { path: string; sha256: string; mode: number }, n: Names, installed: Map<string, string>): string | null {
  const content = installed.get(r.path);
  if (!r.path.startsWith(`${n.stateDir}/`) || content === undefined || sha256(Buffer.from(content)) !== r.sha256) return null;
  const st = lstatOrNull(r.path);
  if (st && !st.isFile()) return null;
  try {
    writeAtomic(r.path, content, r.mode);
  } catch {
    return null;
  }
  return `repaired: ${r.path} differed from what hbgen installed (${st ? 'changed' : 'missing'}); hbgen put the installed bytes back`;
}

/** The installed files against state.json; repairs what it can; returns the paths still drifted. */
function recordedDrift(s: State, n: Names, hostFiles: string[], f: Findings, installed: Map<string, string>): Set<string> {
  const drifted = new Set<string>();
  // Only paths hbgen writes for this name: state.json may name others (reported, ignored).
  const files = [...s.files.filter((r) => r.path.startsWith(`${n.stateDir}/`)), ...s.hostFiles.filter((r) => hostFiles.includes(r.path))];
  for (const r of files) {
    const st = lstatOrNull(r.path);
    let problem: string | undefined;
    if (!st) problem = `drift: ${r.path} is missing; run \`hbgen install\` to put it back`;
    else {
      const h = sha256(readOrNull(r.path)!);
      if (h !== r.sha256) problem = `drift: ${r.path} changed since install (sha256 ${h.slice(0, 12)}…, state.json ${r.sha256.slice(0, 12)}…); run \`hbgen install\` to restore it`;
      else if ((st.mode & 0o7777) !== r.mode) problem = `drift: ${r.path} has mode ${mode4(st.mode)}, installed ${mode4(r.mode)}; run \`hbgen install\` to restore it`;
    }
    const fixed = problem ? repair(r, n, installed) : null;
    if (fixed) f.info.push(fixed);
    else if (problem) {
      f.problems.push(problem);
      drifted.add(r.path);
    }
  }
  return drifted;
}

/** The spec file against the install, and a fresh render of it against the installed files. */
async function renderDrift(fileSpec: Spec, file: string, s: State, n: Names, drifted: Set<string>, f: Findings): Promise<void> {
  if (specHash(fileSpec) !== s.specHash) f.problems.push(`drift: ${file} changed since install; run \`hbgen install\` to apply it`);
  const fresh = await renderSpec(fileSpec);
  if (fresh.errors.length) return;
  for (const r of fresh.files) {
    const p = posix.join(n.stateDir, r.path);
    if (drifted.has(p)) continue;
    const cur = readOrNull(p);
    if (cur !== null && !cur.equals(Buffer.from(r.content))) f.problems.push(`drift: a fresh render of ${file} differs from the installed ${p}; run \`hbgen install\` to update it`);
  }
}

/** The agent's binary and its interpreter, as at install. */
function binaryCheck(spec: Spec, s: State, io: HostIO, f: Findings): void {
  const bin = checkBin(spec.agent.bin, 'agent.bin', spec.env.PATH!, io);
  for (const p of bin.problems) f.problems.push(`missing binary: ${p}`);
  if (bin.problems.length === 0 && bin.facts.realpath !== s.bin.realpath) f.info.push(`agent.bin now resolves to ${bin.facts.realpath} (${s.bin.realpath} at install)`);
}

/** The scheduler's own audit: its entry, duplicates, the next fire. Returns whether the entry is there. */
async function schedulerAudit(spec: Spec, n: Names, s: State, io: HostIO, f: Findings): Promise<boolean> {
  if (!toolsPresent(s.scheduler, io.env.PATH, 'inspect').ok) {
    f.problems.push(`the ${s.scheduler} tools are not on PATH, so hbgen cannot see the scheduler entry; run status where they are`);
    return false;
  }
  const ctx: Ctx = { io, spec, names: n, home: homeOf(io), files: [], prev: s };
  const a = await (await SCHEDULERS[s.scheduler].backend()).audit(ctx, s, plan(spec));
  f.problems.push(...a.problems);
  f.info.push(...a.info);
  return a.present;
}

/**
 * What the log says a person should look at: failing wakes in a row, the cap reached,
 * fires the scheduler was due to make that left no line (src/host/health.ts).
 */
function wakeHealth(spec: Spec, n: Names, s: State, present: boolean, text: string, io: HostIO, f: Findings): void {
  const lines = parseLog(text, s.name);
  const streak = failStreak(lines);
  if (streak.count >= FAILS_IN_A_ROW && streak.latest) {
    const l = streak.latest;
    const tail = outputOf(text, s.name);
    f.problems.push(
      `failing: the last ${streak.count} wakes in a row ended fail, timeout or error (latest: ${l.outcome}${l.detail ? ` ${l.detail}` : ''} at ${l.time})${tail.length ? `; its last output: ${tail.map((t) => JSON.stringify(t)).join(' ')}` : ''}; see ${n.log}, fix it, then check with \`hbgen wake\``,
    );
  }
  pauseInfo(spec, n, io, f);
  const done = wakesDone(n.wakes);
  if (spec.cap && done !== null && done >= spec.cap) {
    f.problems.push(`cap reached: ${done} of ${spec.cap} wakes done, so every wake is skipped (skip-cap) while the scheduler still fires; \`hbgen resume --reset-cap\` zeroes the counter after the panel, or raise "cap"`);
  }
  hostClockCheck(spec, s, io, f);
  const since = Date.parse(s.time);
  if (present && s.status === 'installed' && Number.isFinite(since)) {
    const clock = schedulerClock(plan(spec), spec.schedule.hours.timezone, SCHEDULERS[s.scheduler as SchedulerId].hostClock);
    const missed = missedFires(lines, clock, since, io.now().getTime());
    if (missed.length) {
      f.problems.push(
        `missed fire: the scheduler was due to fire at ${localText(new Date(missed[0]!), clock.zone)} and nothing was logged${missed.length > 1 ? ` (${missed.length} fires in the last 24 h left no line)` : ''}; likely: ${likelyCause(s.scheduler as SchedulerId)}`,
      );
    }
  }
}

/**
 * state.json keeps what the last status concluded (read by `hbgen list` and by a person),
 * rewritten only when that changed, so that a healthy install is not rewritten each time.
 */
function recordHealth(n: Names, s: State, f: Findings, io: HostIO): void {
  const healthy = f.problems.length === 0;
  if (s.health && s.health.healthy === healthy && s.health.problems.join('\n') === f.problems.join('\n')) return;
  try {
    writeState(n.stateDir, { ...s, health: { checkedAt: io.now().toISOString(), healthy, problems: f.problems } });
  } catch {
    // A state folder status cannot write is reported by the checks above; the record waits.
  }
}

/** The install at a glance: where, when, what ran last, and what the agent reads next. */
function about(spec: Spec, n: Names, s: State, drifted: Set<string>, text: string): [string, string][] {
  const h = spec.schedule.hours;
  const out: [string, string][] = [
    ['repo', spec.repo],
    ['hours', `${h.start}–${h.end} ${h.timezone}, ${h.days ? h.days.join(' ') : 'every day'}; every ${spec.schedule.every}, timeout ${spec.timeout}`],
    ['wrapper', drifted.has(n.wrapper) ? 'changed since install (see below)' : `${n.wrapper}, as installed`],
    ['billing', billingText(s)],
  ];
  const w = wakes(parseLog(text, s.name)).at(-1);
  if (w) {
    const took = w.end ? `, ${w.end.outcome}${w.end.detail ? ` ${w.end.detail}` : ''} after ${Math.round((Date.parse(w.end.time) - Date.parse(w.start.time)) / 1000)} s` : ', no outcome yet';
    out.push(['last wake', `${w.start.detail.replace(/^wake /, '')} at ${w.start.time}${took}`]);
  }
  const heart = readOrNull(posix.join(spec.repo, 'HEART.md'));
  const sum = readOrNull(posix.join(n.stateDir, 'heart.sum'))?.toString('utf8').trim();
  if (heart) out.push(['HEART.md', !sum ? 'no wake has read it yet' : sum === posixCksum(heart) ? 'unchanged since the last wake' : 'changed since the last wake: the next one reads it']);
  const state = readOrNull(posix.join(spec.repo, 'STATE.md'))?.toString('utf8');
  for (const [label, section] of [['next', 'Next'], ['blockers', 'Blockers']] as const) {
    const first = state ? firstLineOf(state, section) : undefined;
    if (first) out.push([label, `${first} (STATE.md)`]);
  }
  return out;
}

/** What the client said of its login at install; the wrapper asks again before every wake (a refusal is an `error billing` line). */
function billingText(s: State): string {
  const b = s.billing as Partial<State['billing']> | undefined;
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
function hostClockCheck(spec: Spec, s: State, io: HostIO, f: Findings): void {
  if (s.status !== 'installed' || !SCHEDULERS[s.scheduler as SchedulerId]?.hostClock) return;
  const zone = hostZone(io.etc);
  const clash = hostZoneProblem(spec, zone);
  if (!clash || zone === null) return;
  const missed = wakesMissedIn(plan(spec), spec.schedule.hours.timezone, zone, io.now().getTime());
  f.problems.push(`host clock: ${clash}; in the next 24 hours that would miss ${missed} of the expected wakes`);
}

/** The plan's limit: wakes wait for its reset (healthy, the plan working as designed). */
function pauseInfo(spec: Spec, n: Names, io: HostIO, f: Findings): void {
  const p = activePause(n.stateDir, io.now());
  if (!p) return;
  f.info.push(`paused by the plan's limit until ${localText(p.until, spec.schedule.hours.timezone)}${p.message ? ` (the agent's client said: ${JSON.stringify(p.message)})` : ''}: wakes until then are skipped (skip-limit); \`hbgen resume --now\` ends the pause by hand`);
}

/** status is unhealthy after this many failing wakes in a row. */
const FAILS_IN_A_ROW = 3;

/** The last lines the latest wake's agent printed (runtime.log lines that are not hbgen's own). */
function outputOf(text: string, name: string, max = 3): string[] {
  const all = text.split('\n');
  let from = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const p = parseLogLine(all[i]!);
    if (p?.name === name && p.outcome === 'start' && /^wake /.test(p.detail)) {
      from = i + 1;
      break;
    }
  }
  return all.slice(from).filter((l) => l.trim() && !parseLogLine(l)).slice(-max).map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
}

/** Why a scheduler that holds the entry may not have fired it. */
function likelyCause(id: SchedulerId): string {
  const common = 'the machine was asleep or off at that time, or the host clock or its zone changed';
  if (id === 'systemd-user') return `${common}; or your user manager was not running (lingering off and you were logged out: \`loginctl enable-linger\`)`;
  if (id === 'cron') return `${common}; or the cron daemon was not running (\`pgrep cron\`)`;
  return `${common}; or you were logged out (a LaunchAgent runs only in your GUI session)`;
}

/** The wrapper's lock (held, stale) and the last outcome in runtime.log. */
async function lockAndLastOutcome(spec: Spec, n: Names, s: State, text: string, io: HostIO, f: Findings): Promise<void> {
  const lk = await lockInfo(io, spec, n);
  if (lk.stale) f.problems.push(`stale lock: ${lk.detail}; \`hbgen stop\` clears it (the next wake would also take it over)`);
  else if (lk.overdue) f.problems.push(`overdue: a heartbeat of this install is still running (${lk.detail}); \`hbgen stop\` ends it`);
  else if (lk.held) f.info.push(`a heartbeat is running now (${lk.detail})`);
  // A link there was planted (the wrapper never makes one); it is not followed.
  if (lstatOrNull(n.log)?.isSymbolicLink()) {
    f.problems.push(`${n.log} is a symbolic link, which the wrapper refuses (every wake exits 78); remove it`);
    return;
  }
  const all = parseLog(text, s.name);
  const open = wakeWithoutOutcome(all);
  if (open && !lk.held && !(await heartbeatRunningNow(io, spec, n))) {
    const wake = /^wake (\d+)/.exec(open.detail)?.[1] ?? '?';
    f.problems.push(`wake ${wake} started at ${open.time} has no outcome line: its wrapper was killed (SIGKILL, out of memory, power loss) or runtime.log could not be written (the scheduler's log says which; see ${n.log})`);
    return;
  }
  const last = lastOutcome(all);
  if (!last) {
    f.info.push(`last outcome: no wake logged yet in ${n.log}`);
    return;
  }
  const said = `${last.outcome}${last.detail ? ` ${last.detail}` : ''} at ${last.time}`;
  if (last.outcome === 'error') f.problems.push(`last wake could not run: ${said} (see ${n.log}); fix it, then check with \`hbgen wake\``);
  else f.info.push(`last outcome: ${said}`);
}
