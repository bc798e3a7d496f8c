// What runtime.log says about the install's health, as pure functions of its lines, the
// plan and the clock (status reads the log and asks these): failing wakes in a row, the
// cap, and fires the plan expected that left no line.
import { WRAPPER_CHANGED } from '../../../generators/entry.ts';
import type { CalEntry, Plan } from '../../schedule.ts';
import { offsetAt } from '../../zone-offsets.ts';
import { LIMIT_FAR } from '../../../generators/limit.ts';
import { FAILED, type LogLine, OUTCOME_WORDS, SUCCEEDED, WAKE_ENDS, isOneOf, isWakeStart, ENTRY_NOTE, ENTRY_NOTE_TAIL, parseTookDetail, parseUntilDetail, parseWakeDetail } from '../../formats.ts';

const MIN = 60_000;

/** The counted wakes, each with the outcome line that ended it (undefined while it runs, or when none was written). */
export function wakes(lines: LogLine[]): Wake[] {
  const out: Wake[] = [];
  let cur: Wake | undefined;
  for (const l of lines) {
    if (isWakeStart(l)) {
      cur = { start: l };
      out.push(cur);
    } else if (cur && !cur.end && isOneOf(WAKE_ENDS, l.outcome)) {
      cur.end = l;
    } else if (cur && !cur.end && l.outcome === 'took') {
      const took = parseTookDetail(l.detail);
      if (took !== null) cur.took = took;
    }
  }
  return out;
}

/** One wake of the log: its start line, its outcome line, and its length on the boot clock. */
export interface Wake {
  start: LogLine;
  end?: LogLine;
  /** Seconds from the wrapper's `took N s` line (the boot clock), when it wrote one. */
  took?: number;
}

/**
 * How long a wake took, in seconds: the boot clock's reading where the wrapper left one,
 * else the span between the two stamps, unless a step of the wall clock made it negative
 * (then null: unknown, never "-10774 s"). null too while it has no outcome.
 */
export function wakeSeconds(w: Wake): number | null {
  if (!w.end) return null;
  if (w.took !== undefined) return w.took;
  const s = Math.round((Date.parse(w.end.time) - Date.parse(w.start.time)) / 1000);
  return s >= 0 ? s : null;
}

const failed = (l?: LogLine): boolean => !!l && isOneOf(FAILED, l.outcome);

/**
 * How many of the latest wakes ended fail, denied, timeout or error (FAILED), in a row, and the latest of
 * them. A wake ends with the outcome line after its `start wake` line, or with an `error`
 * line wherever it stands: a fault before the wake started (the repo missing, the billing
 * check, the lock) stops the heartbeat as surely as a failing agent. A wake that hit the
 * plan's limit (`limit until …`) is the plan working as designed: it neither counts nor
 * breaks the streak, nor do skips, the install check, a wake with no outcome line, and a
 * signal before the agent started. The wrapper keeps the same count in <stateDir>/streak
 * for notify (heartbeat/17-notify): both must agree, so the scheduler entry's own
 * `error wrapper changed` (the wrapper was not run, and could not count it) is left out
 * too; status reports that line as the last outcome and the wrapper as drifted anyway.
 */
export function failStreak(lines: LogLine[]): { count: number; latest?: LogLine } {
  const ends: LogLine[] = [];
  let open = false;
  for (const l of lines) {
    if (isWakeStart(l)) open = true;
    else if ((l.outcome === 'error' && l.detail !== WRAPPER_CHANGED) || (open && isOneOf(WAKE_ENDS, l.outcome) && l.outcome !== 'error')) {
      ends.push(l);
      open = false;
    }
  }
  const w = ends.filter((l) => l.outcome !== 'limit');
  let count = 0;
  for (let i = w.length - 1; i >= 0 && failed(w[i]); i--) count++;
  return { count, latest: count ? w[w.length - 1] : undefined };
}

/** A `limit until T` line whose reset was more than a day after it (or that the wrapper cut as not believed). */
const farPause = (l: LogLine): boolean => {
  if (l.outcome !== 'limit') return false;
  if (/not believed/.test(l.detail)) return true;
  const until = Date.parse(parseUntilDetail(l.detail)?.until ?? '');
  return Number.isFinite(until) && until - Date.parse(l.time) > LIMIT_FAR * 1000;
};

/**
 * Far pauses at the plan's limit (a reset more than a day away) since the last wake that
 * ended ok or quiet, and the latest of them. The wrapper believes one (a weekly limit) and
 * cuts the next (heartbeat/85-limit, hb_limitfar): a weekly limit does not strike twice
 * without a wake that ran on the reset plan, so two in a row say that the agent's output,
 * not its client, may be asking for them. Failing wakes and skips in between do not
 * break the run.
 */
export function farPauses(lines: LogLine[]): { count: number; latest?: LogLine } {
  let count = 0;
  let latest: LogLine | undefined;
  let open = false;
  for (const l of lines) {
    if (isWakeStart(l)) open = true;
    else if (open && isOneOf(SUCCEEDED, l.outcome)) {
      count = 0;
      latest = undefined;
      open = false;
    } else if (open && farPause(l)) {
      count++;
      latest = l;
      open = false;
    }
  }
  return { count, latest };
}

