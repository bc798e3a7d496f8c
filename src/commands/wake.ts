// hbgen wake [SPEC]: one heartbeat now, by hand, through the installed wrapper
// (`/bin/sh <stateDir>/heartbeat.sh --now`: the working-hours check is skipped; lock, cap,
// timeout and log as usual). Its output and exit status are the wrapper's.
import { UserError } from '../errors.ts';
import { readOrNull, sha256 } from '../host/fsx.ts';
import type { HostIO } from '../host/io.ts';
import { readState, statePath } from '../host/state.ts';
import { names } from '../names.ts';
import { loadFor } from './common.ts';

export async function wake(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  const s = readState(n.stateDir);
  if (!s) throw new UserError([`"${spec.name}" is not installed (no ${statePath(n.stateDir)}); install it with \`hbgen install\` first`]);
  const rec = s.files.find((f) => f.path === n.wrapper);
  const cur = readOrNull(n.wrapper);
  if (!cur) throw new UserError([`${n.wrapper} is missing; run \`hbgen install\` to put it back`]);
  if (!rec || sha256(cur) !== rec.sha256) {
    throw new UserError([`${n.wrapper} changed since install, so hbgen will not run it; see \`hbgen status\` and run \`hbgen install\` to restore it`]);
  }
  if (s.status === 'stopped') io.err(`hbgen: note: "${s.name}" is stopped; running one heartbeat by hand anyway\n`);
  const { execa } = await import('execa');
  const r = await execa('/bin/sh', [n.wrapper, '--now'], { env: io.env, extendEnv: false, stdio: 'inherit', reject: false, cwd: '/' });
  return typeof r.exitCode === 'number' ? r.exitCode : 1;
}
