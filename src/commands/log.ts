// hbgen log [SPEC] [--days N] [--json]: how the heartbeat has been doing, from runtime.log
// and its rotated generation runtime.log.1 (never read through a link): per day in the
// working zone the wakes started and how they ended, the skips by kind, the errors and
// the scheduler's fires that left no line; then the last wakes. Read-only; exit 0.
import { UserError } from '../errors.ts';
import { sleepFacts } from '../host/audit/asleep.ts';
import { type DayCounts, type HistoryInput, SKIP_KINDS, dailyCounts, dayStart, historyLines, lastDates, lastWakes, localParts, nextDate, type WakeRow } from '../host/audit/history.ts';
import { digestLines } from '../host/audit/digest.ts';
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

/** The local date --digest names: "yesterday" (also a bare --digest), "today", or YYYY-MM-DD within the last 366 days. */
function digestDate(arg: string, now: number, zone: string): { date: string; days: number } {
  const dates = lastDates(now, zone, 366);
  const today = dates[dates.length - 1]!;
  const date = arg === '' || arg === 'yesterday' ? dates[dates.length - 2]! : arg === 'today' ? today : arg;
  const at = dates.indexOf(date);
  if (!/^\d{4}-\d\d-\d\d$/.test(date) || at < 0) throw new UserError([`--digest takes "yesterday" (the default), "today" or a date YYYY-MM-DD of the last 366 days in ${zone} (today is ${today}), got ${JSON.stringify(arg)}`], 2);
  return { date, days: dates.length - at };
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

/** `hbgen log --digest [DAY]`: one day in a few lines (src/host/audit/digest.ts). */
async function digest(argv: { spec: string; digest: string; json?: boolean }, io: HostIO): Promise<number> {
  const loaded = loadFor(io, argv.spec);
  const n = names(loaded.spec);
  const state = readStateOrNote(n);
  const { spec } = trustedSpec(state.s, loaded.spec);
  const zone = spec.schedule.hours.timezone;
  const now = io.now().getTime();
  const { date, days } = digestDate(argv.digest, now, zone);
  const lines = historyLines(logHistory(n.log), loaded.spec.name);
  const day = dailyCounts({ lines, zone, now, days, expected: expectedFires(state.s, spec, lines), sleep: sleepFacts(now) }).find((d) => d.date === date)!;
  const { findings } = await audit(loaded, state, io);
  const from = dayStart(date, zone);
  const input = {
    name: loaded.spec.name,
    timezone: zone,
    day,
    commits: commitsOf(spec.repo, from, dayStart(nextDate(date), zone)),
    problems: findings.problems.map((p) => p.message),
    tokens: day.tokens.total || day.tokens.cost !== null ? tokenText(day.tokens) : null,
  };
  if (argv.json) line(io, JSON.stringify(input, null, 2));
  else for (const l of digestLines(input)) line(io, l);
  return 0;
}

export async function log(argv: { spec: string; days?: number; json?: boolean; digest?: string }, io: HostIO): Promise<number> {
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
