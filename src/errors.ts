// What a user-caused error is, and how a command shows it: one sentence (or one line per
// problem) on stderr and an exit code, never a stack.
import { terminalText } from './escape.ts';
import { guardStreams } from './output.ts';

/** An error the user caused: printed as one sentence (or one line per problem), no stack. */
export class UserError extends Error {
  constructor(
    readonly lines: string[],
    readonly exitCode = 1,
  ) {
    super(lines.join('\n'));
  }
}

/** A file-system failure on `path` as a UserError naming it (an existing UserError passes through). */
export function fsError(e: unknown, path: string, verb: 'read' | 'write' | 'remove' | 'create'): UserError {
  if (e instanceof UserError) return e;
  const err = e as NodeJS.ErrnoException;
  const why = err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied' : err.code === 'ENOSPC' ? 'the disk is full' : (err.code ?? err.message);
  return new UserError([`${err.path ?? path}: cannot ${verb} it (${why}); check the folder's owner and permissions`]);
}

/** Run one command: a UserError becomes its lines on stderr and its exit code, never a stack. */
export async function runCommand<T>(fn: (a: T) => Promise<void | number>, a: T): Promise<number> {
  try {
    const code = await fn(a);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    guardStreams();
    for (const l of e.lines) process.stderr.write(terminalText(`hbgen: ${l}\n`));
    return e.exitCode;
  }
}
