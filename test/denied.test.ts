// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Denied tools are a failure. A client that refused the agent's tool calls still exits 0
// with is_error false: the wake did not do what it was asked, and says so as `denied N
// (TOOLS): ...` (exit 77), which counts toward the failing streak and notify as fail does.
// The claude stream is the REAL one: test/streams/claude-2.1.332-denied.jsonl, Claude Code
// 2.1.332 (the pinned client) run with the preset's flags and no --allowedTools against the
// stand-in model (test/helpers/model-standin.mjs) asking for three Bash calls: curl and wget
// refused ("This command requires approval"), touch allowed; its result event carries
// permission_denials with both. Codex: test/streams/codex-documented-declined.jsonl is NOT a
// capture: it follows codex exec --json's documented item shape (command_execution and
// file_change items whose status is "declined"), which the parser counts. What the real
// codex 0.171.0 (the pinned client) prints when it refuses is recorded in
// test/streams/codex-0.171.0-refused.jsonl (its stdout) and .stderr: codex exec run with the
// preset's unjailed argv (workspace-write) against the stand-in Responses API
// (test/helpers/responses-standin.mjs), HOME holding ~/.codex/rules/default.rules with
// RULES below, the model asking in turn for: `touch /etc/hbgen-probe` (the sandbox blocks
// it), `touch /etc/hbgen-escalated` with sandbox_permissions "require_escalated" (an
// escalation), an apply_patch adding /etc/hbgen-patched (a write outside the project), curl
// (a rule's "forbidden"), wget (a rule's "prompt") and `touch notes.txt` (allowed). Every
// refusal reached the model as the tool's output, none reached the --json stream: no item,
// no "declined"; each is one `ERROR codex_core::tools::router` line on stderr. And the
// command the sandbox blocked ran and failed (exit 1, "Read-only file system"); its
// command_execution item (status "failed", test/streams/codex-0.171.0-sandboxed.jsonl) was
// in the stream in only some of the runs. So a refusal is not told apart from the stream,
// and the wake ends quiet/ok/fail on the exit status; the tests below pin that, and the
// real-client test fails once a codex reports its refusals in the stream.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
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
import { CLIENT_PATH, clientTest, realClients } from './helpers/clients.ts';
import { harnessArgs } from '../src/harness.ts';
import { standInResponses, type StandInCall } from './helpers/responses-standin.mjs';

const dash = shell('dash');
const stream = (f: string) => readFileSync(join(import.meta.dirname, 'streams', f), 'utf8');
const CLAUDE = stream('claude-2.1.332-denied.jsonl');
const CODEX = stream('codex-documented-declined.jsonl');
const CODEX_REFUSED = stream('codex-0.171.0-refused.jsonl');
const CODEX_REFUSED_ERR = stream('codex-0.171.0-refused.stderr');
const CODEX_SANDBOXED = stream('codex-0.171.0-sandboxed.jsonl');
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

// codex 0.171.0's refusals as they really stream (the header): the rejection lines go to
// agent.log with the client's stderr, and nothing of them to the parser.
const ROUTER = /^\S+Z ERROR codex_core::tools::router: error=/;
const events = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; item?: { type: string; status?: string; command?: string; changes?: { path: string }[] } });

test('codex 0.171.0 (real stream): refused calls leave no item and no "declined" in its --json stream, only stderr lines; the wake ends quiet, not denied (pinned), every shell', async () => {
  // What the recording holds: the allowed command's item and the message, nothing of the
  // five refused or blocked calls (a codex that streams its refusals is caught by the
  // real-client test below, and this recording is then replaced).
  const items = events(CODEX_REFUSED).flatMap((e) => (e.type === 'item.completed' && e.item ? [`${e.item.type} ${e.item.status ?? ''} ${e.item.command ?? ''}`.trim()] : []));
  assert.equal(items, ["command_execution completed /bin/bash -lc 'touch notes.txt'", 'agent_message']);
  assert.not.ok(CODEX_REFUSED.includes('declined'));
  assert.is(CODEX_REFUSED_ERR.split('\n').filter((l) => ROUTER.test(l)).length, 4, CODEX_REFUSED_ERR);
  for (const sh of SHELLS) {
    const c = client('codex', CODEX_REFUSED);
    writeFileSync(join(c.rec, 'stderr'), CODEX_REFUSED_ERR);
    c.behave('cat "$d/stream"\ncat "$d/stderr" >&2\nexit 0\n');
    const r = await run(c, sh);
    assert.is(r.code, 0, `${sh.name}: ${c.log()}`);
    assert.equal(recs(c), ['start wake 1', 'usage in=70 out=7 cache=0', 'quiet'], `${sh.name}: ${c.log()}`);
    // The person finds the refusals in agent.log, as codex logged them.
    for (const l of CODEX_REFUSED_ERR.split('\n').filter((x) => ROUTER.test(x))) assert.ok(c.agentLog().includes(`${l}\n`), `${sh.name}: ${l}\n${c.agentLog()}`);
  }
});

