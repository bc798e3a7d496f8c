// Runs one lifecycle command the way the CLI does, from this process's environment, with
// the real heartbeat.sh or a STAND-IN one (test/helpers/lifecycle.ts). test/lifecycle-cron*.test.ts
// start it as a scratch user under runuser, so that the real crontab(1) edited is that
// user's, never a real user's. Argument: JSON {cmd, spec, yes?, dryRun?, all?, json?, wrapper?}.
// Output and exit status are the command's.
import { register } from 'node:module';
import { UserError } from '../../src/errors.ts';
import { processIO } from './process-io.ts';
import { useWrapper } from './standin-pipeline.ts';
import type { StandInWrapper } from './standins.ts';

// The command below renders through standin-pipeline.ts (see standin-hooks.mjs).
register('./standin-hooks.mjs', import.meta.url);

const req = JSON.parse(process.argv[2]!) as { cmd: 'install' | 'status' | 'stop' | 'resume' | 'wake' | 'list' | 'doctor'; spec: string; yes?: boolean; dryRun?: boolean; all?: boolean; json?: boolean; wrapper?: StandInWrapper; firstWake?: boolean };
const io = processIO(req.spec);
useWrapper(req.wrapper ?? {});
const mod = await import(`../../src/commands/${req.cmd}.ts`);
try {
  process.exitCode = (await mod[req.cmd]({ spec: req.spec, yes: req.yes, dryRun: req.dryRun, all: req.all, json: req.json, firstWake: req.firstWake }, io)) as number;
} catch (e) {
  if (!(e instanceof UserError)) throw e;
  for (const l of e.lines) process.stderr.write(`hbgen: ${l}\n`);
  process.exitCode = e.exitCode;
}
