// The render pipeline: a validated spec in, the rendered file tree out, as data (the
// scripts for the state folder and the scheduler's entry under host/). Pure: no clock, no
// host, no environment, no cwd; the same spec gives the same bytes everywhere. It loads
// the one scheduler renderer the spec needs, through the registry.
import { sha256Hex } from './sha256.ts';
import type { Generator, RenderContext, RenderedFile, SchedulerContext } from '../generators/types.ts';
import { scriptFiles } from '../generators/wrapper.ts';
import { generatedBy, pad2 } from './formats.ts';
import { jailPolicy } from './jail.ts';
import { names } from './names.ts';
import { SCHEDULERS, type SchedulerId } from './schedulers.ts';
import { dstWarnings, plan, summary } from './schedule.ts';
import type { Spec } from './spec.ts';

export type { RenderedFile };

export interface RenderResult {
  files: RenderedFile[];
  /** One line saying when the heartbeat fires (printed on stderr by `hbgen render`). */
  summary: string;
  /** Problems that make the spec unusable for this scheduler: validation errors. */
  errors: string[];
  /** Things that work, but not as the spec reads (a window edge in a DST change). */
  warnings: string[];
}

/** Render `spec`, for its own scheduler or for `opts.scheduler`. */
export async function renderSpec(spec: Spec, opts: { scheduler?: SchedulerId } = {}): Promise<RenderResult> {
  const scheduler = opts.scheduler ?? spec.schedule.scheduler;
  return renderWith(scheduler, await SCHEDULERS[scheduler].generator(), spec);
}

/**
 * What every part of a render reads, each computed once here (docs/SPEED.md: the jail's
 * paths, built again by each reader, made Node's path functions hot enough for V8 to
 * optimise them in the background, ~2 ms of CPU for a render).
 */
export function renderContext(s: Spec): RenderContext {
  const n = names(s);
  return { spec: s, names: n, plan: plan(s), jail: jailPolicy(s, n), header: generatedBy(s.name) };
}

/** Render `spec` for `scheduler` with that scheduler's renderer, already loaded (SCHEDULERS[scheduler].generator()). */
export function renderWith(scheduler: SchedulerId, gen: Generator, spec: Spec): RenderResult {
  const s: Spec = scheduler === spec.schedule.scheduler ? spec : { ...spec, schedule: { ...spec.schedule, scheduler } };
  const base = renderContext(s);
  // The scripts first: the scheduler entry carries the wrapper's SHA-256 (generators/entry.ts).
  const scripts = scriptFiles(base);
  const wrapper = scripts.find((f) => f.path === 'heartbeat.sh')!.content;
  const ctx: SchedulerContext = { ...base, wrapperSha256: sha256Hex(wrapper), scripts };
  const errors = gen.check?.(ctx) ?? [];
  if (ctx.plan.pattern.length === 0) {
    errors.push(
      `schedule.hours: the window ${s.schedule.hours.start}–${s.schedule.hours.end} holds no fire time at minute :${pad2(ctx.plan.minute)} every ${s.schedule.every}; widen the window or set schedule.minute`,
    );
  }
  if (errors.length) return { files: [], summary: '', errors, warnings: [] };
  const files = [...scripts, ...gen.files(ctx)].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, summary: summary(s, ctx.plan, SCHEDULERS[scheduler]), errors: [], warnings: dstWarnings(s) };
}
