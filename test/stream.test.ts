// Issue 24, part C: the presets run their client with one JSON event a line (Claude Code
// --output-format stream-json --verbose, codex exec --json) and the wrapper's parser
// (heartbeat/63-stream-awk) reads it. The stand-in clients print streams the REAL clients
// printed: test/streams/claude-2.1.197-*.jsonl and codex-0.171.0-*.jsonl, captured from
// Claude Code 2.1.197 and codex-cli 0.171.0 run against a local stand-in API on 127.0.0.1
// (the Messages API with the anthropic-ratelimit-unified-* headers; the Responses API), so
// every shape below is the real one. Only resetsAt is moved to an hour from now where a
// pause is read from it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, type Case, makeCase, run, shell } from './helpers/wrapper.ts';

const dash = shell('dash');
const stream = (f: string) => readFileSync(join(import.meta.dirname, 'streams', f), 'utf8');
const RESET = 1796200000; // resetsAt in the captured streams
const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** A preset case whose stand-in client prints `text` on stdout, then runs `then` (sh). */
function client(harness: 'claude-code' | 'codex', text: string, then = 'exit 0', spec: Record<string, unknown> = {}, path?: string): Case {
  const c = makeCase({ path, spec: { agent: { harness, model: harness === 'codex' ? 'gpt-5.5' : 'sonnet', effort: 'medium' }, timeout: '20s', ...spec } });
  writeFileSync(join(c.rec, 'stream'), text);
  c.behave(`cat "$d/stream"\n${then}\n`);
  return c;
}

test('presets: claude-code runs stream-json --verbose --no-session-persistence, codex exec --json --ephemeral', async () => {
  const a = client('claude-code', '');
  await run(a, dash);
  const av = a.argv();
  assert.ok(av.join(' ').includes('-p --output-format stream-json --verbose --no-session-persistence --model sonnet --effort medium'), av.join(' '));
  const b = client('codex', '');
  await run(b, dash);
  assert.ok(b.argv().join(' ').includes('exec --json --ephemeral --sandbox workspace-write'), b.argv().join(' '));
});

test('claude 2.1.197 stream: the result text in the log as it reads, one usage line with the cost, every shell and PATH', async () => {
  for (const sh of SHELLS) {
    for (const path of [PATHS.full, PATHS.bare]) {
      const c = client('claude-code', stream('claude-2.1.197-ok.jsonl'), 'exit 0', {}, path);
      const r = await run(c, sh);
      const log = c.log();
      assert.is(r.code, 0, `${sh.name} ${path}: ${log}${r.stderr}`);
      // The result, decoded (\" and \n): what claude -p printed before; no JSON in the log.
      assert.ok(log.includes('\nDone: "x"\nline two\n'), `${sh.name}: ${log}`);
      assert.not.match(log, /"type":/);
      // 1234 in, 42 out, 5000 cache reads + 100 cache writes; total_cost_usd 0.006207.
      assert.equal(c.outcomes(), ['start wake 1', 'usage in=1234 out=42 cache=5100 cost\u22480.0062', 'quiet'], `${sh.name}: ${log}`);
      assert.ok(!existsSync(join(c.state, 'stream')), 'the FIFO is removed');
    }
  }
});

test('codex 0.171.0 stream: the agent message in the log, usage with cached tokens apart from input', async () => {
  const c = client('codex', stream('codex-0.171.0-ok.jsonl'));
  const r = await run(c, dash);
  const log = c.log();
  assert.is(r.code, 0, log);
  assert.ok(log.includes('\nDone: "x"\nline two\n'), log);
  // input_tokens 1234 include the 1000 cached ones.
  assert.equal(c.outcomes(), ['start wake 1', 'usage in=234 out=42 cache=1000', 'quiet'], log);
});

test('claude 2.1.197 at the limit: the rate_limit_event (rejected) gives the exact reset, the result text stays readable', async () => {
  const until = Math.floor(Date.now() / 1000) + 3600 + 17;
  const c = client('claude-code', stream('claude-2.1.197-limit.jsonl').replaceAll(String(RESET), String(until)), 'exit 1');
  const r = await run(c, dash);
  const log = c.log();
  assert.is(r.code, 0, log);
  assert.ok(log.includes("\nYou've hit your session limit \u00b7 resets 9:26am (Europe/Warsaw)\n"), log);
  // The message's wall time has minutes only: the :17 seconds come from resetsAt.
  assert.equal(c.outcomes(), ['start wake 1', 'usage in=0 out=0 cache=0 cost\u22480.0000', `limit until ${iso(until)}`], log);
  assert.match(readFileSync(join(c.state, 'paused'), 'utf8'), new RegExp(`^${until} \\d+\\nYou've hit your session limit`));
});

