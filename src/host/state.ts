// <stateDir>/state.json: what an install put on the host, so that status can audit it and
// stop can remove exactly it. Written first as an intent ("installing", before the
// scheduler is touched: a crashed install can still be stopped), then "installed" after
// the smoke test, "stopped" after stop.
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import type { SchedulerId } from '../schedulers.ts';
import type { Spec } from '../spec.ts';
import { readOrNull, sha256, writeAtomic } from './fsx.ts';

export const STATE_FILE = 'state.json';

export interface FileRecord {
  path: string;
  sha256: string;
  mode: number;
}

export interface State {
  format: 1;
  name: string;
  status: 'installing' | 'installed' | 'stopped';
  /** When this record was written (host data, ISO-8601 UTC). */
  time: string;
  installedAt?: string;
  stoppedAt?: string;
  hbgenVersion: string;
  specFile: string;
  specHash: string;
  /** The validated spec with defaults, as installed: what `resume` reinstalls. */
  spec: Spec;
  scheduler: SchedulerId;
  /** The scheduler's own names for the entry. */
  ids: Record<string, string>;
  stateDir: string;
  /** The wrapper, gate (, claim) and host copies in the state folder. */
  files: FileRecord[];
  /** The files outside the state folder that the scheduler reads (plist, units). */
  hostFiles: FileRecord[];
  /** Folders install created for host files (removed by stop when empty). */
  createdDirs: string[];
  bin: { path: string; realpath: string; interpreter?: string };
  harness: Spec['agent']['harness'];
  permissionMode: string;
  billing: { result: 'subscription'; checkedKeys: string[]; envFileWarnings: string[] };
  // Each backend adds its own record here (a key named after it, e.g. `cron`), declared
  // next to its code with `declare module './state.ts'`, so this file names no scheduler.
}

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** sha256 of the canonical JSON of the validated spec ($schema left out: it changes nothing). */
export function specHash(spec: Spec): string {
  const { $schema: _ignored, ...rest } = spec as Spec & { $schema?: string };
  return sha256(canonicalJson(rest));
}

export function statePath(stateDir: string): string {
  return posix.join(stateDir, STATE_FILE);
}

export function readState(stateDir: string): State | null {
  const p = statePath(stateDir);
  const b = readOrNull(p);
  if (b === null) return null;
  let s: State;
  try {
    s = JSON.parse(b.toString('utf8')) as State;
  } catch {
    throw new UserError([`${p}: not valid JSON, so hbgen cannot tell what it installed; restore it from a backup, or remove the scheduler entry by hand (see README "Install on a host") and delete the file`]);
  }
  if (s?.format !== 1 || typeof s.name !== 'string' || !Array.isArray(s.files) || !Array.isArray(s.hostFiles) || !s.spec) {
    throw new UserError([`${p}: not a state file this hbgen understands; restore it from a backup, or remove the scheduler entry by hand (see README "Install on a host") and delete the file`]);
  }
  return s;
}

export function stateBytes(s: State): Buffer {
  return Buffer.from(`${JSON.stringify(s, null, 2)}\n`);
}

export function writeState(stateDir: string, s: State): Buffer {
  const b = stateBytes(s);
  writeAtomic(statePath(stateDir), b, 0o600);
  return b;
}
