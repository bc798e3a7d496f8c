// Shared by the lifecycle commands: the spec by path (relative to the caller's cwd) and
// one line of output.
import { posix } from 'node:path';
import type { HostIO } from '../host/io.ts';
import { loadSpec } from '../load.ts';
import { FACTS } from '../scheduler-facts.ts';
import type { Spec } from '../spec.ts';
import { UserError } from '../errors.ts';

export function specPath(io: HostIO, arg: string): string {
  return posix.resolve(io.cwd, arg);
}

export function loadFor(io: HostIO, arg: string): { spec: Spec; file: string } {
  const file = specPath(io, arg);
  // loadSpec names the file as given, so messages show what the user typed.
  const spec = loadSpec(io.cwd === process.cwd() ? arg : file);
  return { spec, file };
}

export function line(io: HostIO, s = ''): void {
  io.out(`${s}\n`);
}

/**
 * --apply is an option of the backends that print the commands that change things for the
 * person to run (facts.printsCommand): refused, as a usage error, for every other scheduler.
 */
export function checkApply(spec: Spec, apply: boolean | undefined): void {
  if (!apply || FACTS[spec.schedule.scheduler].printsCommand) return;
  const who = Object.values(FACTS).filter((f) => f.printsCommand);
  throw new UserError([`--apply: only for schedule.scheduler ${who.map((f) => `"${f.id}" (it runs ${f.printsCommand})`).join(' or ')}; ${spec.schedule.scheduler} changes this host itself, without it`], 2);
}
