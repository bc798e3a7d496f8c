// hbgen's runtime as this build ships it: the program every heartbeat.sh pins by version
// and SHA-256, the same bytes for every spec. The build renders it once from its templates
// (src/build/runtime.ts) into src/gen/runtime.ts with its SHA-256, so that a render
// neither carries the runtime's template code nor renders and hashes 130 KB of text again;
// test/runtime.test.ts checks that text against a fresh render of the templates.
import { BUILT_RUNTIME } from '../src/gen/runtime.ts';
import { VERSION, runtimeName } from '../src/version.ts';

/** The runtime's file name in the state folder (and beside a render's heartbeat.sh). */
export { runtimeName };

/** The runtime this hbgen ships: its text and SHA-256, as the build made them. */
export function runtime(): { text: string; sha256: string; version: string; name: string } {
  return { ...BUILT_RUNTIME, version: VERSION, name: runtimeName() };
}
