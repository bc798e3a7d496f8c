// Shared by the lifecycle commands: the spec by path (relative to the caller's cwd) and
// one line of output.
import { posix } from 'node:path';
import type { HostIO } from '../host/io.ts';
import { loadSpec } from '../load.ts';
import type { Spec } from '../spec.ts';

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
