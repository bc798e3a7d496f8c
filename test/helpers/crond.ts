// The real cron daemon is one per machine, and two suites run it (escape.test.ts and
// lifecycle-crond.test.ts), possibly at the same time: one suite stopping "its" daemon
// would leave the other waiting for a fire that never comes. So every use goes through
// withCronDaemon: one holder at a time (a mkdir lock across processes, taken over when its
// holder is dead), a live daemon guaranteed while the holder runs, and the daemon stopped
// afterwards only when this holder started it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// In /tmp itself, not TMPDIR: the daemon is one per machine, so every copy of the suite,
// whatever its environment, must meet at the same lock.
const LOCK = '/tmp/hbgen-test-crond.lock.d';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function lock(): Promise<void> {
  // Another copy of the suite may hold the daemon for a couple of minutes per suite.
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'owner'), String(process.pid));
      return;
    } catch {
      let owner = 0;
      try {
        owner = Number(readFileSync(join(LOCK, 'owner'), 'utf8'));
      } catch {}
      if (owner && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`the cron daemon stayed busy (lock ${LOCK}, holder ${owner})`);
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function withCronDaemon<T>(fn: () => Promise<T>): Promise<T> {
  await lock();
  let daemon: ChildProcess | undefined;
  const stop = () => daemon?.kill('SIGTERM');
  process.once('exit', stop);
  try {
    // Always start one: looking for a "cron" process is not enough, since the daemon's job
    // children keep that name (a cron.daily job sleeping 30 minutes looked like a daemon).
    // Debian's cron holds a lock on its pid file, so a second daemon exits at once, and
    // then the one that holds the lock serves the test.
    const started = spawn('/usr/sbin/cron', ['-f'], { stdio: 'ignore' });
    const early = await Promise.race([
      new Promise<boolean>((r) => started.once('exit', () => r(true))),
      new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
    ]);
    if (!early) daemon = started;
    return await fn();
  } finally {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
    process.off('exit', stop);
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * The next whole minute at least `leadMs` away, never :00 (a spec's minute is 1–59): when a
 * suite's entry fires, so that cron's own fire is what the suite waits for.
 */
export function nextCronMinute(leadMs = 25_000): { at: number; minute: number } {
  let at = Math.ceil((Date.now() + leadMs) / 60_000) * 60_000;
  if (new Date(at).getUTCMinutes() === 0) at += 60_000;
  return { at, minute: new Date(at).getUTCMinutes() };
}
