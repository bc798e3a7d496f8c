// hbgen log [SPEC] [--days N] [--json]: how the heartbeat has been doing, from runtime.log
// and its rotated generation runtime.log.1 (never read through a link): per day in the
// working zone the wakes started and how they ended, the skips by kind, the errors and
// the scheduler's fires that left no line; then the last wakes. Read-only; exit 0.
import { UserError } from '../errors.ts';
import { sleepFacts } from '../host/audit/asleep.ts';
import { type DayCounts, type HistoryInput, SKIP_KINDS, dailyCounts, dayBegin, historyLines, lastDates, lastWakes, localParts, nextDate, type WakeRow } from '../host/audit/history.ts';
import { type DigestInput, digestLines } from '../host/audit/digest.ts';
import { keepDigest, nothingHappened, notifyDigest, pingDigest } from '../host/audit/digest-send.ts';
import { readState, refuseForeignState } from '../host/state.ts';
import { shownWord, terminalText } from '../escape.ts';
import { DAYS } from '../formats.ts';
import { clockMinutes, digestOf, validateSpec } from '../spec.ts';
import { audit } from '../host/audit/audit.ts';
import { gitLayoutProblem, safeGit } from '../host/proc/git.ts';
import { schedulerClock } from '../host/audit/health.ts';
import { type LogLine, type Usage, windowsText } from '../formats.ts';
import type { State } from '../host/state.ts';
import type { Spec } from '../spec.ts';
import type { HostIO } from '../host/io.ts';
import { lstatOrNull, takeSkipped } from '../host/fsx.ts';
import { logHistory } from '../host/audit/runtime-log.ts';
import { readStateOrNote, trustedSpec } from '../host/audit/found.ts';
import { names } from '../names.ts';
import { plan } from '../schedule.ts';
import { factsOf } from '../scheduler-facts.ts';
import { line, loadFor } from './common.ts';

/** How many of the latest wakes the log lists. */
export const LAST_WAKES = 5;

/** What `hbgen log --json` prints (docs/commands.md "hbgen log"). */
export interface LogReport {
  name: string;
  /** The files read, the rotated generation first (a missing one or a link is left out). */
  files: string[];
  /** What was not read, or read only in part (a FIFO or device there, a log larger than hbgen reads), one sentence each. */
  skipped: string[];
  timezone: string;
  /** Whether fires the scheduler was due to make are counted (installed per state.json). */
  expectedCounted: boolean;
  days: DayCounts[];
  lastWakes: (WakeRow & { startLocal: string })[];
}

/**
 * The day --digest names: "yesterday" (also a bare --digest), "today", or YYYY-MM-DD within
 * the last 366 days; days as dayOf counts them (`from`: a window that crosses midnight is
 * one day, the one it opens on). "yesterday" is the last day before today on which the
 * window opens (hours.days): on a Monday after a weekend off, Friday.
 */
function digestDate(arg: string, now: number, zone: string, from: number, open: (date: string) => boolean): { date: string; days: number } {
  const dates = lastDates(now, zone, 366, from);
  const today = dates[dates.length - 1]!;
  let date = arg === 'today' ? today : arg;
  if (arg === '' || arg === 'yesterday') {
    const before = dates.slice(0, -1);
    date = [...before].reverse().find(open) ?? before[before.length - 1]!;
  }
  const at = dates.indexOf(date);
  if (!/^\d{4}-\d\d-\d\d$/.test(date) || at < 0) throw new UserError([`--digest takes "yesterday" (the default), "today" or a date YYYY-MM-DD of the last 366 days in ${zone} (today is ${today}), got ${JSON.stringify(arg)}`], 2);
  return { date, days: dates.length - at };
}

/** Where a digest's day begins, in minutes after midnight: the window's start when it crosses midnight, else 0. */
export function digestDayFrom(spec: Spec): number {
  const { start, end } = spec.schedule.hours;
  return end !== '24:00' && clockMinutes(end) < clockMinutes(start) ? clockMinutes(start) : 0;
}

