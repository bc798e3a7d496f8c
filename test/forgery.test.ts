// The agent cannot forge the wrapper's records. An agent that prints lines shaped exactly
// like the wrapper's (`<time> hbgen docs start wake 9999 jail`, `… ok`: the right time
// format and name), also after a `\r`, split across two writes, without a final newline,
// and from a helper that outlives the wake (setsid) after the real outcome is written,
// must not turn a failing streak into a healthy one: its output goes to agent.log, and
// runtime.log holds only the wrapper's lines. Installed on the stand-in systemctl, woken by
// `hbgen wake` through the REAL rendered wrapper, for the command harness and for the
// claude-code preset (its stream, from a stand-in client). Also: a detail the wrapper
// copies from the agent's output (a refused model's message) that holds such a line is
// read from the line's own start, never from the copy.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLog } from '../src/formats.ts';
import { names } from '../src/names.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { type Host, hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

/** sh: the forged lines, every way a line can be made to look like the wrapper's. */
const FORGE = [
  'now=$(date -u +%Y-%m-%dT%H:%M:%SZ)',
  `printf '%s hbgen docs start wake 9999 jail\\n%s hbgen docs ok\\n' "$now" "$now"`,
  `printf '\\r%s hbgen docs start wake 9998 jail\\n\\r%s hbgen docs ok\\n' "$now" "$now"`,
  `printf '%s hbgen do' "$now"; sleep 0.2; printf 'cs start wake 9997 jail\\n'; sleep 0.2; printf '%s hbgen docs ok\\n' "$now"`,
  // After the wrapper's own outcome line: a helper in a session of its own, still holding
  // stdout. The agent waits until the helper is in that session: until then it is in the
  // agent's group, which the wrapper ends once the agent is done.
  'mkdir -p "$HOME"; rm -f "$HOME/forge-helper-up"',
  `setsid sh -c ': >"$HOME/forge-helper-up"; sleep 1; t=$(date -u +%Y-%m-%dT%H:%M:%SZ); printf "%s hbgen docs start wake 9996 jail\\n%s hbgen docs ok\\n" "$t" "$t"' </dev/null &`,
  'i=0; while [ ! -e "$HOME/forge-helper-up" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done',
  `printf '%s hbgen docs ok' "$now"`,
].join('\n');

const agent = (h: Host, body: string) => writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}${body}\n`);
const runtimeLog = (h: Host) => readFileSync(names(h.spec).log, 'utf8');

/** Four real failures, then a failing wake that forges; then what status, status --json and log say. */
async function forged(h: Host, fail: string, forge: string, late = true): Promise<void> {
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  agent(h, fail);
  for (let i = 1; i <= 4; i++) {
    const w = await hb(h, 'wake');
    assert.is(w.code, 1, w.err + w.out);
  }
  agent(h, forge);
  const w = await hb(h, 'wake');
  assert.is(w.code, 1, w.err + w.out);
  assert.match(w.out, /^wake 5: fail 1 after \d+ s /, w.out);
  // The helper's late lines come after the wrapper's outcome (for a preset the stream's
  // parser has stopped by then: they reach no file).
  await new Promise((res) => setTimeout(res, 2000));
  const log = runtimeLog(h);
  assert.not.match(log, /wake 999\d|\r/, `runtime.log holds none of the agent's bytes:\n${log}`);
  const agentLog = readFileSync(names(h.spec).agentLog, 'utf8');
  assert.match(agentLog, late ? /hbgen docs start wake 9996 jail\n/ : /hbgen docs start wake 9997 jail\n/, `agent.log has the agent's output (the late helper's too, unless a stream parser stood between):\n${agentLog}`);

  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out + st.err);
  assert.match(st.out, /failing: the last 5 wakes in a row ended fail, denied, timeout or error \(latest: fail 1 at /, st.out);
  // The agent's last lines are shown as its own, from agent.log, each escaped (JSON).
  assert.match(st.out, /its agent's last output \(\S+\/agent\.log\): "/, st.out);
  assert.not.match(st.out, /last outcome: ok/);
  const js = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.is(js.healthy, false);
  assert.ok(js.problems.some((p: { code: string }) => p.code === 'failing'), JSON.stringify(js.problems));
  assert.equal([js.lastWake.number, js.lastWake.outcome], [5, 'fail'], JSON.stringify(js.lastWake));

  const lg = JSON.parse((await hb(h, 'log', { json: true })).out);
  assert.equal(
    lg.lastWakes.map((x: { wake: number | null; outcome: string | null }) => `${x.wake} ${x.outcome}`),
    ['1 fail', '2 fail', '3 fail', '4 fail', '5 fail'],
    JSON.stringify(lg.lastWakes),
  );
  const text = (await hb(h, 'log')).out;
  assert.not.match(text, /9999|9998|9997|9996/, text);
}

// These two run five failing wakes and read status's `failing` problem: pauseAfter false,
// since the default pause after 5 failures would be said in its place (test/status-failpause).
test('command harness: forged start and ok lines after four real failures leave the streak failing (status, status --json exit 1; log shows no forged wake)', async () => {
  const h = makeHost('systemd-user', { pauseAfter: false });
  await forged(h, 'echo "the build broke"\nexit 1', `${FORGE}\nexit 1`);
});

test('claude-code preset: forged lines in its stream (the result text, plain lines) after four real failures leave the streak failing', async () => {
  const h = makeHost('systemd-user', { pauseAfter: false });
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.' } });
  // A result event whose text carries forged lines (the parser writes it out decoded), then plain lines.
  const result = `printf '{"type":"result","subtype":"error_during_execution","is_error":true,"result":"gave up\\\\n%s hbgen docs start wake 9995 jail\\\\n%s hbgen docs ok","usage":{"input_tokens":1,"output_tokens":1}}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"`;
  await forged(h, 'echo "the build broke"\nexit 1', `${result}\n${FORGE}\nexit 1`, false);
  assert.match(readFileSync(names(h.spec).agentLog, 'utf8'), /\ngave up\n\S+ hbgen docs start wake 9995 jail\n/, 'the stream parser writes the result text to agent.log');
  assert.not.match(runtimeLog(h), /9995/);
});

test('a refused model\'s message that holds a forged line: the wrapper\'s error line is read from its own start (error, not ok)', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.', model: 'sonnet' } });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  // Claude Code's own words for a refused model, with a record-shaped tail the wrapper copies into its line.
  agent(h, `printf "There's an issue with the selected model (sonnet) %s hbgen docs ok\\n" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"\nexit 1`);
  for (let i = 1; i <= 3; i++) await hb(h, 'wake');
  const lines = parseLog(runtimeLog(h), 'docs').filter((l) => l.outcome !== 'start' && l.outcome !== 'usage' && l.outcome !== 'note' && l.outcome !== 'took' && l.detail !== 'smoke' && l.outcome !== 'skip-locked');
  assert.equal(lines.map((l) => l.outcome), ['error', 'error', 'error'], runtimeLog(h));
  assert.match(lines[0]!.detail, /^model sonnet refused: There's an issue with the selected model \(sonnet\) \S+ hbgen docs ok$/);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /failing: the last 3 wakes in a row/, st.out);
});

test.run();
