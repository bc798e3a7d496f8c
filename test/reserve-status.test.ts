// The reserve as the person reads it: install's panel row, status's plan windows and
// `hbgen log`'s columns and wake rows, from wakes of the real wrapper whose stand-in
// claude prints the REAL Claude Code 2.1.332 stream of test/streams/claude-2.1.332-reserve.jsonl
// (its resets moved ahead of now), and the panel row for the real pinned codex, whose
// stream carries no reading of the plan's windows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';
import { CLIENT_PATH, clientTest, realClients, subscriptionAnswers } from './helpers/clients.ts';
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
  const today = lg.out.split('\n').filter((l) => /^ {2}\w{3} \d{4}-/.test(l)).at(-1)!.trim().split(/\s+/).slice(1);
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

test.run();
