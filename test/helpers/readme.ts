// The README's shell blocks, run as a person types them: the block after a heading, each
// line's command, the built CLI on PATH as `npm install -g .` puts it, and a line that asks
// on a terminal typed into one (script(1)) with the answer y.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { HBGEN, ROOT } from './cli.ts';

export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The body of the first ```LANG block after the line holding `marker` in `page` (README.md unless told). */
export function blockAfter(marker: string, lang: string, page = README, name = 'README.md'): string {
  const at = page.indexOf(marker);
  assert.ok(at >= 0, `${name} has "${marker}"`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(page.slice(at));
  assert.ok(m, `a ${lang} block after "${marker}"`);
  return m![1]!;
}

/** The command of each line of a sh block (its trailing `# comment` dropped). */
export const commands = (block: string): string[] => block.split('\n').map((l) => l.replace(/\s+#\s.*$/, '').trim()).filter(Boolean);

/** `dir` (made here) holding an `hbgen` that runs this build, for the front of PATH. */
export function hbgenBin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hbgen'), `#!/bin/sh\nexec '${process.execPath}' '${HBGEN}' "$@"\n`, { mode: 0o755 });
  return dir;
}

/**
 * One line as typed: through /bin/sh, or, for a line that asks on a terminal (`onTerminal`),
 * in the one script(1) gives it, answered y.
 */
export function typeLine(line: string, onTerminal: boolean, cwd: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const opts = { cwd, env, encoding: 'utf8' as const, timeout: 120_000 };
  return onTerminal ? spawnSync('script', ['-qec', line, '/dev/null'], { ...opts, input: 'y\n' }) : spawnSync('/bin/sh', ['-c', line], opts);
}
