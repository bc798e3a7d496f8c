// The program the wrapper's daily digest runs (heartbeat/33-digest): this node and this
// hbgen's CLI, recorded at install in <stateDir>/digest.argv, one absolute path a line. The
// wrapper cannot know where they live (rendering is pure), and the repo, which the agent
// writes, must not say: the state folder, outside it, holds the record.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bin/hbgen.cjs of this hbgen, its real path (a global install's bin entry is a link to it); null when not found. */
export function cliEntry(): string | null {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(d, 'bin', 'hbgen.cjs');
    if (existsSync(p)) return realpathSync(p);
    d = dirname(d);
  }
  return null;
}

/** digest.argv's bytes: node (process.execPath, its real path), then the CLI; null without a CLI entry. */
export function digestArgvText(node = process.execPath, cli = cliEntry()): string | null {
  if (!cli || /\n/.test(node + cli)) return null;
  return `${realpathSync(node)}\n${cli}\n`;
}
