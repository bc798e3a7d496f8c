// The CLI's entry (bin/hbgen.cjs answers `--version` before this loads). The commonest
// calls — `render` and `check` in their plain forms — are answered without loading yargs, which alone costs about twice Node's own
// start-up (see docs/SPEED.md). Anything else, including every mistake, goes to the
// full yargs command line in cli.ts, which gives the same results for these forms
// (test/parsers.test.ts runs a generated corpus of command lines both ways and compares).
import { statSync } from 'node:fs';
import { fastParse } from './fastparse.ts';
import { runCommand } from './errors.ts';
import { guardStreams } from './output.ts';

/** A regular file at `p`; anything else (missing, a folder, unreadable) goes to the full command line, which says which. */
function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

async function main(args: string[]): Promise<number> {
  // HBGEN_FULL_CLI=1 sends every call to yargs: test/parsers.test.ts runs each command line
  // both ways and compares what the user sees, so the fast path cannot drift from yargs.
  const fast = process.env.HBGEN_FULL_CLI === '1' ? undefined : fastParse(args);
  // An install's name, a folder or a missing file as SPEC (src/spec-arg.ts) goes to the full command line.
  if (fast && isFile(fast.spec)) {
    // render writes with out() and note() and builds no stream (src/output.ts).
    if (fast.cmd !== 'render') guardStreams();
    const { renderCmd, checkCmd } = await import('./commands/render.ts');
    return fast.cmd === 'render' ? runCommand(renderCmd, fast) : runCommand(checkCmd, fast);
  }
  guardStreams();
  const { main: full } = await import('./cli.ts');
  return full(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    guardStreams();
    process.stderr.write(`hbgen: internal error: ${(e as Error).message}; please report it with the command you ran\n`);
    process.exitCode = 70;
  },
);
