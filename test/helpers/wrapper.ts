// Shared harness for the behaviour suites of heartbeat.sh, window.sh and claim.sh.
// - render a spec whose repo, stateDir and agent live in a temp folder, write the scripts
//   where they are installed (the state folder);
// - run them with a chosen shell as /bin/sh: the wrapper re-execs through /bin/sh, so the
//   shell is bind-mounted over /usr/bin/dash (what /bin/sh points to) in a private mount
//   namespace (`unshare -m`, we are root) for that one process tree;
// - a recording stand-in agent (sh script) that writes argv (NUL-separated), environ,
//   /proc stat, stdin, open fds and cwd, then runs the test's `behave` snippet.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { renderNow } from './render.ts';
import { validateSpec } from '../../src/spec.ts';
import { shellcheckPath } from './tools.ts';
import { subscriptionAnswers } from './clients.ts';

export interface Shell {
  name: string;
  /** The file bind-mounted over /usr/bin/dash (so /bin/sh runs it). */
  file: string;
}

const root = mkdtempSync(join(tmpdir(), 'hbgen-sh-'));
if (!process.env.HBTEST_KEEP) process.on('exit', () => rmSync(root, { recursive: true, force: true }));

// Plain bash: bash started as "sh" enters posix mode, so /bin/sh is a shim that execs
// /usr/bin/bash under its own name.
const bashShim = join(root, 'bash-shim');
writeFileSync(bashShim, '#!/usr/bin/bash\nexec /usr/bin/bash "$@"\n', { mode: 0o755 });

export const SHELLS: Shell[] = [
  { name: 'dash', file: '/usr/bin/dash' },
  { name: 'bash', file: bashShim },
  { name: 'bash --posix', file: '/usr/bin/bash' }, // invoked as sh: posix mode, as macOS /bin/sh
  { name: 'busybox sh', file: '/usr/bin/busybox' },
  { name: 'mksh', file: '/usr/bin/mksh' },
  { name: 'posh', file: '/usr/bin/posh' },
  { name: 'yash', file: '/usr/bin/yash' },
];
export const shell = (name: string): Shell => SHELLS.find((s) => s.name === name)!;

// A PATH without flock, timeout, gtimeout and setsid, as on macOS.
const BARE_TOOLS = [
  'env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice',
  'ls', 'touch', '[', 'test', 'echo', 'readlink', 'tr', 'wc', 'grep', 'sed', 'chmod', 'ln', 'pwd', 'printf', 'kill', 'true', 'false', 'cksum', 'tail', 'mkfifo',
];
function toolDir(name: string, tools: string[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const t of tools) {
    const src = ['/usr/bin', '/bin'].map((d) => join(d, t)).find((p) => existsSync(p));
    if (!src) throw new Error(`tool ${t} not found`);
    symlinkSync(src, join(dir, t));
  }
  return dir;
}
export const PATHS = {
  /** flock, timeout and setsid available. */
  full: '/usr/local/bin:/usr/bin:/bin',
  /** none of flock, timeout, gtimeout, setsid. */
  bare: toolDir('bare', BARE_TOOLS),
  /** setsid but no timeout and no flock. */
  setsid: toolDir('setsid', [...BARE_TOOLS, 'setsid']),
};

// The stand-in agent runs under a private copy of dash, so that neither the shell under
// test (bind-mounted over /usr/bin/dash) nor the bash shim adds anything to its environ.
export const agentShell = join(root, 'agent-dash');
writeFileSync(agentShell, readFileSync('/usr/bin/dash'), { mode: 0o755 });
// It first answers the clients' own status questions as a subscription login (the
// wrapper's billing check asks them before a claude-code or codex wake), then records.
const AGENT = `#!${agentShell}
${subscriptionAnswers()}d=$HBTEST_DIR
for a in "$0" "$@"; do printf '%s\\000' "$a"; done >"$d/argv.$$"
mv -f "$d/argv.$$" "$d/argv"
cat /proc/$$/environ >"$d/env"
cat /proc/$$/stat >"$d/stat"
readlink /proc/$$/fd/0 >"$d/stdin"
for f in /proc/$$/fd/*; do printf '%s %s\\n' "\${f##*/}" "$(readlink "$f")"; done >"$d/fds"
pwd -P >"$d/pwd"
printf '%s\\n' "$$" >>"$d/runs"
printf '%s\\n' "$$" >"$d/started"
if [ -f "$d/behave" ]; then . "$d/behave"; fi
exit 0
`;

