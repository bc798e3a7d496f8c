// The agent's own workspace as status, list and forget see it ("workspace": "clone"): its
// branch in the person's repo, how far it is ahead of the branch the person has checked out,
// its last commit's subject, whether it still merges cleanly there (git merge-tree
// --write-tree, git 2.38 or later: https://git-scm.com/docs/git-merge-tree, exit 1 on a
// conflict; it writes only objects, never the working tree, index or a ref), and commits
// the clone holds that the repo's branch lacks. Every git call runs as src/host/proc/git.ts
// runs them: the clone is the agent's to write.
import { existsSync } from 'node:fs';
import type { Spec } from '../../spec.ts';
import { workspaceBranch, workspaceDir, workspaceOn } from '../../workspace.ts';
import { safeGit } from '../proc/git.ts';

export interface WorkspaceStatus {
  dir: string;
  branch: string;
  /** The clone is there. */
  present: boolean;
  /** The branch's tip in the person's repo ('' when the repo has no such branch). */
  tip: string;
  /** The person's checked-out branch ('HEAD' when detached). */
  onto: string;
  ahead: number;
  subject: string;
  /** Whether the branch merges onto `onto` without a conflict; null when git could not say. */
  merges: boolean | null;
  /** Commits on the clone's branch not in the repo's (not fetched: a rewritten history, or a failed fetch), their short ids. */
  unfetched: string[];
}

const gitOr = (repo: string, args: string[], or = ''): string => {
  try {
    return safeGit(repo, args).trim();
  } catch {
    return or;
  }
};

/** The workspace's status, or null when the spec has none. */
export function workspaceStatus(spec: Spec): WorkspaceStatus | null {
  if (!workspaceOn(spec)) return null;
  const dir = workspaceDir(spec);
  const branch = workspaceBranch(spec.name);
  const ref = `refs/heads/${branch}`;
  const tip = gitOr(spec.repo, ['rev-parse', '-q', '--verify', `${ref}^{commit}`]);
  const onto = gitOr(spec.repo, ['symbolic-ref', '-q', '--short', 'HEAD'], 'HEAD');
  const present = existsSync(`${dir}/.git`);
  const ahead = tip ? Number(gitOr(spec.repo, ['rev-list', '--count', `HEAD..${ref}`], '0')) || 0 : 0;
  const subject = tip ? gitOr(spec.repo, ['log', '-1', '--no-show-signature', '--format=%s', ref]) : '';
  let merges: boolean | null = null;
  if (tip) {
    try {
      safeGit(spec.repo, ['merge-tree', '--write-tree', 'HEAD', ref]);
      merges = true;
    } catch (e) {
      merges = (e as { status?: number }).status === 1 ? false : null;
    }
  }
  const cloneTip = present ? gitOr(dir, ['rev-parse', '-q', '--verify', `${ref}^{commit}`]) : '';
  const unfetched = cloneTip && cloneTip !== tip ? gitOr(dir, ['rev-list', '--abbrev-commit', cloneTip, ...(tip ? [`^${tip}`] : [])]).split('\n').filter(Boolean) : [];
  return { dir, branch, present, tip, onto, ahead, subject, merges, unfetched };
}

/** One line for status and list: the branch, how far ahead, the last subject, whether it merges. */
export function workspaceText(w: WorkspaceStatus): string {
  if (!w.present) return `its clone ${w.dir} is gone: \`hbgen install\` makes it again from your HEAD${w.tip ? ` (branch ${w.branch} stays in the repo)` : ''}`;
  if (!w.tip) return `branch ${w.branch} is not in the repo (deleted?): the next wake's fetch makes it again`;
  const merge = w.merges === null ? 'whether it merges cleanly is unknown (git merge-tree failed)' : w.merges ? `merges cleanly onto ${w.onto}` : `conflicts with ${w.onto}: merging needs your hand`;
  const ahead = w.ahead === 0 ? `nothing ahead of ${w.onto}` : `${w.ahead} commit${w.ahead === 1 ? '' : 's'} ahead of ${w.onto}, last "${w.subject}"; ${merge}`;
  const stuck = w.unfetched.length ? `; its clone holds ${w.unfetched.length} commit${w.unfetched.length === 1 ? '' : 's'} the branch lacks (${w.unfetched.slice(0, 3).join(' ')}: a rewritten history is never forced onto it)` : '';
  return `branch ${w.branch}: ${ahead}${stuck}`;
}
