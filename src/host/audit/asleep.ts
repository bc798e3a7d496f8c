// A fire the machine slept (or was off) through, told from a lost one: status
// and `hbgen log` count it `missed (asleep)`, not as a fault. What the host can tell:
// - the wrapper's own evidence: the first line after the missed fire is a fire made late —
//   `skip-late` (catchUp "skip"), or a scheduled wake or skip off every fire of the plan
//   (launchd's one run on waking, systemd's on resume or boot with Persistent=true). The
//   scheduler was there and fired as soon as the machine was: it was asleep at the fire.
// - the boot time (Linux /proc/stat btime; macOS `sysctl kern.boottime`): a fire after the
//   log's last line before boot and before the boot was made while the machine was off.
// - macOS's last sleep and wake (`sysctl kern.sleeptime kern.waketime`): a fire between them.
// Anything else that left no line stays a lost fire (missed-fire).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { LogLine } from '../../formats.ts';
import { type CalEntry } from '../../schedule.ts';
import { firesBetween } from './health.ts';

const MIN = 60_000;

/** When the machine booted and, where the host says, last slept and woke (ms; null: not known). */
export interface SleepFacts {
  boot: number | null;
  slept: { from: number; to: number } | null;
}

/** A run the scheduler started (not one by hand, nor the install check's). */
const fired = (l: LogLine) => (l.outcome === 'start' && /^wake \d+/.test(l.detail) && !/ by hand\b/.test(l.detail)) || l.outcome.startsWith('skip-');

/** The missed fires the host slept through, as a subset of `missed`. */
export function asleepFires(lines: LogLine[], missed: number[], clock: { entries: CalEntry[]; zone: string }, facts: SleepFacts, grace = 2 * MIN): Set<number> {
  const out = new Set<number>();
  if (missed.length === 0) return out;
  const times = lines.map((l) => Date.parse(l.time));
  const fires = firesBetween(clock.entries, clock.zone, missed[0]! - MIN, Math.max(...times, missed.at(-1)!) + MIN);
  const onAFire = (t: number) => fires.some((f) => t >= f - MIN && t < f + grace);
  for (const t of missed) {
    const i = times.findIndex((x) => x >= t);
    const next = i >= 0 ? lines[i]! : null;
    if (next && (next.outcome === 'skip-late' || (fired(next) && !onAFire(times[i]!)))) out.add(t);
    else if (facts.boot !== null && t < facts.boot && !times.some((x) => x > t && x < facts.boot!)) out.add(t);
    else if (facts.slept && t >= facts.slept.from && t < facts.slept.to) out.add(t);
  }
  return out;
}

/** This host's facts, read-only and bounded; null where it cannot tell, or where they lie after `now` (a clock the caller set back). */
export function sleepFacts(now: number): SleepFacts {
  const f = process.platform === 'darwin' ? darwinFacts() : linuxFacts();
  return { boot: f.boot !== null && f.boot <= now ? f.boot : null, slept: f.slept && f.slept.to <= now ? f.slept : null };
}

function linuxFacts(): SleepFacts {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return { boot: m ? Number(m[1]) * 1000 : null, slept: null };
  } catch {
    return { boot: null, slept: null };
  }
}

function darwinFacts(): SleepFacts {
  // `sysctl -n kern.boottime` prints "{ sec = 1733040000, usec = 0 } …"; sleeptime and waketime the same form.
  const sec = (name: string): number | null => {
    try {
      const out = execFileSync('/usr/sbin/sysctl', ['-n', name], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
      const m = /sec = (\d+)/.exec(out);
      return m ? Number(m[1]) * 1000 : null;
    } catch {
      return null;
    }
  };
  const from = sec('kern.sleeptime');
  const to = sec('kern.waketime');
  return { boot: sec('kern.boottime'), slept: from !== null && to !== null && to > from ? { from, to } : null };
}
