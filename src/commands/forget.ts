// hbgen forget NAME [--keep-logs] [--yes] [--dry-run]: removes a STOPPED install's state
// folder (a renamed or deleted spec left its old install in `hbgen list` as "stopped"
// forever). It first shows every file that goes, and asks once like install
// (default No; --yes for scripts). --keep-logs keeps runtime.log, agent.log and their .1 (and the
// folder holding them) and removes the rest, state.json included, so `list` no longer shows
// it. Only a folder whose state.json says stopped, under that name, with no scheduler entry
// running its wrapper, is touched; a link is never followed. The agent's clone ("workspace":
// "clone") is shown with the commits it holds and goes only on a yes of its own.
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { shownWord } from '../escape.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { type InstallRow, listInstalls } from '../host/audit/inventory.ts';
import { askConsent } from '../host/install/prompt.ts';
import { readState, refuseForeignState } from '../host/state.ts';
import { workspaceStatus } from '../host/audit/workspace.ts';
import { safeGit } from '../host/proc/git.ts';
import { jailTmp } from '../jail.ts';
import { validateSpec } from '../spec.ts';
import { line } from './common.ts';

const LOGS = new Set(['runtime.log', 'runtime.log.1', 'agent.log', 'agent.log.1']);

/** Every entry under `dir` (not following links), deepest first, with its size. */
function entries(dir: string): { path: string; size: number; folder: boolean }[] {
  const out: { path: string; size: number; folder: boolean }[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = posix.join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory()) {
        walk(p);
        out.push({ path: p, size: 0, folder: true });
      } else out.push({ path: p, size: st.size, folder: false });
    }
  };
  walk(dir);
  return out;
}

/**
 * The jail's private tmp of this install, <cache>/hbgen/NAME (src/jail.ts), made again by every
 * wake: when it is a real folder, it goes with the install (a link is never followed).
 */
