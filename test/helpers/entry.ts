// The scheduler entry as the tests expect it: the argv of generators/entry.ts, with the
// checksum the real cksum(1) prints for the rendered wrapper (not src/cksum.ts's).
import { entryScript } from '../../generators/entry.ts';
import { run } from './tools.ts';

/** What `cksum <FILE` prints for these bytes, by the host's cksum. */
export function realCksum(content: string | Buffer): { crc: number; size: number } {
  const r = run('cksum', [], { input: typeof content === 'string' ? Buffer.from(content) : content });
  const m = /^(\d+) (\d+)\n$/.exec(r.stdout);
  if (r.code !== 0 || !m) throw new Error(`cksum failed (${r.code}): ${r.stdout}${r.stderr}`);
  return { crc: Number(m[1]), size: Number(m[2]) };
}

/** The entry's argv for a spec name, its state folder and its rendered heartbeat.sh. */
export function expectedEntry(name: string, stateDir: string, wrapperContent: string): string[] {
  return ['/bin/sh', '-c', entryScript(name, realCksum(wrapperContent)), `hbgen-${name}`, `${stateDir}/heartbeat.sh`];
}
