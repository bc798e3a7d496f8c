// hbgen resume [SPEC]: reinstall what state.json records, after the panel and consent.
// hbgen resume --now [SPEC]: only end the pause the plan's limit put on the wakes (issue 17):
// it removes <stateDir>/paused and nothing else (no panel, no reinstall).
import { UserError } from '../errors.ts';
import type { HostIO } from '../host/io.ts';
import { localText } from '../host/next.ts';
import { activePause, clearPause } from '../host/pause.ts';
import { names } from '../names.ts';
import { install, type InstallArgs } from './install.ts';
import { line, loadFor } from './common.ts';

export function resume(argv: InstallArgs & { now?: boolean }, io: HostIO): Promise<number> {
  if (argv.now) return Promise.resolve(endPause(argv, io));
  return install(argv, io, 'resume');
}

function endPause(argv: InstallArgs, io: HostIO): number {
  if (argv.resetCap || argv.dryRun) {
    throw new UserError([`--now only ends the pause of the plan's limit and cannot be combined with --${argv.resetCap ? 'reset-cap' : 'dry-run'}; run \`hbgen resume\` for that separately`], 2);
  }
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  const p = activePause(n.stateDir, io.now());
  const had = clearPause(n.stateDir);
  if (p) line(io, `hbgen: "${spec.name}" was paused by the plan's limit until ${localText(p.until, spec.schedule.hours.timezone)}; the pause is ended, and the next wake runs the agent (nothing was reinstalled)`);
  else if (had) line(io, `hbgen: "${spec.name}" had a pause file that is no longer in force; it is removed (nothing was reinstalled)`);
  else line(io, `hbgen: "${spec.name}" is not paused by the plan's limit; nothing changed`);
  return 0;
}
