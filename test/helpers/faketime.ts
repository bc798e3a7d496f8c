// libfaketime for the tests that run a wrapper at a chosen moment: the library, one keeper
// of its shared memory per suite (fakeClock), and faketime(1) retried (faketimeSync).
//
// faketime(1) from Debian's libfaketime 0.9.10 names its semaphore and shared memory after
// its own PID (/faketime_sem_<pid>) and gives up with "sem_open: File exists" when an
// earlier process of the same PID left them behind (one killed before its cleanup: on a
// busy machine PIDs come round again). That is the tool failing to start, not a result:
// such a run is repeated, and only then does the caller see it.
import { type SpawnSyncOptionsWithStringEncoding, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export function faketimeSync(args: string[], opts: SpawnSyncOptionsWithStringEncoding): SpawnSyncReturns<string> {
  let r = spawnSync('faketime', args, opts);
  for (let i = 0; i < 4 && /^faketime: sem_open: File exists/m.test(r.stderr ?? ''); i++) r = spawnSync('faketime', args, opts);
  return r;
}

/** libfaketime's preload library (Debian's faketime package), where it is installed. */
export const FAKETIME_LIB = ['x86_64-linux-gnu', 'aarch64-linux-gnu'].map((a) => `/usr/lib/${a}/faketime/libfaketime.so.1`).find((p) => existsSync(p));

export interface FakeClock {
  /** The keeper's PID: its semaphore is /dev/shm/sem.faketime_sem_<pid>. */
  pid: number;
  /** The spec env that runs a wrapper (and everything it starts) with its clock reading `at` (a UTC instant) now, at the real pace. */
  envAt(at: string): Record<string, string>;
  /** Whether the keeper's semaphore is there (waits up to 2 s for it). */
  ready(): Promise<boolean>;
}

/**
 * libfaketime (0.9.10) makes a semaphore and shared memory named after the first process
 * that loads it, passes their names on in FAKETIME_SHARED, and removes them when a process
 * that thinks it made them exits, which forked subshells of the wrapper do: the next tool
 * the wrapper starts then fails at random ("sem_open failed"). So one process that lives as
 * long as the suite owns them (killed, and its files removed, when the suite exits), and
 * every wrapper is handed their names.
 */
export function fakeClock(): FakeClock {
  const keeper = spawn('/usr/bin/sleep', ['3600'], { env: { LD_PRELOAD: FAKETIME_LIB ?? '', FAKETIME: '+0' }, stdio: 'ignore' });
  keeper.unref();
  const pid = keeper.pid!;
  process.on('exit', () => {
    keeper.kill('SIGKILL');
    for (const f of [`sem.faketime_sem_${pid}`, `faketime_shm_${pid}`]) rmSync(join('/dev/shm', f), { force: true });
  });
  const shared = `/faketime_sem_${pid} /faketime_shm_${pid}`;
  return {
    pid,
    envAt(at) {
      const off = Math.round((Date.parse(at) - Date.now()) / 1000);
      return { LD_PRELOAD: FAKETIME_LIB!, FAKETIME: `${off >= 0 ? '+' : ''}${off}`, FAKETIME_SHARED: shared };
    },
    async ready() {
      for (let i = 0; i < 100 && !existsSync(`/dev/shm/sem.faketime_sem_${pid}`); i++) await new Promise((r) => setTimeout(r, 20));
      return existsSync(`/dev/shm/sem.faketime_sem_${pid}`);
    },
  };
}
