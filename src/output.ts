// What the CLI writes to its own stdout and stderr, and what happens when it cannot.
import { writeSync } from 'node:fs';

let outputFailure: string | undefined;
let guarded = false;

/**
 * A reader that stops reading (`hbgen status | head -1`) is not a failure of the command: the
 * write to the closed pipe fails with EPIPE, asynchronously, as an 'error' event that would
 * otherwise end Node with a stack trace. From then on that stream's output is dropped and
 * the command runs to its end with its own exit status: it is never cut half-way (an
 * install piped into `head` still finishes or undoes itself). Any other failure to write
 * (a full disk under `> file`) is kept for one line on stderr at the end. Called before a
 * command uses process.stdout or process.stderr (main.ts, and for an error's lines); once.
 */
export function guardStreams(): void {
  if (guarded) return;
  guarded = true;
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
}

/**
 * Lines for the person on stderr, written to the descriptor itself: `render --out` says
 * what it wrote this way and never builds process.stderr, whose stream modules cost a
 * render more than everything else it prints (docs/SPEED.md). A reader gone (EPIPE), or
 * any other failure, drops the rest, as the streams' output is dropped then; a pipe that
 * is full for now (EAGAIN, when the caller left it non-blocking) is waited for, up to 1 s.
 * Only for a command that writes no other stderr: the streams may queue (macOS pipes),
 * and these lines would pass them.
 */
export function note(text: string): void {
  const b = Buffer.from(text);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let off = 0, tries = 0; off < b.length && tries < 1000; ) {
    try {
      off += writeSync(2, b, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      tries++;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
}
