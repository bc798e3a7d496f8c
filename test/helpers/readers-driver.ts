// Runs the read-only commands (status, log, list) one after the other in ONE child process,
// the way the CLI does, so that a test can bound all three with one spawn timeout: a read
// that blocks (a FIFO, /dev/zero) shows as a child that never returns. Argument: the spec
// file. Prints each command's output, then "==> <cmd> exit <code>".
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { UserError } from '../../src/errors.ts';
import { plannedHostZone } from '../../src/host/clock.ts';
import type { HostIO } from '../../src/host/io.ts';
import { loadSpec } from '../../src/load.ts';
import { etcFor } from './etc.ts';

const spec = process.argv[2]!;
const io: HostIO = {
  env: process.env,
  uid: process.getuid!(),
  user: userInfo().username,
  cwd: process.cwd(),
  stdin: process.stdin,
  out: (s) => process.stdout.write(s),
  err: (s) => process.stdout.write(s),
  now: () => new Date(),
  etc: etcFor(dirname(spec), plannedHostZone(loadSpec(spec))),
};
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