test('codex 0.171.0 (real stream): a command its sandbox blocked is a failed command_execution, as any failed command; the wake ends quiet, not denied (pinned)', async () => {
  const blocked = events(CODEX_SANDBOXED).find((e) => e.type === 'item.completed' && e.item?.command?.includes('/etc/hbgen-probe'));
  assert.is(blocked?.item?.status, 'failed', CODEX_SANDBOXED);
  const c = client('codex', CODEX_SANDBOXED);
  const r = await run(c, dash);
  assert.is(r.code, 0, c.log());
  assert.equal(recs(c), ['start wake 1', 'usage in=30 out=3 cache=0', 'quiet'], c.log());
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

// ---- the real codex (realClients(): codex-cli 0.171.0) against the stand-in Responses API
const found = realClients();
const real = 'why' in found ? null : found;
const rt = clientTest(found);
// Execpolicy rules (https://developers.openai.com/codex/rules): curl refused outright, wget
// needing an approval that exec cannot ask for.
const RULES = 'prefix_rule(pattern = ["curl"], decision = "forbidden", justification = "no network tools")\nprefix_rule(pattern = ["wget"], decision = "prompt")\n';
const REFUSED: StandInCall[] = [
  { exec: { cmd: 'touch /etc/hbgen-probe' } },
  { exec: { cmd: 'touch /etc/hbgen-escalated', sandbox_permissions: 'require_escalated', justification: 'Write outside the repo?' } },
  { patch: '*** Begin Patch\n*** Add File: /etc/hbgen-patched\n+hi\n*** End Patch\n' },
  { exec: { cmd: 'curl -sS http://example.com/' } },
  { exec: { cmd: 'wget -q http://example.com/' } },
  { exec: { cmd: 'touch notes.txt' } },
];

/**
 * The real codex exec with the preset's unjailed argv and the prompt "do it", in a fresh git
 * repo, its HOME holding RULES, the model the stand-in asking for CALLS. Its provider is
 * re-pointed at the stand-in by a `-c` after the preset's pin (the last one wins): hbgen
 * refuses such an override in agent.args; here it only keeps the model local. `told`: the
 * tool outputs codex sent the model, in order.
 */
async function codexRefusing(calls: readonly StandInCall[], extra: string[] = [], pre: string[] = []): Promise<{ code: number | null; out: string; err: string; told: string[] }> {
  // Not under /tmp: codex 0.171 refuses to put its sandbox helper (codex-linux-sandbox)
  // under the temporary folder ("Refusing to create helper binaries under temporary dir"),
  // and its workspace-write sandbox then cannot start a single command.
  const base = mkdtempSync('/var/tmp/hbgen-denied-codex-');
  const home = join(base, 'h');
  const repo = join(base, 'r');
  mkdirSync(join(home, '.codex', 'rules'), { recursive: true });
  mkdirSync(repo);
  spawnSync('git', ['init', '-q', repo]);
  writeFileSync(join(home, '.codex', 'rules', 'default.rules'), RULES);
  let told: string[] = [];
  const srv = standInResponses(calls, (q) => {
    try {
      const input = (JSON.parse(q.body) as { input?: { type?: string; output?: unknown }[] }).input ?? [];
      told = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => String(i.output));
    } catch {
      // not a model request
    }
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  const args = [...harnessArgs({ harness: 'codex', bin: real!.codex, prompt: '', args: [], model: 'gpt-5.5' }), '-c', `model_providers.local={name="local",base_url="${url}",wire_api="responses"}`, '-c', 'model_provider="local"', ...extra];
  try {
    return await new Promise((resolve) => {
      const p = spawn(real!.codex, [...pre, ...args, '--', 'do it'], { env: { HOME: home, PATH: CLIENT_PATH }, cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (err += d));
      const kill = setTimeout(() => {
        try {
          process.kill(-p.pid!, 'SIGKILL');
        } catch {}
      }, 90_000);
      p.on('close', (code) => (clearTimeout(kill), resolve({ code, out, err, told })));
    });
  } finally {
    srv.close();
    rmSync(base, { recursive: true, force: true });
  }
}

rt('the real codex 0.171.0 (workspace-write, approval never): an escalation, a patch outside the project and the rules\' refusals reach the model but not the --json stream (no item, no "declined"); stderr logs each', async () => {
  const r = await codexRefusing(REFUSED);
  assert.is(r.code, 0, r.err);
  // Each call was really refused (or, the first, blocked by the sandbox): what codex told the model.
  assert.is(r.told.length, REFUSED.length, r.told.join('\n---\n'));
  assert.match(r.told[0]!, /Process exited with code 1\n[\s\S]*Read-only file system/);
  assert.match(r.told[1]!, /^approval policy is Never; reject command/);
  assert.match(r.told[2]!, /^patch rejected: writing outside of the project; rejected by user approval settings/);
  assert.match(r.told[3]!, /Rejected\(.*rejected: no network tools/);
  assert.match(r.told[4]!, /Rejected\(.*approval required by policy, but AskForApproval is set to Never/);
  assert.match(r.told[5]!, /Process exited with code 0/);
  // The stream: were a refusal there, the parser would have to count it (63-stream-awk.hbs)
  // and docs/files.md#denied-tools would change.
  assert.not.ok(r.out.includes('"declined"'), `codex now streams "declined": count it as a denial\n${r.out}`);
  const ev = events(r.out);
  const refused = ev.filter((e) => e.item && (/hbgen-escalated|hbgen-patched|curl|wget/.test(e.item.command ?? '') || (e.item.changes ?? []).some((c) => c.path.startsWith('/etc/'))));
  assert.equal(refused, [], `codex now streams its refused calls: classify them\n${r.out}`);
  // Control: items do stream, the allowed command's among them.
  assert.ok(ev.some((e) => e.type === 'item.completed' && e.item?.command === "/bin/bash -lc 'touch notes.txt'" && e.item.status === 'completed'), r.out);
  assert.ok(ev.some((e) => e.type === 'turn.completed'), r.out);
  assert.is(r.err.split('\n').filter((l) => ROUTER.test(l)).length, 4, r.err);
  // The wrapper on this stream and stderr: quiet, not denied.
  const c = client('codex', r.out);
  writeFileSync(join(c.rec, 'stderr'), r.err);
  c.behave('cat "$d/stream"\ncat "$d/stderr" >&2\nexit 0\n');
  assert.is((await run(c, dash)).code, 0, c.log());
  assert.is(recs(c).at(-1), 'quiet', c.log());
});

rt('the real codex 0.171.0 exec has no approvals to ask: -c approval_policy="on-request"/"on-failure" and codex -a on-request still reject an escalation as Never; "untrusted" is refused at start', async () => {
  const esc = [REFUSED[1]!];
  // codex --help lists -a/--ask-for-approval (on-request, never) before the subcommand; exec --help has none.
  for (const [extra, pre] of [[['-c', 'approval_policy="on-request"'], []], [['-c', 'approval_policy="on-failure"'], []], [[], ['-a', 'on-request']]]) {
    const r = await codexRefusing(esc, extra, pre);
    assert.is(r.code, 0, r.err);
    assert.match(r.told[0] ?? '', /^approval policy is Never; reject command/, `${[...pre, ...extra].join(' ')}: ${r.told.join('\n')}`);
  }
  const r = await codexRefusing(esc, ['-c', 'approval_policy="untrusted"']);
  assert.is(r.code, 1, r.err);
  assert.match(r.err, /approval_policy = "untrusted" is no longer supported; remove this setting/);
});

test.run();
