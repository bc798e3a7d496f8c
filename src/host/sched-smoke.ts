// The install check where the wakes run (issue 26). A terminal's `env -i sh heartbeat.sh
// --smoke` proves little: the faults users meet show only under the scheduler (a client
// "Not logged in" without the login keychain or a terminal, a user manager that is not
// running, cron's bare environment). So the first of the smoke's two runs is started by the
// scheduler itself, on the installed entry unchanged: hbgen writes <stateDir>/smoke.request,
// which the wrapper run with no argument consumes and turns into a smoke run (heartbeat/
// 25-smoke), then asks the scheduler to start the job now:
//   systemd-user  systemctl --user start hbgen-<name>.service (the oneshot: it returns when
//                 the run ended, its status the service's)
//   launchd       launchctl kickstart gui/<uid>/dev.hbgen.<name> (returns at once: the run
//                 is followed in runtime.log)
//   cron          cron cannot start a job on demand: the run gets cron's documented
//                 environment instead (crontab(5): SHELL=/bin/sh, HOME and LOGNAME from the
//                 user's passwd line, PATH=/usr/bin:/bin; nothing else), no terminal and a
//                 new session (setsid(2), as cron's children), stdin closed. The panel and
//                 the check say that cron itself was not exercised.
// That run logs how it was started and, for the presets, runs the client's billing check in
// that context. The second run, from hbgen, must find the lock held, as before. Only what
// was observed is reported.
import { rmSync } from 'node:fs';
import { posix } from 'node:path';
import { sleep } from '../formats.ts';
import type { Names } from '../names.ts';
import type { Spec } from '../spec.ts';
import { shownArgv } from '../escape.ts';
import { lstatOrNull, writeAtomic } from './fsx.ts';
import type { HostIO } from './io.ts';
import { type Check, SMOKE_ARGV, logLinesFrom, logSize } from './install/smoke.ts';
import { wrapperRefusal } from './install/wrapper-check.ts';

import { factsOf } from '../scheduler-facts.ts';

export const SMOKE_REQUEST = 'smoke.request';

/** cron's environment for its jobs (crontab(5), Debian's and the BSDs' alike). */
export function cronEnv(home: string, user: string): Record<string, string> {
  return { SHELL: '/bin/sh', HOME: home, LOGNAME: user, PATH: '/usr/bin:/bin' };
}

/** How the check's first run is started: the scheduler's command (null for cron), and the panel's words. */
export function smokeRoute(scheduler: Spec['schedule']['scheduler'], n: Names, uid: number): { argv: string[] | null; says: string } {
  const f = factsOf(scheduler);
  if (f?.startJob) return { argv: f.startJob.argv.map((a) => a.replace('<service>', n.service).replace('<label>', n.label).replace('<uid>', String(uid))), says: f.startJob.says };
  return { argv: null, says: f?.noStart ?? 'the scheduler cannot start a job on demand: the run gets a bare environment, no terminal, a new session' };
}

/** The panel's lines for the check (src/host/panel.ts shows them). */
export function smokePanelLines(scheduler: Spec['schedule']['scheduler'], n: Names, uid: number): string[] {
  const r = smokeRoute(scheduler, n, uid);
  const first = r.argv ? `${shownArgv(r.argv)}   (${r.says}; ${n.stateDir}/${SMOKE_REQUEST} makes that run a smoke run, the billing check included)` : `/bin/sh ${n.wrapper}   (${r.says}; the billing check runs there too)`;
  return [first, `${shownArgv(SMOKE_ARGV(n.wrapper))}   (at the same time: it must skip on the lock)`];
}

export interface Ran {
  code: number | null;
  stderr: string;
}

const TIMEOUT_MS = 120_000;

/**
 * One run of the installed job, started by the scheduler (or in cron's environment), after
 * `request` (a file in the state folder the wrapper takes) was written; its status once it ended.
 */
export async function startJob(spec: Spec, n: Names, io: HostIO, home: string, request: string, timeoutMs = TIMEOUT_MS): Promise<Ran> {
  const { execa } = await import('execa');
  const r = smokeRoute(spec.schedule.scheduler, n, io.uid);
  const opts = { reject: false, stdin: 'ignore' as const, timeout: timeoutMs, stripFinalNewline: true, extendEnv: false };
  const done = (x: { exitCode?: number; stderr?: unknown; timedOut?: boolean }): Ran => ({ code: typeof x.exitCode === 'number' ? x.exitCode : null, stderr: String(x.stderr ?? '') || (x.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : '') });
  if (r.argv?.[0] === 'launchctl') {
    const k = done(await execa(r.argv[0], r.argv.slice(1), { ...opts, env: io.env, cwd: '/' }));
    return k.code === 0 ? await launchdRun(io, r.argv[2]!, request, timeoutMs) : k;
  }
  if (r.argv) return done(await execa(r.argv[0]!, r.argv.slice(1), { ...opts, env: io.env, cwd: '/' }));
  // detached: the child calls setsid(2), a new session without a controlling terminal.
  return done(await execa('/bin/sh', [n.wrapper], { ...opts, env: cronEnv(home, io.user), cwd: home, detached: true }));
}

/**
 * kickstart returns before the job ends: the job's run is followed with `launchctl print`
 * until the wrapper took the request and launchd says the job is not running, and its
 * "last exit code" is the run's status.
 */
