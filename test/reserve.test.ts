// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The person's reserve of the plan (spec `reserve`, heartbeat/37-reserve): the wrapper
// keeps each plan window's last reading from Claude Code's stream, stops a wake whose
// reading crosses into the reserve (outcome `reserve`, no failure) and starts no wake while
// a reading is inside it (`skip-reserve`). The stream is the REAL one:
// test/streams/claude-2.1.332-reserve.jsonl, Claude Code 2.1.332 run with the preset's
// flags against a local stand-in Messages API whose anthropic-ratelimit-unified-5h/7d
// headers said 52%, 61%, then 75% of the 5-hour window (31%, 33%, 35% of the weekly one),
// over two Read tool turns. Only the resets are moved ahead of now (the recorded ones pass).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHELLS, type Case, makeCase, run, shell } from './helpers/wrapper.ts';
import { parseWindows } from '../src/formats.ts';
import { validateSpec } from '../src/spec.ts';

const dash = shell('dash');
const RECORDED = readFileSync(join(import.meta.dirname, 'streams', 'claude-2.1.332-reserve.jsonl'), 'utf8');
const FIVE = 1796318772; // the recorded resets
const WEEK = 1796577972;
const now = () => Math.floor(Date.now() / 1000);
const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const recs = (c: Case): string[] => c.lines().filter((l) => !/^took \d+ s$/.test(l));

/** The recording with its resets moved to an hour and three days from now. */
function shifted(): { text: string; five: number; week: number } {
  const five = now() + 3600;
  const week = now() + 3 * 86_400;
  return { text: RECORDED.replaceAll(String(FIVE), String(five)).replaceAll(String(WEEK), String(week)), five, week };
}

/**
 * A claude-code case whose stand-in client prints the stream line by line, and after the
 * line that holds `hold` sleeps 30 s (an agent still at work): only a stop ends it sooner.
 */
function client(text: string, spec: Record<string, unknown>, hold = '"utilization":0.75'): Case {
  const c = makeCase({ spec: { agent: { harness: 'claude-code', model: 'sonnet' }, timeout: '40s', ...spec } });
  writeFileSync(join(c.rec, 'stream'), text);
  c.behave(`while IFS= read -r l; do printf '%s\\n' "$l"; case $l in *'${hold}'*) sleep 30 ;; esac; done <"$d/stream"\n`);
  return c;
}

test('the recorded stream crosses the 5-hour reserve: the agent is stopped at that reading, outcome reserve (exit 0), the readings logged and kept; the next fire is skip-reserve, no agent; every shell', async () => {
  for (const sh of SHELLS) {
    const { text, five, week } = shifted();
    const c = client(text, { reserve: { fiveHour: '30%', weekly: '40%' } });
    const r = await run(c, sh, { limitMs: 60_000 });
    const log = c.log();
    assert.is(r.code, 0, `${sh.name}: ${log}${r.stderr}`);
    assert.ok(r.ms < 20_000, `${sh.name}: stopped at the reading, not after the agent's 30 s (${r.ms} ms)`);
    const lines = recs(c);
    assert.is(lines[0], 'start wake 1', log);
    // Stopped before the client's result, the wake still counts what its messages so far
    // used (the stand-in API gave all three the same id: one message), for the budget too.
    assert.is(lines[1], 'usage in=1234 out=1 cache=5100 (no result from the client: its messages so far)', log);
    assert.match(readFileSync(join(c.state, 'usage'), 'utf8'), /^\d{4}-\d\d-\d\d 6335\n$/);
    assert.is(lines[2], `windows five_hour 75% resets ${iso(five)}, seven_day 35% resets ${iso(week)}`, `${sh.name}: ${log}`);
    assert.is(lines[3], `reserve five_hour 75% used, resets ${iso(five)}: the reserve keeps 30% of the plan's 5-hour window for you; the agent was stopped`, `${sh.name}: ${log}`);
    assert.is(lines.length, 4, log);
    assert.is(readFileSync(join(c.state, 'reserve'), 'utf8'), `five_hour 75 ${five}\nseven_day 35 ${week}\n`);
    // The next fire: the last reading is inside the reserve, its reset ahead.
    const r2 = await run(c, sh);
    assert.is(r2.code, 0, log);
    assert.is(recs(c).at(-1), `skip-reserve five_hour 75% used, resets ${iso(five)}: the reserve keeps 30% of the plan's 5-hour window for you`, `${sh.name}: ${c.log()}`);
    assert.is(c.runs().length, 1, 'the second fire did not start the agent');
  }
});

test('below the reserve nothing is stopped: the same stream with a 20% reserve runs to its end, its last readings kept for the next gate', async () => {
  const { text, five, week } = shifted();
  const c = client(text, { reserve: { fiveHour: '20%' } }, 'no such line');
  const r = await run(c, dash);
  assert.is(r.code, 0, c.log());
  assert.equal(recs(c).slice(2), [`windows five_hour 75% resets ${iso(five)}, seven_day 35% resets ${iso(week)}`, 'quiet'], c.log());
  await run(c, dash);
  assert.is(recs(c).at(-1), 'quiet', c.log());
  assert.is(c.runs().length, 2);
});

