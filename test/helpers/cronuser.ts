// A scratch user whose real crontab (cronUser) or systemd user manager
// (test/helpers/systemd-user.ts, on top of scratchUser) the lifecycle tests may change,
// never a real user's: hbgen runs as that user under runuser through
// test/helpers/lifecycle-driver.ts; root reads and sets the table with `crontab -u`. Every
// run of a suite gets its own user (the name given, made unique), so that two copies of the
// suite on one machine never share a crontab or a user manager; the user, its crontab and
// its home are removed when the test process ends, whether it passed or not (after the
// hook its maker gave with onRemove, e.g. ending the user's processes).
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Host, StandInWrapper } from './lifecycle.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DRIVER = join(ROOT, 'test/helpers/lifecycle-driver.ts');
const C = { ...process.env, LC_ALL: 'C' };

type Register = ((name: string, fn: () => Promise<void> | void) => void) & { skip: (name: string, fn: () => Promise<void> | void) => void };

/**
 * `t` when the real crontab(1) tests can run here; else `t.skip`, said loudly, and under
 * CI=true one more test that FAILS saying why: a CI run must never pass with the real
 * tests skipped for want of root (or of crontab, runuser) without anyone seeing it.
 */
export function realOrSkip<T extends Register>(t: T, suite: string, why: string = whyNot()): T | T['skip'] {
  if (!why) return t;
  process.stderr.write(`\n!!! ${suite}: the real crontab(1) tests are SKIPPED (${why})\n\n`);
  if (process.env.CI === 'true') {
    t(`${suite}: the real crontab(1) tests can run here (CI=true)`, () => {
      throw new Error(`${suite}: the real crontab(1) tests cannot run here (${why}); CI runs them as root with crontab and runuser installed`);
    });
  }
  return t.skip;
}

export function whyNot(): string {
  if (process.getuid?.() !== 0) return 'not root';
  if (!existsSync('/usr/bin/crontab')) return 'no /usr/bin/crontab';
  if (spawnSync('runuser', ['--version']).error) return 'no runuser';
  return '';
}

export interface ScratchUser {
  name: string;
  uid: number;
  gid: number;
  /** The home folder useradd made. */
  home: string;
  /** Give the scratch user the host's files. */
  own(h: Host): void;
  /** A lifecycle command as this user, with HOME=h.home, PATH=h.env.PATH and `env` added. */
  run(h: Host, cmd: 'install' | 'status' | 'stop' | 'resume' | 'wake' | 'list' | 'doctor', opts?: { yes?: boolean; dryRun?: boolean; all?: boolean; json?: boolean; wrapper?: StandInWrapper; env?: Record<string, string>; firstWake?: boolean }): { code: number; out: string; err: string };
}

export interface CronUser extends ScratchUser {
  /** The table as root sees it (null: no crontab). */
  table(): Buffer | null;
  set(t: Buffer | null): void;
}

const made: string[] = [];
const beforeRemove = new Map<string, () => void>();

/**
 * `fn` runs (synchronously) before the scratch user `name` is removed, also when the
 * process ends on a signal: userdel needs the user's processes gone first.
 */
export function onRemove(name: string, fn: () => void): void {
  beforeRemove.set(name, fn);
}

/** Removes one scratch user: its crontab, then the account and its home. */
function removeUser(name: string): void {
  try {
    beforeRemove.get(name)?.();
  } catch (e) {
    process.stderr.write(`cronuser: cleaning up before removing ${name}: ${(e as Error).message}\n`);
  }
  beforeRemove.delete(name);
  spawnSync('crontab', ['-u', name, '-r'], { env: C, stdio: 'ignore' });
  // userdel refuses while a process of the user still runs (a wake the daemon started
  // may be finishing): try again for a few seconds, then force.
  for (let i = 0; i < 20; i++) {
    if (spawnSync('userdel', ['-r', name], { stdio: 'ignore' }).status === 0) return;
    if (spawnSync('id', ['-u', name], { stdio: 'ignore' }).status !== 0) return;
    spawnSync('sleep', ['0.25']);
  }
  spawnSync('userdel', ['-r', '-f', name], { stdio: 'ignore' });
}

function removeAll(): void {
  while (made.length) removeUser(made.pop()!);
}
process.on('exit', removeAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    removeAll();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const)[sig]);
  });
}

/**
 * `prefix` made unique on this machine (this process's PID and a random tail; at most 32
 * characters, as useradd wants). The caller creates the user; it is removed, with its
 * crontab and home, when this process exits.
 */
export function uniqueUserName(prefix: string): string {
  const name = `${prefix.slice(0, 16)}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  made.push(name);
  return name;
}

/** A new scratch user named after `prefix` (with a home), removed when this process exits. */
export function scratchUser(prefix: string): ScratchUser {
  const name = uniqueUserName(prefix);
  const r = spawnSync('useradd', ['-m', '-s', '/bin/sh', name], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`useradd ${name}: ${r.stderr}`);
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  const home = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.split(':')[5] ?? '';
  if (!home.startsWith('/')) throw new Error(`getent passwd ${name}: no home folder`);
  const chownTree = (p: string) => {
    chownSync(p, uid, gid);
    if (lstatSync(p).isDirectory()) for (const e of readdirSync(p)) chownTree(join(p, e));
  };
  return {
    name,
    uid,
    gid,
    home,
    own(h) {
      chownTree(h.root);
    },
    run(h, cmd, opts = {}) {
      const req = JSON.stringify({ cmd, spec: h.specFile, yes: opts.yes, dryRun: opts.dryRun, all: opts.all, json: opts.json, wrapper: opts.wrapper ?? h.wrapper, firstWake: opts.firstWake });
      const extra = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
      const r = spawnSync(
        'runuser',
        ['-u', name, '--', 'env', '-i', `HOME=${h.home}`, `PATH=${h.env.PATH}`, 'LANG=C.UTF-8', ...extra, process.execPath, '--import', 'tsx', DRIVER, req],
        { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
      );
      if (r.error) throw r.error;
      return { code: r.status ?? 128, out: r.stdout, err: r.stderr };
    },
  };
}

/** A new scratch user named after `prefix` whose crontab root reads and sets, removed when this process exits. */
export function cronUser(prefix: string): CronUser {
  const u = scratchUser(prefix);
  const name = u.name;
  return {
    ...u,
    table() {
      const r = spawnSync('crontab', ['-u', name, '-l'], { env: C });
      if (r.status === 0) return r.stdout;
      if (r.status === 1 && /^no crontab for /.test(r.stderr.toString())) return null;
      throw new Error(`crontab -u ${name} -l: ${r.stderr}`);
    },
    set(t) {
      const r = t === null ? spawnSync('crontab', ['-u', name, '-r'], { env: C }) : spawnSync('crontab', ['-u', name, '-'], { env: C, input: t });
      if (t !== null && r.status !== 0) throw new Error(`crontab -u ${name} -: ${r.stderr}`);
    },
  };
}
