// A missed fire is an alarm only until the scheduler fires again
// (then status says it recovered, and when, exit 0; `hbgen log` keeps the history), and
// every row's label follows its verdict (a last outcome "fail" is no "ok" row). Against
// the stand-in systemctl, with the clock moved by hb()'s `now`.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

const MIN = 60_000;
const logOf = (h: Host) => join(names(h.spec).stateDir, 'runtime.log');
const stamp = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The fires of "every 30m at minute 7" (all day, UTC) in (from, to), worked out here by hand. */
function fires(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = Math.ceil(from / MIN) * MIN; t < to; t += MIN) {
    const m = new Date(t).getUTCMinutes();
    if (m === 7 || m === 37) out.push(t);
  }
  return out;
}

async function installed(): Promise<{ h: Host; t0: number }> {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  const t0 = Date.now();
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  return { h, t0 };
}

test('a missed fire followed by scheduled fires: status says recovered (when), exit 0; with none after it, a problem (exit 1)', async () => {
  const { h, t0 } = await installed();
  const now = t0 + 3 * 60 * MIN;
  const due = fires(t0 + MIN, now - 2 * MIN);
  assert.ok(due.length >= 5, 'fires were due');
  // Nothing at all logged: the misses are open.
  let st = await hb(h, 'status', { now: () => new Date(now) });
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}missed fire: the scheduler was due to fire at /);
  // The lid was closed at the first fire; the scheduler fired every later one (a wake, or the gate's skip).
  let n = 1;
  for (const t of due.slice(1)) appendFileSync(logOf(h), n % 2 ? `${stamp(t + 2000)} hbgen docs start wake ${n}\nagent ran\n${stamp(t + 9000)} hbgen docs quiet\n` : `${stamp(t + 1000)} hbgen docs skip-locked\n`), n++;
  st = await hb(h, 'status', { now: () => new Date(now) });
  assert.is(st.code, 0, st.out);
  assert.not.match(st.out, /missed fire/);
  const first = new Date(due[0]!).toISOString().slice(11, 16);
  const again = new Date(due[1]!).toISOString().slice(11, 16);
  assert.match(st.out, new RegExp(`note {5}recovered: the scheduler missed the fire at \\d{4}-\\d\\d-\\d\\d ${first} UTC.* and fired again at \\d{4}-\\d\\d-\\d\\d ${again} UTC.*; \`hbgen log\` keeps the history`));
  const js = JSON.parse((await hb(h, 'status', { now: () => new Date(now), json: true })).out);
  assert.is(js.healthy, true);
  assert.ok(js.info.some((i: string) => i.startsWith('recovered: ')), JSON.stringify(js.info));
});

test('a missed fire after the last scheduled fire stays a problem; a wake by hand does not clear it', async () => {
  const { h, t0 } = await installed();
  // Midway between two fires, so that the wake by hand a minute ago falls near no fire (a line
  // within a minute before a fire, or two after it, would count as that fire's).
  const now = fires(t0 + 150 * MIN, t0 + 181 * MIN).at(-1)! + 15 * MIN;
  const due = fires(t0 + MIN, now - 2 * MIN);
  // The first fires ran; the last two left nothing; then a wake by hand.
  let n = 1;
  for (const t of due.slice(0, -2)) appendFileSync(logOf(h), `${stamp(t + 1000)} hbgen docs start wake ${n++}\n${stamp(t + 5000)} hbgen docs ok\n`);
  appendFileSync(logOf(h), `${stamp(now - 60_000)} hbgen docs start wake ${n} by hand\n${stamp(now - 50_000)} hbgen docs ok\n`);
  const st = await hb(h, 'status', { now: () => new Date(now) });
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}missed fire: .*\(2 fires in the last 24 h left no line\)/);
  assert.not.match(st.out, /recovered:/);
});

test('every row is labelled by its verdict: a last outcome "fail" is a warn row, never an "ok" row', async () => {
  const { h } = await installed();
  appendFileSync(logOf(h), `${stamp(Date.now() - 5000)} hbgen docs start wake 1 by hand\n${stamp(Date.now() - 2000)} hbgen docs fail 3\n`);
  const st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /\n {2}warn {5}last outcome: fail 3 at /);
  assert.not.match(st.out, /ok {7}last outcome: fail/);
  appendFileSync(logOf(h), `${stamp(Date.now() - 1000)} hbgen docs start wake 2 by hand\n${stamp(Date.now())} hbgen docs quiet\n`);
  assert.match((await hb(h, 'status')).out, /\n {2}ok {7}last outcome: quiet at /);
});

test.run();
