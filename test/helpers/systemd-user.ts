// A REAL systemd user manager (`systemd --user`) for a fresh scratch user, on a machine
// whose PID 1 is not systemd (a container), so that the systemd lifecycle runs against
// the real thing: units loaded by the real manager, real timers, real control groups.
// What it takes, as root:
// - /run/systemd/system exists: sd_booted(3) looks there, and `systemd --user` refuses to
//   start without it (made if missing; removed at the end when this process made it and
//   no other copy of the suite still runs a manager);
// - /run/user/UID, the user's runtime folder (0700, the user's), where systemctl --user
//   finds the manager's private socket;
// - a cgroup v2 folder delegated to the user (chowned to it: systemd.io/CGROUP_DELEGATION),
//   which the manager is started in and builds its slices and service cgroups under;
//   that is what KillMode=control-group needs;
// - the manager started in that cgroup as the user, with HOME and XDG_RUNTIME_DIR set
//   (setpriv, not runuser: setpriv execs, so the PID we keep is the manager's).
// loginctl has no logind here: tests use the linger STAND-IN from test/helpers/standins.ts.
// Teardown (also when the process ends on a failure or a signal, before the user is
// removed): TERM to the manager by its PID, KILL after a few seconds, kill whatever is
// left in its cgroup, remove the cgroup folders bottom-up, the runtime folder, the user.
//
// Where the machine cannot do it (not root, no cgroup v2, no /lib/systemd/systemd), the
// suite FAILS with one line naming what is missing, unless HBTEST_ALLOW_SKIP_SYSTEMD=1
// says a skip is fine (then it says so, loudly). It never passes without running.
import { alive } from './crond.ts';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onRemove, scratchUser, type ScratchUser } from './cronuser.ts';
import { type Host, makeHost } from './lifecycle.ts';
import { makeStandIns, type StandIns } from './standins.ts';
import type { SpecInput } from '../../src/spec.ts';

export const SYSTEMD = '/lib/systemd/systemd';
export const ALLOW_SKIP = 'HBTEST_ALLOW_SKIP_SYSTEMD';
const BOOTED = '/run/systemd/system';

/** Where cgroup v2 is mounted (/sys/fs/cgroup/unified on a hybrid host, /sys/fs/cgroup on a pure v2 one), or null. */
export function cgroup2Mount(): string | null {
  try {
    // mountinfo(5): "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPER".
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [left, right] = line.split(' - ');
      if (right?.split(' ')[0] === 'cgroup2') return left!.split(' ')[4]!.replace(/\\040/g, ' ');
    }
  } catch {}
  return null;
}

/** Why this machine cannot run a real user manager here, in a few words; '' when it can. */
export function whyNot(): string {
  if (process.getuid?.() !== 0) return 'the tests do not run as root (a user manager for a scratch user needs useradd, a delegated cgroup and /run/user)';
  if (!existsSync(SYSTEMD)) return `there is no ${SYSTEMD} (install the package systemd)`;
  for (const tool of ['systemctl', 'systemd-analyze', 'setpriv', 'runuser', 'useradd']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `there is no ${tool} on PATH`;
  }
  const cg = cgroup2Mount();
  if (!cg) return 'there is no cgroup v2 mount (`mount | grep cgroup2` shows none): a user manager needs one to delegate';
  const probe = join(cg, `hbgen-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
  } catch (e) {
    return `the cgroup v2 mount ${cg} is not writable (${(e as NodeJS.ErrnoException).code}): a container needs a writable cgroup to delegate`;
  }
  return '';
}

/**
 * The `test` to register the suite's tests with: `t` itself when a real manager can run
 * here. When it cannot: one failing test that says why (or, with HBTEST_ALLOW_SKIP_SYSTEMD=1,
 * a loud note), and `t.skip` for the rest.
 */
type Register = (name: string, fn: () => Promise<void> | void) => void;

export function realOrFail(t: Register & { skip: Register }, suite: string): Register {
  const why = whyNot();
  if (!why) return t;
  if (process.env[ALLOW_SKIP] === '1') {
    process.stderr.write(`\n!!! ${suite}: SKIPPED, the real systemd user manager cannot run here: ${why} (${ALLOW_SKIP}=1 allows the skip)\n\n`);
    return t.skip;
  }
  t(`${suite}: a real systemd user manager can run here`, () => {
    const e = new Error(`${suite}: cannot run a real systemd user manager: ${why}; run the suite as root on a Debian host with the README's apt line, or set ${ALLOW_SKIP}=1 to skip it`);
    e.stack = e.message; // one line, no stack: the stack says nothing here
    throw e;
  });
  return t.skip;
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

