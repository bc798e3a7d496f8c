// What the lifecycle commands (install, status, stop, resume, wake) may know about the
// host, in one object. Every host fact comes from here: the environment (PATH finds the
// tools, HOME places the host files), the uid, the terminal, the clock. The CLI builds it
// from the process; tests build one with a temporary HOME and stand-in tools first on PATH.
// Rendering never sees any of it.
import { userInfo } from 'node:os';
import { UserError } from '../errors.ts';
import { terminalText } from '../escape.ts';

export interface HostIO {
  env: Record<string, string | undefined>;
  uid: number;
  /** The login name of uid (for loginctl). */
  user: string;
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Panel, progress and checks. */
  out(s: string): void;
  /** Questions and warnings. */
  err(s: string): void;
  now(): Date;
  /** Where the host's /etc is (tests point it at a folder of their own, as they point HOME). */
  etc?: string;
  /** Whether `out` goes to a terminal (colour is allowed only then: src/colour.ts). */
  outTTY?: boolean;
  /** The terminal's width when `out` is one (`hbgen list` fits it). */
  columns?: number;
}

export function processIO(): HostIO {
  const uid = process.getuid?.() ?? 0;
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.LOGNAME ?? String(uid);
  }
  return {
    env: process.env,
    uid,
    user,
    cwd: process.cwd(),
    stdin: process.stdin,
    // Every command's output passes here: nothing the agent wrote reaches the terminal raw.
    out: (s) => process.stdout.write(terminalText(s)),
    err: (s) => process.stderr.write(terminalText(s)),
    now: () => new Date(),
    outTTY: process.stdout.isTTY === true,
    columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  };
}

/** HOME from the environment: host files go under it. */
export function homeOf(io: HostIO): string {
  const h = io.env.HOME;
  if (!h || !h.startsWith('/')) {
    throw new UserError([`HOME is ${h ? `"${h}", not an absolute path` : 'not set'}; run hbgen from your own login shell`]);
  }
  return h.length > 1 ? h.replace(/\/+$/, '') : h;
}

