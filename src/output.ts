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
 * `text` written to descriptor `fd` itself, waiting out a pipe that is full for now
 * (EAGAIN, when the caller left it non-blocking) up to 1 s; the error code that stopped
 * it, or undefined when all of it was written.
 */
function writeAll(fd: number, text: string): string | undefined {
  const b = Buffer.from(text);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let off = 0, tries = 0; off < b.length; ) {
    try {
      off += writeSync(fd, b, off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      if (code !== 'EAGAIN' || ++tries > 1000) return code;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
  return undefined;
}

// A render writes its output with these two and never builds process.stdout or
// process.stderr: their stream modules cost a render more than everything else it prints
// (docs/SPEED.md). The same rules as guardStreams(): a reader gone (EPIPE) drops the rest;
// any other failure of stdout is said in one line at exit, with exit status 74. Only for a
// command that uses no stream as well: the streams may queue (macOS pipes), and these
// writes would pass them.

/** Lines for the person on stderr. */
export function note(text: string): void {
  writeAll(2, text);
}

/** A command's output on stdout. */
export function out(text: string): void {
  if (outputFailure) return;
  const code = writeAll(1, text);
  if (!code || code === 'EPIPE') return;
  outputFailure = code;
  process.once('exit', (status) => {
    note(`hbgen: the output could not be written (${code}); check where standard output goes (a full disk, a closed file)\n`);
    if (status === 0) process.exitCode = 74;
  });
}
