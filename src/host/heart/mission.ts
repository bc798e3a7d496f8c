// HEART.md, the mission every wake reads: install refuses a repo without one, with an empty
// one, or with one whose Mission section says nothing (hbgen init's template as it was left),
// because every wake would then spend the plan's allowance with no mission; status reports one
// removed (or emptied) after install. Read through readSoft: the repo is the agent's, HEART.md
// may be a FIFO or a link planted there.
import { posix } from 'node:path';
import { readSoft } from '../fsx.ts';
import type { State } from '../state.ts';

/** What HEART.md in `repo` is now: 'ok', or why no wake could read a mission from it. */
function heartNow(repo: string): 'ok' | 'missing' | 'empty' | 'no-mission' {
  const b = readSoft(posix.join(repo, 'HEART.md'), 1 << 20);
  if (!b) return 'missing';
  const text = b.toString('utf8');
  if (text.trim() === '') return 'empty';
  return missionSaid(text) === false ? 'no-mission' : 'ok';
}

/**
 * Whether the "## Mission" section says anything but HTML comments (init's hint is one);
 * undefined when there is no such section (a HEART.md of the person's own shape).
 */
export function missionSaid(text: string): boolean | undefined {
  const m = /^##\s+Mission\s*$([\s\S]*?)(?=^##\s|(?![\s\S]))/m.exec(text);
  if (!m) return undefined;
  return m[1]!.replace(/<!--[\s\S]*?-->/g, '').trim() !== '';
}

/**
 * install's refusal (one sentence naming the file and the fix), or null when HEART.md holds a
 * mission. `forceEmpty` (install --force-empty-heart) lets an empty HEART.md or an empty
 * Mission section through, for the rare agent whose prompt alone says what to do; a missing
 * HEART.md is refused all the same.
 */
export function heartRefusal(repo: string, forceEmpty = false): string | null {
  const now = heartNow(repo);
  if (now === 'ok' || (forceEmpty && now !== 'missing')) return null;
  const path = posix.join(repo, 'HEART.md');
  if (now === 'no-mission') {
    return `${path} has no mission yet (its "## Mission" section is empty but for hbgen init's hint): every wake would spend your plan's allowance with nothing to work for; write the mission and current priorities there and install again (or install with --force-empty-heart when the prompt alone is the mission)`;
  }
  const what = now === 'missing' ? 'does not exist (or is not a readable file)' : 'is empty';
  const force = now === 'empty' ? ' (or install with --force-empty-heart when the prompt alone is the mission)' : '';
  return `${path} ${what}: every wake reads its mission there, so each would spend your plan's allowance with nothing to do; run \`hbgen init ${repo}\` to scaffold it (it never overwrites a file), write the mission, then install again${force}`;
}

/** status: HEART.md is gone (or emptied) from an active install; null while it holds something. */
export function heartRemoved(repo: string, s: Pick<State, 'heart'>): string | null {
  const now = heartNow(repo);
  if (now === 'ok' || now === 'no-mission') return null;
  const path = posix.join(repo, 'HEART.md');
  const since = s.heart?.sha256 ? ' since install' : '';
  return `${path} was ${now === 'missing' ? 'removed' : 'emptied'}${since}: every wake now runs with no mission and still spends your plan's allowance; put it back (\`git -C ${repo} checkout HEART.md\`, or \`hbgen init ${repo}\` for a fresh one), or \`hbgen stop\` until it is`;
}