/** Whole minutes in [from, to) at which the entries fire, read in `zone`; a wall-clock minute the clocks repeat fires once, at its first pass. */
export function firesBetween(entries: CalEntry[], zone: string, from: number, to: number): number[] {
  const out: number[] = [];
  const seen = new Map<string, number>();
  for (let t = Math.ceil(from / MIN) * MIN; t < to; t += MIN) {
    const local = new Date(t + offsetAt(zone, t) * MIN);
    const d = local.getUTCDay();
    const h = local.getUTCHours();
    const m = local.getUTCMinutes();
    if (!entries.some((e) => e.days.includes(d) && e.hours.includes(h) && e.minutes.includes(m))) continue;
    const key = `${local.getUTCFullYear()}-${local.getUTCMonth()}-${local.getUTCDate()} ${h}:${m}`;
    const prev = seen.get(key);
    if (prev !== undefined && t - prev < 3 * 60 * MIN) continue;
    seen.set(key, t);
    out.push(t);
  }
  return out;
}

/** What the scheduler reads its calendar in: systemd the working zone (OnCalendar's suffix), cron and launchd the host's clock. */
export function schedulerClock(p: Plan, workZone: string, hostClock: boolean): { entries: CalEntry[]; zone: string } {
  return hostClock ? { entries: p.hostEntries, zone: p.hostTimezone } : { entries: p.zoneEntries, zone: workZone };
}

/**
 * Fires the scheduler was due to make in the last 24 hours (`span`; after `since`, and at least
 * `grace` ago) that left no line in the log: a wake that ran, or was skipped by the gate,
 * the lock or the cap, writes one within seconds of its fire.
 */
export function missedFires(lines: LogLine[], clock: { entries: CalEntry[]; zone: string }, since: number, now: number, grace = 2 * MIN, span = 24 * 60 * MIN): number[] {
  const from = Math.max(since, now - span);
  const expected = firesBetween(clock.entries, clock.zone, from, now - grace);
  const seen = lines.map((l) => Date.parse(l.time)).filter((t) => t >= from - MIN);
  return expected.filter((t) => !seen.some((x) => x >= t - MIN && x < t + grace));
}

/** A line the scheduler's own fire wrote: a wake it started (not one by hand, nor the install check) or a skip. */
const firedLine = (l: LogLine): boolean => (l.outcome === 'start' && /^wake \d+/.test(l.detail) && !/ by hand\b/.test(l.detail)) || l.outcome.startsWith('skip-');

/**
 * The missed fires of the last 24 hours split at the latest fire the scheduler did make:
 * a fire missed before it (the lid was closed once) has recovered, since the
 * scheduler fires again; only those after it are still a problem. `recoveredAt` is the
 * time of that later fire's line, null when no missed fire was followed by one.
 */
export function missedSince(lines: LogLine[], clock: { entries: CalEntry[]; zone: string }, since: number, now: number, grace = 2 * MIN): { open: number[]; recovered: number[]; recoveredAt: number | null } {
  const missed = missedFires(lines, clock, since, now, grace);
  if (missed.length === 0) return { open: [], recovered: [], recoveredAt: null };
  const fired = lines.filter(firedLine).map((l) => Date.parse(l.time));
  const fires = firesBetween(clock.entries, clock.zone, missed[0]! + MIN, now - grace);
  // The latest expected fire after the first missed one that left a line of the scheduler's own.
  let last: { fire: number; at: number } | null = null;
  for (const t of fires) {
    const at = fired.find((x) => x >= t - MIN && x < t + grace);
    if (at !== undefined) last = { fire: t, at };
  }
  if (!last) return { open: missed, recovered: [], recoveredAt: null };
  const recovered = missed.filter((t) => t < last!.fire);
  const after = recovered.length ? fired.find((x) => x >= recovered.at(-1)! + MIN) ?? last.at : null;
  return { open: missed.filter((t) => t > last!.fire), recovered, recoveredAt: after };
}

/**
 * What the latest scheduled fire since `since` (ISO) found of its own scheduler entry: the
 * wrapper checks it at every fire (runtime step 6b) and logs `note scheduler entry not as
 * installed: …` before the fire's first line. null when that fire found it as installed,
 * or no fire came since.
 */
export function lastFireEntryNote(lines: LogLine[], since: string): { time: string; detail: string } | null {
  let pending: LogLine | null = null;
  let found: LogLine | null = null;
  for (const l of lines) {
    if (l.time < since) continue;
    if (l.outcome === OUTCOME_WORDS.note && l.detail.startsWith(`${ENTRY_NOTE}: `)) pending = l;
    else if ((isWakeStart(l) && !parseWakeDetail(l.detail)!.byHand) || l.outcome.startsWith('skip-')) {
      found = pending;
      pending = null;
    }
  }
  if (!found) return null;
  const what = found.detail.slice(ENTRY_NOTE.length + 2);
  return { time: found.time, detail: what.endsWith(ENTRY_NOTE_TAIL) ? what.slice(0, -ENTRY_NOTE_TAIL.length) : what };
}

