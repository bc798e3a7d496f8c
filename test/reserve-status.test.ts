// The reserve as the person reads it: install's panel row, status's plan windows and
// `hbgen log`'s columns and wake rows, from wakes of the real wrapper whose stand-in
// claude prints the REAL Claude Code 2.1.332 stream of test/streams/claude-2.1.332-reserve.jsonl
// (its resets moved ahead of now), and the panel row for the real pinned codex, whose
// stream carries no reading of the plan's windows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';
import { CLIENT_PATH, clientTest, realClients, subscriptionAnswers, subscriptionLogin } from './helpers/clients.ts';
import { ofType } from './helpers/events.ts';
import { harnessArgs } from '../src/harness.ts';
import { ROOT } from './helpers/cli.ts';
import { names } from '../src/names.ts';
import { panel, reserveRow } from '../src/host/install/panel.ts';
import { validateSpec } from '../src/spec.ts';

const FIVE = 1796318772; // the recorded resets
const WEEK = 1796577972;
const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

test('install shows the reserve; a wake is stopped at the reading inside it, the next skips; status and log show each window\'s last reading and reset', async () => {
  const h = makeHost('systemd-user');
  const five = Math.floor(Date.now() / 1000) + 3600;
  const week = five + 2 * 86_400;
  const streamFile = join(h.root, 'stream.jsonl');
  writeFileSync(streamFile, readFileSync(join(ROOT, 'test/streams/claude-2.1.332-reserve.jsonl'), 'utf8').replaceAll(String(FIVE), String(five)).replaceAll(String(WEEK), String(week)));
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.', model: 'sonnet' }, reserve: { fiveHour: '30%', weekly: '40%' } } as never);
  // The stand-in prints the stream line by line and, after the 75% reading, works on for 30 s.
  writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}while IFS= read -r l; do printf '%s\\n' "$l"; case $l in *'"utilization":0.75'*) sleep 30 ;; esac; done <'${streamFile}'\n`);
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  assert.match(inst.out, /\n {2}reserve {4}30% of the 5-hour window and 40% of the weekly window kept for you: no wake starts while the last reading is inside it \(skip-reserve\), and one whose reading crosses into it is stopped \(outcome reserve\);/, inst.out);

  const t0 = Date.now();
  const w = await hb(h, 'wake');
  assert.ok(Date.now() - t0 < 25_000, 'stopped at the reading');
  const log = readFileSync(names(h.spec).log, 'utf8');
  assert.match(log, new RegExp(` windows five_hour 75% resets ${iso(five)}, seven_day 35% resets ${iso(week)}\n(?:.* took \\d+ s\n)?.* reserve five_hour 75% used, resets ${iso(five)}: the reserve keeps 30% of the plan's 5-hour window for you; the agent was stopped\n$`), log);
  assert.is(w.code, 0, w.out + w.err);
  await hb(h, 'wake');
  assert.match(readFileSync(names(h.spec).log, 'utf8'), / skip-reserve five_hour 75% used, resets [^\n]+\n$/);

  const st = await hb(h, 'status');
  assert.match(st.out, new RegExp(`plan windows: 5-hour 75% used \\(resets ${iso(five)}\\), weekly 35% used \\(resets ${iso(week)}\\), as wake 1 read them; the reserve keeps 30% of the 5-hour window and 40% of the weekly window for you`), st.out);
  assert.match(st.out, /; reserve 30% of the 5-hour window, 40% of the weekly window/, st.out);
  const js = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.equal(js.usage.windows, { wake: 1, readings: [{ window: 'five_hour', used: 75, resets: iso(five) }, { window: 'seven_day', used: 35, resets: iso(week) }] });

  const lg = await hb(h, 'log');
  assert.is(lg.code, 0, lg.err);
  const head = lg.out.split('\n').find((l) => /^ {2}day +started/.test(l))!;
  const cols = head.trim().split(/\s+/);
  // The outcomes table's last row (the tokens per day below it have rows of their own).
  const today = lg.out.split('\n').filter((l) => /^ {2}\w{3} \d{4}-\d\d-\d\d +\d+ +\d+ /.test(l)).at(-1)!.trim().split(/\s+/).slice(1);
  assert.is(today[cols.indexOf('reserve')], '1', lg.out);
  assert.is(today[cols.indexOf('skip-reserve')], '1', lg.out);
  assert.match(lg.out, new RegExp(`wake 1 \\(by hand\\) .* reserve five_hour 75% used.*  plan: 5-hour 75% used \\(resets ${iso(five)}\\), weekly 35% used`), lg.out);
});

const found = realClients();
const rt = clientTest(found);

