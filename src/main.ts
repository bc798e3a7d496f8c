// The CLI's entry (bin/hbgen.cjs answers `--version` before this loads). The commonest
// calls — `render` and `check` in their plain forms — are answered without loading yargs, which alone costs about twice Node's own
// start-up (see docs/SPEED.md). Anything else, including every mistake, goes to the
// full yargs command line in cli.ts, which gives the same results for these forms
// (test/cli.test.ts runs both and compares).
import { statSync } from 'node:fs';
import { fastParse } from './fastparse.ts';
import { runCommand } from './errors.ts';

/**
 * A reader that stops reading (`hbgen status | head -1`) is not a failure of the command: the
 * write to the closed pipe fails with EPIPE, asynchronously, as an 'error' event that would
 * otherwise end Node with a stack trace. From then on that stream's output is dropped and
 * the command runs to its end with its own exit status: it is never cut half-way (an
 * install piped into `head` still finishes or undoes itself). Any other failure to write
 * (a full disk under `> file`) is kept for one line on stderr at the end.
 */
let outputFailure: string | undefined;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED' && stream === process.stdout) outputFailure ??= e.code ?? e.message;
  });
}
// The error event may come after the command returned its status: decided at exit.
process.once('exit', (code) => {
  if (!outputFailure) return;
  process.stderr.write(`hbgen: the output could not be written (${outputFailure}); check where standard output goes (a full disk, a closed file)\n`);
  if (code === 0) process.exitCode = 74;
});

/** A regular file at `p`; anything else (missing, a folder, unreadable) goes to the full command line, which says which. */
function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

async function main(args: string[]): Promise<number> {
  const fast = fastParse(args);
  // An install's name, a folder or a missing file as SPEC (src/spec-arg.ts) goes to the full command line.
  if (fast && isFile(fast.spec)) {
    const { renderCmd, checkCmd } = await import('./commands/render.ts');
    return fast.cmd === 'render' ? runCommand(renderCmd, fast) : runCommand(checkCmd, fast);
  }
  const { main: full } = await import('./cli.ts');
  return full(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`hbgen: internal error: ${(e as Error).message}; please report it with the command you ran\n`);
    process.exitCode = 70;
  },
);
