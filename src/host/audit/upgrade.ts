// An install made by another hbgen than this one: not drift and not tampering. Its files
// still match state.json (status checks that first, and calls a mismatch tampering); only a
// fresh render by this hbgen differs, because this hbgen ships another runtime. The
// installed wrapper keeps running the runtime it pins until `hbgen install` upgrades it.
import { posix } from 'node:path';
import { sha256 } from '../fsx.ts';
import { runtime } from '../../../generators/runtime.ts';
import { type Spec, validateSpec } from '../../spec.ts';
import { VERSION } from '../../version.ts';
import { type State, specHash } from '../state.ts';

const RUNTIME_FILE = /^runtime-[^/]*\.sh$/;

/** Whether a state-folder path is a runtime (runtime-VERSION.sh). */
export const isRuntimeFile = (path: string): boolean => RUNTIME_FILE.test(posix.basename(path));

/**
 * state.json's file records that are records (a path and a SHA-256, both strings): a
 * state.json someone else wrote may hold anything, and list and status still answer.
 */
function records(s: State): { path: string; sha256: string }[] {
  const files: unknown = s.files;
  if (!Array.isArray(files)) return [];
  return files.filter((f): f is { path: string; sha256: string } => !!f && typeof f === 'object' && typeof f.path === 'string' && typeof f.sha256 === 'string');
}

/** The runtime state.json recorded (its SHA-256), or null for an install from before the runtime was a file of its own. */
export function installedRuntime(s: State): { path: string; sha256: string } | null {
  const r = records(s).find((f) => isRuntimeFile(f.path));
  return r ? { path: r.path, sha256: r.sha256 } : null;
}

/**
 * Who installed `s` and what this hbgen ships instead ("installed by hbgen X (runtime sha
 * …); this hbgen is Y (runtime sha …)"), or null when this hbgen installed it (its version
 * and runtime are this hbgen's own).
 */
export function upgradeFrom(s: State): string | null {
  const rt = runtime();
  const was = installedRuntime(s);
  if (s.hbgenVersion === VERSION && was?.sha256 === rt.sha256) return null;
  const old = was ? `runtime sha256 ${was.sha256.slice(0, 12)}…` : 'no separate runtime';
  // A state.json someone else wrote may hold no version (list's HBGEN column says "-").
  const by = typeof s.hbgenVersion === 'string' ? `hbgen ${s.hbgenVersion}` : 'an hbgen that recorded no version';
  return `installed by ${by} (${old}); this hbgen is ${VERSION} (runtime sha256 ${rt.sha256.slice(0, 12)}…)`;
}

/**
 * The sentence status says of an install another hbgen made, or null (upgradeFrom); with
 * `fresh` (this hbgen's render of the spec), what the upgrade changes.
 */
export function pendingUpgrade(s: State, fresh?: readonly { path: string; content: string }[]): string | null {
  const from = upgradeFrom(s);
  const what = fresh ? upgradeChanges(fresh, s) : '';
  return from && `${from}: \`hbgen install\` upgrades it${what ? ` (what changes: ${what})` : ''}, and until then every wake runs the runtime installed`;
}

/**
 * The files an upgrade rewrites, from state.json's record against this hbgen's render:
 * "runtime-0.1.9.sh → runtime-0.2.0.sh; heartbeat.sh, window.sh rewritten", and the files
 * this hbgen no longer writes. Paths relative to the state folder.
 */
export function upgradeChanges(fresh: readonly { path: string; content: string }[], s: State): string {
  const dir = typeof s.stateDir === 'string' ? s.stateDir : '';
  const rel = (p: string) => (dir ? posix.relative(dir, p) : p);
  const recorded = new Map(records(s).map((f) => [rel(f.path), f.sha256]));
  const out: string[] = [];
  const oldRt = [...recorded.keys()].filter((p) => isRuntimeFile(p) && !fresh.some((f) => f.path === p));
  const newRt = fresh.filter((f) => isRuntimeFile(f.path) && !recorded.has(f.path)).map((f) => f.path);
  if (oldRt.length || newRt.length) out.push(`${oldRt.join(', ') || 'no runtime file'} \u2192 ${newRt.join(', ') || 'no runtime file'}`);
  const rewritten = fresh.filter((f) => !isRuntimeFile(f.path) && recorded.has(f.path) && recorded.get(f.path) !== sha256(Buffer.from(f.content))).map((f) => f.path);
  if (rewritten.length) out.push(`${rewritten.join(', ')} rewritten`);
  const added = fresh.filter((f) => !isRuntimeFile(f.path) && !recorded.has(f.path)).map((f) => f.path);
  if (added.length) out.push(`${added.join(', ')} new`);
  const gone = [...recorded.keys()].filter((p) => !isRuntimeFile(p) && !fresh.some((f) => f.path === p));
  if (gone.length) out.push(`${gone.join(', ')} removed`);
  return out.join('; ');
}

/**
 * Whether the spec file says something else than what was installed. state.json's hash is
 * of the spec as the installing hbgen completed it; a later hbgen may complete the same file
 * differently (a field it added), so the recorded spec is completed again by this hbgen and
 * compared too: only a difference in both is a change of the spec.
 */
export function specChanged(fileSpec: Spec, s: State): boolean {
  const now = specHash(fileSpec);
  if (now === s.specHash) return false;
  const again = validateSpec(s.spec);
  return !again.spec || specHash(again.spec) !== now;
}
