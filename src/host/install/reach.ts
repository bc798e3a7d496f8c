// What the agent could rewrite, judged on the host (install, resume and wake refuse it;
// status reports it): the agent may write anything inside the repo, so nothing hbgen runs or
// writes outside the agent's sandbox may resolve there, through links included. Validation
// (src/spec.ts) already refuses what is inside the repo as written; here every path is
// resolved with realpath, so a symbolic link outside the repo that points into it (or a
// repo reached through a link) is caught too.
//
// The state folder. For the host schedulers (launchd, systemd-user, cron) it holds the
// wrapper, the gate, the lock, the wake counter and the log, all of which the wrapper trusts
// and writes outside the agent's sandbox: inside the repo, the agent could remove the lock
// (two agents at once), reset the counter past `cap`, or plant links that the wrapper writes
// through. sh cannot write a file without following links, so no wrapper can be made safe
// there: hbgen refuses it instead (docs/threat-model.md). Kubernetes keeps its own rule
// (the state folder on the PVC, relative to the repo, is the only lasting place in a pod).
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { type Names, names, within } from '../../names.ts';
import { PRELOAD_VARS, pathsIn } from '../../preload.ts';
import { FACTS } from '../../scheduler-facts.ts';
import { type Spec, defaultStateDir } from '../../spec.ts';

/**
 * `path` with every link resolved: realpath of its longest existing beginning, and the rest
 * (not there yet) as written. A path that cannot be resolved at all stays as it is.
 */
export function resolved(path: string): string {
  let head = posix.normalize(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return posix.join(realpathSync(head), ...rest.reverse());
    } catch {
      if (head === '/' || head === '.') return path;
      rest.push(posix.basename(head));
      head = posix.dirname(head);
    }
  }
}

/** Is `path` inside the repo, as written or once links are resolved on both sides? */
export function reachesRepo(path: string, repo: string): boolean {
  return within(repo, path) || within(resolved(repo), resolved(path));
}

/** " (it resolves to X)" when links make the difference, else "". */
function via(path: string, repo: string): string {
  return within(repo, path) ? '' : ` (it resolves to ${resolved(path)}, inside ${resolved(repo)})`;
}

const STATE_WHY =
  "the agent can write there: it could remove the lock (two agents at once) or the wake counter, or plant links that the wrapper writes through, outside the agent's sandbox";

/**
 * A host scheduler's state folder inside the repo: one sentence naming stateDir (or
 * env.XDG_STATE_HOME, when the default lands there through it), why, and what to do; or null.
 */
export function stateInRepoProblem(spec: Spec, n: Names = names(spec)): string | null {
  if (FACTS[spec.schedule.scheduler].offHost) return null;
  if (!reachesRepo(n.stateDir, spec.repo)) return null;
  const fallback = defaultStateDir(spec);
  const xdg = spec.env.XDG_STATE_HOME;
  const why = `${STATE_WHY}, so hbgen refuses it for ${spec.schedule.scheduler}`;
  if (spec.stateDir === fallback && xdg !== undefined) {
    return `env.XDG_STATE_HOME: "${xdg}" puts the default state folder ${n.stateDir} inside the repo${via(n.stateDir, spec.repo)}; ${why}: set env.XDG_STATE_HOME to a folder outside the repo (or remove it), or set "stateDir" to an absolute path outside the repo`;
  }
  const outside = reachesRepo(fallback, spec.repo) ? 'an absolute path outside the repo' : `an absolute path outside the repo, or remove "stateDir" to use the default ${fallback}`;
  const where = spec.stateDir.startsWith('/') ? `${n.stateDir} is inside the repo${via(n.stateDir, spec.repo)}` : `"${spec.stateDir}" is relative, so the state folder ${n.stateDir} is inside the repo`;
  return `stateDir: ${where}; ${why}: set "stateDir" to ${outside}`;
}

/**
 * Programs hbgen or its wrapper runs outside the agent's sandbox, env.PATH folders, and
 * paths of preload variables (src/preload.ts) that resolve into the repo: one refusal each.
 * `interpreters` are the #! programs found for agent.bin and gate[0] (host facts).
 */
export function codeInRepoProblems(spec: Spec, interpreters: { field: string; path: string }[] = []): string[] {
  const out: string[] = [];
  const repo = spec.repo;
  const programs: { field: string; path: string }[] = [{ field: 'agent.bin', path: spec.agent.bin }];
  if (spec.gate) programs.push({ field: 'gate[0]', path: spec.gate[0]! });
  if (spec.notify) programs.push({ field: 'notify[0]', path: spec.notify[0]! });
  // The jail itself: an agent that could rewrite srt would run unjailed.
  if (spec.sandbox && spec.sandbox.bin) programs.push({ field: 'sandbox.bin', path: spec.sandbox.bin });
  for (const p of programs) {
    if (!p.path.startsWith('/') || !reachesRepo(p.path, repo)) continue;
    out.push(`${p.field}: ${p.path} is inside the repo${via(p.path, repo)}, where the agent can rewrite it, and it runs outside the agent's sandbox: install the program outside the repo and point ${p.field} at it`);
  }
  for (const i of interpreters) {
    if (!i.path.startsWith('/') || !reachesRepo(i.path, repo)) continue;
    out.push(`${i.field}: its #! interpreter ${i.path} is inside the repo${via(i.path, repo)}, where the agent can rewrite it: use an interpreter installed outside the repo`);
  }
  for (const dir of (spec.env.PATH ?? '').split(':')) {
    if (!dir.startsWith('/') || !reachesRepo(dir, repo)) continue;
    out.push(`env.PATH: ${dir} is inside the repo${via(dir, repo)}, where the agent can write, so a program the wrapper runs (date, ps, mkdir) could be replaced: remove the entry and put the tool in a folder outside the repo`);
  }
  for (const [k, v] of Object.entries(spec.env)) {
    if (!(k in PRELOAD_VARS)) continue;
    for (const p of pathsIn(k, v)) {
      if (p.byName || !p.word.startsWith('/') || !reachesRepo(p.word, repo)) continue;
      out.push(`env.${k}: ${p.word} is inside the repo${via(p.word, repo)}, where the agent can write, so the wrapper, the billing check, the gate and notify would load code from there outside the agent's sandbox: give a path outside the repo, or remove ${k}`);
    }
  }
  return out;
}
