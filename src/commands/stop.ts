// hbgen stop [SPEC]: remove exactly what state.json records (scheduler entry, host files,
// folders install created), end a heartbeat running now, clear a stale lock; keep
// runtime.log and state.json (marked stopped). Everything is checked before anything is
// changed; a second stop says "already stopped".
import { UserError } from '../errors.ts';
import { shownWord } from '../escape.ts';
import { type Ctx, rmdirIfEmpty } from '../host/backend.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { acquireOpLock } from '../host/lock.ts';
import { clearStaleLock, endHeartbeats, lockInfo, runningWrappers } from '../host/proc.ts';
import { readState, statePath, writeState } from '../host/state.ts';
import { toolsPresent } from '../host/tools.ts';
import { names } from '../names.ts';
import { SCHEDULERS } from '../schedulers.ts';
import { validateSpec } from '../spec.ts';
import { line, loadFor } from './common.ts';

export async function stop(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec: fileSpec } = loadFor(io, argv.spec);
  const n0 = names(fileSpec);
  const s = readState(n0.stateDir);
  if (!s) {
    line(io, `hbgen: no install of "${fileSpec.name}" is recorded in ${statePath(n0.stateDir)}; nothing to stop`);
    return 0;
  }
  if (s.status === 'stopped') {
    line(io, `hbgen: "${s.name}" is already stopped; nothing changed (\`hbgen resume ${shownWord(argv.spec)}\` installs it again)`);
    return 0;
  }
  const v = validateSpec(s.spec);
  const spec = v.spec ?? fileSpec;
  const n = names(spec);
  const ctx: Ctx = { io, spec, names: n, home: homeOf(io), files: [], prev: s };
  const t = toolsPresent(s.scheduler, io.env.PATH, 'inspect').missing[0]?.name;
  if (t) {
    throw new UserError([`${t} is not on PATH, so hbgen cannot remove the ${s.scheduler} entry; run stop where ${t} is available (PATH=${io.env.PATH ?? ''})`, 'nothing was changed on this host']);
  }
  const backend = await SCHEDULERS[s.scheduler].backend();
  const lock = await acquireOpLock(io);
  try {
    const plan = await backend.planStop(ctx, s);
    if (plan.refusals.length) throw new UserError([...plan.refusals, 'nothing was changed on this host']);
    const say = (l: string) => line(io, `  ${l}`);
    line(io, `hbgen stop: "${s.name}" (${s.scheduler})`);
    await plan.run(say);
    const before = await lockInfo(io, spec, n);
    const { procs, all } = await runningWrappers(io, n, before);
    for (const l of await endHeartbeats(io, spec, procs, all)) say(l);
    const after = await lockInfo(io, spec, n);
    if (after.kind === 'mkdir' && !after.held) {
      clearStaleLock(n);
      say(`removed the stale lock ${n.lockDir} (${after.detail.replace(`${n.lockDir}: `, '')})`);
    }
    for (const d of [...s.createdDirs].sort((a, b) => b.length - a.length)) if (rmdirIfEmpty(d)) say(`removed the folder ${d} (install created it)`);
    const now = io.now().toISOString();
    writeState(n.stateDir, { ...s, status: 'stopped', time: now, stoppedAt: now });
    say(`kept ${n.log} and ${statePath(n.stateDir)} (marked stopped)`);
    line(io, `hbgen: stopped "${s.name}"; \`hbgen resume ${shownWord(argv.spec)}\` installs it again`);
    return 0;
  } finally {
    lock.release();
  }
}
