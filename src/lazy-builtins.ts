// Node's built-in modules that only some commands use, loaded on their first use instead
// of when the module that names them is imported. `hbgen render` imports src/billing.ts
// for its rules (the wrapper renders them in) but never runs a process; a static import
// of node:child_process made every render load it and the net, dgram and stream modules
// behind it, about 3 ms of CPU of a render's ~60 (docs/SPEED.md).
// test/render-cost.test.ts checks that a render loads neither.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export const childProcess = (): typeof import('node:child_process') => load('node:child_process');
export const os = (): typeof import('node:os') => load('node:os');