test('a reading whose reset is past says nothing of the window: the wake runs; a garbled reserve file is no reading', async () => {
  const { text } = shifted();
  const c = client(text, { reserve: { fiveHour: '20%' } }, 'no such line');
  writeFileSync(join(c.state, 'reserve'), `five_hour 90 ${now() - 60}\nseven_day 99 ${now() + 3600}\n`);
  await run(c, dash);
  assert.is(recs(c).at(-1), 'quiet', `the weekly reading has no reserve, the 5-hour one is past: ${c.log()}`);
  writeFileSync(join(c.state, 'reserve'), `five_hour 9x ${now() + 3600}\nfive_hour 99 -1\nsix_hour 99 ${now() + 3600}\n`);
  await run(c, dash);
  assert.is(recs(c).at(-1), 'quiet', c.log());
  // A window this wake did not read keeps its earlier line.
  writeFileSync(join(c.state, 'reserve'), `five_hour 10 ${now() + 3600}\n`);
  const c2 = client('{"type":"result","subtype":"success","is_error":false,"result":"x","usage":{"input_tokens":1,"output_tokens":1}}\n', {}, 'no such line');
  writeFileSync(join(c2.state, 'reserve'), `seven_day 12 ${now() + 3600}\n`);
  await run(c2, dash);
  assert.match(readFileSync(join(c2.state, 'reserve'), 'utf8'), /^seven_day 12 \d+\n$/, 'untouched: the stream read no window');
  assert.not.ok(recs(c2).some((l) => l.startsWith('windows')), c2.log());
});

test('without a reserve the readings are still kept and logged (for status and log); the gate never skips', async () => {
  const { text, five } = shifted();
  const c = client(text, {}, 'no such line');
  await run(c, dash);
  await run(c, dash);
  assert.equal(recs(c).filter((l) => /^(windows|quiet)/.test(l)).length, 4, c.log());
  assert.ok(readFileSync(join(c.state, 'reserve'), 'utf8').startsWith(`five_hour 75 ${five}\n`));
  const w = parseWindows(recs(c).find((l) => l.startsWith('windows'))!);
  assert.equal(w.map((x) => [x.window, x.used]), [['five_hour', 75], ['seven_day', 35]]);
});

test('a wake stopped at the reserve neither grows nor breaks the failing streak (no notify), as status reads it', async () => {
  const { text } = shifted();
  const c = client(text, { reserve: { fiveHour: '30%' }, notify: ['/usr/bin/true'], notifyAfter: 2 });
  writeFileSync(join(c.state, 'streak'), '2\n');
  const r = await run(c, dash, { limitMs: 60_000 });
  assert.is(r.code, 0, c.log());
  assert.match(recs(c).at(-1)!, /^reserve five_hour 75% used/, c.log());
  assert.is(readFileSync(join(c.state, 'streak'), 'utf8'), '2\n');
  assert.not.ok(recs(c).some((l) => l.startsWith('note notify')), c.log());
});

test('codex: the reserve is accepted but its stream carries no reading: no reserve file, no skip', async () => {
  const c = makeCase({ spec: { agent: { harness: 'codex', model: 'gpt-5.5' }, reserve: { fiveHour: '30%' }, timeout: '20s' } });
  writeFileSync(join(c.state, 'reserve'), `five_hour 99 ${now() + 3600}\n`);
  await run(c, dash);
  assert.is(recs(c).at(-1), 'quiet', c.log());
  assert.ok(existsSync(join(c.state, 'reserve')));
});

test('the spec: reserve is {fiveHour, weekly} of whole percents; each mistake one sentence naming the field', () => {
  const base = { version: 1, name: 'r', repo: '/tmp/r', agent: { harness: 'claude-code', bin: '/usr/bin/true', prompt: 'x' }, schedule: { scheduler: 'cron', every: '30m', hours: { days: ['mon'], start: '08:00', end: '18:00', timezone: 'UTC' } }, env: { HOME: '/tmp', PATH: '/usr/bin:/bin' }, timeout: '20m' };
  const issues = (reserve: unknown, harness = 'claude-code') => {
    const r = validateSpec({ ...base, agent: { ...base.agent, harness }, reserve });
    return r.errors ?? [];
  };
  assert.equal(issues({ fiveHour: '30%', weekly: '40%' }), []);
  assert.equal(issues({ weekly: '5%' }), []);
  for (const bad of ['0%', '100%', '30', '30.5%', 30]) {
    const e = issues({ fiveHour: bad });
    assert.is(e.length, 1, JSON.stringify(e));
    assert.match(e[0]!, /^reserve\.fiveHour: must be the share of the 5-hour window kept for you, a whole percent from "1%" to "99%", e\.g\. "30%"$/);
  }
  assert.match(issues({}).join('\n'), /^reserve: must hold fiveHour, weekly or both/);
  assert.match(issues('30%').join('\n'), /^reserve: must be an object such as \{"fiveHour": "30%", "weekly": "40%"\}$/);
  assert.match(issues({ fivehour: '30%' }).join('\n'), /^reserve\.fivehour: unknown field.*fiveHour/);
  assert.match(issues({ fiveHour: '30%' }, 'command').join('\n'), /^reserve: is measured from the plan's rate-limit readings .*; remove it for harness "command"$/);
});

test.run();
