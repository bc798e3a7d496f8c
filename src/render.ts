// Rendering: a validated spec in, the file tree of PRODUCT.md §3 out, as data. Pure: no
// clock, no host, no environment, no cwd; the same spec gives the same bytes everywhere.
import { generators } from '../generators/index.ts';
import type { RenderContext, RenderedFile } from '../generators/types.ts';
import { scriptFiles } from '../generators/wrapper.ts';
import { generatedBy, names } from './names.ts';
import { dstWarnings, plan, summary } from './schedule.ts';
import type { Spec } from './spec.ts';

export type { RenderedFile };
export type Scheduler = Spec['schedule']['scheduler'];

export interface RenderResult {
  files: RenderedFile[];
  /** One line saying when the heartbeat fires (printed on stderr by `hbgen render`). */
  summary: string;
  /** Problems that make the spec unusable for this scheduler: validation errors. */
  errors: string[];
  /** Things that work, but not as the spec reads (a window edge in a DST change). */
  warnings: string[];
}

/** Load what rendering needs lazily (the plist writer); call once before renderSpec. */
export async function prepareRender(): Promise<void> {
  const { loadPlist } = await import('../generators/launchd.ts');
  await loadPlist();
}

export function renderSpec(spec: Spec, opts: { scheduler?: Scheduler } = {}): RenderResult {
  const scheduler = opts.scheduler ?? spec.schedule.scheduler;
  const s: Spec = scheduler === spec.schedule.scheduler ? spec : { ...spec, schedule: { ...spec.schedule, scheduler } };
  const ctx: RenderContext = { spec: s, names: names(s), plan: plan(s), header: generatedBy(s) };
  const gen = generators[scheduler];
  const errors = gen.check?.(ctx) ?? [];
  if (ctx.plan.pattern.length === 0) {
    errors.push(
      `schedule.hours: the window ${s.schedule.hours.start}–${s.schedule.hours.end} holds no fire time at minute :${String(ctx.plan.minute).padStart(2, '0')} every ${s.schedule.every}; widen the window or set schedule.minute`,
    );
  }
  if (errors.length) return { files: [], summary: '', errors, warnings: [] };
  const files = [...scriptFiles(ctx), ...gen.files(ctx)].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, summary: summary(s, ctx.plan, scheduler), errors: [], warnings: dstWarnings(s) };
}