rt('the panel for codex says the reserve cannot be measured, naming the real pinned codex\'s version; claude-code without one says the readings are logged', () => {
  const real = found as { codex: string };
  const version = spawnSync(real.codex, ['--version'], { encoding: 'utf8', env: { HOME: '/tmp', PATH: CLIENT_PATH } }).stdout.trim();
  assert.match(version, /^codex-cli \d+\.\d+\.\d+$/);
  const v = validateSpec({ version: 1, name: 'r', repo: '/tmp/r', agent: { harness: 'codex', bin: real.codex, prompt: 'x', model: 'gpt-5.5' }, reserve: { fiveHour: '30%' }, schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '18:00', timezone: 'UTC' } }, env: { HOME: '/tmp', PATH: '/usr/bin:/bin' }, timeout: '20m' });
  assert.ok(v.spec, String(v.errors));
  const out = panel({
    verb: 'install',
    spec: v.spec!,
    names: names(v.spec!),
    specFile: '/x/hbgen.json',
    summary: 'fires at :07',
    bin: { realpath: real.codex, interpreter: null } as never,
    permissionMode: 'workspace-write',
    jailBin: null,
    billing: { result: 'subscription', identity: 'ChatGPT', clientVersion: version, command: [real.codex, 'login', 'status'] } as never,
    stateFiles: [],
    statePath: '/x/state.json',
    pre: { ids: {}, hostFiles: [], writes: [], commands: [], checks: [], caveats: [], refusals: [] } as never,
    caveats: [],
  });
  assert.ok(out.includes(`\n  reserve    cannot be measured with ${version}: its stream carries no reading of the plan's windows: the spec's reserve is not applied\n`), out);
  const c = validateSpec({ ...JSON.parse(JSON.stringify(v.spec)), agent: { harness: 'claude-code', bin: '/usr/bin/true', prompt: 'x' }, reserve: undefined });
  assert.match(reserveRow(c.spec!, '2.1.332 (Claude Code)'), /^none: each wake's reading of the plan's windows/);
});

rt('the real pinned claude, its API answering with the plan\'s per-window headers, prints the rate_limit_event shape of the recording: unifiedWindows with each window\'s utilization and reset', async () => {
  const real = found as { claude: string };
  const reset = Math.floor(Date.now() / 1000) + 7200;
  const headers = {
    'anthropic-ratelimit-unified-status': 'allowed_warning', 'anthropic-ratelimit-unified-reset': String(reset), 'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-5h-utilization': '0.75', 'anthropic-ratelimit-unified-5h-reset': String(reset), 'anthropic-ratelimit-unified-5h-status': 'allowed_warning', 'anthropic-ratelimit-unified-5h-surpassed-threshold': '0.75',
    'anthropic-ratelimit-unified-7d-utilization': '0.35', 'anthropic-ratelimit-unified-7d-reset': String(reset + 86_400), 'anthropic-ratelimit-unified-7d-status': 'allowed',
  };
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!req.url?.startsWith('/v1/messages')) return void res.writeHead(404).end('{}');
      res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
      const ev = (d: Record<string, unknown>) => res.write(`event: ${d.type}\ndata: ${JSON.stringify(d)}\n\n`);
      ev({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done' } });
      ev({ type: 'content_block_stop', index: 0 });
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } });
      ev({ type: 'message_stop' });
      res.end();
    });
  });
  const url = await new Promise<string>((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(srv.address() as { port: number }).port}`)));
  const home = mkdtempSync(join(tmpdir(), 'hbgen-reserve-claude-'));
  subscriptionLogin(home, 'claude-code');
  const args = harnessArgs({ harness: 'claude-code', bin: real.claude, prompt: '', args: [], model: 'sonnet' } as never);
  const out = await new Promise<string>((resolve) => {
    const p = spawn(real.claude, [...args, '--', 'hello'], { env: { HOME: home, PATH: CLIENT_PATH, ANTHROPIC_BASE_URL: url }, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
    let o = '';
    p.stdout.on('data', (d) => (o += d));
    p.stderr.on('data', (d) => (o += d));
    const kill = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('close', () => (clearTimeout(kill), resolve(o)));
  });
  srv.close();
  rmSync(home, { recursive: true, force: true });
  const got = ofType(out, 'rate_limit_event')?.rate_limit_info as Record<string, unknown> | undefined;
  assert.ok(got, out.slice(0, 2000));
  // The fields the wrapper's parser reads, as the recording has them.
  assert.equal(got!.unifiedWindows, { five_hour: { utilization: 0.75, resetsAt: reset, status: 'allowed_warning', surpassedThreshold: 0.75 }, seven_day: { utilization: 0.35, resetsAt: reset + 86_400, status: 'allowed' } });
  assert.equal([got!.rateLimitType, got!.utilization, got!.resetsAt], ['five_hour', 0.75, reset]);
  const recorded = readFileSync(join(ROOT, 'test/streams/claude-2.1.332-reserve.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"rate_limit_event"')).at(-1)!;
  assert.equal(Object.keys(got!).sort(), Object.keys((JSON.parse(recorded) as { rate_limit_info: Record<string, unknown> }).rate_limit_info).sort());
});

test.run();
