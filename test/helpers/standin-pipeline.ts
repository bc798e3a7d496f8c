// src/pipeline.ts as the lifecycle commands see it under the tests (standin-hooks.mjs sends
// their import here): the real pipeline, except that renderSpec puts the STAND-IN
// heartbeat.sh into the tree when the test asked for one with useWrapper().
import { renderSpec as realRenderSpec, type RenderResult } from '../../src/pipeline.ts';
import { standInWrapper, type StandInWrapper } from './standins.ts';

export * from '../../src/pipeline.ts';

let wrapper: StandInWrapper = { real: true };

/** The wrapper the next commands install: the real one ({ real: true }) or a stand-in. */
export function useWrapper(w: StandInWrapper): void {
  wrapper = w;
}

export async function renderSpec(...args: Parameters<typeof realRenderSpec>): Promise<RenderResult> {
  const r = await realRenderSpec(...args);
  if (wrapper.real) return r;
  const stand = standInWrapper(args[0], wrapper);
  return { ...r, files: r.files.map((f) => (f.path === 'heartbeat.sh' ? { ...f, content: stand } : f)) };
}
