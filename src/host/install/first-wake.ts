// The first real wake, offered once the install check passed: one wake
// through the scheduler (the same start as the check, start-once.ts: the scheduler's own
// start command, or its environment where it cannot start a job), as by hand (a wake request: the working
// hours are not asked, everything else is), so that a wrong argument, a client that needs a
// terminal or a model the plan refuses shows now, not at the first fire. Asked with default
// No; --first-wake runs it without asking; without a terminal and without the flag it is
// skipped, and said. It reports only what it observed: the wake's outcome line, its
// duration, the lines the wrapper wrote about it (usage, notes), and what changed in the repo
// (git status and HEAD before and after; without git, the outcome's own ok/quiet).
import { gitLayoutProblem, safeGit } from '../proc/git.ts';
import type { Names } from '../../names.ts';
import { type Spec, durations } from '../../spec.ts';
import type { HostIO } from '../io.ts';
import { askConsent } from './prompt.ts';
import { logLinesFrom } from './smoke.ts';
import { startOnce } from './start-once.ts';

interface Repo {
  head: string | null;
  dirty: Set<string>;
}

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
  const dirty = new Set(git(['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=all']).split('\n').filter(Boolean).map((l) => l.slice(3)));
  return { head, dirty };
}

function changes(repo: string, before: Repo | null): string {
  const after = repoNow(repo);
  const bad = gitLayoutProblem(repo);
  if (before && bad) return `git was not run on it: ${bad}`;
  if (!before || !after) return 'the repo is not a git work tree: the outcome line says whether a file changed (ok) or none did (quiet)';
  const files = [...after.dirty].filter((f) => !before.dirty.has(f));
  const parts: string[] = [];
  if (after.head && after.head !== before.head) {
    const subject = safeGit(repo, ['log', '-1', '--no-show-signature', '--format=%h %s']).trim();
    parts.push(`a new commit ${subject}`);
  }
  if (files.length) parts.push(`${files.length} file${files.length === 1 ? '' : 's'} changed and not committed: ${files.slice(0, 8).join(', ')}${files.length > 8 ? ', …' : ''}`);
  return parts.length ? parts.join('; ') : 'nothing (no new commit, no changed file)';
}

/** Asks (or not) and runs the first wake; every line goes to io.out. */
export async function firstWake(spec: Spec, n: Names, io: HostIO, home: string, flag: boolean | undefined, say: (l: string) => void): Promise<void> {
  if (!flag) {
    const a = await askConsent(io, `Run one real wake of "${spec.name}" now, through the scheduler (up to ${spec.timeout}, it spends your plan's allowance)?`);
    if (a === 'no-tty') return say('first wake: skipped (no terminal to ask; `--first-wake` runs one after the check); `hbgen wake` runs one by hand');
    if (a === 'no') return say('first wake: not run; the first scheduled fire runs it, or `hbgen wake` now');
  }
  const before = repoNow(spec.repo);
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
  const end = lines.findIndex((l, i) => i > start && /^(ok|quiet|fail|timeout|error|limit)\b/.test(l));
  const outcome = end >= 0 ? lines[end]! : lines.find((l) => /^(error|skip-)/.test(l)) ?? null;
  const secs = Math.round((Date.now() - started) / 1000);
  say(`first wake: ${outcome ?? `no outcome line (${ran.code === null ? ran.stderr || 'it did not finish' : `exit ${ran.code}`})`} after ${secs} s`);
  for (const l of lines.slice(start + 1, end >= 0 ? end : undefined).filter((l) => /^(note|usage)\b/.test(l))) say(`  ${l}`);
  say(`  in the repo: ${changes(spec.repo, before)}`);
}
