// A module loader hook for the lifecycle tests (registered by test/helpers/lifecycle.ts
// and lifecycle-driver.ts): every import of src/pipeline.ts, except the stand-in's own,
// gets test/helpers/standin-pipeline.ts instead. That is how a test puts a STAND-IN
// heartbeat.sh into an install without any test hook in the commands themselves.
const PIPELINE = new URL('../../src/pipeline.ts', import.meta.url).href;
const STANDIN = new URL('./standin-pipeline.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.split('?')[0] === PIPELINE && context.parentURL !== STANDIN) return { ...r, url: STANDIN };
  return r;
}
