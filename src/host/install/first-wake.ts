// The first real wake, offered once the install check passed: one wake
// through the scheduler (the same start as the check, start-once.ts: the scheduler's own
// start command, or its environment where it cannot start a job), as by hand (a wake request: the working
// hours are not asked, everything else is), so that a wrong argument, a client that needs a
// terminal or a model the plan refuses shows now, not at the first fire. Asked with default
// Yes (Enter runs it: the proof includes the agent); --first-wake runs it without asking;
// without a terminal and without the flag it is skipped, and said. It reports only what it
// observed: the wake's outcome line, its duration, the lines the wrapper wrote about it
// (usage, notes), what changed in the repo against a snapshot taken just before (HEAD, and
// each changed file by its bytes, so a file already dirty that the agent changed again is
// counted), and the checks a finished wake should pass: its outcome, the lock released,
// runtime.log's start and outcome lines, a LOG.md line in PROTOCOL.md's shape, STATE.md
// updated, and the scheduler's entry still armed. Every one is required (LOG.md and STATE.md
// only where the repo has a PROTOCOL.md that asks for them): install leaves the platform
// stopped when one fails (src/commands/install.ts), as the proof did not hold.
import { agentDir, workspaceOn } from '../../workspace.ts';
import { posix } from 'node:path';
import { SUCCEEDED, WAKE_ENDS, isOneOf } from '../../formats.ts';
import { gitLayoutProblem, safeGit } from '../proc/git.ts';
import { lstatOrNull, readSoft, sha256 } from '../fsx.ts';
import { lockInfo } from '../proc/proc.ts';
import type { Names } from '../../names.ts';
import { type Spec, durations } from '../../spec.ts';
import type { HostIO } from '../io.ts';
import { askConsent } from './prompt.ts';
import { logLinesFrom } from './smoke.ts';
import { startOnce } from './start-once.ts';

interface Repo {
  head: string | null;
  /** Each changed file and what its bytes are now (a SHA-256, or '-' when it is gone). */
  dirty: Map<string, string>;
}

const bytesOf = (repo: string, rel: string): string => {
  const b = readSoft(posix.join(repo, rel), 64 << 20, { noFollow: true });
  return b ? sha256(b) : '-';
};

/** HEAD and the changed files of the repo, when it is a git work tree (read-only git commands). */
function repoNow(repo: string): Repo | null {
  // The repo the agent wrote: git runs only on a plain .git folder, with no program of the repo's choosing (src/host/proc/git.ts).
  if (gitLayoutProblem(repo)) return null;
  const git = (args: string[]) => safeGit(repo, args);
  try {
    git(['rev-parse', '--is-inside-work-tree']);
  } catch {
    return null;
  }
  let head: string | null = null;
  try {
    head = git(['rev-parse', 'HEAD']).trim();
  } catch {}
  const names = git(['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=all']).split('\n').filter(Boolean).map((l) => l.slice(3));
  return { head, dirty: new Map(names.map((f) => [f, bytesOf(repo, f)])) };
}

function changes(repo: string, before: Repo | null): string {
  const after = repoNow(repo);
  const bad = gitLayoutProblem(repo);
  if (before && bad) return `git was not run on it: ${bad}`;
  if (!before || !after) return 'the repo is not a git work tree: the outcome line says whether a file changed (ok) or none did (quiet)';
  const files = [...after.dirty].filter(([f, sum]) => before.dirty.get(f) !== sum).map(([f]) => f);
  const parts: string[] = [];
  if (after.head && after.head !== before.head) {
    const subject = safeGit(repo, ['log', '-1', '--no-show-signature', '--format=%h %s']).trim();
    parts.push(`a new commit ${subject}`);
  }
  if (files.length) parts.push(`${files.length} file${files.length === 1 ? '' : 's'} changed and not committed: ${files.slice(0, 8).join(', ')}${files.length > 8 ? ', …' : ''}`);
  const reverted = [...before.dirty.keys()].filter((f) => !after.dirty.has(f));
  if (reverted.length) parts.push(`${reverted.length} file${reverted.length === 1 ? '' : 's'} changed before the wake now as committed: ${reverted.slice(0, 8).join(', ')}`);
  return parts.length ? parts.join('; ') : 'nothing (no new commit, no changed file)';
}

