// Rendering inside the tests' synchronous helpers: every scheduler's renderer is loaded
// once here, and renderNow renders with it through the same pipeline as renderSpec (which
// loads the one renderer it needs and is what the commands use).
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Generator } from '../../generators/types.ts';
import { type RenderResult, renderWith } from '../../src/pipeline.ts';
import { SCHEDULERS, SCHEDULER_IDS, type SchedulerId } from '../../src/schedulers.ts';
import { type Spec, validateSpec } from '../../src/spec.ts';
import type { FakeClock } from './faketime.ts';

const GENERATORS = new Map<SchedulerId, Generator>(await Promise.all(SCHEDULER_IDS.map(async (id) => [id, await SCHEDULERS[id].generator()] as const)));

/** renderSpec, synchronously. */
export function renderNow(spec: Spec, opts: { scheduler?: SchedulerId } = {}): RenderResult {
  const scheduler = opts.scheduler ?? spec.schedule.scheduler;
  return renderWith(scheduler, GENERATORS.get(scheduler)!, spec);
}

/**
 * A render's window.sh written to `path` (mode 755), with the runtime it pins beside it, as
 * install lays them out: window.sh runs that runtime from its own folder.
 */
export function writeGate(path: string, r: RenderResult): string {
  const rt = r.files.find((f) => /^runtime-.*\.sh$/.test(f.path))!;
  writeFileSync(path, r.files.find((f) => f.path === 'window.sh')!.content);
  chmodSync(path, 0o755);
  writeFileSync(join(dirname(path), rt.path), rt.content);
  return path;
}

/**
 * Re-render a wrapper case's scripts into its state folder with the wrapper's clock at
 * `when` (libfaketime's variables added to the spec env), so that its next run reads that time.
 */
export function rerenderAt(clock: FakeClock, c: { spec: Spec; state: string }, when: string): void {
  const v = validateSpec({ ...c.spec, env: { ...c.spec.env, ...clock.envAt(when) } });
  if (!v.spec) throw new Error(v.errors.join('\n'));
  for (const f of renderNow(v.spec).files) if (f.path.endsWith('.sh')) writeFileSync(join(c.state, f.path), f.content, { mode: 0o755 });
}
