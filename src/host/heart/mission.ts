// HEART.md, the mission every wake reads (issue 26): install refuses a repo without one
// (or with an empty one), because every wake would then spend the plan's allowance with no
// mission; status reports one removed (or emptied) after install. Read through readSoft:
// the repo is the agent's, HEART.md may be a FIFO or a link planted there.
import { posix } from 'node:path';
import { readSoft } from '../fsx.ts';
import type { State } from '../state.ts';

/** What HEART.md in `repo` is now: 'ok', or why no wake could read a mission from it. */
function heartNow(repo: string): 'ok' | 'missing' | 'empty' {
  const b = readSoft(posix.join(repo, 'HEART.md'));
  if (!b) return 'missing';
  return b.toString('utf8').trim() === '' ? 'empty' : 'ok';
}

/** install's refusal (one sentence naming the file and the fix), or null when HEART.md holds something. */
export function heartRefusal(repo: string): string | null {
  const now = heartNow(repo);
  if (now === 'ok') return null;
  const path = posix.join(repo, 'HEART.md');
  const what = now === 'missing' ? 'does not exist (or is not a readable file)' : 'is empty';
  return `${path} ${what}: every wake reads its mission there, so each would spend your plan's allowance with nothing to do; run \`hbgen init ${repo}\` to scaffold it (it never overwrites a file), write the mission, then install again`;
}

/** status: HEART.md is gone (or emptied) from an active install; null while it holds something. */
export function heartRemoved(repo: string, s: Pick<State, 'heart'>): string | null {
  const now = heartNow(repo);
  if (now === 'ok') return null;
  const path = posix.join(repo, 'HEART.md');
  const since = s.heart?.sha256 ? ' since install' : '';
  return `${path} was ${now === 'missing' ? 'removed' : 'emptied'}${since}: every wake now runs with no mission and still spends your plan's allowance; put it back (\`git -C ${repo} checkout HEART.md\`, or \`hbgen init ${repo}\` for a fresh one), or \`hbgen stop\` until it is`;
}
