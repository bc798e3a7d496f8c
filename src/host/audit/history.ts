// `hbgen log`: the wake history in runtime.log (both generations), per day in the working
// zone, and the last wakes. Pure functions of the log's text, the plan and the clock; the
// command reads the files (src/commands/log.ts).
import { WAKE_ENDS, isOneOf, logRecord, type LogLine, pad2, parseLogLine, type Usage, SMOKE_DETAIL, WORKSPACE_NOTE, parseWakeDetail, parseUsage, parseWindows, type WindowReading } from '../../formats.ts';
import { offsetAt } from '../../zone-offsets.ts';
import { type CalEntry } from '../../schedule.ts';
import { missedFires, wakeSeconds, wakes } from './health.ts';
import { type SleepFacts, asleepFires } from './asleep.ts';

const MIN = 60_000;
const DAY = 1440 * MIN;

/** The skip kinds every day reports (0 when none); others (any `skip-…` the wrapper writes) are added as seen. */
export const SKIP_KINDS = ['skip-window', 'skip-gate', 'skip-locked', 'skip-cap', 'skip-limit'] as const;

/** One day of the history, in the working zone. */
export interface DayCounts {
  /** The local date, YYYY-MM-DD. */
  date: string;
  /** Wakes that ran: `start wake N` lines (not the install check's). */
  started: number;
  ok: number;
  quiet: number;
  /** Wakes whose client refused tool calls (`denied N (TOOLS): …`): failures, with a remedy of their own (permissions), so apart from fail. */
  denied: number;
  fail: number;
  timeout: number;
  /** Wakes that ended at the plan's usage limit (`limit until …`). */
  limit: number;
  /** Wakes stopped because a plan window's reading crossed into the person's reserve (`reserve …`): no failure. */
  reserve: number;
  /** `error` lines: faults of the setup, the gates, the billing check or a wake. */
  error: number;
  /** Skips by kind, e.g. {"skip-window": 12, "skip-gate": 0, …}. */
  skipped: Record<string, number>;
  /** Fires the scheduler was due to make that left no line at all (null: not known, e.g. not installed then). */
  missed: number | null;
  /** The usage lines of the wakes that started that day, summed; cost null when no line gave one. */
  tokens: Usage;
  /** Of those, fires the machine slept or was off through (src/host/asleep.ts): `missed (asleep)`, not counted in `missed`. */
  asleep: number | null;
}

export interface WakeRow {
  /** The wake counter's number. */
  wake: number;
  byHand: boolean;
  /** UTC ISO time of its start line. */
  start: string;
  /** Its outcome line (null while it runs, or when its wrapper was killed). */
  outcome: string | null;
  detail: string;
  end: string | null;
  seconds: number | null;
  /** Its usage line (null: none, e.g. a `command` agent or an older wrapper). */
  usage: Usage | null;
  /** With a workspace of its own: the commits it brought to the agent's branch, or why none (its `note workspace:` line). */
  workspace?: string;
  /** The plan's windows its client's stream read (its `windows` line; empty: none read). */
  windows: WindowReading[];
}

/** No tokens. */
export const noUsage = (): Usage => ({ in: 0, out: 0, cache: 0, total: 0, cost: null });

/** `a` plus `b`, in place. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.in += b.in;
  a.out += b.out;
  a.cache += b.cache;
  a.total += b.total;
  if (b.cost !== null) a.cost = Math.round(((a.cost ?? 0) + b.cost) * 1e4) / 1e4;
  return a;
}

/**
 * Each usage line with the `start wake` line it belongs to: the last one before it (the
 * wrapper writes it after its wake's start and before its outcome).
 */
/** Each wake's `note workspace:` line (heartbeat/48-workspace), by its start line. */
function workspaceOfWakes(lines: LogLine[]): Map<LogLine, string> {
  const out = new Map<LogLine, string>();
  let start: LogLine | undefined;
  for (const l of lines) {
    if (l.outcome === 'start' && /^wake \d+/.test(l.detail)) start = l;
    else if (l.outcome === 'note' && start && l.detail.startsWith(`${WORKSPACE_NOTE} `)) out.set(start, l.detail.slice(WORKSPACE_NOTE.length + 1));
  }
  return out;
}

