// Runs one lifecycle command the way the CLI does, from this process's environment, with
// the real heartbeat.sh or a STAND-IN one (test/helpers/lifecycle.ts). test/lifecycle-cron*.test.ts
// start it as a scratch user under runuser, so that the real crontab(1) edited is that
// user's, never a real user's. Argument: JSON {cmd, spec, yes?, dryRun?, all?, json?, wrapper?}.
// Output and exit status are the command's.
import { register } from 'node:module';
import { userInfo } from 'node:os';
import { UserError } from '../../src/errors.ts';
import { dirname } from 'node:path';
import { plannedHostZone } from '../../src/host/clock.ts';
import type { HostIO } from '../../src/host/io.ts';
import { loadSpec } from '../../src/load.ts';
import { etcFor } from './etc.ts';
import { useWrapper } from './standin-pipeline.ts';
import type { StandInWrapper } from './standins.ts';

// The command below renders through standin-pipeline.ts (see standin-hooks.mjs).
register('./standin-hooks.mjs', import.meta.url);

const req = JSON.parse(process.argv[2]!) as { cmd: 'install' | 'status' | 'stop' | 'resume' | 'wake' | 'list'; spec: string; yes?: boolean; dryRun?: boolean; all?: boolean; json?: boolean; wrapper?: StandInWrapper };
const io: HostIO = {
  env: process.env,
  uid: process.getuid!(),
  user: userInfo().username,
  cwd: process.cwd(),
  stdin: process.stdin,
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  now: () => new Date(),
  // The test host's own /etc (its localtime names the spec's planned zone), as hb() gives.
  etc: ownEtc(req.spec),
};
useWrapper(req.wrapper ?? {});

/** The test host's /etc for this spec; none (the machine's) when the spec file is gone, as `list` allows. */
function ownEtc(spec: string): string | undefined {
  try {
    return etcFor(dirname(spec), plannedHostZone(loadSpec(spec)));
  } catch {
    return undefined;
  }
}
const mod = await import(`../../src/commands/${req.cmd}.ts`);
try {
  process.exitCode = (await mod[req.cmd]({ spec: req.spec, yes: req.yes, dryRun: req.dryRun, all: req.all, json: req.json }, io)) as number;
} catch (e) {
  if (!(e instanceof UserError)) throw e;
  for (const l of e.lines) process.stderr.write(`hbgen: ${l}\n`);
  process.exitCode = e.exitCode;
}
