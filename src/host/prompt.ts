// The one consent question. Default No: only "y" or "yes" installs; anything else, an
// empty line or end of input, does not. Without a terminal there is no one to ask.
import { createInterface } from 'node:readline';
import type { HostIO } from './io.ts';

export async function askConsent(io: HostIO, question: string): Promise<'yes' | 'no' | 'no-tty'> {
  if (!io.stdin.isTTY) return 'no-tty';
  io.err(`${question} [y/N] `);
  const rl = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string | null>((resolve) => {
    rl.once('line', (l) => resolve(l));
    rl.once('close', () => resolve(null));
  });
  rl.close();
  (io.stdin as NodeJS.ReadStream).pause?.();
  if (answer === null) io.err('\n');
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer) ? 'yes' : 'no';
}