export function usageOfWakes(lines: LogLine[]): Map<LogLine, Usage> {
  const out = new Map<LogLine, Usage>();
  for (const [start, l] of linesOfWakes(lines, 'usage')) {
    const u = parseUsage(l.detail);
    if (u) out.set(start, addUsage(out.get(start) ?? noUsage(), u));
  }
  return out;
}

/** Each `windows` line's readings with the `start wake` line it belongs to (as usageOfWakes; the last line of a wake wins). */
export function windowsOfWakes(lines: LogLine[]): Map<LogLine, WindowReading[]> {
  const out = new Map<LogLine, WindowReading[]>();
  for (const [start, l] of linesOfWakes(lines, 'windows')) out.set(start, parseWindows(l.detail));
  return out;
}

/** The lines of one non-outcome word, each with the `start wake` line before it. */
function linesOfWakes(lines: LogLine[], word: 'usage' | 'windows'): [LogLine, LogLine][] {
  const out: [LogLine, LogLine][] = [];
  let start: LogLine | undefined;
  for (const l of lines) {
    if (l.outcome === 'start' && /^wake \d+/.test(l.detail)) start = l;
    else if (l.outcome === word && start) out.push([start, l]);
  }
  return out;
}

/**
 * Every hbgen line of `name`, as parseLogLine reads them, plus lines of an outcome this
 * hbgen does not know that start with `skip-` (a newer wrapper's kind of skip): counted
 * by their own name.
 */
export function historyLines(text: string, name: string): LogLine[] {
  const out: LogLine[] = [];
  for (const l of text.split('\n')) {
    const p = parseLogLine(l) ?? otherSkip(l);
    if (p && p.name === name) out.push(p);
  }
  return out;
}

function otherSkip(line: string): LogLine | null {
  return logRecord(line, (o) => /^skip-[a-z]+(-[a-z]+)*$/.test(o));
}

/** The local date (YYYY-MM-DD) and time (HH:MM) of `ms` in `zone`. */
export function localParts(ms: number, zone: string): { date: string; hm: string } {
  const l = new Date(ms + offsetAt(zone, ms) * MIN);
  return { date: `${l.getUTCFullYear()}-${pad2(l.getUTCMonth() + 1)}-${pad2(l.getUTCDate())}`, hm: `${pad2(l.getUTCHours())}:${pad2(l.getUTCMinutes())}` };
}

/** The UTC time at which local `date` (YYYY-MM-DD) begins in `zone` (its first minute that exists). */
export function dayStart(date: string, zone: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  // Two passes settle the offset; a midnight the clocks skip begins at the first minute after.
  let t = wall - offsetAt(zone, wall) * MIN;
  t = wall - offsetAt(zone, t) * MIN;
  while (localParts(t - MIN, zone).date === date) t -= MIN;
  while (localParts(t, zone).date < date) t += MIN;
  return t;
}

/**
 * The day `ms` counts on: its local date, or, with `from` (minutes after midnight: a window
 * that crosses midnight opens then), the date on which the last such opening fell, so that
 * one window is one day (its hours after midnight count on the day it opened).
 */
export function dayOf(ms: number, zone: string, from = 0): string {
  const p = localParts(ms, zone);
  if (!from || Number(p.hm.slice(0, 2)) * 60 + Number(p.hm.slice(3)) >= from) return p.date;
  return new Date(Date.parse(`${p.date}T12:00:00Z`) - DAY).toISOString().slice(0, 10);
}

/** The UTC time at which the day `date` begins: its local midnight, or with `from` its local time `from` minutes after it. */
export function dayBegin(date: string, zone: string, from = 0): number {
  const t = dayStart(date, zone);
  if (!from) return t;
  // The offset where the day begins, not at midnight: a clock change between them moves it.
  const at = t + from * MIN;
  return at + (offsetAt(zone, t) - offsetAt(zone, at)) * MIN;
}

/** The last `days` local dates in `zone` up to the one of `now` (as dayOf counts them with `from`), oldest first. */
export function lastDates(now: number, zone: string, days: number, from = 0): string[] {
  const today = dayOf(now, zone, from);
  const base = Date.parse(`${today}T12:00:00Z`);
  return Array.from({ length: days }, (_, i) => new Date(base - (days - 1 - i) * DAY).toISOString().slice(0, 10));
}

/** The local date after `date` (YYYY-MM-DD). */
export const nextDate = (date: string): string => new Date(Date.parse(`${date}T12:00:00Z`) + DAY).toISOString().slice(0, 10);

