// Shared by the lifecycle commands: the spec by path (relative to the caller's cwd), the
// backend of each scheduler, and the render that tests may replace.
import { posix } from 'node:path';
import type { Backend } from '../host/backend.ts';
import { cron } from '../host/cron.ts';
import type { HostIO } from '../host/io.ts';
import { launchd } from '../host/launchd.ts';
import { systemd } from '../host/systemd.ts';
import { loadSpec } from '../load.ts';
import { renderSpec, type RenderResult } from '../render.ts';
import type { Spec } from '../spec.ts';

export const BACKENDS: Record<Spec['schedule']['scheduler'], Backend> = { launchd, 'systemd-user': systemd, cron };

export function specPath(io: HostIO, arg: string): string {
  return posix.resolve(io.cwd, arg);
}

export function loadFor(io: HostIO, arg: string): { spec: Spec; file: string } {
  const file = specPath(io, arg);
  // loadSpec names the file as given, so messages show what the user typed.
  const spec = loadSpec(io.cwd === process.cwd() ? arg : file);
  return { spec, file };
}

export function renderFor(io: HostIO, spec: Spec): RenderResult {
  return (io.render ?? renderSpec)(spec);
}

export function line(io: HostIO, s = ''): void {
  io.out(`${s}\n`);
}
