// The install check where the wakes run. A terminal's `env -i sh heartbeat.sh
// --smoke` proves little: the faults users meet show only under the scheduler (a client
// "Not logged in" without the login keychain or a terminal, a user manager that is not
// running, cron's bare environment). So the first of the smoke's two runs is started by the
// scheduler itself, on the installed entry unchanged, with a smoke request (start-once.ts:
// how each scheduler starts a job, and cron's environment where it cannot). The panel and
// the check say when the scheduler itself was not exercised.
// That run logs how it was started and, for the presets, runs the client's billing check in
// that context. The second run, from hbgen, must find the lock held, as before. Only what
// was observed is reported.
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { sleep } from '../../formats.ts';
import type { Names } from '../../names.ts';
import type { Spec } from '../../spec.ts';
import { shownArgv } from '../../escape.ts';
import type { HostIO } from '../io.ts';
import { type Check, SMOKE_ARGV, logLinesFrom } from './smoke.ts';
import { type Ran, type Route, requestFile, startOnce, startRoute } from './start-once.ts';
import { wrapperRefusal } from './wrapper-check.ts';

/** The panel's lines for the check (src/host/install/panel.ts shows them). */
export function smokePanelLines(scheduler: Spec['schedule']['scheduler'], n: Names, uid: number): string[] {
  const r = startRoute(scheduler, n, uid);
  const first = r.argv ? `${shownArgv(r.argv)}   (${r.says}; the state folder's ${basename(requestFile(n, 'smoke'))} makes it a smoke run)` : `/bin/sh ${n.wrapper}   (${r.says}; the billing check runs there too)`;
  return [first, `${shownArgv(SMOKE_ARGV(n.wrapper))}   (at the same time: it must skip on the lock)`];
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
  const { route, from, request, run } = startOnce(spec, n, io, home, 'smoke', 'install check');
  let firstDone = false;
  const first = run.finally(() => (firstDone = true));
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

function judge(spec: Spec, n: Names, route: Route, lines: string[], a: Ran, b: Ran, unconsumed: boolean): Check[] {
  const shown = (r: Ran) => `${r.code === null ? 'did not finish' : `exit ${r.code}`}${r.stderr ? ` (${r.stderr.trim().split('\n').at(-1)})` : ''}`;
  const how = route.argv ? shownArgv(route.argv) : "/bin/sh heartbeat.sh in cron's environment";
  const note = lines.find((l) => l.startsWith('note smoke run as '))?.slice('note smoke run as '.length);
  const error = lines.find((l) => l.startsWith('error '));
  const count = (x: string) => lines.filter((l) => l === x).length;
  const busy = count('start smoke') === 0 && lines.some((l) => l.startsWith('skip-locked'));
  const cronNote = route.argv ? '' : '; cron itself was not exercised (it cannot start a job on demand): its first fire is the first proof from cron';
  let ranOk = !unconsumed && !!note && !error && count('quiet smoke') === 1 && a.code === 0;
  let observed: string;
  if (unconsumed) observed = `${how} did not run the wrapper (${shown(a)}; ${requestFile(n, 'smoke')} was never taken)`;
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
