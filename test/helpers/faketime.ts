// faketime(1) from Debian's libfaketime 0.9.10 names its semaphore and shared memory after
// its own PID (/faketime_sem_<pid>) and gives up with "sem_open: File exists" when an
// earlier process of the same PID left them behind (one killed before its cleanup: on a
// busy machine PIDs come round again). That is the tool failing to start, not a result:
// such a run is repeated, and only then does the caller see it.
import { type SpawnSyncOptionsWithStringEncoding, type SpawnSyncReturns, spawnSync } from 'node:child_process';

export function faketimeSync(args: string[], opts: SpawnSyncOptionsWithStringEncoding): SpawnSyncReturns<string> {
  let r = spawnSync('faketime', args, opts);
  for (let i = 0; i < 4 && /^faketime: sem_open: File exists/m.test(r.stderr ?? ''); i++) r = spawnSync('faketime', args, opts);
  return r;
}
