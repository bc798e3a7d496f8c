// One hbgen lifecycle operation (install, stop, resume) at a time per user: an atomic
// mkdir lock `$HOME/.hbgen.lock` holding "PID EPOCH". It spans the whole read → write of
// the crontab, the unit folder and the launchd domain, which every spec of the user
// shares. It is removed when the operation ends, so it leaves nothing behind.
//
// A lock left behind (a killed hbgen, a reboot) must not block every later command: it is
// taken over at once, with a note, when its PID is not running, when that PID is not the
// hbgen that took it (another command line, recorded next to the owner record, or a
// process that started after the lock was taken: the PID was reused), or when it is older
// than any operation can take (OP_LOCK_MAX_S: its holder refreshes it while it runs).
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import { formatLockOwner, parseLockOwner, sleep } from '../../formats.ts';
import { homeOf, type HostIO } from '../io.ts';
import { procStat, processInfo, programOf, startedBy } from './ps.ts';

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
  // No /proc entry (macOS): launchd reaps orphans, so an alive PID is no zombie.
  return procStat(pid)?.[0] !== 'Z';
}

/**
 * A lock not refreshed for this long is left over. The holder refreshes it (the owner
 * file's mtime) every OP_LOCK_REFRESH_MS while it runs, so no operation, however long
 * (stop waits killAfter + 2 s for a running heartbeat), comes near it; an hbgen killed
 * mid-operation stops refreshing, and ten minutes later its lock is taken over. Ten
 * minutes, not one: a machine suspended mid-operation resumes with a lock that looks old.
 */
export const OP_LOCK_MAX_S = 600;
const OP_LOCK_REFRESH_MS = 30_000;

/** The command line of this process, as processInfo reads other processes' (kept in the lock). */
async function ownCommand(io: HostIO): Promise<string> {
  return (await processInfo(io, process.pid))?.args ?? '';
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Why the lock at `dir` is left over and may be taken over now, or null while an hbgen holds it. */
async function leftOver(io: HostIO, dir: string): Promise<string | null> {
  const owner = readText(posix.join(dir, 'owner'));
  const o = parseLockOwner(owner);
  const ageMs = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
  // No owner a minute after mkdir: the process died between mkdir and the write.
  if (!o) return owner === '' && ageMs <= 60_000 ? null : `it has no owner record and is ${Math.round(ageMs / 1000)} s old`;
  const touched = statSync(posix.join(dir, 'owner'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const age = Math.floor(io.now().getTime() / 1000) - Math.max(o.epoch, Math.floor(touched / 1000));
  if (!pidAlive(o.pid)) return `its PID ${o.pid} is not running`;
  if (age > OP_LOCK_MAX_S) return `its holder has not refreshed it for ${age} s, longer than any running hbgen lets pass (${OP_LOCK_MAX_S} s)`;
  const p = await processInfo(io, o.pid);
  if (!p) return null; // alive but not readable (another user's process): wait for it
  const cmd = readText(posix.join(dir, 'command'));
  if (cmd !== '' && p.args !== cmd) return `its PID ${o.pid} is now another program (${programOf(p)}), not the hbgen that took it`;
  if (!startedBy(p, o.epoch)) return `its PID ${o.pid} started after the lock was taken, so the PID was reused`;
  return null;
}

/** The lock at `dir`, now this process's: refreshed while it runs, removed on release if still its own. */
function held(dir: string, token: string): OpLock {
  const owner = posix.join(dir, 'owner');
  const refresh = setInterval(() => {
    try {
      const t = new Date();
      utimesSync(owner, t, t);
    } catch {
      // taken over or removed: release() will find that out
    }
  }, OP_LOCK_REFRESH_MS);
  refresh.unref();
  return {
    release() {
      clearInterval(refresh);
      try {
        if (readFileSync(owner, 'utf8').trim() === token) rmSync(dir, { recursive: true, force: true });
      } catch {
        // already gone
      }
    },
  };
}

export async function acquireOpLock(io: HostIO, waitMs = 20_000): Promise<OpLock> {
  const dir = posix.join(homeOf(io), '.hbgen.lock');
  const token = formatLockOwner(process.pid, Math.floor(io.now().getTime() / 1000));
  const command = await ownCommand(io);
  const deadline = Date.now() + waitMs;
  for (;;) {
    let made = false;
    try {
      mkdirSync(dir, { mode: 0o700 });
      made = true;
      writeFileSync(posix.join(dir, 'command'), `${command}\n`, { mode: 0o600 });
      writeFileSync(posix.join(dir, 'owner'), `${token}\n`, { mode: 0o600 });
      return held(dir, token);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A lock this process made but could not fill (a full disk takes the owner record,
      // not the folder) goes again at once: left there, every hbgen after it would wait
      // a minute for an owner record that never comes.
      if (made) rmSync(dir, { recursive: true, force: true });
      if (code === 'ENOSPC' || code === 'EDQUOT') {
        throw new UserError([`${dir}: cannot write hbgen's lock, the disk holding your HOME is full (${code}); free some space and run the command again`]);
      }
      if (code !== 'EEXIST') {
        throw new UserError([`${dir}: cannot create hbgen's lock (${code}); check that your HOME is writable`]);
      }
    }
    const seen = readText(posix.join(dir, 'owner'));
    const why = await leftOver(io, dir);
    // Remove only the lock that was judged, not one another hbgen has taken meanwhile.
    if (why !== null && readText(posix.join(dir, 'owner')) === seen) {
      rmSync(dir, { recursive: true, force: true });
      io.out(`hbgen: took over the lock ${dir} left behind by an earlier hbgen (${why})\n`);
      continue;
    }
    if (Date.now() > deadline) {
      const pid = parseLockOwner(readText(posix.join(dir, 'owner')))?.pid ?? 0;
      throw new UserError([
        `another hbgen install, stop or resume is running (${pid > 0 ? `PID ${pid}` : 'its lock is being created'}, lock ${dir}); wait for it to finish and run the command again`,
      ]);
    }
    await sleep(200);
  }
}
