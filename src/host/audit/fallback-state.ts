// status's look at <stateDir>/model.fallback, which the wrapper writes when the client
// refused agent.model and a fallback is set (src/model-fallback.ts).
import { posix } from 'node:path';
import { FALLBACK_FILE } from '../../model-fallback.ts';
import { readSoft } from '../fsx.ts';

/** status: the fallback in use, read from the state folder (never trusted beyond a line of text). */
export function fallbackInUse(stateDir: string, spec: { agent: { model?: string; fallbackModel?: string } }): string | null {
  const b = readSoft(posix.join(stateDir, FALLBACK_FILE), 4096, { noFollow: true });
  const f = b?.toString('utf8') ?? null;
  if (f === null) return null;
  const m = /^(\d+) (\S.*)$/.exec(f.split('\n')[0] ?? '');
  if (!m || !spec.agent.fallbackModel || m[2] !== spec.agent.model) return null;
  const since = new Date(Number(m[1]) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  return `the wakes run the fallback model ${spec.agent.fallbackModel}: the client refused ${spec.agent.model} at ${since} (choose another agent.model and run hbgen install to go back)`;
}
