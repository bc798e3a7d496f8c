// Files of an install that belong to another uid than its state folder's owner: what a
// wrapper or an hbgen command run as someone else (root through sudo, typically) leaves
// behind. The owner's next wake can neither read nor replace such a file (the wrapper makes
// its files mode 0600), so each fire fails on whichever it meets first. status and doctor
// name each one with the chown that gives it back; nothing here writes.
import { lstatSync, readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { shownWord } from '../../escape.ts';
import { jailPolicy, jailTmp } from '../../jail.ts';
import type { Names } from '../../names.ts';
import type { Spec } from '../../spec.ts';
import { workspaceDir, workspaceOn } from '../../workspace.ts';
import { type Owner, ownerText, userName } from '../state.ts';

/** Entries looked at under one folder at most: a tree the agent fills (its clone, its tmp) is not walked whole. */
const VISIT_MAX = 5000;
/** Paths named one by one; past this many, one line says how many more. */
const NAMED_MAX = 10;

/**
 * The paths under `root` (itself included) that belong to another uid than `uid`, the
 * topmost of each subtree only (`chown -R` on it covers what is below), breadth first, never
 * following a link. A folder that cannot be read is not descended (its owner was checked).
 */
function foreignUnder(root: string, uid: number, out: { path: string; uid: number }[]): void {
  const queue = [root];
  let visited = 0;
  while (queue.length && visited < VISIT_MAX) {
    const p = queue.shift()!;
    visited++;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.uid !== uid) {
      out.push({ path: p, uid: st.uid });
      continue;
    }
    if (!st.isDirectory()) continue;
    try {
      for (const e of readdirSync(p).sort()) queue.push(posix.join(p, e));
    } catch {
      // Unreadable to the caller: its entries are not looked at.
    }
  }
}

/** Each folder from `dir` up to (not including) `home`: what the wrapper's `mkdir -p` of a client folder may have made. */
function upTo(dir: string, home: string): string[] {
  const out: string[] = [];
  for (let d = dir; d.startsWith(`${home}/`); d = posix.dirname(d)) out.push(d);
  return out;
}

/**
 * What hbgen and its wrapper make for an install, outside the repo's own files: the state
 * folder, the jail's private tmp folder (<cache>/hbgen/NAME, and the folders above it that
 * its `mkdir -p` makes), the client's folders and seed files the wrapper makes for the jail,
 * and the agent's clone.
 */
function installPlaces(spec: Spec, n: Names): { deep: string[]; shallow: string[] } {
  const deep = [n.stateDir, posix.dirname(jailTmp(spec))];
  if (workspaceOn(spec)) deep.push(workspaceDir(spec));
  const p = jailPolicy(spec, n);
  const home = (spec.env.HOME ?? '/').replace(/(.)\/$/, '$1');
  // The client's folders can be large (a whole ~/.claude): only those the wrapper would
  // make, and the seeds, are looked at, each on its own.
  const shallow = p ? [...upTo(posix.dirname(posix.dirname(jailTmp(spec))), home), ...p.dirs.flatMap((d) => upTo(d, home)), ...p.seed.map((s) => s.path)] : [];
  return { deep, shallow: [...new Set(shallow)] };
}

/**
 * One problem per path of the install that belongs to another uid than the state folder's
 * owner, with the chown that fixes it; [] when the state folder is not there.
 */
export function foreignFiles(spec: Spec, n: Names): string[] {
  let uid: number;
  try {
    uid = lstatSync(n.stateDir).uid;
  } catch {
    return [];
  }
  const found: { path: string; uid: number }[] = [];
  const { deep, shallow } = installPlaces(spec, n);
  for (const d of deep) foreignUnder(d, uid, found);
  for (const p of shallow) {
    try {
      const st = lstatSync(p);
      if (st.uid !== uid && !found.some((f) => p === f.path || p.startsWith(`${f.path}/`))) found.push({ path: p, uid: st.uid });
    } catch {
      // Not there: nothing of anyone's.
    }
  }
  if (found.length === 0) return [];
  // Names only now: a user of a directory service costs an `id` run, which a healthy install never pays.
  const owner: Owner = { uid, name: userName(uid) };
  const names = new Map<number, string>();
  const nameOf = (uid: number) => names.get(uid) ?? names.set(uid, ownerText({ uid, name: userName(uid) })).get(uid)!;
  const as = owner.name ?? String(owner.uid);
  // NAME: also gives the folder back to the owner's login group; a bare uid has none to name (chown refuses `1000:`).
  const to = shownWord(owner.name ? `${owner.name}:` : String(owner.uid));
  const lines = found.slice(0, NAMED_MAX).map(
    (f) =>
      `foreign owner: ${f.path} belongs to ${nameOf(f.uid)}, not to ${ownerText(owner)} who owns the state folder ${n.stateDir}, so the wakes, which run as ${as}, cannot replace it (hbgen was run as another user); give it back with \`sudo chown -R ${to} ${shownWord(f.path)}\``,
  );
  if (found.length > NAMED_MAX) lines.push(`foreign owner: ${found.length - NAMED_MAX} more paths of this install belong to another user than ${ownerText(owner)}; \`sudo chown -R ${to} ${shownWord(n.stateDir)}\` gives back those in the state folder`);
  return lines;
}
