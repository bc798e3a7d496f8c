// Loaded before every test file (test/run.mjs): what the CLI loads lazily before it
// renders, loaded once here so that tests can call renderSpec directly.
import { prepareRender } from '../../src/render.ts';

await prepareRender();
