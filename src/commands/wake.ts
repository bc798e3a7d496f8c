// hbgen wake [SPEC]: one heartbeat now, by hand, through the installed wrapper
// (`/bin/sh <stateDir>/heartbeat.sh --now`: the working-hours check is skipped; lock, cap,
// timeout and log as usual). Its output and exit status are the wrapper's. Like the
// scheduler entry (generators/entry.ts), it first checks that the installed wrapper is the
// one hbgen renders from the spec, and refuses with exit 78 when it is not.
import { UserError } from '../errors.ts';
import { readOrNull, sha256 } from '../host/fsx.ts';
import type { HostIO } from '../host/io.ts';
import { readState, statePath } from '../host/state.ts';
import { wrapperRefusal } from '../host/wrapper-check.ts';
import { names } from '../names.ts';
import { renderSpec } from '../pipeline.ts';
import { loadFor } from './common.ts';

/** The scheduler entry's exit status for a wrapper it will not run (EX_CONFIG). */
const REFUSED = 78;

export async function wake(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  const s = readState(n.stateDir);
  if (!s) throw new UserError([`"${spec.name}" is not installed (no ${statePath(n.stateDir)}); install it with \`hbgen install\` first`]);
  const rec = s.files.find((f) => f.path === n.wrapper);
  const cur = readOrNull(n.wrapper);
  if (!cur) throw new UserError([`${n.wrapper} is missing; run \`hbgen install\` to put it back`], REFUSED);
  if (!rec || sha256(cur) !== rec.sha256) {
    throw new UserError([`${n.wrapper} changed since install, so hbgen will not run it; see \`hbgen status\` and run \`hbgen install\` to restore it`], REFUSED);
  }
  const r0 = await renderSpec(spec);
  const rendered = r0.files.find((f) => f.path === 'heartbeat.sh');
  const refusal = rendered ? wrapperRefusal(n.wrapper, rendered.content, argv.spec) : `${argv.spec} no longer renders (${r0.errors[0]}), so hbgen will not run ${n.wrapper}; fix the spec, then run \`hbgen install\``;
  if (refusal) throw new UserError([refusal], REFUSED);
  if (s.status === 'stopped') io.err(`hbgen: note: "${s.name}" is stopped; running one heartbeat by hand anyway\n`);
  const { execa } = await import('execa');
  const r = await execa('/bin/sh', [n.wrapper, '--now'], { env: io.env, extendEnv: false, stdio: 'inherit', reject: false, cwd: '/' });
  return typeof r.exitCode === 'number' ? r.exitCode : 1;
}
