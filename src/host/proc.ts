// The wrapper's lock and a heartbeat running now: who holds the lock, is it stale, and
// ending a running heartbeat (TERM to the wrapper's process group, KILL after killAfter).
// The mkdir lock is `<stateDir>/heartbeat.lock.d/owner` = "PID EPOCH" (the lock owner
// record of src/formats.ts, which the wrapper writes); the flock lock is free when
// `flock -n` can take it.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { parseLockOwner, sleep } from '../formats.ts';
import type { Names } from '../names.ts';
import { seconds, type Spec } from '../spec.ts';
import { lstatOrNull } from './fsx.ts';
import type { HostIO } from './io.ts';
import { pidRunning } from './lock.ts';
import { runTool } from './tools.ts';

export interface LockInfo {
  kind: 'none' | 'mkdir' | 'flock';
  /** The mkdir lock's owner PID (0: no readable owner). */
  pid: number;
  held: boolean;
  stale: boolean;
  detail: string;
}

export async function lockInfo(io: HostIO, spec: Spec, n: Names): Promise<LockInfo> {
  const staleAfter = seconds(spec.timeout) + seconds(spec.killAfter);
  const nowS = Math.floor(io.now().getTime() / 1000);
  const d = lstatOrNull(n.lockDir);
  if (d?.isDirectory()) {
    let owner = '';
    try {
      owner = readFileSync(posix.join(n.lockDir, 'owner'), 'utf8').trim();
    } catch {
      owner = '';
    }
    const o = parseLockOwner(owner);
    if (!o) {
      const age = nowS - Math.floor(statSync(n.lockDir).mtimeMs / 1000);
      const stale = age > staleAfter;
      return { kind: 'mkdir', pid: 0, held: !stale, stale, detail: `${n.lockDir} has no readable owner and is ${age} s old` };
    }
    const { pid, epoch: since } = o;
    const alive = pidRunning(pid);
    const old = nowS - since > staleAfter;
    const stale = !alive || old;
    const why = !alive ? `its owner PID ${pid} is not running` : old ? `it is ${nowS - since} s old, longer than timeout + killAfter (${staleAfter} s)` : `held by PID ${pid} since ${new Date(since * 1000).toISOString()}`;
    return { kind: 'mkdir', pid, held: alive && !old, stale, detail: `${n.lockDir}: ${why}` };
  }
  if (lstatOrNull(n.lock)?.isFile()) {
    const r = await runTool(io, 'flock', ['-n', '-E', '75', n.lock, 'true']);
    if (r.code === 75) return { kind: 'flock', pid: 0, held: true, stale: false, detail: `${n.lock} is held (flock)` };
    return { kind: 'flock', pid: 0, held: false, stale: false, detail: `${n.lock} is free` };
  }
  return { kind: 'none', pid: 0, held: false, stale: false, detail: 'no lock' };
}

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}

async function processes(io: HostIO): Promise<Proc[]> {
  const r = await runTool(io, 'ps', ['-A', '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'args=']);
  if (r.code !== 0) return [];
  const out: Proc[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (m) out.push({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[4]! });
  }
  return out;
}

/** Wrapper processes of this install running now: the lock owner and any `/bin/sh <wrapper>`. */
export async function runningWrappers(io: HostIO, n: Names, lock: LockInfo): Promise<{ procs: Proc[]; all: Proc[] }> {
  const all = await processes(io);
  const pids = new Set<number>();
  if (lock.kind === 'mkdir' && lock.pid > 0 && pidRunning(lock.pid)) pids.add(lock.pid);
  for (const p of all) if (p.args === `/bin/sh ${n.wrapper}` || p.args.startsWith(`/bin/sh ${n.wrapper} `)) pids.add(p.pid);
  pids.delete(process.pid);
  return { procs: all.filter((p) => pids.has(p.pid)), all };
}

/**
 * End the given wrappers: TERM to each wrapper's process group when it leads one (and it
 * is not ours), else to the wrapper, which forwards it to the agent's group; after
 * `killAfter`, KILL to whatever of them and their descendants is left.
 */
export async function endHeartbeats(io: HostIO, spec: Spec, procs: Proc[], all: Proc[]): Promise<string[]> {
  if (procs.length === 0) return [];
  const said: string[] = [];
  const ownPgid = all.find((p) => p.pid === process.pid)?.pgid ?? -1;
  const descendants = (root: number): number[] => {
    const out: number[] = [];
    const walk = (pid: number) => {
      for (const c of all) if (c.ppid === pid && c.pid !== process.pid) {
        out.push(c.pid);
        walk(c.pid);
      }
    };
    walk(root);
    return out;
  };
  const send = (pid: number, sig: NodeJS.Signals, group: boolean) => {
    try {
      process.kill(group ? -pid : pid, sig);
      return true;
    } catch {
      return false;
    }
  };
  const targets = procs.map((p) => ({ p, group: p.pgid === p.pid && p.pgid !== ownPgid, tree: descendants(p.pid) }));
  for (const t of targets) {
    send(t.p.pid, 'SIGTERM', t.group);
    said.push(`sent TERM to the heartbeat running now (PID ${t.p.pid}${t.group ? ' and its process group' : ''})`);
  }
  // The wrapper itself sends KILL to the agent's group killAfter after TERM; hbgen's KILL
  // is the backstop, a moment later.
  const deadline = Date.now() + seconds(spec.killAfter) * 1000 + 2000;
  const anyAlive = () => targets.some((t) => pidRunning(t.p.pid) || t.tree.some(pidRunning));
  while (anyAlive() && Date.now() < deadline) await sleep(100);
  for (const t of targets) {
    const left = [t.p.pid, ...t.tree].filter(pidRunning);
    if (left.length === 0) continue;
    if (t.group) send(t.p.pid, 'SIGKILL', true);
    for (const pid of left) send(pid, 'SIGKILL', false);
    said.push(`sent KILL ${spec.killAfter} (+2 s) later to what was left of it (PID ${left.join(', ')})`);
  }
  return said;
}

/** Remove a stale mkdir lock (after its owner is gone). */
export function clearStaleLock(n: Names): void {
  rmSync(n.lockDir, { recursive: true, force: true });
}
