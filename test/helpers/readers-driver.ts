// Runs the read-only commands (status, log, list) one after the other in ONE child process,
// the way the CLI does, so that a test can bound all three with one spawn timeout: a read
// that blocks (a FIFO, /dev/zero) shows as a child that never returns. Argument: the spec
// file. Prints each command's output, then "==> <cmd> exit <code>".
import { UserError } from '../../src/errors.ts';
import { processIO } from './process-io.ts';

const spec = process.argv[2]!;
const io = processIO(spec, true);
for (const cmd of ['status', 'log', 'list'] as const) {
  const mod = await import(`../../src/commands/${cmd}.ts`);
  let code: number;
  try {
    code = (await mod[cmd]({ spec }, io)) as number;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    for (const l of e.lines) process.stdout.write(`hbgen: ${l}\n`);
    code = e.exitCode;
  }
  process.stdout.write(`==> ${cmd} exit ${code}\n`);
}
