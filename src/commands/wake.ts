// hbgen wake [SPEC]: one heartbeat now, by hand, through the installed wrapper
// (`/bin/sh <stateDir>/heartbeat.sh --now`: the working-hours check is skipped; lock, cap,
// timeout and log as usual). Its exit status is the wrapper's; it then says in one line what
// the wake's log lines say (`wake 5: fail 3 after 41 s (see …/runtime.log; the agent's
// output is in …/agent.log)`). Like the
// scheduler entry (generators/entry.ts), it first checks that the installed wrapper is the
// one hbgen renders from the spec, and refuses with exit 78 when it is not.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { NOT_OUTCOMES, isOneOf, type LogLine, parseLog, parseTookDetail, parseWakeDetail } from '../formats.ts';
import { readOrNull, sha256 } from '../host/fsx.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { SCHEDULERS } from '../schedulers.ts';
import { codeInRepoProblems, stateInRepoProblem } from '../host/install/reach.ts';
import { readState, refuseForeignState, statePath } from '../host/state.ts';
import { shownWord } from '../escape.ts';
import { wrapperRefusal } from '../host/install/wrapper-check.ts';
import { specChanged, upgradeFrom } from '../host/audit/upgrade.ts';
import { names } from '../names.ts';
import { renderSpec } from '../pipeline.ts';
import { loadFor } from './common.ts';

/** The scheduler entry's exit status for a wrapper it will not run (EX_CONFIG). */
const REFUSED = 78;

export async function wake(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  // The wrapper run as another user would leave that user's files in the owner's folder.
  refuseForeignState(n.stateDir, io.uid, `hbgen wake ${shownWord(argv.spec)}`);
  // A scheduler whose wrapper is not on this host says where the wake runs instead.
  const backend = await SCHEDULERS[spec.schedule.scheduler].backend();
  if (backend.wake) return backend.wake({ io, spec, names: n, home: homeOf(io), files: [], prev: null });
  // What the agent could have rewritten is not run by hand either (src/host/install/reach.ts).
  const reach = [stateInRepoProblem(spec, n), ...codeInRepoProblems(spec)].filter((p): p is string => p !== null);
  if (reach.length) throw new UserError([...reach, 'hbgen wake ran nothing'], REFUSED);
  const s = readState(n.stateDir);
  if (!s) throw new UserError([`"${spec.name}" is not installed (no ${statePath(n.stateDir)}); install it with \`hbgen install\` first`]);
  const rec = s.files.find((f) => f.path === n.wrapper);
  const cur = readOrNull(n.wrapper);
  if (!cur) throw new UserError([`${n.wrapper} is missing; run \`hbgen install\` to put it back`], REFUSED);
  // One sentence per cause: the wrapper itself edited reads differently from a spec edited since install.
  if (!rec || sha256(cur) !== rec.sha256) {
    throw new UserError([`${n.wrapper} was edited since install (it is not the file state.json records), so hbgen will not run it; \`hbgen status\` shows what changed, and \`hbgen install\` writes hbgen's wrapper back`], REFUSED);
  }
  const r0 = await renderSpec(spec);
  const rendered = r0.files.find((f) => f.path === 'heartbeat.sh');
  let refusal = rendered ? wrapperRefusal(n.wrapper, rendered.content, argv.spec) : `${argv.spec} no longer renders (${r0.errors[0]}), so hbgen will not run ${n.wrapper}; fix the spec, then run \`hbgen install\``;
  // Installed by another hbgen: this one renders its own runtime, so the check above cannot
  // vouch for the installed wrapper (the scheduler's fires still run it, pinned by its entry).
  const upgrade = refusal ? upgradeFrom(s) : null;
  if (upgrade) refusal = `${upgrade}: \`hbgen install\` upgrades it; hbgen wake runs only a wrapper this hbgen renders, so run \`hbgen install\` first (the scheduler's own fires run the installed one meanwhile)`;
  else if (refusal && rendered && specChanged(spec, s)) refusal = `${argv.spec} was edited since install, so the installed wrapper is not the one it renders now and hbgen will not run it; run \`hbgen install\` to apply the edit, then \`hbgen wake\``;
  if (refusal) throw new UserError([refusal], REFUSED);
  if (s.status === 'stopped') io.err(`hbgen: note: "${s.name}" is stopped; running one heartbeat by hand anyway\n`);
  const from = sizeOf(n.log);
  const { code, faults } = await runWrapper(n.wrapper, io, `hbgen ${spec.name}: `);
  const logged = parseLog(readFrom(n.log, from), spec.name);
  // The wrapper's fault line (hb_fault) says what its `error` line says: printed once, by wakeLine.
  const said = [...logged].reverse().find((l) => l.outcome === 'error');
  for (const f of faults) if (!said || f !== `hbgen ${spec.name}: ${said.detail}`) io.err(`${f}\n`);
  io.out(`${wakeLine(logged, n.log, code, n.agentLog)}\n`);
  return code;
}