/** The commits of one local day on any branch, "HASH (REFS) SUBJECT"; null where git may not run. */
function commitsOf(repo: string, from: number, to: number): string[] | null {
  if (gitLayoutProblem(repo)) return null;
  try {
    const out = safeGit(repo, ['log', '--all', '--no-show-signature', `--since=${new Date(from).toISOString()}`, `--until=${new Date(to - 1000).toISOString()}`, '--format=%h%d %s']);
    return out.split('\n').filter(Boolean);
  } catch {
    return null;
  }
}

/** The fires the scheduler was due to make, to count the missed ones: null when not installed on this host. */
function expectedFires(s: State | null, spec: Spec, lines: LogLine[]): HistoryInput['expected'] {
  // Off this host (a cluster) the log is in the pod: no fire can be judged from here.
  if (s?.status !== 'installed' || !factsOf(s.scheduler) || factsOf(s.scheduler)!.offHost) return null;
  const installed = Date.parse(s.installedAt ?? s.time);
  // Fires before the oldest line kept (a rotated-away generation) cannot be judged.
  const first = lines.length ? Math.min(...lines.map((l) => Date.parse(l.time))) - 60_000 : installed;
  const since = Math.max(installed, first);
  return Number.isFinite(since) ? { clock: schedulerClock(plan(spec), spec.schedule.hours.timezone, factsOf(s.scheduler)!.hostClock), since } : null;
}

/** The spec `--state DIR` names: the one DIR/state.json records, when it is this folder's install. */
function stateSpec(dir: string): { spec: Spec; file: string; s: State } {
  const where = `${dir}/state.json`;
  if (!dir.startsWith('/')) throw new UserError([`--state must be the absolute path of an install's state folder, got ${JSON.stringify(dir)}`], 2);
  const s = readState(dir);
  if (!s) throw new UserError([`${where}: no install is recorded there; give the state folder of an install (\`hbgen list\` shows them)`]);
  const v = validateSpec(s.spec);
  if (!v.spec || names(v.spec).stateDir !== dir) throw new UserError([`${where}: it records no spec of this state folder that this hbgen can read; install it again with \`hbgen install\``]);
  return { spec: v.spec, file: s.specFile, s };
}

/**
 * The wrapper runs with exactly the spec's env, which seldom holds XDG_RUNTIME_DIR: without
 * it `systemctl --user` finds no user manager, and the digest would flag that. The folder
 * systemd makes for the user's manager (/run/user/UID, see pam_systemd(8)) is where it
 * listens; it is taken only when it is a real folder of this user's.
 */
function withUserManager(io: HostIO): HostIO {
  if (io.env.XDG_RUNTIME_DIR) return io;
  const dir = `/run/user/${io.uid}`;
  const st = lstatOrNull(dir);
  return st?.isDirectory() && st.uid === io.uid ? { ...io, env: { ...io.env, XDG_RUNTIME_DIR: dir } } : io;
}