/** The agent's own files as they are now (LOG.md's line count, STATE.md's bytes). */
function memoryNow(repo: string): { logLines: string[]; state: string } {
  const log = readSoft(posix.join(repo, 'LOG.md'), 8 << 20, { noFollow: true })?.toString('utf8') ?? '';
  return { logLines: log.split('\n').filter(Boolean), state: bytesOf(repo, 'STATE.md') };
}

// PROTOCOL.md's LOG.md line: `<local time> — Curr: <state>…` (templates/LOG.md.hbs), the time
// as the context block's `Local time` gives it: `2026-12-07 20:58 UTC (UTC)` (date, time, the
// zone's abbreviation or offset, then the zone's name in parentheses, as 50-wake prints it),
// or without the name as LOG.md's example, the label `Local time: ` itself copied too. The
// dash written \u2014, as the bundle stays ASCII (esbuild leaves a regular expression as written).
const LOG_LINE = /^(?:Local time: )?\d{4}-\d\d-\d\d \d\d:\d\d\S*(?: [A-Za-z0-9+\-:]+)?(?: \([A-Za-z0-9_+\-/]+\))? \u2014 Curr: \S/;

/** Is `l` a LOG.md line in the shape PROTOCOL.md asks? */
export const logLineShaped = (l: string): boolean => LOG_LINE.test(l);

interface Checked {
  ok: boolean;
  /** Its short name, for the verdict. */
  name: string;
  what: string;
  /** A required check that fails leaves the platform stopped (see firstWake). */
  required: boolean;
}

/** What the first wake found: not run (skipped or declined), or run, with the required checks that failed. */
export type FirstWake = { ran: false } | { ran: true; failed: string[] };

/** The checks of a finished first wake, each as observed. */
async function afterChecks(spec: Spec, n: Names, io: HostIO, outcome: string | null, lines: string[], before: { logLines: string[]; state: string }, armed: () => Promise<{ ok: boolean; observed: string }>): Promise<Checked[]> {
  const now = memoryNow(agentDir(spec));
  const added = now.logLines.slice(before.logLines.length);
  const shaped = added.some(logLineShaped);
  // LOG.md and STATE.md are the agent's memory between wakes: required where PROTOCOL.md asks
  // for them (a repo without it has another protocol, and the two are said, not required).
  const memory = lstatOrNull(posix.join(agentDir(spec), 'PROTOCOL.md')) !== null || lstatOrNull(posix.join(spec.repo, 'PROTOCOL.md')) !== null;
  const started = lines.some((l) => /^start wake \d+/.test(l));
  const lock = await lockInfo(io, spec, n);
  let entry;
  try {
    entry = await armed();
  } catch (e) {
    entry = { ok: false, observed: (e as Error).message };
  }
  return [
    { name: "the wake's outcome", ok: !!outcome && isOneOf(SUCCEEDED, outcome.split(' ')[0]!), what: `the wake's outcome: ${outcome ?? 'none logged'}`, required: true },
    { name: 'the lock', ok: !lock.held, what: lock.held ? `the lock is still held (${lock.detail})` : 'the lock released', required: true },
    { name: 'runtime.log', ok: started && !!outcome, what: `runtime.log: ${started ? 'its start line' : 'no start line'} and ${outcome ? 'its outcome line' : 'no outcome line'}`, required: true },
    { name: 'LOG.md', ok: shaped, what: added.length ? `LOG.md: ${shaped ? 'a new line in the shape PROTOCOL.md asks' : `${added.length} new line${added.length === 1 ? '' : 's'}, none in the shape PROTOCOL.md asks ("<local time> — Curr: <state>: …")`}` : 'LOG.md: no new line (PROTOCOL.md asks for one every wake)', required: memory },
    { name: 'STATE.md', ok: now.state !== before.state, what: now.state !== before.state ? 'STATE.md updated' : 'STATE.md unchanged (PROTOCOL.md asks the agent to record its chunk there)', required: memory },
    { name: "the scheduler's entry", ok: entry.ok, what: `the scheduler's entry: ${entry.ok ? 'still armed' : entry.observed}`, required: true },
  ];
}

