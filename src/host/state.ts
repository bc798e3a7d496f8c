// <stateDir>/state.json: what an install put on the host, so that status can audit it and
// stop can remove exactly it. Written first as an intent ("installing", before the
// scheduler is touched: a crashed install can still be stopped), then "installed" after
// the smoke test, "stopped" after stop.
import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { shownWord } from '../escape.ts';
import type { SchedulerId } from '../scheduler-facts.ts';
import type { Spec } from '../spec.ts';
import type { BillingRecord } from './install/billing.ts';
import { readOrNull, sha256, writeAtomic } from './fsx.ts';

export const STATE_FILE = 'state.json';

export interface FileRecord {
  path: string;
  sha256: string;
  mode: number;
}

export interface State {
  /** 2 on disk since the scheduler became an object there (stateBytes, readState); 1 is still read. */
  format: 1 | 2;
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
  /** On disk inside `scheduler`: the entry in words (what fires when), and what install noted of it (null: nothing). */
  detail?: string;
  note?: string | null;
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
  /** The client's own word on its login at install (src/host/install/billing.ts), and the credential names looked for in the shell. */
  billing: BillingRecord & { checkedKeys: string[]; envFileWarnings: string[] };
  /** The repo's .git/info/exclude that install added hbgen's block to (stop removes the block). */
  exclude?: { path: string };
  /** HEART.md as the install found it (null: none), so that a later look can tell it changed. */
  heart?: { sha256: string | null };
  /** What the last `hbgen status` concluded. */
  health?: { checkedAt: string; healthy: boolean; problems: string[] };
  /** Files of the state folder that `hbgen status` found changed and put back: problems until the next install. */
  repairs?: { path: string; at: string }[];
  // Each backend adds its own record here (a key named after it, e.g. `cron`), declared
  // next to its code with `declare module '../state.ts'`, so this file names no scheduler.
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

/** state.json holds the spec (at most 1 MiB) and a few records: 4 MiB is read at most, never more. */
const STATE_MAX = 4 * 1024 * 1024;

export function readState(stateDir: string): State | null {
  const p = statePath(stateDir);
  // Not a regular file (a FIFO, /dev/zero) or too large: a UserError naming it (fsx.ts SkippedFile), never a hang.
  const b = readOrNull(p, STATE_MAX);
  if (b === null) return null;
  let s: State;
  try {
    s = JSON.parse(b.toString('utf8')) as State;
  } catch {
    throw new UserError([`${p}: not valid JSON, so hbgen cannot tell what it installed; restore it from a backup, or remove the scheduler entry by hand (see docs/install.md) and delete the file`]);
  }
  // Format 2 writes the scheduler as {type, self_schedule, detail, ids, note}; in memory it is its id.
  const sched = (s as { scheduler?: unknown } | null)?.scheduler;
  if (s && (s.format as number) === 2 && sched && typeof sched === 'object') {
    const o = sched as { type?: unknown; ids?: unknown; detail?: unknown; note?: unknown };
    s = { ...s, scheduler: o.type as SchedulerId, ids: (s.ids ?? o.ids) as Record<string, string> };
    if (typeof o.detail === 'string') s.detail = o.detail;
    if (typeof o.note === 'string' || o.note === null) s.note = o.note;
  }
  if (![1, 2].includes(s?.format) || typeof s.name !== 'string' || !Array.isArray(s.files) || !Array.isArray(s.hostFiles) || !s.spec) {
    throw new UserError([`${p}: not a state file this hbgen understands; restore it from a backup, or remove the scheduler entry by hand (see docs/install.md) and delete the file`]);
  }
  return s;
}

/**
 * The file's bytes: format 2, whose `scheduler` says what runs the wakes — the host
 * scheduler, never the agent itself (`self_schedule: false`) — under which ids, what it fires
 * (`detail`) and what install noted of it (`note`, null when nothing): the seed's ownership record.
 */
export function stateBytes(s: State): Buffer {
  const { detail, note, ...rest } = s;
  const onDisk = { ...rest, format: 2, scheduler: { type: s.scheduler, self_schedule: false, detail: detail ?? null, ids: s.ids, note: note ?? null } };
  return Buffer.from(`${JSON.stringify(onDisk, null, 2)}\n`);
}

export function writeState(stateDir: string, s: State): Buffer {
  const b = stateBytes(s);
  writeAtomic(statePath(stateDir), b, 0o600);
  return b;
}

/** Who owns a state folder: the uid, and the login name where this host has one for it. */
export interface Owner {
  uid: number;
  name: string | null;
}

/**
 * The login name of `uid`: /etc/passwd first (no process), then `id -nu` for a user of a
 * directory service (LDAP, macOS's); null when neither knows it.
 */
export function userName(uid: number): string | null {
  try {
    for (const l of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = l.split(':');
      if (name && id === String(uid)) return name;
    }
  } catch {
    // No readable /etc/passwd: id(1) below asks the system's own lookup.
  }
  const r = spawnSync('id', ['-nu', String(uid)], { encoding: 'utf8', timeout: 5000 });
  const name = r.status === 0 ? r.stdout.trim() : '';
  return /^[A-Za-z0-9._][A-Za-z0-9._@-]*\$?$/.test(name) ? name : null;
}

/** `uid` as a sentence names it: "ada (uid 1000)", or "uid 1000" when the host has no name for it. */
export function ownerText(o: Owner): string {
  return o.name ? `${o.name} (uid ${o.uid})` : `uid ${o.uid}`;
}

/**
 * The owner of the state folder `dir` when it is a folder of another uid than `uid`; null
 * when it is the caller's, or not there (nothing of an install is in it to break). A link
 * is not followed: the wrapper and install refuse a state folder that is one.
 */
export function foreignOwner(dir: string, uid: number): Owner | null {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return null;
  }
  if (!st.isDirectory() || st.uid === uid) return null;
  return { uid: st.uid, name: userName(st.uid) };
}

/**
 * One rule for every command that writes to an install: the state folder is written only by
 * the uid that owns it. A file hbgen (or the wrapper it runs) makes there as anyone else
 * (root through sudo, typically) belongs to that user, mode 0600, and the owner's next wake
 * can neither read nor replace it. Root is not exempt: root writing into another user's
 * folder is exactly that. `again` is the command line to run as the owner ("hbgen wake
 * SPEC"); the sentence names the folder, its owner and that user. Null when `uid` owns it.
 */
export function ownerRefusal(dir: string, uid: number, again: string): string | null {
  const o = foreignOwner(dir, uid);
  if (!o) return null;
  const as = o.name ?? `#${o.uid}`;
  return `the state folder ${dir} belongs to ${ownerText(o)}, not to you (uid ${uid}), and hbgen writes to an install only as the owner of its state folder, so nothing was changed; run hbgen as ${o.name ?? `uid ${o.uid}`}, e.g. \`sudo -u ${shownWord(as)} ${again}\``;
}

/** ownerRefusal as the refusal of a command (exit 1), before it writes anything. */
export function refuseForeignState(dir: string, uid: number, again: string): void {
  const why = ownerRefusal(dir, uid, again);
  if (why) throw new UserError([why]);
}
