// The agent's own workspace ("workspace": "clone"): a clone of the repo that hbgen keeps for
// the agent outside the person's working tree, on a branch of its own. Pure: every path and
// name from the spec alone, so that render, install, status and forget agree on them.
//
// Why a clone and not `git worktree`: a linked worktree shares the person's .git (its refs,
// its config and hooks, its list of worktrees), so the jail would have to leave the person's
// .git writable for the agent to commit at all. A clone has a .git of its own; the wrapper
// fetches its one branch into the person's repo after each wake, outside the jail, fast
// forward only, and the person's .git stays read-only to the agent.
import { posix } from 'node:path';
import { within } from './names.ts';
import { FACTS } from './scheduler-facts.ts';
import type { Spec } from './spec.ts';

/** The spec's choice: the agent in the person's checkout (default) or in a clone of its own. */
export const WORKSPACES = ['repo', 'clone'] as const;

/** Is the agent's workspace a clone of its own? */
export function workspaceOn(spec: Pick<Spec, 'workspace' | 'schedule'>): boolean {
  return spec.workspace === 'clone' && !FACTS[spec.schedule.scheduler].offHost;
}

/** The agent's branch, in its clone and in the person's repo. */
export function workspaceBranch(name: string): string {
  return `hbgen/${name}`;
}

/**
 * Where the clone lives: <data>/hbgen/workspaces/NAME, XDG's data folder
 * (https://specifications.freedesktop.org/basedir-spec/latest/#variables: "user-specific data
 * files") when the spec's env sets it, else ~/.local/share (launchd: ~/Library/Application
 * Support). Data, not state or cache: it holds the agent's commits not yet fetched and its
 * memory (STATE.md, LOG.md, journal/), which no cache cleaner may take; and not the state
 * folder, which the jail keeps read-only to the agent.
 */
export function workspaceDir(spec: { name: string; env: Record<string, string>; schedule: { scheduler: Spec['schedule']['scheduler'] } }): string {
  const home = (spec.env.HOME ?? '/').replace(/(.)\/$/, '$1');
  const own = FACTS[spec.schedule.scheduler]?.stateHome;
  const xdg = spec.env.XDG_DATA_HOME;
  const base = own ? posix.join(home, own) : xdg?.startsWith('/') ? posix.normalize(xdg) : posix.join(home, '.local/share');
  return posix.join(base, 'hbgen', 'workspaces', spec.name);
}

/** Why the clone cannot be where it would be ('' when it can): inside the repo, around it, or in the state folder. */
export function workspacePlaceProblem(ws: string, repo: string, stateDir: string): string {
  if (within(repo, ws)) return `the agent's clone would be ${ws}, inside the repo; set XDG_DATA_HOME in env to a folder outside it, or leave "workspace" out`;
  if (within(ws, repo)) return `the agent's clone would be ${ws}, around the repo; set XDG_DATA_HOME in env to another folder, or leave "workspace" out`;
  if (within(stateDir, ws)) return `the agent's clone would be ${ws}, inside the state folder the jail keeps read-only; choose another stateDir, or leave "workspace" out`;
  return '';
}

/** The files the wrapper copies from the person's repo into the clone before every wake (the person's mission and hbgen's protocol: live, never the agent's to edit). */
export const WORKSPACE_COPIES = ['HEART.md', 'PROTOCOL.md'];

/** The folder the agent works in, where its memory (STATE.md, LOG.md, journal/) lives: its clone, or the repo. */
export function agentDir(spec: Spec): string {
  return workspaceOn(spec) ? workspaceDir(spec) : spec.repo;
}
