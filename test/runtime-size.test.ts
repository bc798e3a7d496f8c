// The runtime's size: its code lines (neither blank nor a comment alone, as
// `grep -v '^\s*#' | grep -v '^\s*$' | wc -l` counts them) stay within the budget the
// claude-code heartbeat.sh had before the runner split, so that the wrapper stays a program
// one can read through. Comments do not count: they say why.
// The pause after failures (pauseAfter, heartbeat/19-failpause and its calls): 35 lines.
// The agent's own workspace (heartbeat/48-workspace: its clone, the copies, the fetch back): 51 lines.
// The person's reserve of the plan (heartbeat/37-reserve, its parser, stop and outcome lines): 72 lines.
// Idle backoff (idleAfter, idleEvery: heartbeat/37-idle and its call in the outcome): 33 lines.
// The agent's "Next useful wake: not before" line (heartbeat/37-idle: its reading, the record's third field, its skip): 55 lines.
// A claude wake's usage before its result (heartbeat/63-stream-awk: its assistant messages, for a wake stopped early): 11 lines.
// The daily digest (digest: heartbeat/33-digest and its call in step 8): 67 lines.
// The jailed client's own folder (heartbeat/47-jail: the person's settings copied, instructions linked, the login copied in and written back after the wake): 26 lines, and 4 more where it meets the owner check.
// The git check over every git directory of the work tree (heartbeat/81-gitscan: one find before and after the agent, their fingerprints compared): 41 lines.
// One owner (heartbeat/20-setup: the state folder's owner checked before any write, and its refusal): 10 lines.
// The jail's sweep (heartbeat/47-jail hb_jailsweep: a bwrap of this install left without its srt at the deadline, KILLed) and the group listed after the agent is reaped: 22 lines.
// The stream's monotonic rules (heartbeat/63-stream-awk: usage the largest said per message, readings and resets the worst seen, denials counted as they stream and named beside a timeout, the reserve or overage): 22 lines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtime } from '../generators/runtime.ts';
import { ROOT } from './helpers/cli.ts';

const BUDGET = 2786;

/** Lines that are neither blank nor comment-only, as the grep pipeline above counts them. */
function codeLines(text: string): number {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.filter((l) => !/^\s*#/.test(l) && !/^\s*$/.test(l)).length;
}

test(`the runtime has at most ${BUDGET} code lines`, () => {
  const n = codeLines(runtime().text);
  assert.ok(n <= BUDGET, `the runtime has ${n} code lines, over the budget of ${BUDGET}; share a helper or drop dead code rather than join lines`);
});

test('the committed fixture runtime is counted the same way', () => {
  const rt = runtime();
  const text = readFileSync(join(ROOT, 'fixtures', 'expected', 'example', rt.name), 'utf8');
  const n = codeLines(text);
  assert.ok(n <= BUDGET, `fixtures/expected/example/${rt.name} has ${n} code lines, over the budget of ${BUDGET}`);
});

test.run();
