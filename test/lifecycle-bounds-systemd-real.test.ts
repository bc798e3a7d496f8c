// needs root: it starts the real cron daemon; it starts a real systemd user manager for a scratch user; it runs commands as other users (runuser)
// The wake's bounds under a REAL systemd user manager (test/helpers/systemd-user.ts): the
// installed service carries TasksMax=, MemoryMax= and MemorySwapMax=0, the manager starts
// it, and a fork bomb runs in it. Where cgroup v2 has the pids and memory controllers the
// service's cgroup holds the bound; where it has not (cgroup v1 or hybrid hosts, this
// machine among them), systemd accepts TasksMax= and enforces nothing, so the wrapper
// finds no cgroup that holds the bound and runs the agent under RLIMIT_NPROC instead. The
// test says which of the two this machine is, and checks that one for real: the bomb stays
// under its bound, the user's own process started from outside the wake starts, and the
// wake ends with the limit's outcome. Then cron with that user manager: the wrapper asks it
// for a transient scope, and where it cannot make one (here), the wake runs under rlimits.
// Where the machine cannot run a user manager the suite fails with one line saying why
// (HBTEST_ALLOW_SKIP_SYSTEMD=1 turns that into a loud skip).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { bombAgent, bombFifo, cgroupBounds, tasksOf } from './helpers/bounds.ts';
import { realOrFail, startUserManager } from './helpers/systemd-user.ts';
import { withCronDaemon } from './helpers/crond.ts';

const real = realOrFail(test, 'lifecycle-bounds-systemd-real');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A host of the scratch user whose agent is the fork bomb, bounded to 64 tasks, installed. */
function bombInstalled(M: Awaited<ReturnType<typeof startUserManager>>, name: string, scheduler: 'systemd-user' | 'cron', minute: number) {
  const h = M.host({ name, schedule: { scheduler, every: '1h', minute, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } }, timeout: '3m', limits: { tasks: 64, memory: '512M' } });
  const marks = join(h.root, 'marks');
  mkdirSync(marks);
  bombFifo(marks);
  writeFileSync(h.bin, bombAgent(marks, names(h.spec).stateDir), { mode: 0o755 });
  M.user.own(h);
  return { h, marks, r: M.hb(h, 'install', { yes: true }) };
}

real('real systemd user manager: the service carries the bounds, and a fork bomb in it stays under limits.tasks (by its cgroup, or by RLIMIT_NPROC where the controllers are missing) while the user\'s own process starts; the wake ends with the limit\'s outcome', async () => {
  const M = await startUserManager('hbgen-sdbomb');
  try {
    // A timer fire half an hour away (never :00, which the spec refuses): only the test's own start runs a wake.
    const minute = (new Date().getUTCMinutes() + 30) % 60 || 59;
    const { h, marks, r } = bombInstalled(M, 'bomb', 'systemd-user', minute);
    assert.is(r.code, 0, r.err + r.out);
    assert.match(r.out, /^ {2}limits +tasks 64, memory 512M, no swap, disk unbounded$/m, r.out);

    // The manager read the bounds from the unit.
    const shown = M.systemctl('show', 'hbgen-bomb.service', '--property=TasksMax', '--property=MemoryMax', '--property=MemorySwapMax');
    assert.is(shown.code, 0, shown.err);
    assert.match(shown.out, /^TasksMax=64$/m);
    assert.match(shown.out, /^MemoryMax=536870912$/m);
    assert.match(shown.out, /^MemorySwapMax=0$/m);

    const cg = cgroupBounds();
    process.stderr.write(`\n!!! lifecycle-bounds-systemd-real: cgroup v2 ${cg.mount ?? '(none mounted)'} has the controllers [${cg.controllers.join(' ')}]: ${cg.holds ? "the service's cgroup holds the bounds" : 'systemd enforces neither TasksMax= nor MemoryMax= here; the wrapper bounds the agent with rlimits, and that is what runs'}\n\n`);

    const started = M.systemctl('start', '--no-block', 'hbgen-bomb.service');
    assert.is(started.code, 0, started.err);
    const log = () => (existsSync(names(h.spec).log) ? readFileSync(names(h.spec).log, 'utf8') : '');
    const deadline = Date.now() + 90_000;
    while (!existsSync(join(marks, 'full')) && Date.now() < deadline) await sleep(200);
    assert.ok(existsSync(join(marks, 'full')), `the bomb never reported a refused fork; its log:\n${log()}`);
    const held = tasksOf(M.user.uid);
    // The user manager and its helpers are the user's too (under RLIMIT_NPROC they count).
    assert.ok(held >= 56 && held <= 64 + 8, `the user's tasks while the bomb holds its bound: ${held}`);
    const own = spawnSync('runuser', ['-u', M.user.name, '--', '/bin/sh', '-c', 'echo "own process $$ started"'], { encoding: 'utf8', timeout: 20_000 });
    assert.is(own.status, 0, `runuser as ${M.user.name} during the wake: ${own.stderr}`);
    assert.match(own.stdout, /^own process \d+ started$/m);
    writeFileSync(join(marks, 'go'), 'released\n');

    // The wake's outcome: the first outcome line after its start (install's smoke run has its own before).
    const outcome = () => log().split(/^\S+ hbgen bomb start wake 1$/m)[1]?.split('\n').map((l) => /^\S+ hbgen bomb ((?:fail|ok|quiet|timeout|error)\b.*)$/.exec(l)?.[1]).find(Boolean);
    while (!outcome() && Date.now() < deadline + 30_000) await sleep(300);
    const bounds = readFileSync(join(marks, 'bounds'), 'utf8');
    if (cg.holds) {
      assert.match(bounds, /^cgroup - /, bounds);
      assert.is(outcome(), 'fail 1 limits.tasks reached (64 tasks); raise limits.tasks in the spec', log());
    } else {
      // The service's own cgroup folder is there (the wrapper found it), but no pids.max in it.
      assert.match(bounds, /^rlimit nproc\+data - - \S*\/hbgen-bomb\.service$/m, bounds);
      assert.is(outcome(), 'fail 1 limits.tasks reached (64 tasks of the user, inferred); raise limits.tasks in the spec', log());
    }
    assert.is(M.hb(h, 'stop').code, 0);
  } finally {
    await M.stop();
  }
});

