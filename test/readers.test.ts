// status, log and list read only regular files, bounded, and never block:
// a FIFO or a link to /dev/zero planted at each file they read in a state folder, and a
// 3 GiB (sparse) runtime.log. The commands run in a child process (test/helpers/readers-driver.ts
// runs all three) bounded by a spawn timeout, since a blocked read would never return: the
// assertion is that it returns, names the file, and (status) is unhealthy.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { ROOT } from './helpers/cli.ts';
import { hb, installedOnStandInCrontab, type Host } from './helpers/lifecycle.ts';

const DRIVER = join(ROOT, 'test/helpers/readers-driver.ts');

/** status, log and list in one child, killed after `ms`; null output when it had to be killed. */
function readers(h: Host, ms = 30_000): { out: string; killed: boolean; codes: Record<string, number> } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', DRIVER, h.specFile], { cwd: ROOT, env: { ...h.env }, encoding: 'utf8', timeout: ms, killSignal: 'SIGKILL' });
  const out = (r.stdout ?? '') + (r.stderr ?? '');
  const codes: Record<string, number> = {};
  for (const m of out.matchAll(/^==> (\w+) exit (\d+)$/gm)) codes[m[1]!] = Number(m[2]);
  return { out, killed: r.signal === 'SIGKILL', codes };
}

/** A cron install with its state folder outside the repo, on a recording STAND-IN crontab (never a real user's table), woken once. */
async function installed(): Promise<Host> {
  const h = await installedOnStandInCrontab();
  const w = await hb(h, 'wake');
  assert.ok(w.code === 0, w.err + w.out);
  return h;
}

/** Replace `path` by a FIFO or a link to /dev/zero (its parent made when missing). */
function plant(path: string, kind: 'fifo' | 'zero'): void {
  mkdirSync(join(path, '..'), { recursive: true });
  rmSync(path, { force: true });
  if (kind === 'fifo') execFileSync('mkfifo', [path]);
  else symlinkSync('/dev/zero', path);
}

// Each file status, log or list reads in the state folder (the lock owner inside a lock
// folder, as a wrapper without flock leaves it).
const FILES = ['wakes', 'state.json', 'heartbeat.sh', 'window.sh', 'host/crontab', 'heartbeat.lock.d/owner', 'runtime.log', 'runtime.log.1'];

for (const kind of ['fifo', 'zero'] as const) {
  test(`a ${kind === 'fifo' ? 'FIFO' : 'link to /dev/zero'} at each file status, log and list read: all three return, name the file, status is unhealthy`, async () => {
    const h = await installed();
    const n = names(h.spec);
    const healthy = readers(h);
    assert.not.ok(healthy.killed, healthy.out);
    assert.equal(healthy.codes, { status: 0, log: 0, list: 0 }, healthy.out);
    for (const f of FILES) {
      const p = join(n.stateDir, f);
      const saved = existsSync(p) ? `${p}.saved` : null;
      if (saved) renameSync(p, saved);
      plant(p, kind);
      const t0 = Date.now();
      const r = readers(h);
      const took = Date.now() - t0;
      rmSync(p, { force: true });
      if (saved) renameSync(saved, p);
      if (f === 'heartbeat.lock.d/owner') rmSync(join(n.stateDir, 'heartbeat.lock.d'), { recursive: true, force: true });
      assert.not.ok(r.killed, `${f}: the commands did not return within 30 s (${took} ms):\n${r.out}`);
      assert.equal(Object.keys(r.codes), ['status', 'log', 'list'], `${f}: every command ran to its end:\n${r.out}`);
      assert.ok(r.out.includes(p), `${f}: the output names ${p}:\n${r.out}`);
      assert.is(r.codes.status, 1, `${f}: status is unhealthy:\n${r.out}`);
      assert.is(r.codes.list, 0, `${f}: list does not fail:\n${r.out}`);
    }
  });
}

test('a sparse 3 GiB runtime.log in one state folder: list still lists every install, log and status work and say they read only its tail', async () => {
  const h = await installed();
  const other = await installed();
  const n = names(other.spec);
  // The other install's log: 3 GiB of holes, then one last line.
  truncateSync(n.log, 3 * 1024 ** 3);
  writeFileSync(n.log, `\n${new Date().toISOString().slice(0, 19)}Z hbgen docs quiet\n`, { flag: 'a' });
  const r = readers(other, 60_000);
  assert.not.ok(r.killed, r.out);
  assert.is(r.codes.list, 0, r.out);
  assert.is(r.codes.log, 0, r.out);
  assert.match(r.out, new RegExp(`${n.log.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is 3072 MiB, more than hbgen reads: only its last 16 MiB were read`));
  // Both installs are listed (each has its own HOME here: list the other's, then this one's).
  const rows = r.out.split('==> log exit')[1]!.split('\n').filter((l) => /^docs\s+cron\s+/.test(l));
  assert.is(rows.length, 1, r.out);
  assert.match(rows[0]!, /quiet/, 'the last outcome is read from the tail');
  const mine = readers(h);
  assert.is(mine.codes.list, 0, mine.out);
});

test.run();
