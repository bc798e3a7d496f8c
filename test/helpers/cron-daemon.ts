// A STAND-IN cron daemon for the suites that install on the cron backend (install refuses
// when no cron daemon runs: src/host/cron-daemon.ts): a copy of sleep(1) named `cron`, so
// that the process table shows one, started once per test process and ended at its exit.
// It fires nothing; the suites that need real fires start the real daemon (test/helpers/crond.ts).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let started = false;

export function cronDaemonStandIn(): void {
  if (started) return;
  started = true;
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-crond-standin.'));
  copyFileSync('/bin/sleep', join(dir, 'cron'));
  const child = spawn(join(dir, 'cron'), ['86400'], { detached: true, stdio: 'ignore' });
  child.unref();
  process.on('exit', () => {
    try {
      process.kill(child.pid!, 'SIGTERM');
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
}