/**
 * Asks (or not) and runs the first wake; every line goes to io.out. `armed` asks the
 * scheduler whether the entry is still in place (the backend's listing, as doctor does).
 */
export async function firstWake(spec: Spec, n: Names, io: HostIO, home: string, flag: boolean | undefined, say: (l: string) => void, armed: () => Promise<{ ok: boolean; observed: string }>): Promise<FirstWake> {
  if (!flag) {
    const a = await askConsent(io, `Run one real wake of "${spec.name}" now, through the scheduler, to see the agent work (up to ${spec.timeout}, it spends your plan's allowance)?`, true);
    if (a === 'no-tty') {
      say('first wake: skipped (no terminal to ask; `--first-wake` runs one after the check); `hbgen wake` runs one by hand');
      return { ran: false };
    }
    if (a === 'no') {
      say('first wake: not run; the first scheduled fire runs it, or `hbgen wake` now');
      return { ran: false };
    }
  }
  const before = repoNow(agentDir(spec));
  const memory = memoryNow(agentDir(spec));
  const started = Date.now();
  const limit = (durations(spec).wake + 60) * 1000;
  const { route, from, run } = startOnce(spec, n, io, home, 'wake', 'install first wake', limit);
  say(`first wake: started through ${route.argv ? 'the scheduler' : `the scheduler's environment (${spec.schedule.scheduler} cannot start a job on demand)`}; waiting up to ${spec.timeout} for its outcome`);
  const tick = setInterval(() => say(`  … ${Math.round((Date.now() - started) / 1000)} s`), 15_000);
  let ran;
  try {
    ran = await run;
  } finally {
    clearInterval(tick);
  }
  const lines = logLinesFrom(n.log, from, spec.name);
  const start = lines.findIndex((l) => /^start wake \d+/.test(l));
  // Any line that ends a wake (formats.ts WAKE_ENDS), a denied one too.
  const end = lines.findIndex((l, i) => i > start && isOneOf(WAKE_ENDS, l.split(' ')[0]!));
  const outcome = end >= 0 ? lines[end]! : lines.find((l) => /^(error|skip-)/.test(l)) ?? null;
  const secs = Math.round((Date.now() - started) / 1000);
  say(`first wake: ${outcome ?? `no outcome line (${ran.code === null ? ran.stderr || 'it did not finish' : `exit ${ran.code}`})`} after ${secs} s`);
  for (const l of lines.slice(start + 1, end >= 0 ? end : undefined).filter((l) => /^(note|usage)\b/.test(l))) say(`  ${l}`);
  say(`  ${workspaceOn(spec) ? 'in its clone' : 'in the repo'}: ${changes(agentDir(spec), before)}`);
  const checks = await afterChecks(spec, n, io, outcome, lines, memory, armed);
  for (const c of checks) say(`  ${c.ok ? 'ok  ' : c.required ? 'FAIL' : 'warn'}  ${c.what}${c.ok || c.required ? '' : ' (not required: the repo has no PROTOCOL.md)'}`);
  const failed = checks.filter((c) => !c.ok && c.required);
  const warned = checks.filter((c) => !c.ok && !c.required).length;
  if (failed.length === 0) say(`first wake: all ${checks.filter((c) => c.required).length} required checks passed${warned ? ` (${warned} check${warned === 1 ? '' : 's'} not required failed)` : ''}`);
  return { ran: true, failed: failed.map((c) => c.name) };
}