/** `hbgen log --digest [DAY]`: one day in a few lines (src/host/audit/digest.ts); with --send, kept and sent. */
async function digest(argv: { spec: string; digest: string; json?: boolean; send?: boolean; state?: string }, io: HostIO): Promise<number> {
  let loaded: { spec: Spec; file: string };
  let state: { s: State | null; notes: string[] };
  if (argv.state !== undefined) {
    // The wrapper's daily run: the install's own record, never a file of the repo.
    const r = stateSpec(argv.state);
    loaded = { spec: r.spec, file: r.file };
    state = { s: r.s, notes: [] };
    io = withUserManager(io);
  } else {
    loaded = loadFor(io, argv.spec);
    state = readStateOrNote(names(loaded.spec));
  }
  const n = names(loaded.spec);
  // --send keeps the digest in the state folder: written as its owner only.
  if (argv.send) refuseForeignState(n.stateDir, io.uid, `hbgen log --digest ${shownWord(argv.digest)} --send ${argv.state !== undefined ? `--state ${shownWord(argv.state)}` : shownWord(argv.spec)}`);
  const { spec } = trustedSpec(state.s, loaded.spec);
  const zone = spec.schedule.hours.timezone;
  const now = io.now().getTime();
  const from = digestDayFrom(spec);
  const open = (date: string) => !spec.schedule.hours.days || spec.schedule.hours.days.includes(DAYS[(new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7]!);
  const { date, days } = digestDate(argv.digest, now, zone, from, open);
  const lines = historyLines(logHistory(n.log), loaded.spec.name);
  const day = dailyCounts({ lines, zone, now, days, expected: expectedFires(state.s, spec, lines), sleep: sleepFacts(now), from }).find((d) => d.date === date)!;
  const { findings } = await audit(loaded, state, io);
  const input = {
    name: loaded.spec.name,
    timezone: zone,
    ...(from ? { from: spec.schedule.hours.start } : {}),
    day,
    commits: commitsOf(spec.repo, dayBegin(date, zone, from), dayBegin(nextDate(date), zone, from)),
    problems: findings.problems.map((p) => p.message),
    tokens: day.tokens.total || day.tokens.cost !== null ? tokenText(day.tokens) : null,
  };
  if (argv.send) return send(io, spec, n.stateDir, n.log, input);
  if (argv.json) line(io, JSON.stringify(input, null, 2));
  else for (const l of digestLines(input)) line(io, l);
  return 0;
}

/**
 * --send: the digest kept in <stateDir>/digest/DATE.txt and sent through notify and the
 * ping's /log, unless nothing happened that day and the spec's digest.empty is not "send".
 * One summary line (the wrapper's `note digest …`); exit 0 whatever notify or ping did.
 */
async function send(io: HostIO, spec: Spec, stateDir: string, log: string, input: DigestInput): Promise<number> {
  const wd = new Date(`${input.day.date}T12:00:00Z`).toUTCString().slice(0, 3);
  if (nothingHappened(input.day) && digestOf(spec)?.empty !== 'send') {
    line(io, `skipped: nothing happened on ${wd} ${input.day.date} (no wake ran, no error, no missed fire)`);
    return 0;
  }
  // Commit subjects are the agent's words: shown on a terminal or a phone, never obeyed (src/escape.ts).
  const text = terminalText(`${digestLines(input).join('\n')}\n`);
  const kept = keepDigest(stateDir, input.day.date, text);
  const said = ['file' in kept ? `written to ${kept.file}` : `not kept: ${kept.problem}`];
  if (spec.notify) said.push(await notifyDigest(spec, text, 'file' in kept ? kept.file : null, log));
  if (spec.ping) said.push(await pingDigest(spec, text));
  line(io, `sent for ${wd} ${input.day.date}: ${said.join('; ')}`);
  return 0;
}

export async function log(argv: { spec: string; days?: number; json?: boolean; digest?: string; send?: boolean; state?: string }, io: HostIO): Promise<number> {
  if ((argv.send || argv.state !== undefined) && argv.digest === undefined) throw new UserError([`--${argv.send ? 'send' : 'state'} goes with --digest: \`hbgen log --digest yesterday --send\``], 2);
  if (argv.state !== undefined && !argv.send) throw new UserError(['--state goes with --send: it is how the wrapper names the install whose digest it sends'], 2);
  if (argv.digest !== undefined) return digest({ ...argv, digest: argv.digest }, io);
  const days = argv.days ?? 7;
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new UserError([`--days must be a whole number of days from 1 to 366${Number.isNaN(days) ? '' : `, got ${days}`}`], 2);
  const { spec: fileSpec } = loadFor(io, argv.spec);
  // Paths come from the spec file (as status); the plan from what was installed when that is readable.
  const n = names(fileSpec);
  takeSkipped(); // only what this command skips is said
  const { s, notes } = readStateOrNote(n);
  const { spec } = trustedSpec(s, fileSpec);
  const text = logHistory(n.log);
  const lines = historyLines(text, fileSpec.name);
  const zone = spec.schedule.hours.timezone;
  const now = io.now().getTime();
  const expected = expectedFires(s, spec, lines);
  const report: LogReport = {
    name: fileSpec.name,
    files: [`${n.log}.1`, n.log].filter((f) => lstatOrNull(f)?.isFile()),
    skipped: [...notes, ...takeSkipped().map((k) => k.message)],
    timezone: zone,
    expectedCounted: expected !== null,
    days: dailyCounts({ lines, zone, now, days, expected, sleep: sleepFacts(now) }),
    lastWakes: lastWakes(lines, LAST_WAKES).map((w) => ({ ...w, startLocal: `${localParts(Date.parse(w.start), zone).date} ${localParts(Date.parse(w.start), zone).hm}` })),
  };
  if (argv.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  human(io, report, days);
  return 0;
}

function human(io: HostIO, r: LogReport, days: number): void {
  const read = r.files.length ? r.files.join(' and ') : r.skipped.length ? 'runtime.log not read, see below' : 'no runtime.log yet';
  line(io, `hbgen log: "${r.name}", the last ${days} day${days === 1 ? '' : 's'} in ${r.timezone} (${read})`);
  for (const k of r.skipped) line(io, `  note: ${k}`);
  const kinds = [...SKIP_KINDS, ...[...new Set(r.days.flatMap((d) => Object.keys(d.skipped)))].filter((k) => !(SKIP_KINDS as readonly string[]).includes(k)).sort()];
  const head = ['day', 'started', 'ok', 'quiet', 'denied', 'fail', 'timeout', 'limit', 'reserve', 'error', ...kinds, 'missed', 'asleep'];
  const rows = r.days.map((d) => {
    const wd = new Date(`${d.date}T12:00:00Z`).toUTCString().slice(0, 3);
    return [`${wd} ${d.date}`, ...[d.started, d.ok, d.quiet, d.denied, d.fail, d.timeout, d.limit, d.reserve, d.error, ...kinds.map((k) => d.skipped[k] ?? 0)].map(String), d.missed === null ? '-' : String(d.missed), d.asleep === null ? '-' : String(d.asleep)];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  const fmt = (cells: string[]) => `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`;
  line(io, fmt(head));
  for (const row of rows) line(io, fmt(row));
  if (!r.expectedCounted) line(io, '  missed (fires that left no line): not counted, state.json does not say installed');
  else if (r.days.some((d) => d.missed === null)) line(io, '  missed (fires that left no line): "-" before the install, or before the oldest line the log keeps');
  else line(io, '  missed: fires the scheduler was due to make that left no line (off, or no scheduler); asleep: of those, fires the machine slept or was off through (a late fire, the boot time or the host\'s sleep record tells), not a fault');
  tokensPerDay(io, r);
  line(io);
  if (r.lastWakes.length === 0) {
    line(io, 'no wake has run yet');
    return;
  }
  line(io, `the last ${r.lastWakes.length === 1 ? 'wake' : `${r.lastWakes.length} wakes`} (${r.timezone}):`);
  for (const w of r.lastWakes) {
    const what = w.outcome ? `${w.outcome}${w.detail ? ` ${w.detail}` : ''}` : 'no outcome (running, or its wrapper was killed)';
    line(io, `  wake ${w.wake}${w.byHand ? ' (by hand)' : ''}  ${w.startLocal}  ${w.seconds !== null ? `${w.seconds} s  ` : w.end ? '? s (clock stepped)  ' : ''}${what}${w.usage ? `  ${tokenText(w.usage)}` : ''}${w.windows.length ? `  plan: ${windowsText(w.windows)}` : ''}${w.workspace ? `  (workspace: ${w.workspace})` : ''}`);
  }
}

const num = (n: number) => n.toLocaleString('en-US');

/** "12,752 tokens (in 1,234, out 42, cache 5,100, cost≈$0.0062)". */
export function tokenText(u: Usage): string {
  return `${num(u.total)} tokens (in ${num(u.in)}, out ${num(u.out)}, cache ${num(u.cache)}${u.cost === null ? '' : `, cost\u2248$${u.cost.toFixed(4)}`})`;
}

/** The tokens per day, once any wake of the days shown logged its usage. */
function tokensPerDay(io: HostIO, r: LogReport): void {
  if (!r.days.some((d) => d.tokens.total > 0 || d.tokens.cost !== null)) return;
  line(io);
  line(io, 'tokens per day (the usage lines of the wakes that started that day; a budget counts in + out + cache):');
  for (const d of r.days) {
    const wd = new Date(`${d.date}T12:00:00Z`).toUTCString().slice(0, 3);
    line(io, `  ${wd} ${d.date}  ${d.tokens.total || d.tokens.cost !== null ? tokenText(d.tokens) : '-'}`);
  }
}