test('codex 0.171.0 at the limit: its error event reaches the log as codex exec prints it, and the wake pauses', async () => {
  const c = client('codex', stream('codex-0.171.0-limit.jsonl'), 'exit 1');
  const r = await run(c, dash);
  const log = c.log();
  assert.is(r.code, 0, log);
  // The error event and turn.failed carry the same message: it is logged once.
  assert.is(log.split('ERROR: You\u2019ve hit your usage limit.').length, 2, log);
  assert.match(c.outcomes().at(-1)!, /^limit until 20\d\d-/, log);
});

test('paid overage in the stream stops the agent while it runs: error billing overage, exit 78, paused until the plan resets', async () => {
  for (const sh of [dash, shell('bash'), shell('busybox sh'), shell('yash')]) {
    for (const path of [PATHS.full, PATHS.bare]) {
      const until = Math.floor(Date.now() / 1000) + 3600;
      const lines = stream('claude-2.1.197-overage.jsonl').replaceAll(String(RESET), String(until)).split('\n');
      // The client goes on working after the event: only the wrapper can stop it in time.
      const c = client('claude-code', `${lines.slice(0, 3).join('\n')}\n`, `sleep 15\necho still-running\n${''}exit 0`, { timeout: '20s' }, path);
      const r = await run(c, sh, { limitMs: 30_000 });
      const log = c.log();
      assert.is(r.code, 78, `${sh.name} ${path}: ${log}`);
      assert.ok(r.ms < 8000, `${sh.name} ${path}: stopped after ${r.ms} ms`);
      assert.not.match(log, /still-running/);
      const out = c.outcomes();
      assert.is(out[0], 'start wake 1');
      assert.is(out[1], 'usage in=0 out=0 cache=0 (the stream gave none)');
      assert.match(out[2]!, /^error billing overage: the client's stream says paid usage past the plan is in use \(rate_limit_event isUsingOverage true, overageInUse true, overageStatus allowed, rateLimitType five_hour\); the agent was stopped and the wakes pause until /, log);
      assert.ok(out[2]!.includes(iso(until)), out[2]);
      assert.match(readFileSync(join(c.state, 'paused'), 'utf8'), new RegExp(`^${until} `));
      // The next wake is the plan's pause.
      await run(c, sh);
      assert.is(c.outcomes().at(-1), `skip-limit until ${iso(until)}`, c.log());
    }
  }
});

test('overage seen as the client ends (the real capture, whole) still ends the wake as overage', async () => {
  const until = Math.floor(Date.now() / 1000) + 3600;
  const c = client('claude-code', stream('claude-2.1.197-overage.jsonl').replaceAll(String(RESET), String(until)));
  const r = await run(c, dash);
  assert.is(r.code, 78, c.log());
  assert.equal(c.outcomes().slice(0, 2), ['start wake 1', 'usage in=1234 out=42 cache=5100 cost\u22480.0062'], c.log());
  assert.match(c.outcomes()[2]!, /^error billing overage: /);
});

test('budget: the day\'s usage lines reach it, the next wake is one skip-budget line; the agent does not start', async () => {
  const c = client('claude-code', stream('claude-2.1.197-ok.jsonl'), 'exit 0', { budget: 10000 });
  await run(c, dash);
  await run(c, dash);
  assert.equal(c.outcomes().slice(2), ['quiet', 'start wake 2', 'usage in=1234 out=42 cache=5100 cost\u22480.0062', 'quiet'], c.log());
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date());
  assert.is(readFileSync(join(c.state, 'usage'), 'utf8'), `${day} 12752\n`);
  await run(c, dash);
  assert.is(c.outcomes().at(-1), `skip-budget 12752 of 10000 tokens used on ${day} (Europe/Berlin)`, c.log());
  assert.is(c.runs().length, 2, 'the third wake did not start the agent');
  // Another day's total does not count.
  writeFileSync(join(c.state, 'usage'), `2000-01-01 99999999\n`);
  await run(c, dash);
  assert.is(c.outcomes().at(-1), 'quiet', c.log());
});

test('plain text from a preset client (no JSON) reaches the log as it came; the usage line says none was given', async () => {
  const c = client('claude-code', 'plain words\n{not json\n');
  await run(c, dash);
  const log = c.log();
  assert.ok(log.includes('\nplain words\n'), log);
  assert.equal(c.outcomes(), ['start wake 1', "usage in=0 out=0 cache=0 (the stream gave none)", 'quiet'], log);
});

test.run();
