// hbgen status [SPEC]: a read-only audit. Exit 0 healthy, 1 otherwise. Reports drift
// (sha256 of the installed files against state.json and against a fresh render), orphans,
// duplicates, a missing binary, a stale lock, the last outcome and the next fire time.
import { posix } from 'node:path';
import { type Ctx } from '../host/backend.ts';
import { SCHEDULER_TOOLS, checkBin } from '../host/facts.ts';
import { lstatOrNull, mode4, readOrNull, sha256 } from '../host/fsx.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { lockInfo } from '../host/proc.ts';
import { findOnPath } from '../host/run.ts';
import { readState, specHash, statePath } from '../host/state.ts';
import { names } from '../names.ts';
import { plan } from '../schedule.ts';
import { validateSpec } from '../spec.ts';
import { BACKENDS, line, loadFor, renderFor } from './common.ts';

const LOG_LINE = /^(\S+) hbgen (\S+) (\S+)(?: (.*))?$/;

/**
 * The last outcome in runtime.log, with its time: not "start", and not the install check's
 * own lines ("start smoke", "quiet smoke" and the skip-locked of its second run).
 */
export function lastOutcome(log: string, name: string): { time: string; outcome: string; detail: string } | null {
  const b = readOrNull(log);
  if (!b) return null;
  const all = b
    .toString('utf8')
    .split('\n')
    .map((l) => LOG_LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[2] === name)
    .map((m) => ({ time: m[1]!, outcome: m[3]!, detail: m[4] ?? '' }));
  const smoke = (i: number) => all[i]?.detail === 'smoke';
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i]!;
    if (l.outcome === 'start' || l.detail === 'smoke') continue;
    if (l.outcome === 'skip-locked' && (smoke(i - 1) || smoke(i + 1))) continue;
    return l;
  }
  return null;
}

export async function status(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec: fileSpec, file } = loadFor(io, argv.spec);
  const n0 = names(fileSpec);
  const s = readState(n0.stateDir);
  if (!s) {
    line(io, `hbgen status: "${fileSpec.name}" is not installed (no ${statePath(n0.stateDir)}); install it with \`hbgen install\``);
    return 1;
  }
  const spec = validateSpec(s.spec).spec ?? fileSpec;
  const n = names(spec);
  const problems: string[] = [];
  const info: string[] = [];
  line(io, `hbgen status: "${s.name}" (${s.scheduler}), ${s.status} at ${s.time}, by hbgen ${s.hbgenVersion}`);
  if (s.status === 'stopped') {
    line(io, `  stopped: there is no scheduler entry; \`hbgen resume\` installs it again`);
    return 1;
  }
  if (s.status === 'installing') problems.push('unfinished: an install did not finish (state.json says installing); run `hbgen install` again, or `hbgen stop` to remove what it wrote');

  // Drift of the installed files against state.json.
  const drifted = new Set<string>();
  for (const r of [...s.files, ...s.hostFiles]) {
    const st = lstatOrNull(r.path);
    if (!st) {
      problems.push(`drift: ${r.path} is missing; run \`hbgen install\` to put it back`);
      drifted.add(r.path);
      continue;
    }
    const h = sha256(readOrNull(r.path)!);
    if (h !== r.sha256) {
      problems.push(`drift: ${r.path} changed since install (sha256 ${h.slice(0, 12)}…, state.json ${r.sha256.slice(0, 12)}…); run \`hbgen install\` to restore it`);
      drifted.add(r.path);
    } else if ((st.mode & 0o7777) !== r.mode) {
      problems.push(`drift: ${r.path} has mode ${mode4(st.mode)}, installed ${mode4(r.mode)}; run \`hbgen install\` to restore it`);
      drifted.add(r.path);
    }
  }
  // … and against a fresh render of the spec file.
  if (specHash(fileSpec) !== s.specHash) problems.push(`drift: ${file} changed since install; run \`hbgen install\` to apply it`);
  const fresh = renderFor(io, fileSpec);
  if (fresh.errors.length === 0) {
    for (const f of fresh.files) {
      const p = posix.join(n.stateDir, f.path);
      if (drifted.has(p)) continue;
      const cur = readOrNull(p);
      if (cur !== null && !cur.equals(Buffer.from(f.content))) problems.push(`drift: a fresh render of ${file} differs from the installed ${p}; run \`hbgen install\` to update it`);
    }
  }

  // Binary and its interpreter.
  const bin = checkBin(spec.agent.bin, 'agent.bin', spec.env.PATH!, io);
  for (const p of bin.problems) problems.push(`missing binary: ${p}`);
  if (bin.problems.length === 0 && bin.facts.realpath !== s.bin.realpath) info.push(`agent.bin now resolves to ${bin.facts.realpath} (${s.bin.realpath} at install)`);

  // Scheduler.
  const toolsThere = SCHEDULER_TOOLS[s.scheduler].filter((t) => t !== 'loginctl').every((t) => findOnPath(t, io.env.PATH));
  if (toolsThere) {
    const ctx: Ctx = { io, spec, names: n, home: homeOf(io), files: [], prev: s };
    const a = await BACKENDS[s.scheduler].audit(ctx, s, plan(spec));
    problems.push(...a.problems);
    info.push(...a.info);
  } else {
    problems.push(`the ${s.scheduler} tools are not on PATH, so hbgen cannot see the scheduler entry; run status where they are`);
  }

  // Lock and last outcome.
  const lk = await lockInfo(io, spec, n);
  if (lk.stale) problems.push(`stale lock: ${lk.detail}; \`hbgen stop\` clears it (the next wake would also take it over)`);
  else if (lk.held) info.push(`a heartbeat is running now (${lk.detail})`);
  const last = lastOutcome(n.log, s.name);
  if (!last) info.push(`last outcome: no wake logged yet in ${n.log}`);
  else {
    const text = `${last.outcome}${last.detail ? ` ${last.detail}` : ''} at ${last.time}`;
    if (last.outcome === 'error') problems.push(`last wake could not run: ${text} (see ${n.log}); fix it, then check with \`hbgen wake\``);
    else info.push(`last outcome: ${text}`);
  }

  for (const i of info) line(io, `  ok       ${i}`);
  for (const p of problems) line(io, `  problem  ${p}`);
  line(io, problems.length === 0 ? 'healthy' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  return problems.length === 0 ? 0 : 1;
}
