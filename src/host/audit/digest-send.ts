// `hbgen log --digest --send`: the day's digest kept in the state folder and sent through
// the spec's notify program and to its ping URL's /log, as the wrapper's daily run asks
// (heartbeat/33-digest). Every failure is one phrase of the summary line the wrapper notes;
// none of them makes the command fail.
import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { posix } from 'node:path';
import { DIGEST_DIR, DIGEST_KEEP } from '../../formats.ts';
import { NOTIFY_SECONDS, PING_BOUND } from '../../../generators/notify.ts';
import { pingOf } from '../../notify.ts';
import type { Spec } from '../../spec.ts';
import { writeAtomic } from '../../atomic.ts';
import type { DayCounts } from './history.ts';

/** Nothing worth a digest happened that day: no wake ran, no error was logged, no fire was missed. */
export function nothingHappened(d: DayCounts): boolean {
  return d.started === 0 && d.error === 0 && !(d.missed && d.missed > 0);
}

const DAY_FILE = /^\d{4}-\d\d-\d\d\.txt$/;

/**
 * The digest as <stateDir>/digest/DATE.txt, the last DIGEST_KEEP days kept. A link or
 * anything but a folder at digest/ is never written through; the file is written aside and
 * renamed over whatever is there (a link in its place is replaced, not followed).
 */
export function keepDigest(stateDir: string, date: string, text: string): { file: string } | { problem: string } {
  const dir = posix.join(stateDir, DIGEST_DIR);
  try {
    let st = lstatOrNull(dir);
    if (!st) {
      mkdirSync(dir, { mode: 0o700 });
      st = lstatSync(dir);
    }
    if (!st.isDirectory()) return { problem: `${dir} is a link or not a folder; remove it` };
    const file = posix.join(dir, `${date}.txt`);
    writeAtomic(file, text, 0o600, { sync: false });
    const old = readdirSync(dir).filter((f) => DAY_FILE.test(f)).sort().slice(0, -DIGEST_KEEP);
    for (const f of old) rmSync(posix.join(dir, f), { force: true });
    return { file };
  } catch (e) {
    return { problem: `cannot write ${dir}: ${(e as Error).message.split('\n')[0]}` };
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The spec's notify program as the wrapper runs it (heartbeat/18-notify-calls): exactly the
 * spec's env plus HBGEN_NAME, HBGEN_REPO, HBGEN_LOG, HBGEN_EVENT=digest and the text in
 * HBGEN_DIGEST (and its file in HBGEN_DIGEST_FILE), stdin closed, in the repo, for at most
 * NOTIFY_SECONDS; in a process group of its own, which gets TERM once it ends (or at the
 * bound) and KILL a second later, so that nothing it started outlives it.
 */
export async function notifyDigest(spec: Spec, text: string, file: string | null, log: string): Promise<string> {
  const argv = spec.notify!;
  const { execa } = await import('execa');
  const env = { ...spec.env, HBGEN_NAME: spec.name, HBGEN_REPO: spec.repo, HBGEN_LOG: log, HBGEN_EVENT: 'digest', HBGEN_DIGEST: text, ...(file ? { HBGEN_DIGEST_FILE: file } : {}) };
  const child = execa(argv[0]!, argv.slice(1), { env, extendEnv: false, reject: false, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore', cwd: spec.repo, detached: true, timeout: NOTIFY_SECONDS * 1000 });
  const r = await child;
  const group = (sig: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      // The group is gone: nothing left of it.
    }
  };
  group('SIGTERM');
  await new Promise((res) => setTimeout(res, 1000));
  group('SIGKILL');
  if (r.timedOut) return `notify failed: no exit within ${NOTIFY_SECONDS}s, stopped`;
  if (r.exitCode === undefined) return `notify failed: ${r.shortMessage ?? 'could not be started'}`;
  return r.exitCode === 0 ? 'notify exit 0' : `notify failed: exit ${r.exitCode}`;
}

/**
 * The text POSTed to the ping URL's /log: healthchecks.io's endpoint that records a message
 * without changing the check's state (https://healthchecks.io/docs/http_api/#log-uuid).
 * No redirect is followed (as the wrapper's curl, no -L); ping.body false sends nothing, so
 * that no line leaves for the ping's host.
 */
export async function pingDigest(spec: Spec, text: string, fetcher: typeof fetch = fetch): Promise<string> {
  const ping = pingOf(spec.ping)!;
  if (!ping.body) return 'ping not sent (ping.body is false: no text leaves for its host)';
  try {
    const r = await fetcher(`${ping.url}/log`, { method: 'POST', body: text, redirect: 'manual', signal: AbortSignal.timeout(PING_BOUND * 1000), headers: { 'content-type': 'text/plain; charset=utf-8' } });
    await r.arrayBuffer().catch(() => undefined);
    return r.ok ? 'ping /log ok' : `ping /log failed: HTTP ${r.status}`;
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return `ping /log failed: ${err.name === 'TimeoutError' ? `no answer within ${PING_BOUND}s` : (err.cause?.code ?? err.message)}`;
  }
}
