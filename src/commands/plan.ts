// hbgen plan [SPEC] [--svg FILE]: the next seven days of fires, as a grid of days × hours in
// the working zone (then on the host's clock when it runs in another zone), with the count
// of fires the gate closes; --svg writes the same picture as an SVG file. Reads the spec,
// the host's zone and the clock; changes nothing but the SVG file it is asked to write.
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { hostZone, hostZoneProblem, plannedHostZone } from '../host/audit/clock.ts';
import { fsError, writeAtomic } from '../host/fsx.ts';
import type { HostIO } from '../host/io.ts';
import { FACTS } from '../scheduler-facts.ts';
import { week, weekSvg, weekText } from '../week.ts';
import { digestOf } from '../spec.ts';
import { digestWhen } from '../schedule.ts';
import { line, loadFor } from './common.ts';

export async function planCmd(argv: { spec: string; svg?: string }, io: HostIO): Promise<number> {
  if (argv.svg === '') throw new UserError(['--svg needs a file name, e.g. --svg week.svg'], 2);
  const { spec } = loadFor(io, argv.spec);
  const sched = FACTS[spec.schedule.scheduler];
  // cron and launchd read the host clock: the picture shows it as it runs here, and says
  // when that is not the zone the entries are planned for.
  const actual = hostZone(io.etc);
  const w = week({ spec, scheduler: { id: sched.id, hostClock: sched.hostClock }, now: io.now().getTime(), hostZone: actual ?? plannedHostZone(spec) });
  if (argv.svg) {
    const file = posix.resolve(io.cwd, argv.svg);
    try {
      writeAtomic(file, weekSvg(w), 0o644);
    } catch (e) {
      throw fsError(e, file, 'write');
    }
    const wakes = w.fires.filter((f) => f.wake).length;
    line(io, `hbgen plan: wrote ${argv.svg} (the 7 days from today in ${w.workZone}: ${wakes} wakes, ${w.fires.length - wakes} fires that wake no agent)`);
  } else {
    for (const l of weekText(w)) line(io, l);
    const d = digestOf(spec);
    if (d) line(io, `digest: ${d.at} ${spec.schedule.hours.timezone}, ${digestWhen(spec)} (the wrapper sends it at a fire)`);
  }
  const clash = sched.hostClock ? hostZoneProblem(spec, actual) : null;
  if (clash) io.err(`hbgen: warning: ${clash}\n`);
  return 0;
}
