// One hbgen lifecycle operation (install, stop, resume) at a time per user: an atomic
// mkdir lock `$HOME/.hbgen.lock` holding "PID EPOCH". It spans the whole read → write of
// the crontab, the unit folder and the launchd domain, which every spec of the user
// shares. A lock whose PID is dead is taken over. It is removed when the operation ends,
// so it leaves nothing behind.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { formatLockOwner, parseLockOwner, sleep } from '../formats.ts';
import { homeOf, type HostIO } from './io.ts';

export interface OpLock {
  release(): void;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive and not a zombie (an exited child nobody reaped yet, as under a container's PID 1). */
export function pidRunning(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): launchd reaps orphans
  }
}

export async function acquireOpLock(io: HostIO, waitMs = 20_000): Promise<OpLock> {
  const dir = posix.join(homeOf(io), '.hbgen.lock');
  const token = formatLockOwner(process.pid, Math.floor(Date.now() / 1000));
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(posix.join(dir, 'owner'), `${token}\n`, { mode: 0o600 });
      return {
        release() {
          try {
            if (readFileSync(posix.join(dir, 'owner'), 'utf8').trim() === token) rmSync(dir, { recursive: true, force: true });
          } catch {
            // already gone
          }
        },
      };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        throw new UserError([`${dir}: cannot create hbgen's lock (${code}); check that your HOME is writable`]);
      }
    }
    let owner = '';
    try {
      owner = readFileSync(posix.join(dir, 'owner'), 'utf8').trim();
    } catch {
      owner = '';
    }
    const pid = parseLockOwner(owner)?.pid ?? 0;
    const age = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    // No owner a minute after mkdir: the process died between mkdir and the write.
    if ((pid > 0 && !pidAlive(pid)) || (owner === '' && age > 60_000)) {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new UserError([
        `another hbgen install, stop or resume is running (${pid > 0 ? `PID ${pid}` : 'its lock is being created'}, lock ${dir}); wait for it to finish and run the command again`,
      ]);
    }
    await sleep(200);
  }
}
