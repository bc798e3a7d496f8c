// The HostIO a child process under test builds from its own environment, as the CLI does:
// the test host's own /etc (its localtime names the spec's planned zone), as hb() gives.
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { plannedHostZone } from '../../src/host/audit/clock.ts';
import { terminalText } from '../../src/escape.ts';
import type { HostIO } from '../../src/host/io.ts';
import { loadSpec } from '../../src/load.ts';
import { etcFor } from './etc.ts';

/** The test host's /etc for this spec; none (the machine's) when the spec file is gone, as `list` allows. */
function ownEtc(spec: string): string | undefined {
  try {
    return etcFor(dirname(spec), plannedHostZone(loadSpec(spec)));
  } catch {
    return undefined;
  }
}

/** `errToOut`: the command's stderr goes to stdout too (one stream to read in order). */
export function processIO(spec: string, errToOut = false): HostIO {
  return {
    env: process.env,
    uid: process.getuid!(),
    user: userInfo().username,
    cwd: process.cwd(),
    stdin: process.stdin,
    out: (s) => process.stdout.write(terminalText(s)),
    err: (s) => (errToOut ? process.stdout : process.stderr).write(terminalText(s)),
    now: () => new Date(),
    etc: ownEtc(spec),
  };
}