export interface Case {
  dir: string;
  repo: string;
  state: string;
  rec: string;
  bin: string;
  spec: ReturnType<typeof validateSpec>['spec'] & object;
  files: Record<string, string>;
  log(): string;
  rawLog(): string;
  /** agent.log: the agent's output, after the wrapper's copy of each wake's start line. */
  agentLog(): string;
  logLines(): string[];
  lines(): string[];
  outcomes(): string[];
  usages(): string[];
  argv(): string[];
  env(): string[];
  runs(): number[];
  behave(sh: string): void;
}

export interface CaseOptions {
  /**
   * Variables added to the validated spec's env: a local stand-in of the model API, reached
   * through ANTHROPIC_BASE_URL, which validation rightly refuses in a real spec (it would send
   * the plan's token to another host). Only the suites that test something else use it.
   */
  standInEnv?: Record<string, string>;
  /** Deep-merged over the default spec. */
  spec?: Record<string, unknown>;
  /** PATH of the spec env. */
  path?: string;
  /** Extra env entries. */
  env?: Record<string, string>;
  /** Agent file name (relative to the case's bin folder), e.g. "a=b/agent". */
  binName?: string;
  /** Install the scripts (default true). */
  install?: boolean;
  /** The state folder: this name (any bytes a path may hold) in the case's folder, outside the repo. */
  stateName?: string;
}

let seq = 0;
export function makeCase(opts: CaseOptions = {}): Case {
  const dir = join(root, `c${++seq}-${process.pid}`);
  const repo = join(dir, 'repo');
  const rec = join(dir, 'rec');
  const bin = join(dir, 'bin', opts.binName ?? 'agent');
  mkdirSync(repo, { recursive: true });
  mkdirSync(rec, { recursive: true });
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, AGENT, { mode: 0o755 });
  writeFileSync(join(repo, 'README'), 'hello\n');
  const base: Record<string, unknown> = {
    version: 1,
    name: 'tst',
    repo,
    agent: { harness: 'command', bin, args: [], prompt: 'Do one chunk.' },
    schedule: {
      scheduler: 'systemd-user',
      every: '5m',
      hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' },
    },
    timeout: '2s',
    killAfter: '1s',
    env: { HOME: dir, PATH: opts.path ?? PATHS.full, HBTEST_DIR: rec, ...(opts.env ?? {}) },
    // The behaviour suites test the wrapper itself, without the jail: the jail's
    // own suite (test/jail.test.ts) turns it on with `spec: { sandbox: {...} }`.
    sandbox: false,
  };
  if (opts.stateName !== undefined) base.stateDir = join(dir, opts.stateName);
  const raw = merge(base, opts.spec ?? {});
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(`spec invalid: ${v.errors.join('; ')}`);
  if (opts.standInEnv) v.spec.env = { ...v.spec.env, ...opts.standInEnv };
  const r = renderNow(v.spec);
  if (r.errors.length) throw new Error(`render: ${r.errors.join('; ')}`);
  const files: Record<string, string> = {};
  for (const f of r.files) files[f.path] = f.content;
  const spec = v.spec;
  const state = spec.stateDir.startsWith('/') ? spec.stateDir : join(repo, spec.stateDir);
  if (opts.install !== false) install(state, files);
  const logPath = join(state, 'runtime.log');
  const agentLogPath = join(state, 'agent.log');
  const c: Case = {
    dir,
    repo,
    state,
    rec,
    bin,
    spec,
    files,
    // runtime.log without the boot clock's `took N s` lines, which only log-clock reads
    // (rawLog): the suites' patterns of a wake's lines predate it.
    log: () => c.rawLog().replace(/^\S+ hbgen \S+ took \d+ s\n/gm, ''),
    rawLog: () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : ''),
    agentLog: () => (existsSync(agentLogPath) ? readFileSync(agentLogPath, 'utf8') : ''),
    logLines: () => c.log().split('\n').filter((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ hbgen /.test(l)),
    // The outcome lines and the other lines of hbgen's own; a preset wake's `usage` line
    // and every wake's `took N s` (no outcomes: src/formats.ts) are in lines(), not in
    // outcomes() (test/log-clock.test.ts checks the latter).
    lines: () => c.logLines().map((l) => l.replace(/^\S+ hbgen \S+ /, '')),
    outcomes: () => c.lines().filter((l) => !l.startsWith('usage ') && !/^took \d+ s$/.test(l)),
    usages: () => c.lines().filter((l) => l.startsWith('usage ')),
    argv: () => {
      const s = readFileSync(join(rec, 'argv'), 'utf8');
      return s.split('\0').slice(0, -1);
    },
    env: () => readFileSync(join(rec, 'env'), 'utf8').split('\0').filter(Boolean).sort(),
    runs: () => (existsSync(join(rec, 'runs')) ? readFileSync(join(rec, 'runs'), 'utf8').split('\n').filter(Boolean).map(Number) : []),
    behave: (sh: string) => writeFileSync(join(rec, 'behave'), sh),
  };
  return c;
}