function jailCache(spec: unknown, name: string): string | null {
  const v = validateSpec(spec).spec;
  const tmp = v && v.name === name && v.env.HOME ? jailTmp(v) : undefined;
  const dir = tmp ? posix.dirname(tmp) : null;
  try {
    return dir && posix.basename(dir) === name && lstatSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

/**
 * The agent's clone of this install ("workspace": "clone"), when it is there: what forget
 * shows before asking (the branch's commits not merged into the person's branch, which stay
 * on that branch in the repo; commits and changes only the clone holds, which go with it),
 * and whether removing it loses anything.
 */
function workspaceOf(spec: unknown, name: string): { dir: string; branch: string; lines: string[]; loses: boolean } | null {
  const v = validateSpec(spec).spec;
  const w = v && v.name === name ? workspaceStatus(v) : null;
  if (!v || !w || !w.present) return null;
  const unmerged = w.tip ? gitOr(v.repo, ['log', '--no-show-signature', '--format=%h %s', `HEAD..${w.tip}`]).split('\n').filter(Boolean) : [];
  const dirty = gitOr(w.dir, ['status', '--porcelain']).split('\n').filter(Boolean);
  const lines = [`the agent's clone ${w.dir} (its memory STATE.md, LOG.md, journal/ goes with it):`];
  lines.push(unmerged.length ? `  ${unmerged.length} commit${unmerged.length === 1 ? '' : 's'} on ${w.branch} not merged into ${w.onto}; they stay on that branch in the repo:` : `  every commit of ${w.branch} is merged into ${w.onto}`);
  for (const c of unmerged.slice(0, 20)) lines.push(`    ${c}`);
  if (unmerged.length > 20) lines.push(`    … and ${unmerged.length - 20} more (git log ${w.onto}..${w.branch})`);
  if (w.unfetched.length) lines.push(`  ${w.unfetched.length} commit${w.unfetched.length === 1 ? '' : 's'} only the clone holds (never fetched into the repo), lost with it: ${w.unfetched.slice(0, 10).join(' ')}`);
  if (dirty.length) lines.push(`  ${dirty.length} uncommitted change${dirty.length === 1 ? '' : 's'} in the clone, lost with it (first: ${dirty[0]!.slice(3)})`);
  return { dir: w.dir, branch: w.branch, lines, loses: w.unfetched.length > 0 || dirty.length > 0 };
}

function gitOr(dir: string, args: string[]): string {
  try {
    return safeGit(dir, args).trim();
  } catch {
    return '';
  }
}

/** The stopped install named `name`, or a refusal saying what it is instead. */
async function stoppedInstall(io: HostIO, name: string): Promise<InstallRow> {
  const rows = (await listInstalls(io, homeOf(io))).rows.filter((r) => r.name === name);
  if (rows.length === 0) throw new UserError([`${name}: no install of that name on this host; \`hbgen list\` shows the installs by name`]);
  const live = rows.filter((r) => r.state !== 'stopped');
  if (live.length) throw new UserError([`${name}: the install is ${live.map((r) => `${r.state} on ${r.scheduler}`).join(', ')}, not stopped; run \`hbgen stop ${name}\` first (forget removes only a stopped install's state folder)`]);
  if (rows.length > 1) throw new UserError([`${name}: ${rows.length} stopped installs have that name (${rows.map((r) => r.stateDir).join(', ')}); remove the one you mean by hand`]);
  return rows[0]!;
}

export async function forget(argv: { name: string; keepLogs?: boolean; yes?: boolean; dryRun?: boolean }, io: HostIO): Promise<number> {
  const row = await stoppedInstall(io, argv.name);
  const dir = row.stateDir!;
  // Read again here, right before removing: still stopped, still this name, a real folder.
  const s = readState(dir);
  if (!s || s.status !== 'stopped' || s.name !== argv.name || lstatSync(dir).isSymbolicLink()) throw new UserError([`${dir} is no longer a stopped install of "${argv.name}"; nothing was removed`]);
  refuseForeignState(dir, io.uid, `hbgen forget ${shownWord(argv.name)}`);
  const all = entries(dir);
  const keep = argv.keepLogs ? all.filter((e) => !e.folder && posix.dirname(e.path) === dir && LOGS.has(posix.basename(e.path))) : [];
  const go = all.filter((e) => !keep.includes(e) && !e.folder);
  line(io, `hbgen forget: "${argv.name}" (stopped, ${row.scheduler}), state folder ${dir}${s.specFile ? `, made from ${s.specFile}` : ''}`);
  line(io, `it removes${keep.length ? '' : ' the folder and'} these files:`);
  for (const e of go) line(io, `  ${posix.relative(dir, e.path)}  (${e.size} bytes)${LOGS.has(posix.basename(e.path)) ? '  the wake history; --keep-logs keeps it' : ''}`);
  if (keep.length) line(io, `it keeps: ${keep.map((e) => posix.basename(e.path)).join(', ')} in ${dir}`);
  const cache = jailCache(s.spec, argv.name);
  if (cache) line(io, `and the jail's private tmp ${cache} (${entries(cache).filter((e) => !e.folder).length} files, made again by every wake)`);
  const ws = workspaceOf(s.spec, argv.name);
  if (ws) for (const l of ws.lines) line(io, l);
  if (argv.dryRun) {
    line(io, '--dry-run: nothing was removed');
    return 0;
  }
  if (!argv.yes) {
    const a = await askConsent(io, `Remove the state folder of "${argv.name}" as listed?`);
    if (a === 'no-tty') throw new UserError([`there is no terminal to ask, so nothing was removed; read the list above, then run \`hbgen forget ${argv.name} --yes\``]);
    if (a === 'no') throw new UserError(['you did not confirm, so nothing was removed']);
  }
  // The agent's clone goes only on a yes of its own; --yes alone removes it only when
  // nothing in it would be lost (every commit is on the repo's branch, nothing uncommitted).
  let wsGone = false;
  if (ws) {
    const a = argv.yes ? (ws.loses ? 'no-tty' : 'yes') : await askConsent(io, `Remove the agent's clone ${ws.dir} too${ws.loses ? ', with what only it holds (listed above)' : ''}?`);
    if (a === 'yes') {
      rmSync(ws.dir, { recursive: true, force: true });
      wsGone = true;
    } else line(io, `kept the agent's clone ${ws.dir}${a === 'no-tty' ? ' (--yes does not remove what only it holds; remove it by hand once you have what you need)' : ''}`);
  }
  if (keep.length) {
    for (const e of all.filter((x) => !keep.includes(x))) rmSync(e.path, { recursive: true, force: true });
  } else rmSync(dir, { recursive: true, force: true });
  if (cache) rmSync(cache, { recursive: true, force: true });
  line(io, `removed ${go.length} file${go.length === 1 ? '' : 's'}${keep.length ? `; kept ${keep.map((e) => e.path).join(', ')}` : ` and ${dir}`}${wsGone && ws ? `, and the agent's clone ${ws.dir} (branch ${ws.branch} stays in the repo)` : ''}`);
  return 0;
}
