// posix.join for the commonest case of a render: a constant, relative name under a folder
// the spec already holds normalized (HOME, the repo, the state folder).
//
// Why not posix.join itself: Node's join and normalize walk every character in JavaScript,
// and a render joins some hundred such paths (the jail's lists, the state folder's names).
// That made those two functions hot enough for V8 to optimise them on a background thread,
// ~2–3 ms of CPU for a render that ends a few milliseconds later (docs/SPEED.md). The
// checks below are regular expressions (native code, no loop in JavaScript); anything
// that is not plainly normalized goes to posix.join, so the result is always join's.
import { posix } from 'node:path';

/** An empty, `.` or `..` part, or a doubled slash. */
const ODD = /\/\/|(?:^|\/)\.\.?(?:\/|$)/;

/** posix.join(dir, rel) for an absolute `dir` and a relative `rel`; the same result for any input. */
export function joinUnder(dir: string, rel: string): string {
  const plainDir = dir === '/' || (dir.startsWith('/') && !dir.endsWith('/') && !ODD.test(dir));
  const plainRel = rel !== '' && !rel.startsWith('/') && !rel.endsWith('/') && !ODD.test(rel);
  if (!plainDir || !plainRel) return posix.join(dir, rel);
  return dir === '/' ? `/${rel}` : `${dir}/${rel}`;
}