export function install(state: string, files: Record<string, string>) {
  mkdirSync(state, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(files)) {
    // The scripts, and the jail's settings when the jail is on.
    if (!name.endsWith('.sh') && name !== 'jail.json') continue;
    const mode = name.endsWith('.sh') ? 0o755 : 0o644;
    writeFileSync(join(state, name), content, { mode });
    chmodSync(join(state, name), mode);
  }
}

/** heartbeat.sh at `path`, with the runtime it pins beside it (as install puts them). */
export function writeWrapper(path: string, files: Record<string, string>, content = files['heartbeat.sh']!) {
  writeFileSync(path, content, { mode: 0o755 });
  for (const [k, v] of Object.entries(files)) if (k.startsWith('runtime-')) writeFileSync(join(dirname(path), k), v);
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)) {
      out[k] = merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    } else if (v === undefined) {
      delete out[k];
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** Junk a caller (cron, launchd, a login shell) might pass; none of it may reach the agent. */
export const JUNK_ENV: Record<string, string> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  ANTHROPIC_API_KEY: 'sk-ant-should-never-arrive',
  OPENAI_API_KEY: 'sk-should-never-arrive',
  AWS_SECRET_ACCESS_KEY: 'nope',
  LD_PRELOAD: '',
  BASH_ENV: '/nonexistent/bashenv',
  ENV: '/nonexistent/env',
  IFS: ':',
  CDPATH: '/tmp',
  SHELLOPTS: '',
  HBGEN_WAKE: '999',
  HBGEN_NAME: 'evil',
  TZ: 'Asia/Tokyo',
  JUNK: 'junk',
};

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  pid: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  args?: string[];
  /** Called once the process runs (pid known). */
  onSpawn?: (pid: number) => void;
  /** Kill the run after this many ms (test safety net). */
  limitMs?: number;
  /** Run this script instead of heartbeat.sh (path). */
  script?: string;
  cwd?: string;
  /** false: the wrapper runs as a child of the shell that mounts, in that shell's process
   * group, so it does not lead its group (as under `hbgen wake`). Default true. */
  leader?: boolean;
  /** sh run as root in the run's private mount namespace, before the wrapper (e.g. mount
   * a small tmpfs over the state folder and fill it) and after it (copy out what the test
   * must see: the namespace's mounts are gone once it ends). With it the wrapper does not
   * lead its group, as with leader false. */
  wrap?: { before: string; after: string };
  /** sh run as root by the process that then becomes the wrapper (exec), so $$ there is
   * the wrapper's PID: e.g. plant a link under a name the wrapper derives from its PID. */
  pre?: string;
}

/**
 * Run `/bin/sh <script>` with `sh` as /bin/sh, in a session of its own (as cron, launchd
 * and systemd start a job), caller env = JUNK_ENV unless given.
 */
export function run(c: Case | null, sh: Shell, opts: RunOptions = {}): Promise<RunResult> {
  const script = opts.script ?? join(c!.state, 'heartbeat.sh');
  const start = opts.wrap
    ? `${opts.wrap.before}\nmount --bind "$0" /usr/bin/dash && "$@"\nhbtest_rc=$?\n${opts.wrap.after}\nexit $hbtest_rc`
    : opts.leader === false
      ? 'mount --bind "$0" /usr/bin/dash && "$@"; exit $?'
      : `${opts.pre ?? ''}\nmount --bind "$0" /usr/bin/dash && exec "$@"`;
  const argv = ['-m', '/bin/sh', '-c', start, sh.file, '/bin/sh', script, ...(opts.args ?? [])];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/unshare', argv, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? JUNK_ENV,
      cwd: opts.cwd ?? '/',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, opts.limitMs ?? 20000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, pid: child.pid! });
    });
    if (opts.onSpawn) opts.onSpawn(child.pid!);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  state: string;
  comm: string;
  /** argv, filled in by survivors() for failure messages. */
  args?: string;
}

export function procs(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.push(parseStat(readFileSync(`/proc/${d}/stat`, 'utf8')));
    } catch {}
  }
  return out;
}

export function parseStat(s: string): Proc {
  const l = s.indexOf('(');
  const r = s.lastIndexOf(')');
  const rest = s.slice(r + 2).split(' ');
  return {
    pid: Number(s.slice(0, l - 1)),
    comm: s.slice(l + 1, r),
    state: rest[0]!,
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    sid: Number(rest[3]),
  };
}

