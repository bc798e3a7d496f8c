// Nothing the agent wrote reaches the person's terminal raw. STATE.md, runtime.log, the
// state folder's file names and the agent's commit subjects are the agent's to write, and a
// terminal obeys the control characters in them: OSC 52 writes the clipboard, OSC 0 the
// window title, CSI 2J clears the screen. Through the built CLI (its HostIO, src/host/io.ts),
// on a STAND-IN systemctl host: status, log, list, wake and doctor print them as "?", and
// only hbgen's own colour (SGR 0, 2, 31, 32, 33, as colourMark makes it) passes terminalText:
// the same SGR bytes in the agent's text (a commit subject) are printed as "?".
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { colourMark, terminalText } from '../src/escape.ts';
import { names } from '../src/names.ts';
import { hbgen } from './helpers/cli.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

const OSC52 = '\u001b]52;c;ZWNobyBwd25lZA==\u0007';
const TITLE = '\u001b]0;owned\u001b\\';
const CLEAR = '\u001b[2J\u001b[H';
const C1 = '\u009b2J';
const HOSTILE = `${OSC52}${TITLE}${CLEAR}${C1}\r\b\u007f`;
/** Any byte a terminal acts on, but newline and tab. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const cli = (h: Host, args: string[]) => hbgen(args, { cwd: h.root, env: h.env });

function clean(what: string, r: { stdout: string; stderr: string }): void {
  const all = r.stdout + r.stderr;
  const at = CONTROL.exec(all);
  assert.not.ok(at, `${what} printed a control character ${JSON.stringify(at?.[0])} at ${at?.index}: ${JSON.stringify(all)}`);
}

test('terminalText: every control character but newline and tab becomes "?"; hbgen\'s own colour passes', () => {
  assert.is(terminalText(HOSTILE), '?]52;c;ZWNobyBwd25lZA==??]0;owned?\\?[2J?[H?2J???');
  assert.is(terminalText('a\tb\nc'), 'a\tb\nc');
  for (const c of [0, 2, 31, 32, 33] as const) {
    assert.is(terminalText(`${colourMark(c)}x`), `\u001b[${c}mx`, 'hbgen\'s own colour');
    assert.is(terminalText(`\u001b[${c}mx`), `?[${c}mx`, 'the same colour in text the agent wrote');
  }
  // A mark the agent wrote without the key, or with another one, is inert.
  const key = /^\u0000([0-9a-f]{16})31\u0000$/.exec(colourMark(31))?.[1];
  assert.ok(key, 'a mark holds a 16-digit key');
  assert.is(colourMark(32), `\u0000${key}32\u0000`, 'one key per process');
  assert.is(terminalText(`\u0000${'0'.repeat(16)}31\u0000x`), `?${'0'.repeat(16)}31?x`);
  assert.is(terminalText(`\u0000${key}8\u0000x`), `?${key}8?x`, 'only the five colour codes');
  assert.is(terminalText('\u001b[8mhidden\u001b[30;40m'), '?[8mhidden?[30;40m');
  assert.is(terminalText('ü 你好 🙂'), 'ü 你好 🙂');
});

test('status, log, list, wake and doctor print the agent\'s escape sequences as "?"', async () => {
  const h = makeHost('systemd-user');
  // The agent prints the sequences (runtime.log) and leaves them in STATE.md's Next and Blockers.
  writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}printf '%s\\n' '${HOSTILE}'\nprintf '# State\\n## Next\\nnext ${HOSTILE}\\n## Blockers\\nstuck ${HOSTILE}\\n' > "$HBGEN_REPO/STATE.md"\nexit 3\n`);
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  const n = names(h.spec);
  const w = cli(h, ['wake']);
  clean('wake', w);
  assert.match(w.stdout, /^wake 1: fail 3 after \d+ s/m);
  // A line of hbgen's own format carrying the sequences in its detail, and a file name in the state folder.
  appendFileSync(n.log, `2026-12-02T08:07:00Z hbgen docs fail 4 ${HOSTILE}\n`);
  writeFileSync(join(n.stateDir, `x${CLEAR}y`), '');
  const s = cli(h, ['status']);
  clean('status', s);
  assert.match(s.stdout, /next +next \?\]52;c;ZWNobyBwd25lZA==\?\?\]0;owned\?\\\?\[2J\?\[H\?2J\?\?\? \(STATE\.md\)\n/);
  assert.match(s.stdout, /blockers +stuck \?\]52/);
  for (const args of [['status', '--json'], ['log'], ['log', '--json'], ['list'], ['list', '--json'], ['doctor']]) clean(args.join(' '), cli(h, args));
});

test('on a terminal, hbgen\'s colour is painted and the agent\'s colour in STATE.md is printed as "?"', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}printf '# State\\n## Next\\nall \\033[32mgreen\\033[0m now\\n' > "$HBGEN_REPO/STATE.md"\nexit 0\n`);
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  const w = cli(h, ['wake']);
  assert.is(w.code, 0, w.stdout + w.stderr);
  const s = await hb(h, 'status', { outTTY: true });
  assert.match(s.out, /next +all \?\[32mgreen\?\[0m now \(STATE\.md\)\n/);
  assert.match(s.out, /\u001b\[3[123]m/, 'hbgen\'s own colour is there');
});

test.run();
