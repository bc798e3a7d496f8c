// The install check: the installed wrapper run twice at once in a bare environment,
// exactly `env -i /bin/sh <wrapper> --smoke`. The first takes the lock and holds it for
// about 2 s (logging "start smoke" and "quiet smoke"); the second, started once the first
// has logged "start smoke", must find the lock held and log "skip-locked smoke". Only what
// was observed is reported. Only those three lines count: a real wake that starts meanwhile
// logs its own lines (its "skip-locked" untagged), and neither passes nor fails the check.
import { statSync } from 'node:fs';
import { parseLog, sleep } from '../../formats.ts';
import type { Names } from '../../names.ts';
import { readOrNull } from '../fsx.ts';
import { wrapperRefusal } from './wrapper-check.ts';

export interface Check {
  ok: boolean;
  what: string;
  observed: string;
  /** The smoke's first run found the lock held: another wake had it, so the check proved nothing. */
  busy?: boolean;
}

export const SMOKE_ARGV = (wrapper: string) => ['env', '-i', '/bin/sh', wrapper, '--smoke'];

/** runtime.log lines of `name` from byte `from` on, as "outcome[ detail]". */
export function logLinesFrom(log: string, from: number, name: string): string[] {
  const b = readOrNull(log);
  if (!b || b.length <= from) return [];
  return parseLog(b.subarray(from).toString('utf8'), name).map((l) => (l.detail ? `${l.outcome} ${l.detail}` : l.outcome));
}

export function logSize(log: string): number {
  try {
    return statSync(log).size;
  } catch {
    return 0;
  }
}

interface Ran {
  code: number | null;
  stderr: string;
}

/** `rendered`: the heartbeat.sh install just wrote; the smoke test runs only that (see wrapper-check.ts). */
export async function smokeTest(n: Names, name: string, rendered: string, specFile: string): Promise<Check[]> {
  const refusal = wrapperRefusal(n.wrapper, rendered, specFile);
  if (refusal) return [{ ok: false, what: 'wrapper', observed: refusal }];
  const { execa } = await import('execa');
  const from = logSize(n.log);
  const [cmd, ...args] = SMOKE_ARGV(n.wrapper);
  const start = () =>
    execa(`/usr/bin/${cmd}`, args, { env: {}, extendEnv: false, reject: false, cwd: '/', stdin: 'ignore', timeout: 60_000, stripFinalNewline: true }).then(
      (r): Ran => ({ code: typeof r.exitCode === 'number' ? r.exitCode : null, stderr: String(r.stderr ?? '') || (r.timedOut ? 'timed out after 60 s' : '') }),
    );
  const first = start();
  let firstDone = false;
  void first.then(() => (firstDone = true));
  // Start the second run once the first holds the lock (or has ended).
  const until = Date.now() + 15_000;
  while (!firstDone && Date.now() < until && !logLinesFrom(n.log, from, name).includes('start smoke')) {
    await sleep(25);
  }
  const second = start();
  const [a, b] = await Promise.all([first, second]);
  const lines = logLinesFrom(n.log, from, name);
  const shown = (r: Ran) => `${r.code === null ? 'did not finish' : `exit ${r.code}`}${r.stderr ? ` (${r.stderr.trim().split('\n')[0]})` : ''}`;
  const count = (x: string) => lines.filter((l) => l === x).length;
  const expected = ['start smoke', 'quiet smoke', 'skip-locked smoke'];
  const grew = expected.every((x) => count(x) === 1);
  // No "start smoke", but a skip of the smoke's: the lock (or an earlier wake's agent) was another's.
  const busy = count('start smoke') === 0 && lines.some((l) => l.startsWith('skip-locked'));
  const skips = count('skip-locked smoke');
  return [
    { ok: a.code === 0 && b.code === 0, what: 'exit status', observed: `first run ${shown(a)}, second run ${shown(b)}` },
    {
      ok: skips === 1,
      what: 'lock',
      observed: skips === 1 ? 'the second run found the lock held and logged skip-locked smoke' : `${skips} skip-locked smoke lines logged${busy ? ' (another wake held the lock)' : ''}`,
      busy,
    },
    {
      ok: grew,
      what: 'runtime.log',
      observed: `${n.log} grew by ${lines.length} line${lines.length === 1 ? '' : 's'}${lines.length ? `: ${lines.join(', ')}` : ''}${grew ? '' : ` (expected ${expected.join(', ')})`}`,
    },
  ];
}
