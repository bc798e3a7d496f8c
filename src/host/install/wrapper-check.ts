// The check the scheduler entry makes before it runs the wrapper (generators/entry.ts),
// made for the runs hbgen starts itself, `hbgen wake` and install's smoke test: the
// installed heartbeat.sh must have the SHA-256 of the one hbgen renders from the spec.
// state.json's record is not enough: it sits in the state folder, beside the wrapper.
import { readOrNull, sha256 } from '../fsx.ts';

/** One sentence saying why `path` must not run, or null when it is the rendered wrapper. */
export function wrapperRefusal(path: string, rendered: string, specFile: string): string | null {
  const b = readOrNull(path);
  if (b === null) return `${path} is missing, so hbgen will not run it; run \`hbgen install\` to put it back`;
  if (sha256(b) === sha256(Buffer.from(rendered))) return null;
  return `${path} differs from the wrapper hbgen renders from ${specFile} (its SHA-256 does not match), so hbgen will not run it; see \`hbgen status\`, then reinstall it with \`hbgen install\``;
}
