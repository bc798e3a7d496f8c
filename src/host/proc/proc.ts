// The wrapper's lock and a heartbeat running now: who holds the lock, is it stale, and
// ending a running heartbeat (TERM to the wrapper's process group, KILL after killAfter).
// The mkdir lock is `<stateDir>/heartbeat.lock.d/owner` = "PID EPOCH" (the lock owner
// record of src/formats.ts, which the wrapper writes); the flock lock is free when
// `flock -n` can take it.
//
// hbgen signals only processes it proves are this install's: a wrapper is a process whose
// command line is exactly `/bin/sh <stateDir>/heartbeat.sh [--now|--smoke]`, and what it
// started is a descendant of such a wrapper that started after it. The owner file names a
// PID, which proves nothing by itself (the PID is reused once the owner is gone, and the
// agent may write the file): its owner counts only when that PID is such a wrapper and
// started before the lock was taken, else the lock is stale and nothing is signalled.
import { rmSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { parseLockOwner, sleep } from '../../formats.ts';
import type { Names } from '../../names.ts';
import { durations, type Spec } from '../../spec.ts';
import { lstatOrNull, readSoft } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { pidRunning } from './lock.ts';
import { type Proc, type ProcSource, processInfo, processes, programOf, startedBy, stillSame } from './ps.ts';
import { runTool } from './tools.ts';

export interface LockInfo {
  kind: 'none' | 'mkdir' | 'flock';
  /** The mkdir lock's owner PID (0: no readable owner). */
  pid: number;
  held: boolean;
  stale: boolean;
  /** Held by a wrapper of this install for longer than timeout + killAfter. */
  overdue: boolean;
  detail: string;
}

/** The wrapper's own command lines: how the scheduler, `hbgen wake` and the install check start it. */
export function isWrapper(p: Pick<Proc, 'args'>, n: Names): boolean {
  const w = `/bin/sh ${n.wrapper}`;
  return p.args === w || p.args === `${w} --now` || p.args === `${w} --smoke`;
}

/** Why the live process `pid` named by the owner record is or is not the lock's owner. */
async function ownerProof(io: HostIO, n: Names, pid: number, epoch: number, source: ProcSource): Promise<string | null> {
  const p = await processInfo(io, pid, source);
  if (!p) return `its owner PID ${pid} cannot be inspected`;
  if (!isWrapper(p, n)) return `its owner PID ${pid} is now another program (${programOf(p)}), not this install's heartbeat.sh`;
  if (!startedBy(p, epoch)) return `its owner PID ${pid} is a heartbeat.sh that started after the lock was taken, so the PID was reused`;
  return null;
}

export async function lockInfo(io: HostIO, spec: Spec, n: Names, source: ProcSource = 'auto'): Promise<LockInfo> {
  const staleAfter = durations(spec).wake;
  const nowS = Math.floor(io.now().getTime() / 1000);
  const base = { overdue: false };
  const d = lstatOrNull(n.lockDir);
  if (d?.isDirectory()) {
    let owner = '';
    // The owner record is "PID EPOCH" (and a token): 4 KiB is more than it holds. A FIFO or
    // device planted there is recorded and read as no owner, never waited on.
    try {
      owner = readSoft(posix.join(n.lockDir, 'owner'), 4096, { noFollow: true })?.toString('utf8').trim() ?? '';
    } catch {
      owner = '';
    }
    const o = parseLockOwner(owner);
    if (!o) {
      const age = nowS - Math.floor(statSync(n.lockDir).mtimeMs / 1000);
      const stale = age > staleAfter;
      return { ...base, kind: 'mkdir', pid: 0, held: !stale, stale, detail: `${n.lockDir} has no readable owner and is ${age} s old` };
    }
    const { pid, epoch: since } = o;
    const notOurs = !pidRunning(pid) ? `its owner PID ${pid} is not running` : await ownerProof(io, n, pid, since, source);
    if (notOurs) return { ...base, kind: 'mkdir', pid, held: false, stale: true, detail: `${n.lockDir}: ${notOurs}` };
    // A live owner proven ours holds the lock whatever its age: only stop ends it.
    const age = nowS - since;
    const overdue = age > staleAfter;
    const why = `held by PID ${pid} since ${new Date(since * 1000).toISOString()}${overdue ? `, ${age} s, longer than timeout + killAfter (${staleAfter} s)` : ''}`;
    return { kind: 'mkdir', pid, held: true, stale: false, overdue, detail: `${n.lockDir}: ${why}` };
  }
  if (lstatOrNull(n.lock)?.isFile()) {
    const r = await runTool(io, 'flock', ['-n', '-E', '75', n.lock, 'true']);
    if (r.code === 75) return { ...base, kind: 'flock', pid: 0, held: true, stale: false, detail: `${n.lock} is held (flock)` };
    return { ...base, kind: 'flock', pid: 0, held: false, stale: false, detail: `${n.lock} is free` };
  }
  return { ...base, kind: 'none', pid: 0, held: false, stale: false, detail: 'no lock' };
}

/** A wrapper running now and what it started, as found in one reading of the process table. */
export interface Running {
  wrapper: Proc;
  /** Its descendants that started no earlier than it (a process cannot predate its parent). */
  tree: Proc[];
}

/** This install's wrappers running now (never hbgen itself), each with its descendants. */
export async function runningWrappers(io: HostIO, n: Names, source: ProcSource = 'auto'): Promise<{ running: Running[]; all: Proc[] }> {
  const all = await processes(io, source);
  const descendants = (root: Proc): Proc[] => {
    const out: Proc[] = [];
    const walk = (pid: number) => {
      for (const c of all) {
        if (c.ppid !== pid || c.pid === process.pid || c.start < root.start - Math.max(root.slack, c.slack)) continue;
        out.push(c);
        walk(c.pid);
      }
    };
    walk(root.pid);
    return out;
  };
  const running = all.filter((p) => isWrapper(p, n) && p.pid !== process.pid && !p.zombie).map((w) => ({ wrapper: w, tree: descendants(w) }));
  return { running, all };
}

const send = (pid: number, sig: NodeJS.Signals, group: boolean): boolean => {
  try {
    process.kill(group ? -pid : pid, sig);
    return true;
  } catch {
    return false;
  }
};

/**
 * End the given wrappers: TERM to each wrapper's process group when it leads one (and it
 * is not ours), else to the wrapper, which forwards it to the agent's group; after
 * `killAfter`, KILL to whatever of them and their descendants is left. Before the KILL
 * the table is read again and only a process with the same PID and the same start time
 * is signalled: in those seconds a PID may have been reused.
 */
export async function endHeartbeats(io: HostIO, spec: Spec, running: Running[], all: Proc[], source: ProcSource = 'auto'): Promise<string[]> {
  if (running.length === 0) return [];
  const said: string[] = [];
  const ownPgid = all.find((p) => p.pid === process.pid)?.pgid ?? -1;
  const targets = running.map((r) => ({ ...r, group: r.wrapper.pgid === r.wrapper.pid && r.wrapper.pgid !== ownPgid }));
  for (const t of targets) {
    const now = await processInfo(io, t.wrapper.pid, source);
    if (!stillSame(t.wrapper, now)) continue;
    send(t.wrapper.pid, 'SIGTERM', t.group);
    said.push(`sent TERM to the heartbeat running now (PID ${t.wrapper.pid}${t.group ? ' and its process group' : ''})`);
  }
  // The wrapper itself sends KILL to the agent's group killAfter after TERM; hbgen's KILL
  // is the backstop, a moment later.
  const deadline = Date.now() + durations(spec).killAfter * 1000 + 2000;
  const anyAlive = () => targets.some((t) => [t.wrapper, ...t.tree].some((p) => pidRunning(p.pid)));
  while (anyAlive() && Date.now() < deadline) await sleep(100);
  if (!anyAlive()) return said;
  const fresh = new Map((await processes(io, source)).map((p) => [p.pid, p]));
  for (const t of targets) {
    const left = [t.wrapper, ...t.tree].filter((p) => stillSame(p, fresh.get(p.pid)));
    if (left.length === 0) continue;
    // The group's number stays taken while any member lives, so it still names this group.
    if (t.group && left.some((p) => fresh.get(p.pid)!.pgid === t.wrapper.pid)) send(t.wrapper.pid, 'SIGKILL', true);
    for (const p of left) send(p.pid, 'SIGKILL', false);
    said.push(`sent KILL ${spec.killAfter} (+2 s) later to what was left of it (PID ${left.map((p) => p.pid).join(', ')})`);
  }
  return said;
}

/** Remove a stale mkdir lock (after its owner is gone). */
export function clearStaleLock(n: Names): void {
  rmSync(n.lockDir, { recursive: true, force: true });
}

/**
 * A heartbeat of this install running now, as the words to show ("PID N, started …"), or
 * null: a wrapper proven ours by its command line, else a lock that is held (a flock lock
 * names no PID; a mkdir lock between its mkdir and its owner record names none yet).
 */
export async function heartbeatRunningNow(io: HostIO, spec: Spec, n: Names): Promise<string | null> {
  const { running } = await runningWrappers(io, n);
  const w = running.find((r) => !r.wrapper.args.endsWith(' --smoke'))?.wrapper ?? running[0]?.wrapper;
  if (w) return `PID ${w.pid}, started ${new Date(w.start * 1000).toISOString()}`;
  const lk = await lockInfo(io, spec, n);
  return lk.held ? lk.detail : null;
}