const isInstallCheck = (all: LogLine[], i: number): boolean => {
  const l = all[i]!;
  // "skip-locked smoke" too; an untagged skip next to a smoke line is one of a log written before the tag.
  if (l.detail === SMOKE_DETAIL) return true;
  return l.outcome === 'skip-locked' && (all[i - 1]?.detail === SMOKE_DETAIL || all[i + 1]?.detail === SMOKE_DETAIL);
};

export interface HistoryInput {
  lines: LogLine[];
  zone: string;
  now: number;
  days: number;
  /** The scheduler's calendar and since when it was installed: expected fires are counted from then on (null: not installed). */
  expected: { clock: { entries: CalEntry[]; zone: string }; since: number } | null;
  /** The host's boot and sleep times; none: every missed fire counts as lost. */
  sleep?: SleepFacts;
  /** Days begin this many minutes after local midnight (dayOf); 0 or none: at midnight. */
  from?: number;
}

/** Per day in the working zone, oldest first. */
export function dailyCounts(h: HistoryInput): DayCounts[] {
  const shift = h.from ?? 0;
  const dates = lastDates(h.now, h.zone, h.days, shift);
  const from = dayBegin(dates[0]!, h.zone, shift);
  const byDate = new Map<string, DayCounts>();
  for (const date of dates) {
    byDate.set(date, { date, started: 0, ok: 0, quiet: 0, denied: 0, fail: 0, timeout: 0, limit: 0, reserve: 0, error: 0, skipped: Object.fromEntries(SKIP_KINDS.map((k) => [k, 0])), missed: h.expected ? 0 : null, asleep: h.expected ? 0 : null, tokens: noUsage() });
  }
  // Tokens count on the day their wake started (the wrapper's budget counts the same way).
  for (const [start, u] of usageOfWakes(h.lines)) {
    const t = Date.parse(start.time);
    if (t >= from) {
      const day = byDate.get(dayOf(t, h.zone, shift));
      if (day) addUsage(day.tokens, u);
    }
  }
  h.lines.forEach((l, i) => {
    const t = Date.parse(l.time);
    if (!(t >= from) || isInstallCheck(h.lines, i)) return;
    const day = byDate.get(dayOf(t, h.zone, shift));
    if (!day) return;
    const o = l.outcome as string;
    if (o === 'start') {
      if (parseWakeDetail(l.detail)) day.started++;
    } else if (isOneOf(WAKE_ENDS, o)) day[o as (typeof WAKE_ENDS)[number]]++;
    else if (o.startsWith('skip-')) day.skipped[o] = (day.skipped[o] ?? 0) + 1;
  });
  if (h.expected) {
    const since = Math.max(h.expected.since, from);
    const missed = missedFires(h.lines, h.expected.clock, since, h.now, 2 * MIN, h.now - from + MIN);
    const asleep = asleepFires(h.lines, missed, h.expected.clock, h.sleep ?? { boot: null, slept: null });
    for (const t of missed) {
      const day = byDate.get(dayOf(t, h.zone, shift));
      if (!day || day.missed === null || day.asleep === null) continue;
      if (asleep.has(t)) day.asleep++;
      else day.missed++;
    }
    // A day that ended before `since` expected nothing: not known, rather than 0.
    for (const d of byDate.values()) if (dayBegin(nextDate(d.date), h.zone, shift) <= h.expected.since) d.missed = d.asleep = null;
  }
  return [...byDate.values()];
}

/** The last `n` wakes that ran, oldest first. */
export function lastWakes(lines: LogLine[], n: number): WakeRow[] {
  const usage = usageOfWakes(lines);
  const ws = workspaceOfWakes(lines);
  const windows = windowsOfWakes(lines);
  return wakes(lines)
    .slice(-n)
    .map((wk) => {
      const { start, end } = wk;
      const w = parseWakeDetail(start.detail);
      return { wake: w?.n ?? 0, byHand: w?.byHand ?? false, start: start.time, outcome: end?.outcome ?? null, detail: end?.detail ?? '', end: end?.time ?? null, seconds: wakeSeconds(wk), usage: usage.get(start) ?? null, windows: windows.get(start) ?? [], ...(ws.has(start) ? { workspace: ws.get(start)! } : {}) };
    });
}
