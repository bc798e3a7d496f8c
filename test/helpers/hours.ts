// Independent oracles for fire times, used by test/hours.test.ts:
// - expectedWakes: straight from the spec's words, minute by minute, with Intl;
// - systemdFires: the real `systemd-analyze calendar` on each OnCalendar= value;
// - cronFires: the cron-parser package, in the host zone, on each crontab line;
// - launchdFires: our own reading of StartCalendarInterval (launchd.plist(5)): a dict
//   fires at every host-local minute matching all keys it has;
// - gateOpen: the rendered window.sh itself, asked about each moment.
import { spawnSync } from 'node:child_process';
import { CronExpressionParser } from 'cron-parser';

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const fmt = new Map<string, Intl.DateTimeFormat>();

/** Wall clock of `ms` in `zone`: [date "YYYY-MM-DD", weekday 0..6, hour, minute]. */
export function wall(zone: string, ms: number): [string, number, number, number] {
  let f = fmt.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short', hour: '2-digit', minute: '2-digit' });
    fmt.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  return [`${p.year}-${p.month}-${p.day}`, DAYS.indexOf(p.weekday!.toLowerCase()), Number(p.hour), Number(p.minute)];
}

export interface HoursSpec {
  every: string;
  minute: number;
  start: string;
  end: string;
  timezone: string;
  days?: string[];
}

const hm = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));

/**
 * Whether a wall-clock minute (weekday 0..6, hour, minute) in the working zone is a wake
 * time: it is in a window that opened on one of `days`, on the interval's grid.
 */
export function isWakeTime(s: HoursSpec, dow: number, h: number, m: number): boolean {
  const every = { m: 1, h: 60 }[s.every.slice(-1) as 'm' | 'h']! * Number(s.every.slice(0, -1));
  const start = hm(s.start);
  const end = hm(s.end);
  const days = s.days ?? DAYS;
  const now = h * 60 + m;
  let opened: number | undefined;
  if (start < end) {
    if (now >= start && now < end) opened = dow;
  } else if (now >= start) opened = dow;
  else if (now < end) opened = (dow + 6) % 7;
  if (opened === undefined || !days.includes(DAYS[opened]!)) return false;
  if (every <= 60) return now % every === s.minute % every;
  const since = (now - start + 1440) % 1440;
  const first = (s.minute - (start % 60) + 60) % 60; // minutes from the opening to the first :minute
  return since >= first && (since - first) % every === 0;
}

/**
 * The wakes the spec asks for, as epoch seconds in [from, to): every minute whose wall
 * clock in the working zone is a wake time. A wall-clock minute that a DST change repeats
 * counts once (its first pass); one that a change skips does not exist.
 */
export function expectedWakes(s: HoursSpec, from: number, to: number): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (let t = from; t < to; t += 60) {
    const [date, dow, h, m] = wall(s.timezone, t * 1000);
    const key = `${date} ${h}:${m}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (isWakeTime(s, dow, h, m)) out.push(t);
  }
  return out;
}

export function systemdFires(onCalendar: string[], from: number, to: number): number[] {
  const out = new Set<number>();
  for (const expr of onCalendar) {
    const iterations = Math.ceil((to - from) / 60) + 1;
    const r = spawnSync('systemd-analyze', ['calendar', `--base-time=@${from - 1}`, `--iterations=${Math.min(iterations, 5000)}`, expr], {
      encoding: 'utf8',
      env: { ...process.env, TZ: 'UTC', LC_ALL: 'C', SYSTEMD_COLORS: '0' },
    });
    if (r.status !== 0) throw new Error(`systemd-analyze calendar '${expr}': ${r.stderr}`);
    for (const m of r.stdout.matchAll(/(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/g)) {
      const t = Date.parse(`${m[1]!.replace(' ', 'T')}Z`) / 1000;
      if (t >= from && t < to) out.add(t);
    }
  }
  return [...out].sort((a, b) => a - b);
}

export function cronFires(lines: string[], tz: string, from: number, to: number): number[] {
  const out = new Set<number>();
  for (const line of lines) {
    const expr = line.split(' ').slice(0, 5).join(' ');
    const it = CronExpressionParser.parse(expr, { currentDate: new Date((from - 1) * 1000), endDate: new Date(to * 1000), tz });
    while (it.hasNext()) {
      const t = Math.floor(it.next().getTime() / 1000);
      if (t >= from && t < to) out.add(t);
    }
  }
  return [...out].sort((a, b) => a - b);
}

export type Interval = { Minute?: number; Hour?: number; Weekday?: number; Day?: number; Month?: number };

export function launchdFires(intervals: Interval[], tz: string, from: number, to: number): number[] {
  const out: number[] = [];
  const seen = new Set<string>();
  for (let t = from; t < to; t += 60) {
    const [date, dow, h, m] = wall(tz, t * 1000);
    const key = `${date} ${h}:${m}`;
    if (seen.has(key)) continue; // a repeated host-clock minute: launchd's calendar fires once
    seen.add(key);
    if (intervals.some((i) => (i.Minute === undefined || i.Minute === m) && (i.Hour === undefined || i.Hour === h) && (i.Weekday === undefined || i.Weekday % 7 === dow))) out.push(t);
  }
  return out;
}

/** Ask the rendered window.sh about each moment, in one shell. */
export function gateOpen(windowSh: string, epochs: number[], shell = '/bin/sh'): Set<number> {
  const script = 'while read -r e; do "$0" "$1" "$e"; echo "$e $?"; done';
  const r = spawnSync(shell, ['-c', script, shell, windowSh], { input: epochs.join('\n') + '\n', encoding: 'utf8', cwd: '/', env: { PATH: '/usr/bin:/bin' } });
  const open = new Set<number>();
  for (const line of r.stdout.trim().split('\n')) {
    const [e, code] = line.split(' ');
    if (code === '0') open.add(Number(e));
    else if (code !== '1') throw new Error(`window.sh ${e} exited ${code}: ${r.stderr}`);
  }
  return open;
}