export interface UserManager {
  user: ScratchUser;
  /** The manager's PID (systemd --user itself). */
  pid: number;
  /** The user's runtime folder, XDG_RUNTIME_DIR. */
  runtimeDir: string;
  /** The delegated cgroup folder the manager runs in. */
  cgroup: string;
  /** The loginctl STAND-IN every host of this user has first on PATH (linger only: no logind here). */
  linger: StandIns;
  /** The environment a command of the user gets: HOME, XDG_RUNTIME_DIR, PATH, LANG, TZ=UTC. */
  env: Record<string, string>;
  /** `systemctl --user ARGS…` as the user. */
  systemctl(...args: string[]): Run;
  /** Any command as the user, in its environment. */
  as(argv: string[]): Run;
  /**
   * A lifecycle host for this user: HOME is the user's home (where the manager reads
   * ~/.config/systemd/user), the state folder an explicit absolute path under it (so the
   * test never depends on the default), PATH holds only the loginctl STAND-IN before
   * /usr/bin:/bin (the real systemctl is used).
   */
  host(over?: Partial<SpecInput>): Host;
  /** A lifecycle command as the user (test/helpers/lifecycle-driver.ts, real wrapper). */
  hb(h: Host, cmd: 'install' | 'status' | 'stop' | 'resume' | 'wake', opts?: { yes?: boolean; dryRun?: boolean; firstWake?: boolean }): Run;
  /** End the manager and remove everything made for it (the user goes when the process exits). */
  stop(): Promise<void>;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);


/** The cgroup folder and every folder below it, deepest first. */
function cgroupDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out.push(...cgroupDirs(join(dir, e.name)));
  out.push(dir);
  return out;
}

