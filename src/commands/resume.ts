// hbgen resume [SPEC]: install again, from the spec file, an install that state.json records
// (a stopped one, typically), after the same panel and consent as install. state.json is only
// a record: it sits in a folder the agent may write, so nothing in it is installed.
// hbgen resume --now [SPEC]: only end the pauses on the wakes, the plan's limit's and the
// one after failing wakes: it removes <stateDir>/paused and <stateDir>/failpause and
// nothing else (no panel, no reinstall).
import { statSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { shownWord } from '../escape.ts';
import type { HostIO } from '../host/io.ts';
import { localText } from '../host/audit/next.ts';
import { activePause, clearPause } from '../host/audit/pause.ts';
import { activeFailPause, clearFailPause } from '../host/audit/failpause.ts';
import { names } from '../names.ts';
import { refuseForeignState } from '../host/state.ts';
import { install, type InstallArgs } from './install.ts';
import { line, loadFor, specPath } from './common.ts';

export function resume(argv: InstallArgs & { now?: boolean }, io: HostIO): Promise<number> {
  specFileThere(argv, io);
  if (argv.now) return Promise.resolve(endPause(argv, io));
  return install(argv, io, 'resume');
}

/**
 * resume goes by the spec file, and a person who lost it might expect state.json's copy
 * to stand in: say that it does not, and what to do, before anything else.
 */
function specFileThere(argv: InstallArgs, io: HostIO): void {
  const file = specPath(io, argv.spec);
  try {
    statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return; // loadSpec names any other failure
    const shown = io.cwd === process.cwd() ? argv.spec : file;
    throw new UserError([
      `${shown}: no such file; resume reads the settings from the spec file, never from state.json (a record only), so pass the path of the spec this install was made from, or restore that file (from git or a backup) and run \`hbgen resume ${shownWord(argv.spec)}\` again`,
    ]);
  }
}

function endPause(argv: InstallArgs, io: HostIO): number {
  if (argv.resetCap || argv.dryRun) {
    throw new UserError([`--now only ends the pauses (the plan's limit's, and the one after failing wakes) and cannot be combined with --${argv.resetCap ? 'reset-cap' : 'dry-run'}; run \`hbgen resume\` for that separately`], 2);
  }
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  refuseForeignState(n.stateDir, io.uid, `hbgen resume --now ${shownWord(argv.spec)}`);
  const f = activeFailPause(n.stateDir);
  const hadF = clearFailPause(n.stateDir);
  if (f) line(io, `hbgen: "${spec.name}" was paused after ${f.count} failing wakes in a row since ${localText(new Date(f.since), spec.schedule.hours.timezone)}; the pause is ended, and the next fire runs the agent (one more failure pauses it again; nothing was reinstalled)`);
  else if (hadF) line(io, `hbgen: "${spec.name}" had a pause file after failures in a shape the wrapper does not believe; it is removed (nothing was reinstalled)`);
  const p = activePause(n.stateDir, io.now());
  const had = clearPause(n.stateDir);
  if (hadF && !had) return 0;
  if (p) line(io, `hbgen: "${spec.name}" was paused by the plan's limit until ${localText(p.until, spec.schedule.hours.timezone)}; the pause is ended, and the next wake runs the agent (nothing was reinstalled)`);
  else if (had) line(io, `hbgen: "${spec.name}" had a pause file that is no longer in force; it is removed (nothing was reinstalled)`);
  else line(io, `hbgen: "${spec.name}" is not paused by the plan's limit; nothing changed`);
  return 0;
}
