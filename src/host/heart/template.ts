// HEART.md as `hbgen init` left it (issue 27: the untouched template installed without a
// word): its Mission section holds only init's <!-- … --> hint, so the agent would wake
// with nothing to work for. Install says so in the panel's caveats; it does not refuse
// (a missing HEART.md is another check's).
import { posix } from 'node:path';
import { readSoft } from '../fsx.ts';

/** The caveat when HEART.md's "## Mission" is empty but for comments, else null (also without a HEART.md). */
export function heartTemplateCaveat(repo: string): string | null {
  const text = readSoft(posix.join(repo, 'HEART.md'), 1 << 20)?.toString('utf8');
  if (text === undefined) return null;
  const m = /^##\s+Mission\s*$([\s\S]*?)(?=^##\s|(?![\s\S]))/m.exec(text);
  if (!m) return null;
  const said = m[1]!.replace(/<!--[\s\S]*?-->/g, '').trim();
  if (said) return null;
  return `HEART.md has no mission yet (its Mission section holds only hbgen init's hint): the agent would wake with nothing to work for; write the mission and current priorities in ${posix.join(repo, 'HEART.md')} first (README Quick start, step 3)`;
}
