// git as hbgen runs it outside the jail (install's first wake, init): on a repository the
// jailed agent may have written, so nothing in it may choose a program git runs. Each call
// pins the git directory and the common directory to what the files say (.git, its
// commondir) only when they point where git itself puts them, and turns off every
// repository-chosen program a read-only command could start: the fsmonitor hook, hooks,
// the pager, external diff and textconv, ssh and credential helpers, the system config,
// submodules (their own config); git's own list of such settings:
// https://git-scm.com/docs/git-config (core.fsmonitor, core.hooksPath, core.pager, …).
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { GIT_SAFE_CONFIG, WORKSPACE_GIT_CONFIG } from '../../git-safe.ts';
import { GIT_DENY } from '../../jail.ts';

export { GIT_SAFE_CONFIG, WORKSPACE_GIT_CONFIG };

/**
 * Is `path` the placeholder srt puts where a path it denies is missing? While a jailed wake
 * runs, bubblewrap makes an empty file of mode 0444 there on the host to mount /dev/null
 * on (the jail shows a character device), and srt removes it when the jail ends (srt
 * 0.0.83: cleanupBwrapMountPoints). Exactly that: an empty regular file that nobody may
 * write; a link, or a byte in it, is never one.
 */
export function isJailPlaceholder(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.size === 0 && (st.mode & 0o7777) === 0o444;
  } catch {
    return false;
  }
}

/**
 * Why git must not run on `repo` as it is ('' when it may): a .git that is not a plain
 * folder, or one that names another git directory. `jailRunning`: a jailed wake holds the
 * lock now, so srt's placeholder at a path the jail denies (.git/gitdir) is no pointer.
 */
export function gitLayoutProblem(repo: string, jailRunning = false): string {
  const dot = join(repo, '.git');
  let st;
  try {
    st = lstatSync(dot);
  } catch {
    return 'not a git repository (no .git folder)';
  }
  if (!st.isDirectory()) return `${dot} is not a folder (a link to a git directory elsewhere)`;
  for (const f of ['commondir', 'gitdir']) {
    if (jailRunning && GIT_DENY.includes(`.git/${f}`) && isJailPlaceholder(join(dot, f))) continue;
    if (existsSync(join(dot, f)) || isLink(join(dot, f))) return `${join(dot, f)} exists: it points git at another directory's config and hooks (tampered git: see hbgen status)`;
  }
  return '';
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Run a read-only git command on `repo` with everything above; throws like execFileSync. */
export function safeGit(repo: string, args: string[]): string {
  const dot = join(repo, '.git');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    GIT_DIR: dot,
    GIT_COMMON_DIR: dot,
    GIT_WORK_TREE: repo,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
  };
  const c = GIT_SAFE_CONFIG.flatMap((kv) => ['-c', kv]);
  return execFileSync('git', [...c, '-C', repo, ...args], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], env });
}

