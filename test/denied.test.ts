// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Denied tools are a failure. A client that refused the agent's tool calls still exits 0
// with is_error false: the wake did not do what it was asked, and says so as `denied N
// (TOOLS): ...` (exit 77), which counts toward the failing streak and notify as fail does.
// The claude stream is the REAL one: test/streams/claude-2.1.332-denied.jsonl, Claude Code
// 2.1.332 (the pinned client) run with the preset's flags and no --allowedTools against the
// stand-in model (test/helpers/model-standin.mjs) asking for three Bash calls: curl and wget
// refused ("This command requires approval"), touch allowed; its result event carries
// permission_denials with both. The codex stream is NOT a capture:
// test/streams/codex-documented-declined.jsonl follows codex exec --json's documented item
// shape (command_execution and file_change items whose status is "declined"): no real codex
// 0.171.0 refusal was recorded (the tests have no stand-in of the Responses API to ask for
// a command with).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { PATHS, SHELLS, type Case, makeCase, run, shell } from './helpers/wrapper.ts';
import { failStreak, wakes } from '../src/host/audit/health.ts';
import { dailyCounts, historyLines, lastWakes } from '../src/host/audit/history.ts';
import { outcomeLabel } from '../src/status-labels.ts';
import { FAILED, isOneOf, parseLog } from '../src/formats.ts';
import { wakeLine } from '../src/commands/wake.ts';
import { log as logCmd, type LogReport } from '../src/commands/log.ts';
import type { HostIO } from '../src/host/io.ts';
import { names } from '../src/names.ts';
import { hb, makeHost } from './helpers/lifecycle.ts';

const dash = shell('dash');
const stream = (f: string) => readFileSync(join(import.meta.dirname, 'streams', f), 'utf8');
const CLAUDE = stream('claude-2.1.332-denied.jsonl');
const CODEX = stream('codex-documented-declined.jsonl');
// The same stream without its denials: neither the per-call permission_denied events nor the result's list.
const CLAUDE_NONE = CLAUDE.split('\n').filter((l) => !l.includes('"subtype":"permission_denied"')).join('\n').replace(/"permission_denials":\[.*?\}\}\],/, '"permission_denials":[],');
const HOW = 'the client refused these tool calls; allow them (docs/files.md#denied-tools) or change the prompt';
const recs = (c: Case): string[] => c.lines().filter((l) => !/^took \d+ s$/.test(l));
// The notify program: one line per call, "EVENT STREAK OUTCOME".
const NOTIFY = ['/bin/sh', '-c', 'printf "%s %s %s\\n" "$HBGEN_EVENT" "$HBGEN_STREAK" "$HBGEN_OUTCOME" >>"$HBTEST_DIR/calls"'];

