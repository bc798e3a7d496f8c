// The agent's own workspace ("workspace": "clone", src/workspace.ts), as install makes it:
// a clone of the repo outside it, on branch hbgen/<name> from the person's HEAD at
// install, and the same branch in the person's repo. An existing clone is kept as it is
// (its commits not fetched yet and the agent's memory are in it): install never clones
// over it, and the undo removes only what this install made.
import { cpSync, existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import type { Spec } from '../../spec.ts';
import { tildeOf } from '../../jail.ts';
import { WORKSPACE_COPIES, workspaceBranch, workspaceDir } from '../../workspace.ts';
import { CONTROL_FILES, excludeBlock } from './exclude.ts';
import { WORKSPACE_GIT_CONFIG, gitLayoutProblem, safeGit } from '../proc/git.ts';
import { execFileSync } from 'node:child_process';

export interface WorkspacePlan {
  dir: string;
  branch: string;
  repo: string;
  /** The clone is made by this install (none there yet). */
  create: boolean;
  /** The branch is made in the person's repo by this install (none there yet), at `head`. */
  branchInRepo: boolean;
  /** The person's HEAD commit now: where a new branch starts. */
  head: string;
  /** The control files keep out of the clone's commits (controlFiles "exclude"). */
  exclude: boolean;
}

/** git outside any repository (clone), with the settings of src/host/proc/git.ts. */
function git(args: string[]): string {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  return execFileSync('git', [...WORKSPACE_GIT_CONFIG.flatMap((kv) => ['-c', kv]), ...args], { encoding: 'utf8', timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'], env });
}

function commitOf(repo: string, ref: string): string {
  try {
    return safeGit(repo, ['rev-parse', '-q', '--verify', `${ref}^{commit}`]).trim();
  } catch {
    return '';
  }
}

/** What install does for the workspace, or a sentence saying why it cannot. */
export function workspacePlan(spec: Spec, jailRunning = false): WorkspacePlan | string {
  const dir = workspaceDir(spec);
  const branch = workspaceBranch(spec.name);
  const layout = gitLayoutProblem(spec.repo, jailRunning);
  if (layout) return `"workspace": "clone" needs the repo to be a git repository: ${spec.repo} is ${layout.startsWith('not a git') ? layout : `unusable (${layout})`}; run git init there and commit once, or leave "workspace" out`;
  const head = commitOf(spec.repo, 'HEAD');
  if (!head) return `"workspace": "clone" starts the agent's branch at the repo's HEAD, but ${spec.repo} has no commit yet; commit once, or leave "workspace" out`;
  const inRepo = commitOf(spec.repo, `refs/heads/${branch}`);
  const exclude = spec.controlFiles !== 'commit';
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return { dir, branch, repo: spec.repo, create: true, branchInRepo: !inRepo, head, exclude };
  }
  if (!st.isDirectory() || gitLayoutProblem(dir, jailRunning) || !commitOf(dir, `refs/heads/${branch}`)) {
    return `${dir} is there but is not the agent's clone (a git repository with branch ${branch}); move it away, or leave "workspace" out`;
  }
  return { dir, branch, repo: spec.repo, create: false, branchInRepo: !inRepo, head: inRepo || head, exclude };
}

/** The panel's lines for the plan. */
export function workspaceLines(spec: Spec, p: WorkspacePlan): string[] {
  const t = tildeOf(spec);
  return [
    `${t(p.dir)}  ${p.create ? `new: the agent's clone of the repo, on branch ${p.branch} from your HEAD (${p.head.slice(0, 7)})` : `the agent's clone, kept as it is (branch ${p.branch})`}`,
    ...(p.branchInRepo ? [`  branch ${p.branch} made in the repo at ${p.head.slice(0, 7)}: after each wake its commits are fetched there, fast-forward only; your working tree, index and other branches are never touched`] : []),
  ];
}

/** Makes the clone and the branch as planned; returns the undo (only what it made). */
export function applyWorkspace(spec: Spec, p: WorkspacePlan): () => void {
  const undo: (() => void)[] = [];
  const run = (f: () => void) => {
    try {
      f();
    } catch (e) {
      for (const u of undo.reverse()) u();
      const err = e as { stderr?: string; message?: string };
      throw new UserError([`cannot make the agent's clone ${p.dir}: ${(err.stderr || err.message || String(e)).trim().split('\n')[0]}; check that folder and the repo, or leave "workspace" out`]);
    }
  };
  if (p.create) {
    run(() => {
      mkdirSync(posix.dirname(p.dir), { recursive: true, mode: 0o700 });
      undo.push(() => rmSync(p.dir, { recursive: true, force: true }));
      // --no-hardlinks: objects hard-linked with the repo's would be files the agent could
      // chmod and rewrite from its clone, changing the person's history under them.
      git(['clone', '-q', '--no-hardlinks', '--no-checkout', '--', p.repo, p.dir]);
      safeGit(p.dir, ['checkout', '-q', '-b', p.branch, p.head]);
      // A HEART.md or PROTOCOL.md the repo tracks: the wrapper's fresh copy before each wake
      // is the person's current text, never the agent's change to commit. skip-worktree
      // (https://git-scm.com/docs/git-update-index#_skip_worktree_bit) keeps `git add -A` off it.
      const tracked = safeGit(p.dir, ['ls-files', '--', ...WORKSPACE_COPIES]).split('\n').filter(Boolean);
      if (tracked.length) safeGit(p.dir, ['update-index', '--skip-worktree', '--', ...tracked]);
      if (p.exclude) {
        mkdirSync(posix.join(p.dir, '.git', 'info'), { recursive: true });
        writeFileSync(posix.join(p.dir, '.git', 'info', 'exclude'), excludeBlock(spec.name));
      }
      // The agent's memory starts as the repo's (init wrote it there); from now on it lives in the clone.
      for (const f of CONTROL_FILES.map((x) => x.replace(/\/$/, ''))) {
        const from = posix.join(p.repo, f);
        const to = posix.join(p.dir, f);
        if (existsSync(from) && !existsSync(to)) cpSync(from, to, { recursive: true, dereference: false, verbatimSymlinks: true });
      }
    });
  }
  if (p.branchInRepo) {
    run(() => {
      safeGit(p.repo, ['update-ref', `refs/heads/${p.branch}`, p.head, '']);
      undo.push(() => {
        try {
          safeGit(p.repo, ['update-ref', '-d', `refs/heads/${p.branch}`, p.head]);
        } catch {
          // Moved since: the person's or a wake's; left as it is.
        }
      });
    });
  }
  return () => {
    for (const u of undo.reverse()) u();
  };
}
