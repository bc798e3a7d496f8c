// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// "hbgen log shows a week of usage". A week of runtime.log is built from the lines
// a REAL wake writes (the wrapper run with a stand-in claude that prints the stream Claude
// Code 2.1.197 printed, test/streams/claude-2.1.197-ok.jsonl): its start, result text,
// usage and outcome lines, repeated at the week's times with other token counts. hbgen log
// then shows the tokens per day (in the working zone, on the day each wake started) and per
// wake, and --json carries them; status --json carries today's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { log as logCmd, type LogReport } from '../src/commands/log.ts';
import type { HostIO } from '../src/host/io.ts';
import { names } from '../src/names.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';
import { makeCase, run, shell } from './helpers/wrapper.ts';

const MIN = 60_000;
const NOW = Date.parse('2026-12-01T20:00:00Z'); // 21:00 in Berlin
const INSTALLED = Date.parse('2026-11-24T10:00:00Z');
const iso = (t: number) => new Date(t).toISOString().replace(/\.000Z$/, 'Z');
const DATES = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01'];

function io(h: Host) {
  let out = '';
  const x: HostIO = { env: h.env, uid: process.getuid!(), user: 'ada', cwd: h.root, stdin: new PassThrough(), out: (s) => (out += s), err: () => {}, now: () => new Date(NOW) };
  return { x, out: () => out };
}

/** The lines of one real wake: [start, ...agent output, usage, outcome], times cut off. */
async function realWake(): Promise<{ start: string; output: string[]; usage: string; outcome: string }> {
  const c = makeCase({ spec: { agent: { harness: 'claude-code', model: 'sonnet' }, timeout: '20s' } });
  writeFileSync(join(c.rec, 'stream'), readFileSync(join(import.meta.dirname, 'streams', 'claude-2.1.197-ok.jsonl')));
  c.behave('cat "$d/stream"\nexit 0\n');
  const r = await run(c, shell('dash'));
  assert.is(r.code, 0, c.log());
  const lines = c.log().trimEnd().split('\n');
  const body = (l: string) => l.replace(/^\S+ hbgen tst /, '');
  assert.is(body(lines.at(-2)!), 'usage in=1234 out=42 cache=5100 cost\u22480.0062', c.log());
  return { start: body(lines[0]!), output: lines.slice(1, -2), usage: body(lines.at(-2)!), outcome: body(lines.at(-1)!) };
}

test('hbgen log: a week of usage, per day in the working zone and per wake; --json carries it', async () => {
  const w = await realWake();
  assert.is(w.start, 'start wake 1');
  const h = makeHost('systemd-user', { lock: 'flock' });
  assert.is((await hb(h, 'install', { yes: true, now: () => new Date(INSTALLED) })).code, 0);
  const n = names(h.spec);
  const lines: string[] = [];
  const want = new Map<string, { in: number; out: number; cache: number; cost: number }>();
  let wake = 0;
  DATES.forEach((date, d) => {
    const sum = { in: 0, out: 0, cache: 0, cost: 0 };
    want.set(date, sum);
    // Day d has d + 1 wakes at 08:07, 08:37, … Berlin (07:07Z …); the last day's last one at
    // 23:50 Berlin is 22:50Z, past NOW: not written. One wake of the 28th starts at 23:59
    // Berlin and logs its usage after midnight: it counts on the 28th, as the budget does.
    for (let k = 0; k <= d; k++) {
      const t = date === '2026-11-28' && k === d ? Date.parse(`${date}T22:59:00Z`) : Date.parse(`${date}T07:07:00Z`) + k * 30 * MIN;
      const u = { in: 1000 * (d + 1) + k, out: 40 + k, cache: 5000 * (k + 1), cost: 0.0062 * (k + 1) };
      sum.in += u.in, sum.out += u.out, sum.cache += u.cache, sum.cost += Number(u.cost.toFixed(4));
      lines.push(`${iso(t)} hbgen docs start wake ${++wake}`, ...w.output, `${iso(t + 2 * MIN)} hbgen docs ${w.usage.replace(/in=\d+ out=\d+ cache=\d+ cost\u2248[\d.]+/, `in=${u.in} out=${u.out} cache=${u.cache} cost\u2248${u.cost.toFixed(4)}`)}`, `${iso(t + 2 * MIN)} hbgen docs ${w.outcome}`);
    }
  });
  // A wake with no usage line (an older wrapper, or a command agent) counts none.
  lines.push(`${iso(Date.parse('2026-12-01T15:00:00Z'))} hbgen docs start wake ${++wake}`, `${iso(Date.parse('2026-12-01T15:01:00Z'))} hbgen docs quiet`);
  writeFileSync(n.log, `${readFileSync(n.log, 'utf8')}${lines.join('\n')}\n`);
  const o = io(h);
  assert.is(await logCmd({ spec: h.specFile, days: 7 }, o.x), 0);
  const out = o.out();
  if (process.env.SHOW) console.log(out);
  const fmt = (x: number) => x.toLocaleString('en-US');
  const block = out.slice(out.indexOf('tokens per day'));
  assert.ok(out.includes('tokens per day'), out);
  for (const [date, s] of want) {
    const total = s.in + s.out + s.cache;
    const wd = new Date(`${date}T12:00:00Z`).toUTCString().slice(0, 3);
    assert.ok(block.includes(`  ${wd} ${date}  ${fmt(total)} tokens (in ${fmt(s.in)}, out ${fmt(s.out)}, cache ${fmt(s.cache)}, cost\u2248$${s.cost.toFixed(4)})\n`), `${date}: ${block}`);
  }
  // Per wake: the last five, each with its own tokens; the one without a usage line has none.
  const lastBlock = out.slice(out.indexOf('the last 5 wakes'));
  assert.match(lastBlock, /  wake 28 .* quiet  42,052 tokens \(in 7,006, out 46, cache 35,000, cost\u2248\$0\.0434\)\n/);
  assert.match(lastBlock, /  wake 29 .* quiet\n/);
  // --json: the same numbers.
  const j = io(h);
  assert.is(await logCmd({ spec: h.specFile, days: 7, json: true }, j.x), 0);
  const r = JSON.parse(j.out()) as LogReport;
  for (const d of r.days) {
    const s = want.get(d.date)!;
    assert.equal({ ...d.tokens, cost: Number(d.tokens.cost!.toFixed(4)) }, { in: s.in, out: s.out, cache: s.cache, total: s.in + s.out + s.cache, cost: Number(s.cost.toFixed(4)) }, d.date);
  }
  assert.equal(r.lastWakes.at(-2)!.usage, { in: 7006, out: 46, cache: 35000, total: 42052, cost: 0.0434 });
  assert.is(r.lastWakes.at(-1)!.usage, null);
  // status --json: today's tokens (and the budget, none here).
  const st = await hb(h, 'status', { json: true, now: () => new Date(NOW) });
  const sj = JSON.parse(st.out);
  const today = want.get('2026-12-01')!;
  assert.equal(sj.usage.today.total, today.in + today.out + today.cache, st.out);
  assert.is(sj.usage.budget, null);
  const human = await hb(h, 'status', { now: () => new Date(NOW) });
  assert.match(human.out, /usage: 189,322 tokens today \(2026-12-01; in 49,021, out 301, cache 140,000, cost\u2248\$0\.1736\)/, human.out);
  // The latest wake that logged its usage (wake 29 logged none).
  assert.equal(sj.usage.lastWake, { wake: 28, in: 7006, out: 46, cache: 35000, total: 42052, cost: 0.0434 });
});

test.run();
