// The registry, on the top floor: each scheduler's renderer and backend, loaded by its id.
// The facts every floor may know (ids, tools, clock, wording) are in src/scheduler-facts.ts,
// one line per scheduler; this module adds only the code, found by the layout every
// scheduler follows (docs/ARCHITECTURE.md "Adding a scheduler"):
//   generators/<id>.ts        exports `generator` (a Generator: the spec → files renderer)
//   src/host/<id>/backend.ts  exports `backend`   (a Backend: install, stop, audit on the host)
// so a fifth scheduler adds no line here.
//
// Everything loads lazily: rendering for one scheduler loads neither another scheduler's code
// nor any host code. The imports are template literals, which the bundler (esbuild) turns into
// a table of exactly the files matching that path, each still loaded on first use; the
// import-cycle test (test/imports.test.ts) adds these edges to the graph it checks.
import type { Generator } from '../generators/types.ts';
import type { Backend } from './host/backend.ts';
import { FACTS, SCHEDULER_IDS, type SchedulerFacts, type SchedulerId } from './scheduler-facts.ts';

export { SCHEDULER_IDS, type SchedulerId } from './scheduler-facts.ts';

export interface SchedulerDescriptor extends SchedulerFacts<SchedulerId> {
  /** The spec → files renderer of its entry, ready to use. */
  generator(): Promise<Generator>;
  /** The host side: preflight, apply, listing, stop and audit. */
  backend(): Promise<Backend>;
}

async function loadGenerator(id: SchedulerId): Promise<Generator> {
  const g = (await import(`../generators/${id}.ts`)).generator as Generator;
  await g.ready?.();
  return g;
}

async function loadBackend(id: SchedulerId): Promise<Backend> {
  return (await import(`./host/${id}/backend.ts`)).backend as Backend;
}

export const SCHEDULERS = Object.fromEntries(
  SCHEDULER_IDS.map((id) => [id, { ...FACTS[id], generator: () => loadGenerator(id), backend: () => loadBackend(id) }]),
) as Record<SchedulerId, SchedulerDescriptor>;
