// The scheduler entry as the tests expect it: the argv of generators/entry.ts, with the
// SHA-256 the real sha256sum(1) prints for the rendered wrapper (not node:crypto's).
import { entryScript } from '../../generators/entry.ts';
import { run } from './tools.ts';

/** The hex SHA-256 of these bytes, by the host's sha256sum. */
export function realSha256(content: string | Buffer): string {
  const r = run('sha256sum', [], { input: typeof content === 'string' ? Buffer.from(content) : content });
  const m = /^([0-9a-f]{64}) {2}-\n$/.exec(r.stdout);
  if (r.code !== 0 || !m) throw new Error(`sha256sum failed (${r.code}): ${r.stdout}${r.stderr}`);
  return m[1]!;
}

/** The entry's argv for a spec name, its state folder and its rendered heartbeat.sh. */
export function expectedEntry(name: string, stateDir: string, wrapperContent: string): string[] {
  return ['/bin/sh', '-c', entryScript(name, realSha256(wrapperContent)), `hbgen-${name}`, `${stateDir}/heartbeat.sh`];
}
