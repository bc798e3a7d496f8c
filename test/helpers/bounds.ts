// What the real bounds suites share: the fork-bomb agent, and the user's tasks as
// RLIMIT_NPROC counts them (test/lifecycle-bounds-real.test.ts, under the real cron daemon;
// test/lifecycle-bounds-systemd-real.test.ts, under the real systemd user manager).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cgroup2Mount } from './systemd-user.ts';

/**
 * A fork bomb: first a copy of the wake's bounds record (`state`/bounds, which the wrapper
 * removes when it reaps the wake) as `marks`/bounds, then sleepers until a fork is refused
 * (dash ends "Cannot fork", exit 2). The agent then marks that it holds the bound (`marks`/full) and waits, fork-free, on the FIFO
 * `marks`/go that the test writes once its own process of this user has started; it exits
 * 1 with its sleepers still there, as a bomb's leftovers are.
 */
export const bombAgent = (marks: string, state: string) => `#!/bin/sh
cat '${state}/bounds' >'${marks}/bounds'
/bin/sh -c 'n=0; while [ "$n" -lt 100000 ]; do sleep 90 & n=$((n + 1)); done'
echo "bomb: a fork was refused" >&2
: >'${marks}/full'
read -r word <'${marks}/go'
echo "bomb: $word" >&2
exit 1
`;

/** The FIFO the bomb waits on, made in `marks` (a folder the user will own). */
export function bombFifo(marks: string): void {
  const r = spawnSync('mkfifo', [join(marks, 'go')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mkfifo ${marks}/go: ${r.stderr}`);
}

/** How many tasks (threads of processes) of `uid` there are now, as RLIMIT_NPROC counts them. */
export function tasksOf(uid: number): number {
  let n = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(readFileSync(`/proc/${p}/status`, 'utf8'))) continue;
      n += readdirSync(`/proc/${p}/task`).length;
    } catch {}
  }
  return n;
}

/** The cgroup v2 controllers of this machine: whether a cgroup can hold the bounds here. */
export function cgroupBounds(): { mount: string | null; controllers: string[]; holds: boolean } {
  const mount = cgroup2Mount();
  const f = mount ? join(mount, 'cgroup.controllers') : '';
  const controllers = f && existsSync(f) ? readFileSync(f, 'utf8').trim().split(/\s+/).filter(Boolean) : [];
  return { mount, controllers, holds: controllers.includes('pids') && controllers.includes('memory') };
}