function pidsIn(dir: string): number[] {
  return cgroupDirs(dir).flatMap((d) => {
    try {
      return readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/**
 * Synchronous (it also runs from process.on('exit')): TERM to the manager, KILL after 5 s,
 * then KILL to anything left in the delegated cgroup, then the folders bottom-up.
 */
function teardown(pid: number, cgroup: string, runtimeDir: string, madeBooted: boolean): void {
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 50 && alive(pid); i++) sleepSync(100);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (let i = 0; i < 30 && pidsIn(cgroup).length; i++) {
    // cgroup.kill (Linux 5.14) kills the whole subtree at once; else each process.
    if (existsSync(join(cgroup, 'cgroup.kill'))) writeFileSync(join(cgroup, 'cgroup.kill'), '1');
    else for (const p of pidsIn(cgroup)) try { process.kill(p, 'SIGKILL'); } catch {}
    sleepSync(100);
  }
  for (const d of cgroupDirs(cgroup)) {
    try {
      rmdirSync(d);
    } catch (e) {
      process.stderr.write(`systemd-user: could not remove the cgroup ${d} (${(e as Error).message})\n`);
    }
  }
  rmSync(runtimeDir, { recursive: true, force: true });
  const root = cgroupRootOf(cgroup);
  const others = existsSync(root) ? readdirSync(root).filter((f) => f.startsWith('hbgen-test-')) : [];
  if (madeBooted && others.length === 0) rmSync(BOOTED, { recursive: true, force: true });
}

const cgroupRootOf = (cg: string) => cg.replace(/\/[^/]+$/, '');

/** Polls `systemctl --user is-system-running` until running or degraded; throws with the manager's log after `ms`. */
async function waitRunning(m: Pick<UserManager, 'systemctl' | 'pid'>, child: ChildProcess, log: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const r = m.systemctl('is-system-running');
    last = (r.out || r.err).trim();
    if (last === 'running' || last === 'degraded') return;
    await new Promise((res) => setTimeout(res, 100));
  }
  const why = child.exitCode !== null || child.signalCode !== null ? `it exited (${child.exitCode ?? child.signalCode})` : `is-system-running still says "${last}" after ${ms / 1000} s`;
  throw new Error(`systemd --user did not start: ${why}; its output:\n${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`);
}

/**
 * A scratch user named after `prefix` with its own running `systemd --user`. The caller
 * awaits stop() at the end; if it does not get there, the exit hooks do the same.
 */
export async function startUserManager(prefix: string): Promise<UserManager> {
  const why = whyNot();
  if (why) throw new Error(`cannot run a real systemd user manager: ${why}`);
  const user = scratchUser(prefix);
  const runtimeDir = `/run/user/${user.uid}`;
  const cgroup = join(cgroup2Mount()!, `hbgen-test-${user.name}`);
  const log = join(tmpdir(), `hbgen-test-${user.name}.log`);
  // One loginctl STAND-IN for all the user's hosts, as there is one logind per machine.
  const lingerDir = join(tmpdir(), `hbgen-test-${user.name}.linger`);
  const madeBooted = !existsSync(BOOTED);
  let pid = 0;
  let done = false;
  // Once only: after stop() the PID may already belong to another process.
  const end = () => {
    if (!done) teardown(pid, cgroup, runtimeDir, madeBooted);
    done = true;
    rmSync(lingerDir, { recursive: true, force: true });
    rmSync(log, { force: true });
  };
  onRemove(user.name, end);

  mkdirSync(BOOTED, { recursive: true });
  rmSync(runtimeDir, { recursive: true, force: true });
  mkdirSync('/run/user', { recursive: true, mode: 0o755 });
  mkdirSync(runtimeDir, { mode: 0o700 });
  chownSync(runtimeDir, user.uid, user.gid);
  mkdirSync(cgroup);
  // Delegation: the folder and its interface files belong to the user (systemd.io/CGROUP_DELEGATION).
  for (const f of ['', ...readdirSync(cgroup)]) chownSync(join(cgroup, f), user.uid, user.gid);
  const linger = makeStandIns(lingerDir);
  for (const t of ['systemctl', 'launchctl']) rmSync(join(lingerDir, t));
  spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, lingerDir]);

  // TZ=UTC for every command of the user: list-timers, status and systemd-analyze then
  // print their times in one zone, whatever /etc/localtime says.
  const env = { HOME: user.home, XDG_RUNTIME_DIR: runtimeDir, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', TZ: 'UTC' };
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const setpriv = ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', 'env', '-i', ...envArgs];
  const fd = openSync(log, 'w');
  // The shell moves itself into the delegated cgroup, then execs (setpriv, env: both exec)
  // into the manager, so the child's PID is the manager's.
  const child = spawn('/bin/sh', ['-c', 'echo $$ >"$0/cgroup.procs" && exec "$@"', cgroup, ...setpriv, SYSTEMD, '--user'], { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  pid = child.pid!;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));

  const as = (argv: string[]): Run => {
    const r = spawnSync(setpriv[0]!, [...setpriv.slice(1), ...argv], { cwd: '/', encoding: 'utf8', timeout: 60_000 });
    if (r.error) throw r.error;
    return { code: r.status ?? 128, out: r.stdout, err: r.stderr };
  };
  const m: UserManager = {
    user,
    pid,
    runtimeDir,
    cgroup,
    linger,
    env,
    as,
    systemctl: (...args) => as(['systemctl', '--user', ...args]),
    host(over = {}) {
      const name = over.name ?? 'docs';
      const h = makeHost('systemd-user', { env: { HOME: user.home, PATH: '/usr/bin:/bin' }, stateDir: join(user.home, 'hbgen-state', name), ...over });
      // Only the loginctl stand-in on PATH: systemctl is the real one.
      h.tools = linger;
      h.home = user.home;
      h.env = { ...h.env, HOME: user.home, PATH: `${linger.bin}:/usr/bin:/bin` };
      user.own(h);
      return h;
    },
    hb: (h, cmd, opts = {}) => user.run(h, cmd, { ...opts, env: { XDG_RUNTIME_DIR: runtimeDir, TZ: 'UTC' } }),
    async stop() {
      end();
      // Reaped by node: wait for it (ref'd again, or the process might end first).
      child.ref();
      if (child.exitCode === null && child.signalCode === null) await exited;
    },
  };
  await waitRunning(m, child, log, 20_000);
  return m;
}