// cron with a user manager: the wrapper asks it for a transient scope at every wake
// (systemd-run --user --scope, probed once with `true`). A manager that cannot make one
// (here: cron's job is outside the manager's delegated cgroup, and no system manager runs
// to move it) must never leave the wake without its bounds: rlimits then, as without one.
real('real cron daemon and a real user manager: the wake runs in a transient scope where the manager makes one, else under rlimits; a fork bomb stays under its bound either way', () =>
  withCronDaemon(async () => {
    const M = await startUserManager('hbgen-scope');
    try {
      let at = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
      if (new Date(at).getUTCMinutes() === 0) at += 60_000;
      const minute = new Date(at).getUTCMinutes();
      const { h, marks, r } = bombInstalled(M, 'scoped', 'cron', minute);
      assert.is(r.code, 0, r.err + r.out);
      // What the wrapper's probe will find: the same question, asked from outside the manager's cgroup as cron's job is.
      const probe = M.as(['systemd-run', '--user', '--scope', '--collect', 'true']);
      process.stderr.write(`\n!!! lifecycle-bounds-systemd-real: systemd-run --user --scope from outside the manager's cgroup ${probe.code === 0 ? 'works here: the wake runs in a transient scope' : `is refused here (exit ${probe.code}: ${probe.err.trim()}): the wake runs under rlimits`}\n\n`);

      const log = () => (existsSync(names(h.spec).log) ? readFileSync(names(h.spec).log, 'utf8') : '');
      while (!existsSync(join(marks, 'full')) && Date.now() < at + 60_000) await sleep(200);
      assert.ok(existsSync(join(marks, 'full')), `the bomb never reported a refused fork; its log:\n${log()}`);
      const held = tasksOf(M.user.uid);
      assert.ok(held >= 56 && held <= 64 + 8, `the user's tasks while the bomb holds its bound: ${held}`);
      const own = spawnSync('runuser', ['-u', M.user.name, '--', '/bin/sh', '-c', 'echo "own process $$ started"'], { encoding: 'utf8', timeout: 20_000 });
      assert.is(own.status, 0, `runuser as ${M.user.name} during the wake: ${own.stderr}`);
      writeFileSync(join(marks, 'go'), 'released\n');

      const outcome = () => log().split(/^\S+ hbgen scoped start wake 1$/m)[1]?.split('\n').map((l) => /^\S+ hbgen scoped ((?:fail|ok|quiet|timeout|error)\b.*)$/.exec(l)?.[1]).find(Boolean);
      while (!outcome() && Date.now() < at + 150_000) await sleep(300);
      const bounds = readFileSync(join(marks, 'bounds'), 'utf8');
      const cg = cgroupBounds();
      if (probe.code === 0) {
        // In the scope: its cgroup folder in the record (as the agent copied it when it started).
        assert.match(bounds, cg.holds ? /^cgroup - \d+ \d+ \S*\.scope$/m : /^rlimit nproc\+data - - \S*\.scope$/m, bounds);
      } else {
        assert.match(bounds, /^rlimit nproc\+data - - /, bounds);
        assert.not.match(bounds, /\.scope/);
      }
      assert.match(outcome() ?? '', cg.holds && probe.code === 0 ? /^fail 1 limits\.tasks reached \(64 tasks\); raise limits\.tasks in the spec$/ : /^fail 1 limits\.tasks reached \(64 tasks of the user, inferred\); raise limits\.tasks in the spec$/, log());
      spawnSync('crontab', ['-u', M.user.name, '-r']);
    } finally {
      await M.stop();
    }
  }));

test.run();