/**
 * Runs `heartbeat.sh --now`. Its output goes through io (escaped there), never to the
 * terminal raw; its fault lines (starting `prefix`) are held back and returned, the rest
 * passed on as they come.
 */
async function runWrapper(wrapper: string, io: HostIO, prefix: string): Promise<{ code: number; faults: string[] }> {
  const { execa } = await import('execa');
  const child = execa('/bin/sh', [wrapper, '--now'], { env: io.env, extendEnv: false, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', reject: false, cwd: '/', buffer: false });
  const faults: string[] = [];
  let part = '';
  // Decoded as a stream: a character cut between two reads stays one character.
  child.stdout?.setEncoding('utf8').on('data', (s: string) => io.out(s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    const lines = (part + s).split('\n');
    part = lines.pop()!;
    for (const l of lines) (l.startsWith(prefix) ? faults.push(l) : io.err(`${l}\n`));
  });
  const r = await child;
  if (part) io.err(part);
  return { code: typeof r.exitCode === 'number' ? r.exitCode : 1, faults };
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** What the log gained since `from` (all of it when it was cut or rotated meanwhile). */
function readFrom(path: string, from: number): string {
  const size = sizeOf(path);
  const start = size < from ? 0 : from;
  if (size <= start) return '';
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - start);
    const got = readSync(fd, buf, 0, buf.length, start);
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const epochOf = (t: string): number => Date.parse(t) / 1000;

/**
 * One line from this wake's log lines: its number, outcome, detail and duration. After a
 * fail, a timeout or denied tools it also names agent.log (`agentLog`), where the agent's own words are:
 * runtime.log holds only the wrapper's.
 */
export function wakeLine(lines: LogLine[], log: string, code: number, agentLog?: string): string {
  const start = lines.find((l) => l.outcome === 'start');
  const end = [...lines].reverse().find((l) => !isOneOf(NOT_OUTCOMES, l.outcome));
  const failed = end?.outcome === 'fail' || end?.outcome === 'timeout' || end?.outcome === 'denied';
  const see = `(see ${log}${failed && agentLog ? `; the agent's output is in ${agentLog}` : ''})`;
  if (!end) return `wake: the wrapper exited ${code} and logged no outcome ${see}`;
  const what = `${end.outcome}${end.detail ? ` ${end.detail}` : ''}`;
  const num = parseWakeDetail(start?.detail ?? '')?.n;
  // An error's detail is its whole reason (`error agent binary … is missing …`): said as it is.
  if (end.outcome === 'error') return `wake${num ? ` ${num}` : ''}: ${what} ${see}`;
  if (!start) return `wake: ${what} ${see}`;
  // A timeout line already says how long (`timeout after 25m`). Otherwise the length is the
  // log's own `took N s` (the boot clock, which a step of the wall clock during the wake does
  // not move), as status and `hbgen log` read it; the two stamps only without that line, and
  // never a length they cannot give (the clock stepped back).
  const tookLine = [...lines].reverse().find((l) => l.outcome === 'took');
  const booted = tookLine ? parseTookDetail(tookLine.detail) : null;
  const stamps = epochOf(end.time) - epochOf(start.time);
  const took = /^after /.test(end.detail) ? '' : booted !== null ? ` after ${booted} s` : stamps >= 0 ? ` after ${stamps} s` : ' (its length unknown: the clock was stepped during it)';
  return `wake${num ? ` ${num}` : ''}: ${what}${took} ${see}`;
}