/**
 * A SIGKILL is pending for PID (proc(5): the SigPnd and ShdPnd masks, bit 8 for signal 9):
 * it was sent and the process dies when next scheduled, which on a loaded machine can be a
 * moment after the sender went on. Such a process is not a survivor.
 */
export function killPending(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    return [...st.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) & 0x100n) !== 0n);
  } catch {
    return false;
  }
}

/**
 * Live (non-zombie) processes in any of these sessions or process groups, a pending SIGKILL
 * counted as gone. Each id must be a real process id (> 1): 0 is the session and group of the
 * kernel's threads and 1 is init's, so a pid read from a record before it was written would
 * list the machine's own processes as the agent's leftovers.
 */
export function survivors(ids: number[]): Proc[] {
  const bad = ids.filter((i) => !Number.isInteger(i) || i <= 1);
  if (bad.length > 0) throw new Error(`survivors(): ${bad.join(', ')} is no process id of the test's; read the pid after it was written (pidIn)`);
  const set = new Set(ids);
  return procs()
    .filter((p) => p.state !== 'Z' && p.state !== 'X' && (set.has(p.sid) || set.has(p.pgrp) || set.has(p.pid)) && !killPending(p.pid))
    .map((p) => ({ ...p, args: cmdline(p.pid) }));
}

/**
 * How late this machine runs shells right now, measured while a case runs: a probe sh loops
 * `date; sleep 0.05` and the lateness is the sum of each step's excess over the quickest step
 * it took. On a quiet machine it is a few milliseconds; beside other work (two CPU hogs, the
 * rest of the suite) it grows by as much as a shell's chain of short processes is delayed,
 * which is what stretches a wrapper's kill path. A deadline's bound in a test is then the
 * product's promise plus this measured lateness, never a figure that holds only when idle.
 */
export function lagProbe(): { stop: () => Promise<number> } {
  const child = spawn('/bin/sh', ['-c', 'while :; do date +%s%N; sleep 0.05; done'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let text = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (text += d));
  return {
    stop: async () => {
      const closed = new Promise((res) => child.on('close', res));
      child.kill('SIGKILL');
      await closed;
      const ts = text.split('\n').filter((l) => /^\d+$/.test(l)).map((l) => Number(BigInt(l) / 1_000_000n));
      const steps = ts.slice(1).map((t, i) => t - ts[i]!);
      if (steps.length === 0) return 0;
      const best = Math.min(...steps);
      return steps.reduce((sum, d) => sum + (d - best), 0);
    },
  };
}

/** `took` ms within `promise` ms plus the lateness the probe measured meanwhile; the message names all three. */
export function withinPromise(took: number, promise: number, late: number, what: string): void {
  if (took > promise + late) throw new Error(`${what}: took ${took} ms; the promise is ${promise} ms, and this machine's shells ran ${late} ms late meanwhile`);
}

// Each pid a test read, with its start time as first seen (proc(5) stat field 22, clock ticks
// since boot): a pid the kernel has given to another process since, another suite's running
// beside this one, is neither alive for the test nor killed by its clean-up.
const firstStart = new Map<number, string>();
function startOf(pid: number): string | undefined {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** PID, noted with its start time now (the first time only); returns PID. */
export function seen(pid: number): number {
  if (!firstStart.has(pid)) firstStart.set(pid, startOf(pid) ?? '');
  return pid;
}

/** The process first seen as PID still runs: the same start time, not a zombie, no SIGKILL pending. */
export function alive(pid: number): boolean {
  const start = firstStart.get(pid);
  if (!start || startOf(pid) !== start) return false;
  try {
    return !/^[ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')) && !killPending(pid);
  } catch {
    return false;
  }
}

/** The pid a test program wrote to FILE, once it is all there (a number and its end): under load a reader can see the file before its bytes. */
export async function pidIn(file: string, ms = 5000): Promise<number> {
  let pid = 0;
  await waitFor(() => {
    try {
      const t = readFileSync(file, 'utf8');
      pid = /^\d+$/.test(t.trim()) ? Number(t.trim()) : 0;
    } catch {
      pid = 0;
    }
    return pid > 1;
  }, ms, `a pid in ${file}`);
  return seen(pid);
}

/** A process's argv as one line, for failure messages ('' when it is gone). */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

export function shellcheck(file: string): { ok: boolean; out: string } {
  const r = spawnSync(shellcheckPath(), ['-s', 'sh', file], { encoding: 'utf8' });
  return { ok: r.status === 0, out: r.stdout + r.stderr };
}

export { join };
