// One run of the installed job, started now through its scheduler: the one way install's
// check (sched-smoke.ts), the first wake (first-wake.ts) and doctor start a job on demand.
// hbgen writes a request into the state folder, which the wrapper run with no argument
// takes (templates/partials/heartbeat/25-smoke.hbs: smoke.request makes the run a smoke
// run, wake.request a wake as by hand), then asks the scheduler to start the job with the
// command its facts name (src/host/<id>/facts.ts `startJob`):
//   systemd-user  systemctl --user start hbgen-<name>.service (the oneshot: it returns when
//                 the run ended, its status the service's)
//   launchd       launchctl kickstart gui/<uid>/dev.hbgen.<name> (returns at once: the run
//                 is followed with `launchctl print`, its facts' `follow`)
//   cron          cron cannot start a job on demand (`noStart`): the run gets cron's
//                 documented environment instead (crontab(5): SHELL=/bin/sh, HOME and
//                 LOGNAME from the user's passwd line, PATH=/usr/bin:/bin; nothing else), no
//                 terminal and a new session (setsid(2), as cron's children), stdin closed.
import { posix } from 'node:path';
import { shownArgv } from '../../escape.ts';
import { sleep } from '../../formats.ts';
import type { Names } from '../../names.ts';
import { factsOf } from '../../scheduler-facts.ts';
import type { Spec } from '../../spec.ts';
import { lstatOrNull, writeAtomic } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { logSize } from './smoke.ts';

/** What the run is asked to be: the wrapper's request file is `<kind>.request` in the state folder. */
export type RequestKind = 'smoke' | 'wake';

export const requestFile = (n: Names, kind: RequestKind) => posix.join(n.stateDir, `${kind}.request`);

/** cron's environment for its jobs (crontab(5), Debian's and the BSDs' alike). */
export function cronEnv(home: string, user: string): Record<string, string> {
  return { SHELL: '/bin/sh', HOME: home, LOGNAME: user, PATH: '/usr/bin:/bin' };
}

/** How a job is started: the scheduler's command (null when it cannot start one on demand), how its run is followed when that command returns at once, and the panel's words. */
export interface Route {
  argv: string[] | null;
  follow?: { argv: string[]; ended: RegExp; exitCode: RegExp };
  says: string;
}

export function startRoute(scheduler: Spec['schedule']['scheduler'], n: Names, uid: number): Route {
  const f = factsOf(scheduler);
  const fill = (argv: readonly string[]) => argv.map((a) => a.replace('<service>', n.service).replace('<label>', n.label).replace('<uid>', String(uid)));
  if (f?.startJob) return { argv: fill(f.startJob.argv), says: f.startJob.says, ...(f.startJob.follow ? { follow: { ...f.startJob.follow, argv: fill(f.startJob.follow.argv) } } : {}) };
  return { argv: null, says: f?.noStart ?? 'the scheduler cannot start a job on demand: the run gets a bare environment, no terminal, a new session' };
}

export interface Ran {
  code: number | null;
  stderr: string;
}

/** A run started by startOnce: how, the runtime.log size before it, its request file, and its status once it ended. */
export interface Started {
  route: Route;
  from: number;
  request: string;
  run: Promise<Ran>;
}

const TIMEOUT_MS = 120_000;

/**
 * Writes the request (`why` names who asks, for a person who finds the file) and starts the
 * installed job once through its scheduler (or in cron's environment); `run` settles when the
 * run ended, or after `timeoutMs`.
 */
export function startOnce(spec: Spec, n: Names, io: HostIO, home: string, kind: RequestKind, why: string, timeoutMs = TIMEOUT_MS): Started {
  const route = startRoute(spec.schedule.scheduler, n, io.uid);
  const request = requestFile(n, kind);
  const from = logSize(n.log);
  writeAtomic(request, `hbgen ${why} ${io.now().toISOString()}\n`, 0o600);
  return { route, from, request, run: runJob(route, n, io, home, request, timeoutMs) };
}

async function runJob(r: Route, n: Names, io: HostIO, home: string, request: string, timeoutMs: number): Promise<Ran> {
  const { execa } = await import('execa');
  const opts = { reject: false, stdin: 'ignore' as const, timeout: timeoutMs, stripFinalNewline: true, extendEnv: false };
  const done = (x: { exitCode?: number; stderr?: unknown; timedOut?: boolean }): Ran => ({ code: typeof x.exitCode === 'number' ? x.exitCode : null, stderr: String(x.stderr ?? '') || (x.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : '') });
  if (r.argv) {
    const k = done(await execa(r.argv[0]!, r.argv.slice(1), { ...opts, env: io.env, cwd: '/' }));
    return r.follow && k.code === 0 ? await followRun(io, r.follow, request, timeoutMs) : k;
  }
  // detached: the child calls setsid(2), a new session without a controlling terminal.
  return done(await execa('/bin/sh', [n.wrapper], { ...opts, env: cronEnv(home, io.user), cwd: home, detached: true }));
}

/**
 * The start command returned before the job ended (launchctl kickstart): the job is followed
 * with the scheduler's own look (`launchctl print`) until the wrapper took the request and
 * the scheduler says the run ended, and the exit code it shows is the run's status.
 */
async function followRun(io: HostIO, f: NonNullable<Route['follow']>, request: string, timeoutMs: number): Promise<Ran> {
  const { execa } = await import('execa');
  const until = Date.now() + timeoutMs;
  const taken = Date.now() + 30_000;
  for (;;) {
    await sleep(200);
    const p = await execa(f.argv[0]!, f.argv.slice(1), { env: io.env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 10_000 });
    const out = String(p.stdout ?? '');
    const gone = !lstatOrNull(request);
    if (gone && f.ended.test(out)) {
      const code = f.exitCode.exec(out)?.[1];
      return { code: code === undefined ? null : Number(code), stderr: code === undefined ? `${shownArgv(f.argv)} shows no exit code of the run` : '' };
    }
    if ((!gone && Date.now() > taken) || Date.now() > until) return { code: null, stderr: `the scheduler did not ${gone ? 'end' : 'start'} the job in time (${shownArgv(f.argv)})` };
  }
}
