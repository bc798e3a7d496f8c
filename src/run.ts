import { UserError } from './errors.ts';

/** Run one command: a UserError becomes its lines on stderr and its exit code, never a stack. */
export async function runCommand<T>(fn: (a: T) => Promise<void | number>, a: T): Promise<number> {
  try {
    const code = await fn(a);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    for (const l of e.lines) process.stderr.write(`hbgen: ${l}\n`);
    return e.exitCode;
  }
}
