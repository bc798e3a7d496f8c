// The process table as hbgen needs it to decide whether a process is provably one of its
// own: PID, parent, group, command line, and when the process started. A PID alone proves
// nothing: a lock owner file outlives its process, the PID is reused by whatever starts
// next, and the state folder the owner file lives in may be written by the agent. So every
// decision to signal a process also compares its command line and its start time.
//
// On Linux everything comes from /proc (argv exactly as exec'd, the start time in clock
// ticks since boot, field 22 of /proc/PID/stat); elsewhere (macOS) from `ps`, whose
// etime (elapsed time) gives the start to the second.
import { readFileSync, readdirSync } from 'node:fs';
import type { HostIO } from '../io.ts';
import { runTool } from './tools.ts';

export interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  /** The command line, its words joined by single spaces ('' for a zombie). */
  args: string;
  /** When it started, epoch seconds. */
  start: number;
  /** How far `start` may be off between two readings of the same process, in seconds. */
  slack: number;
  zombie: boolean;
}

/** Where the table comes from: /proc when there is one; `ps` forces the portable path. */
export type ProcSource = 'auto' | 'ps';

const hasProc = (): boolean => {
  try {
    return readFileSync('/proc/self/stat', 'utf8').length > 0;
  } catch {
    return false;
  }
};

let clockTicks: number | undefined;

/** Clock ticks per second (sysconf CLK_TCK), which /proc/PID/stat counts the start in. */
async function ticksPerSecond(io: HostIO): Promise<number> {
  if (clockTicks === undefined) {
    const r = await runTool(io, 'getconf', ['CLK_TCK']);
    const n = Number(r.stdout.trim());
    // 100 is what every Linux architecture hbgen runs on reports.
    clockTicks = r.code === 0 && Number.isInteger(n) && n > 0 ? n : 100;
  }
  return clockTicks;
}

function bootTime(): number {
  const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
  return m ? Number(m[1]) : 0;
}

/**
 * /proc/PID/stat from field 3 (state) on, or null when there is no such entry. The command
 * name in parentheses may hold spaces and parentheses: the fields follow the last ')'.
 * (proc(5), /proc/pid/stat.)
 */
export function procStat(pid: number): string[] | null {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function procEntry(pid: number, boot: number, hz: number): Proc | null {
  try {
    const f = procStat(pid);
    if (!f) return null;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    return {
      pid,
      ppid: Number(f[1]),
      pgid: Number(f[2]),
      args: argv.join(' '),
      // starttime is field 22 of the whole line; f starts at field 3.
      start: boot + Number(f[19]) / hz,
      // btime is whole seconds, the ticks exact: two readings of one process agree exactly.
      slack: 0,
      zombie: f[0] === 'Z',
    };
  } catch {
    return null; // gone meanwhile, or not ours to read
  }
}

/** `[[dd-]hh:]mm:ss`, ps's elapsed time, in seconds. */
export function parseEtime(s: string): number | null {
  const m = /^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)$/.exec(s.trim());
  if (!m) return null;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

async function psTable(io: HostIO, pids: number[] | null): Promise<Proc[]> {
  const sel = pids ? ['-p', pids.join(',')] : ['-A'];
  const r = await runTool(io, 'ps', [...sel, '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'stat=', '-o', 'etime=', '-o', 'args=']);
  const now = Date.now() / 1000;
  const out: Proc[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s?(.*)$/.exec(line);
    const el = m ? parseEtime(m[5]!) : null;
    if (!m || el === null) continue;
    // etime is whole seconds and read at a slightly different moment each time.
    out.push({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[6]!.trim(), start: now - el, slack: 2, zombie: m[4]!.startsWith('Z') });
  }
  return out;
}

/** Every process this user can see. */
export async function processes(io: HostIO, source: ProcSource = 'auto'): Promise<Proc[]> {
  if (source === 'ps' || !hasProc()) return psTable(io, null);
  const hz = await ticksPerSecond(io);
  const boot = bootTime();
  const out: Proc[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const p = procEntry(Number(e), boot, hz);
    if (p) out.push(p);
  }
  return out;
}

/** One process, or null when no process has that PID (or it cannot be read). */
export async function processInfo(io: HostIO, pid: number, source: ProcSource = 'auto'): Promise<Proc | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (source === 'ps' || !hasProc()) return (await psTable(io, [pid])).find((p) => p.pid === pid) ?? null;
  return procEntry(pid, bootTime(), await ticksPerSecond(io));
}

/** The same process as `then` (same PID, same start), still there and not a zombie. */
export function stillSame(then: Proc, now: Proc | null | undefined): boolean {
  return !!now && now.pid === then.pid && !now.zombie && Math.abs(now.start - then.start) <= Math.max(then.slack, now.slack);
}

/**
 * Whether `p` can be the process that wrote a lock owner record at `epoch` (whole seconds,
 * from `date +%s`): it must have started by then. A process that started later got the PID
 * after the owner was gone. Two seconds cover the rounding of `epoch`, of the boot time,
 * and of ps's elapsed time.
 */
export function startedBy(p: Proc, epoch: number): boolean {
  return p.start <= epoch + 1 + Math.max(p.slack, 1);
}

/** The program a command line runs, for messages (never the whole line: it may hold secrets). */
export function programOf(p: Proc): string {
  return p.args.split(' ')[0] || '(no command line)';
}
