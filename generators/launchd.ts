// launchd: a LaunchAgent built as data and serialized by the plist package, never by a
// template, so XML escaping is the serializer's job (launchd.plist(5)).
import type { PlistValue } from 'plist';
import { xmlComment } from '../src/escape.ts';
import type { CalEntry } from '../src/schedule.ts';
import { limitsOf, memoryBytes } from '../src/spec.ts';
import { entryArgv } from './entry.ts';
import type { Generator } from './types.ts';

type Interval = { Weekday?: number; Hour?: number; Minute: number };

/** StartCalendarInterval dicts; a missing key is a wildcard, so full ranges are left out. */
export function calendarIntervals(entries: CalEntry[]): Interval[] {
  const out: Interval[] = [];
  for (const e of entries) {
    const days: (number | undefined)[] = e.days.length === 7 ? [undefined] : e.days;
    const hours: (number | undefined)[] = e.hours.length === 24 ? [undefined] : e.hours;
    for (const d of days)
      for (const h of hours)
        for (const m of e.minutes) {
          // The plist writer keeps insertion order: insert the keys in one fixed order,
          // alphabetical (Hour, Minute, Weekday), so the bytes never vary.
          const i = {} as Interval;
          if (h !== undefined) i.Hour = h;
          i.Minute = m;
          if (d !== undefined) i.Weekday = d;
          out.push(i);
        }
  }
  return out;
}

/**
 * The wake's bounds (spec.limits) as launchd sets them, rlimits of the job
 * (launchd.plist(5), HardResourceLimits/SoftResourceLimits): NumberOfProcesses is
 * RLIMIT_NPROC, which macOS counts over all of the user's processes (and caps at
 * kern.maxprocperuid); ResidentSetSize only for a size in bytes, since a share of the RAM
 * is a host fact the plist cannot hold, and macOS does not enforce it anyway.
 */
export function resourceLimits(spec: Parameters<typeof limitsOf>[0]): { HardResourceLimits?: Record<string, number>; SoftResourceLimits?: Record<string, number> } {
  const l = limitsOf(spec);
  if (!l) return {};
  const bytes = memoryBytes(l.memory);
  const r: Record<string, number> = { NumberOfProcesses: l.tasks };
  if (bytes !== null) r.ResidentSetSize = bytes;
  return { HardResourceLimits: r, SoftResourceLimits: { ...r } };
}

// The plist package (and the XML libraries it brings) loads only when a plist is rendered:
// it is the heaviest thing hbgen would otherwise load at every start.
let build: ((obj: PlistValue) => string) | undefined;
export async function loadPlist(): Promise<void> {
  build ??= (await import('plist')).build;
}

export const generator: Generator = {
  ready: loadPlist,
  files(ctx) {
    const { names } = ctx;
    const data = {
      Label: names.label,
      // argv for execvp: no shell, no ~ or $VAR expansion. The entry checks the wrapper's
      // SHA-256, then runs it (generators/entry.ts).
      ProgramArguments: entryArgv(ctx),
      StartCalendarInterval: calendarIntervals(ctx.plan.hostEntries),
      StandardOutPath: `${names.stateDir}/launchd.log`,
      StandardErrorPath: `${names.stateDir}/launchd.log`,
      ProcessType: 'Background',
      RunAtLoad: false,
      ...resourceLimits(ctx.spec),
    };
    if (!build) throw new Error('the plist writer is not loaded: render through renderSpec(), which loads it (generator.ready)');
    const xml = build(data as unknown as PlistValue);
    // The generated-by comment goes right after the DOCTYPE: the first comment of the file.
    const lines = xml.split('\n');
    const at = lines.findIndex((l) => l.startsWith('<plist'));
    lines.splice(at, 0, `<!-- ${xmlComment(ctx.header)} -->`);
    return [{ path: `host/${names.label}.plist`, content: `${lines.join('\n')}\n`, mode: 0o644 }];
  },
};
