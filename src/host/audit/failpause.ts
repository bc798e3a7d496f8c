// The pause the wrapper puts on the job after pauseAfter failing wakes in a row
// (templates/partials/heartbeat/19-failpause.hbs writes and reads it): `<stateDir>/failpause`,
// line 1 "SINCE N HEART" (the UTC time it began, the streak then, HEART.md's SHA-256 or
// none), line 2 the last failing wake's outcome line. status reports it as a problem;
// `hbgen resume --now` and every install remove it. Read without following a link: the
// state folder may sit where the agent writes, and the wrapper believes no link either.
import { posix } from 'node:path';
import { rmSync } from 'node:fs';
import { lstatOrNull, readOrNull } from '../fsx.ts';
import { FAIL_PAUSE_FILE, type FailPauseRecord, parseFailPause } from '../../formats.ts';

export const failPausePath = (stateDir: string): string => posix.join(stateDir, FAIL_PAUSE_FILE);

/** The pause after failures the wrapper would honour, or null (none, a link, unreadable, another shape). */
export function activeFailPause(stateDir: string): FailPauseRecord | null {
  const p = failPausePath(stateDir);
  if (!lstatOrNull(p)?.isFile()) return null;
  try {
    return parseFailPause(readOrNull(p)?.toString('utf8') ?? '');
  } catch {
    return null;
  }
}

/** Removes the file; true when there was one. */
export function clearFailPause(stateDir: string): boolean {
  const p = failPausePath(stateDir);
  if (!lstatOrNull(p)) return false;
  rmSync(p, { force: true });
  return true;
}
