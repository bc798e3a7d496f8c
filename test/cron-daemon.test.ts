// needs root: it starts the real cron daemon; it mounts (unshare -m, mount)
// Install on the cron backend checks that a cron daemon runs, and refuses
// with the command that starts it when none does. The process table is the real one: a
// stand-in daemon (test/helpers/cron-daemon.ts, sleep(1) named cron) where one must run,
// and a PID namespace of its own (unshare(1), as root) where none may, so that a cron
// daemon elsewhere on this machine cannot hide the refusal.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cronDaemonRefusal, cronInTable, startCommand } from '../src/host/cron/daemon.ts';
import { processes } from '../src/host/proc/ps.ts';
import { HBGEN } from './helpers/cli.ts';
import { makeStub } from './helpers/crontab.ts';
import { hostIO, makeHost } from './helpers/lifecycle.ts';

test('the process table: a daemon named cron (or crond) is found; the same table without it is not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-crond.'));
  copyFileSync('/bin/sleep', join(dir, 'crond'));
  const child = spawn(join(dir, 'crond'), ['30'], { stdio: 'ignore' });
  try {
    const h = makeHost('cron');
    await new Promise((r) => setTimeout(r, 200));
    const table = await processes(hostIO(h));
    const mine = table.filter((p) => p.pid === child.pid);
    assert.is(mine.length, 1);
    assert.ok(cronInTable(mine), mine[0]!.args);
    const none = table.filter((p) => !cronInTable([p]));
    assert.not.ok(cronInTable(none));
    assert.ok(cronInTable([{ ...mine[0]!, args: 'busybox crond -f -l 8' }]), 'busybox crond');
    assert.not.ok(cronInTable([{ ...mine[0]!, args: '/usr/bin/vim /etc/crontab' }]));
    const said = await cronDaemonRefusal(hostIO(h), none);
    assert.is(said, `schedule.scheduler is "cron" but no cron daemon runs on this host (no cron or crond process${existsSync('/run/systemd/system') ? ', and cron.service is not active' : ''}), so the crontab entry would never fire; start it with \`${startCommand()}\`, then run \`hbgen install\` again`);
    assert.is(await cronDaemonRefusal(hostIO(h), mine), null);
  } finally {
    child.kill();
  }
});

test('install on cron where no cron daemon runs (a PID namespace of its own): refused with the start command, nothing written', () => {
  if (spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status !== 0) {
    console.log('  (skipped: unshare --pid needs root)');
    return;
  }
  // The host's own clock (the CLI reads this machine's /etc/localtime), so that only the daemon is in question.
  const zone = spawnSync('date', ['+%Z'], { encoding: 'utf8' }).stdout.trim() === 'UTC' ? 'Etc/UTC' : undefined;
  const h = makeHost('cron', zone ? { schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: zone } } } : {});
  const stub = makeStub();
  try {
    const env = { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` };
    const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, HBGEN, 'install', h.specFile, '--yes'], { cwd: h.root, env, encoding: 'utf8' });
    assert.is(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^hbgen: schedule\.scheduler is "cron" but no cron daemon runs on this host \(no cron or crond process.*\), so the crontab entry would never fire; start it with `sudo (systemctl enable --now cron|service cron start|crond)[^`]*`, then run `hbgen install` again\n/m);
    assert.is(stub.table(), null, 'the crontab was not written');
    // The same install where the daemon runs (the stand-in, outside the namespace) goes ahead.
    const ok = spawnSync(process.execPath, [HBGEN, 'install', h.specFile, '--yes'], { cwd: h.root, env, encoding: 'utf8' });
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(stub.table()!.toString('latin1'), /# BEGIN hbgen docs\n/);
  } finally {
    stub.remove();
  }
});

test.run();