async function launchdRun(io: HostIO, target: string, request: string, timeoutMs: number): Promise<Ran> {
  const { execa } = await import('execa');
  const until = Date.now() + timeoutMs;
  const taken = Date.now() + 30_000;
  for (;;) {
    await sleep(200);
    const p = await execa('launchctl', ['print', target], { env: io.env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 10_000 });
    const out = String(p.stdout ?? '');
    const gone = !lstatOrNull(request);
    if (gone && /^\s*state = not running$/m.test(out)) {
      const code = /^\s*last exit code = (-?\d+)/m.exec(out)?.[1];
      return { code: code === undefined ? null : Number(code), stderr: code === undefined ? 'launchctl print shows no last exit code' : '' };
    }
    if ((!gone && Date.now() > taken) || Date.now() > until) return { code: null, stderr: `launchd did not ${gone ? 'end' : 'start'} the job in time` };
  }
}

/** Waits until `done(lines)` or `ms` passed; the lines then. */
async function waitLines(n: Names, from: number, name: string, ms: number, done: (l: string[]) => boolean): Promise<string[]> {
  const until = Date.now() + ms;
  let lines = logLinesFrom(n.log, from, name);
  while (!done(lines) && Date.now() < until) {
    await sleep(50);
    lines = logLinesFrom(n.log, from, name);
  }
  return lines;
}

const ended = (l: string[]) => l.includes('quiet smoke') || l.some((x) => x.startsWith('error ')) || l.some((x) => x.startsWith('skip-locked'));

/** The check: the scheduler's run (with the terminal's concurrent second), as observed. */
export async function scheduledSmoke(spec: Spec, n: Names, io: HostIO, home: string, rendered: string, specFile: string): Promise<Check[]> {
  const refusal = wrapperRefusal(n.wrapper, rendered, specFile);
  if (refusal) return [{ ok: false, what: 'wrapper', observed: refusal }];
  const { execa } = await import('execa');
  const route = smokeRoute(spec.schedule.scheduler, n, io.uid);
  const request = posix.join(n.stateDir, SMOKE_REQUEST);
  const from = logSize(n.log);
  writeAtomic(request, `hbgen install check ${io.now().toISOString()}\n`, 0o600);
  let firstDone = false;
  const first = startJob(spec, n, io, home, request).finally(() => (firstDone = true));
  // The second run once the first holds the lock (or has ended, or faulted).
  await waitLines(n, from, spec.name, 60_000, (l) => firstDone || l.includes('start smoke') || ended(l));
  const [cmd, ...args] = SMOKE_ARGV(n.wrapper);
  const second = execa(`/usr/bin/${cmd}`, args, { env: {}, extendEnv: false, reject: false, cwd: '/', stdin: 'ignore', timeout: 60_000 }).then(
    (r): Ran => ({ code: typeof r.exitCode === 'number' ? r.exitCode : null, stderr: String(r.stderr ?? '') }),
  );
  const [a, b] = await Promise.all([first, second]);
  // launchctl kickstart returns before the job ends: its lines tell.
  const lines = await waitLines(n, from, spec.name, 2000, (l) => l.includes('quiet smoke') || l.some((x) => x.startsWith('error ')));
  const unconsumed = rmRequest(request);
  return judge(spec, n, route, lines, a, b, unconsumed);
}

/** Removes a request no run consumed; true when there was one. */
function rmRequest(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch {
    return false;
  }
}

function judge(spec: Spec, n: Names, route: ReturnType<typeof smokeRoute>, lines: string[], a: Ran, b: Ran, unconsumed: boolean): Check[] {
  const shown = (r: Ran) => `${r.code === null ? 'did not finish' : `exit ${r.code}`}${r.stderr ? ` (${r.stderr.trim().split('\n').at(-1)})` : ''}`;
  const how = route.argv ? shownArgv(route.argv) : "/bin/sh heartbeat.sh in cron's environment";
  const note = lines.find((l) => l.startsWith('note smoke run as '))?.slice('note smoke run as '.length);
  const error = lines.find((l) => l.startsWith('error '));
  const count = (x: string) => lines.filter((l) => l === x).length;
  const busy = count('start smoke') === 0 && lines.some((l) => l.startsWith('skip-locked'));
  const cronNote = route.argv ? '' : '; cron itself was not exercised (it cannot start a job on demand): its first fire is the first proof from cron';
  let ranOk = !unconsumed && !!note && !error && count('quiet smoke') === 1 && a.code === 0;
  let observed: string;
  if (unconsumed) observed = `${how} did not run the wrapper (${shown(a)}; ${n.stateDir}/${SMOKE_REQUEST} was never taken)`;
  // The wrapper's own line says why; the command's stderr repeats it (or says only "failed").
  else if (error) observed = `${how}: ${a.code === null ? 'did not finish' : `exit ${a.code}`}; the wrapper ran${note ? ` as ${note}` : ''}, which logged "${error}"`;
  else if (!note) observed = `${how}: ${shown(a)}, and the wrapper logged no smoke run of its own (${lines.join(', ') || 'no line'})`;
  else observed = `${how}: ${shown(a)}; the wrapper ran as ${note}${spec.agent.harness === 'command' ? '' : ", and the client's billing check passed there"}`;
  if (busy) ranOk = false;
  const expected = ['start smoke', 'quiet smoke', 'skip-locked smoke'];
  const grew = expected.every((x) => count(x) === 1);
  const skips = count('skip-locked smoke');
  return [
    { ok: ranOk, what: route.argv ? 'scheduler run' : "cron's environment", observed: observed + cronNote },
    { ok: b.code === 0, what: 'exit status', observed: `second run ${shown(b)}` },
    { ok: skips === 1, what: 'lock', observed: skips === 1 ? 'the second run found the lock held and logged skip-locked smoke' : `${skips} skip-locked smoke lines logged${busy ? ' (another wake held the lock)' : ''}`, busy },
    { ok: grew, what: 'runtime.log', observed: `${n.log} grew by ${lines.length} line${lines.length === 1 ? '' : 's'}${lines.length ? `: ${lines.join(', ')}` : ''}${grew ? '' : ` (expected ${expected.join(', ')})`}` },
  ];
}