function client(harness: 'claude-code' | 'codex', text: string, spec: Record<string, unknown> = {}, path?: string): Case {
  const c = makeCase({ path, spec: { agent: { harness, model: harness === 'codex' ? 'gpt-5.5' : 'sonnet' }, timeout: '20s', ...spec } });
  writeFileSync(join(c.rec, 'stream'), text);
  c.behave('cat "$d/stream"\nexit 0\n');
  return c;
}
const calls = (c: Case): string[] => {
  try {
    return readFileSync(join(c.rec, 'calls'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const setStream = (c: Case, text: string) => writeFileSync(join(c.rec, 'stream'), text);
const streak = (c: Case): string => {
  try {
    return readFileSync(join(c.state, 'streak'), 'utf8').trim();
  } catch {
    return '0';
  }
};

test('claude 2.1.332: permission_denials in the result end the wake `denied 2 (Bash)`, exit 77, in every shell and PATH', async () => {
  for (const sh of SHELLS) {
    for (const path of [PATHS.full, PATHS.bare]) {
      const c = client('claude-code', CLAUDE, {}, path);
      const r = await run(c, sh);
      assert.is(r.code, 77, `${sh.name} ${path}: ${c.log()}${r.stderr}`);
      const out = recs(c);
      assert.is(out[0], 'start wake 1');
      assert.match(out[1]!, /^usage in=4 out=4 cache=0 cost\u2248/, c.log());
      assert.is(out[2], `denied 2 (Bash): ${HOW}`, `${sh.name}: ${c.log()}`);
      assert.is(out.length, 3, c.log());
      // The result text still reaches agent.log.
      assert.ok(c.agentLog().includes('\ndone\n'), c.agentLog());
    }
  }
});

test('claude: the per-call permission_denied events alone (no result) count; the result\'s list names the same calls once', async () => {
  const events = CLAUDE.split('\n').filter((l) => !l.includes('"type":"result"')).join('\n');
  const c = client('claude-code', events);
  assert.is((await run(c, dash)).code, 77, c.log());
  assert.is(recs(c).at(-1), `denied 2 (Bash): ${HOW}`, c.log());
  const only = client('claude-code', CLAUDE.split('\n').filter((l) => !l.includes('"subtype":"permission_denied"')).join('\n'));
  assert.is((await run(only, dash)).code, 77, only.log());
  assert.is(recs(only).at(-1), `denied 2 (Bash): ${HOW}`, only.log());
});

test('distinct tool names, in order, each as word() leaves it; a name the stream garbles cannot reach the line', async () => {
  const two = CLAUDE.replaceAll('"tool_name":"Bash","tool_use_id":"toolu_2"', '"tool_name":"Web$(id)Fetch; x","tool_use_id":"toolu_2"');
  assert.not.equal(two, CLAUDE);
  const c = client('claude-code', two);
  assert.is((await run(c, dash)).code, 77, c.log());
  assert.is(recs(c).at(-1), `denied 2 (Bash, WebidFetchx): ${HOW}`, c.log());
});

test('codex (documented shape): declined command_execution and file_change items end the wake `denied 2 (command_execution, file_change)`, every shell', async () => {
  for (const sh of SHELLS) {
    const c = client('codex', CODEX);
    const r = await run(c, sh);
    assert.is(r.code, 77, `${sh.name}: ${c.log()}`);
    assert.equal(recs(c), ['start wake 1', 'usage in=234 out=42 cache=1000', `denied 2 (command_execution, file_change): ${HOW}`], `${sh.name}: ${c.log()}`);
    assert.ok(c.agentLog().includes('\nDone: "x"\nline two\n'), c.agentLog());
  }
});

test('control: the same streams without denials stay quiet (exit 0); an agent message that quotes "status":"declined" is no denial', async () => {
  const c = client('claude-code', CLAUDE_NONE);
  const r = await run(c, dash);
  assert.is(r.code, 0, c.log());
  assert.is(recs(c).at(-1), 'quiet', c.log());
  const x = client('codex', CODEX.split('\n').filter((l) => !l.includes('"status":"declined"')).join('\n').replace('Done: \\"x\\"', 'Done: {\\"status\\":\\"declined\\"}'));
  const rx = await run(x, dash);
  assert.is(rx.code, 0, x.log());
  assert.is(recs(x).at(-1), 'quiet', x.log());
});

test('a failing agent with denials stays `fail N` (its own failure, where the plan\'s limit is read)', async () => {
  const c = client('claude-code', CLAUDE);
  c.behave('cat "$d/stream"\nexit 3\n');
  assert.is((await run(c, dash)).code, 3, c.log());
  assert.is(recs(c).at(-1), 'fail 3', c.log());
});

test('denied counts toward the failing streak and notify (every shell): failing at notifyAfter, recovered at the next quiet wake', async () => {
  for (const sh of SHELLS) {
    const c = client('claude-code', CLAUDE, { notify: NOTIFY, notifyAfter: 2 });
    await run(c, sh);
    assert.is(streak(c), '1', `${sh.name}: ${c.log()}`);
    assert.equal(calls(c), [], c.log());
    await run(c, sh);
    assert.is(streak(c), '2', c.log());
    assert.equal(calls(c), [`failing 2 denied 2 (Bash): ${HOW}`], `${sh.name}: ${c.log()}`);
    setStream(c, CLAUDE_NONE);
    assert.is((await run(c, sh)).code, 0, c.log());
    assert.is(streak(c), '0', c.log());
    assert.equal(calls(c).at(-1), 'recovered 2 quiet', `${sh.name}: ${c.log()}`);
    // status's own count from runtime.log agrees with the wrapper's.
    const lines = parseLog(readFileSync(join(c.state, 'runtime.log'), 'utf8'), c.spec.name);
    assert.is(failStreak(lines).count, 0);
    assert.is(failStreak(lines.slice(0, -4)).count, 2, c.log());
  }
});

// ---- hbgen's readers: the class, status, log and wake

const line = (t: string, rest: string) => `${t} hbgen docs ${rest}`;
const DENIED = `denied 2 (Bash, WebFetch): ${HOW}`;

test('denied is a failure: FAILED, a warn label, a wake end, the streak; its own column in the day counts', () => {
  assert.ok(isOneOf(FAILED, 'denied'));
  assert.is(outcomeLabel('denied'), 'warn');
  const text = [
    line('2026-12-01T08:07:00Z', 'start wake 1'),
    line('2026-12-01T08:07:40Z', DENIED),
    line('2026-12-01T08:37:00Z', 'start wake 2'),
    line('2026-12-01T08:37:40Z', 'fail 1'),
    line('2026-12-01T09:07:00Z', 'start wake 3'),
    line('2026-12-01T09:07:40Z', DENIED),
  ].join('\n');
  const lines = historyLines(text, 'docs');
  assert.is(wakes(lines)[0]!.end!.outcome, 'denied');
  const s = failStreak(lines);
  assert.is(s.count, 3);
  assert.is(s.latest!.detail, DENIED.slice('denied '.length));
  const [day] = dailyCounts({ lines, zone: 'UTC', now: Date.parse('2026-12-01T12:00:00Z'), days: 1, expected: null });
  assert.equal([day!.started, day!.ok, day!.quiet, day!.denied, day!.fail], [3, 0, 0, 2, 1]);
  assert.is(lastWakes(lines, 5).at(-1)!.outcome, 'denied');
  // hbgen wake's one line names agent.log, as after a fail.
  assert.match(wakeLine(lines.slice(-2), '/s/runtime.log', 77, '/s/agent.log'), /^wake 3: denied 2 \(Bash, WebFetch\): .* \(see \/s\/runtime\.log; the agent's output is in \/s\/agent\.log\)$/);
});

function io(env: Record<string, string>, cwd: string) {
  let out = '';
  const x: HostIO = { env, uid: process.getuid!(), user: 'ada', cwd, stdin: new PassThrough(), out: (s) => (out += s), err: () => {}, now: () => new Date() };
  return { x, out: () => out };
}

test('hbgen status and hbgen log show denied wakes: the last outcome (warn), failing after 3 in a row; a denied column', async () => {
  const h = makeHost('systemd-user', { lock: 'flock' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  const now = Date.now();
  const rows: string[] = [];
  for (let i = 3; i >= 1; i--) rows.push(line(iso(now - i * 60_000), `start wake ${4 - i} by hand`), line(iso(now - i * 60_000 + 20_000), DENIED));
  writeFileSync(n.log, `${readFileSync(n.log, 'utf8')}${rows.join('\n').replaceAll(' hbgen docs ', ` hbgen ${h.spec.name} `)}\n`);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /warn +last outcome: denied 2 \(Bash, WebFetch\): the client refused these tool calls/, st.out);
  assert.match(st.out, /problem +failing: the last 3 wakes in a row ended fail, denied, timeout or error \(latest: denied 2 \(Bash, WebFetch\)/, st.out);
  const o = io(h.env, h.root);
  assert.is(await logCmd({ spec: h.specFile, days: 1 }, o.x), 0);
  assert.match(o.out(), /\n {2}day +started {2}ok {2}quiet {2}denied {2}fail /, o.out());
  const row = o.out().split('\n').find((l) => /^ {2}\w{3} \d{4}-/.test(l))!;
  assert.equal(row.trim().split(/\s+/).slice(2, 7), ['3', '0', '0', '3', '0'], o.out());
  assert.match(o.out(), /wake 3 \(by hand\) .* denied 2 \(Bash, WebFetch\): /, o.out());
  const j = io(h.env, h.root);
  await logCmd({ spec: h.specFile, days: 1, json: true }, j.x);
  const r = JSON.parse(j.out()) as LogReport;
  assert.is(r.days[0]!.denied, 3);
  assert.is(r.lastWakes.at(-1)!.outcome, 'denied');
});

test.run();
