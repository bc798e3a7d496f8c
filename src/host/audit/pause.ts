// The pause the wrapper writes when the agent's client says the plan's usage limit is
// reached (templates/partials/heartbeat/85-limit.hbs writes it, 35-limit.hbs
// reads it): `<stateDir>/paused`, line 1 "UNTIL SINCE" (epoch seconds: the reset, and the
// start of the wake that hit the limit), line 2 the client's message. status reports it
// and `hbgen resume --now` removes it. The state folder may sit inside the repo, where the
// agent writes: the file is evidence, read without following a link, and a time further
// away than the wrapper ever writes is not believed.
import { posix } from 'node:path';
import { rmSync } from 'node:fs';
import { lstatOrNull, readOrNull } from '../fsx.ts';
import { PAUSE_FILE, parsePause, pauseInForce } from '../../formats.ts';

// The file's format, its bound and its parser are src/formats.ts's (the wrapper gets the
// same through its render context).
export const pausePath = (stateDir: string): string => posix.join(stateDir, PAUSE_FILE);

export interface Pause {
  until: Date;
  since: Date;
  /** The client's message, as the wrapper kept it (control characters removed). */
  message: string;
}

/** The pause in force at `now`, or null (none, over, a link, unreadable or not believable). */
export function activePause(stateDir: string, now: Date): Pause | null {
  const p = pausePath(stateDir);
  const st = lstatOrNull(p);
  if (!st?.isFile()) return null;
  let text: string;
  try {
    text = readOrNull(p)?.toString('utf8') ?? '';
  } catch {
    return null;
  }
  const rec = parsePause(text);
  if (!rec || !pauseInForce(rec.until, Math.floor(now.getTime() / 1000))) return null;
  return { until: new Date(rec.until * 1000), since: new Date(rec.since * 1000), message: rec.message };
}

/** Removes the pause file; true when there was one. */
export function clearPause(stateDir: string): boolean {
  const p = pausePath(stateDir);
  if (!lstatOrNull(p)) return false;
  rmSync(p, { force: true });
  return true;
}
