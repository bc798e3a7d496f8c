// install's menu on a real pseudo-terminal (python3's pty module, test/helpers/pty-drive.py),
// through the built CLI with stand-in scheduler tools: edit, re-validate, show the
// panel again, write the spec file back (formatting and $schema kept) only on install.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/cli.ts';
import { makeHost, tree, type Host } from './helpers/lifecycle.ts';

const snap = (h: Host) => ({ home: tree(h.home), repo: tree(h.repo), standins: tree(join(h.tools.bin, 'state')) });
const UNIT = 'hbgen-docs';

/** A spec file in a person's own formatting, with $schema first: the menu must keep all of it. */
function personalSpec(h: Host): string {
  const s = JSON.parse(readFileSync(h.specFile, 'utf8'));
  const text = [
    '{',
    '    "$schema": "./hbgen.schema.json",',
    '    "version": 1, "name": "docs",',
    `    "repo": ${JSON.stringify(s.repo)},`,
    `    "agent": { "harness": "command", "bin": ${JSON.stringify(s.agent.bin)}, "prompt": "Do one chunk, then stop." },`,
    '    "schedule": {',
    '        "scheduler": "systemd-user", "every": "30m", "minute": 7,',
    '        "hours": { "start": "08:00", "end": "23:00", "timezone": "Europe/Berlin" }',
    '    },',
    '    "timeout": "10m",',
    `    "env": ${JSON.stringify(s.env)},`,
    `    "stateDir": ${JSON.stringify(s.stateDir)},`,
    '    "sandbox": false',
    '}',
    '',
  ].join('\n');
  writeFileSync(h.specFile, text);
  return text;
}

function onPty(h: Host, args: string[], steps: { expect: string; send: string }[]): { code: number; out: string } {
  const cfg = { argv: [process.execPath, join(ROOT, 'bin/hbgen.cjs'), ...args], cwd: h.root, env: { ...h.env, TERM: 'dumb' }, steps, timeout: 90 };
  const r = spawnSync('python3', [join(ROOT, 'test/helpers/pty-drive.py'), JSON.stringify(cfg)], { encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const MENU = '\\[1-5, y/N\\] $';

test('pty: edit the schedule, the panel again with the new interval, install: the spec file gets only that edit', () => {
  const h = makeHost('systemd-user');
  const before = personalSpec(h);
  const r = onPty(h, ['install', 'hbgen.json'], [
    { expect: MENU, send: '2\n' },
    { expect: 'interval \\(schedule\\.every\\) \\[30m\\]: $', send: '1h\n' },
    { expect: 'hours start \\(HH:MM\\) \\[08:00\\]: $', send: '\n' },
    { expect: 'hours end .*\\[23:00\\]: $', send: '09:00\n' },
    { expect: 'days .*\\[every day\\]: $', send: 'mon tue wed\n' },
    { expect: 'time zone \\(IANA\\) \\[Europe/Berlin\\]: $', send: '\n' },
    { expect: MENU, send: '1\n' },
    // Installed: the first real wake is offered, default No.
    { expect: 'Run one real wake .*\\[Y/n\\] $', send: 'n\n' },
  ]);
  assert.is(r.code, 0, r.out);
  // The menu offers the seed's five choices.
  for (const e of ['1) install as shown', '2) edit the schedule (interval, hours, days, zone)', '3) edit the agent (harness, model, effort, tiers)', '4) advanced (timeout, cap, budget, jail hosts, notify)', '5) cancel']) assert.ok(r.out.includes(e), e);
  // An end before the start crosses midnight: the re-validated spec is shown again.
  const panels = r.out.split(/^hbgen install: "docs" from /m).slice(1);
  assert.is(panels.length, 2, r.out);
  // The interval's row names the window (no hours row repeats it).
  assert.match(panels[0]!, /interval {3}every 30m: [^\n]*, in the window 08:00–23:00 Europe\/Berlin, every day\n/);
  assert.match(panels[1]!, /interval {3}every 1h: [^\n]*, in the window 08:00–09:00 Europe\/Berlin, Mon–Wed\n/);
  assert.match(r.out, /hbgen: installed "docs"/);
  const after = readFileSync(h.specFile, 'utf8');
  assert.is(after, before.replace('"every": "30m"', '"every": "1h"').replace('"end": "23:00"', '"end": "09:00"').replace('"timezone": "Europe/Berlin" }', '"timezone": "Europe/Berlin", "days": ["mon", "tue", "wed"] }'));
  assert.match(after, /^\{\n {4}"\$schema": "\.\/hbgen\.schema\.json",\n/);
  // What was installed is the edited spec: the timer fires hourly, on those days only.
  const timer = readFileSync(join(h.home, '.config/systemd/user', `${UNIT}.timer`), 'utf8');
  assert.match(timer, /OnCalendar=Mon\.\.Wed \*-\*-\* 08:07:00 Europe\/Berlin/);
  assert.not.match(timer, /Thu|Fri|Sat|Sun/);
});

test('pty: an edit that does not validate is refused with the field named, the settings stay; cancel leaves file and host unchanged', () => {
  const h = makeHost('systemd-user');
  const before = personalSpec(h);
  const host = snap(h);
  const r = onPty(h, ['install', 'hbgen.json'], [
    { expect: MENU, send: '2\n' },
    { expect: 'interval .*: $', send: '\n' },
    { expect: 'hours start .*: $', send: '25:00\n' },
    { expect: 'hours end .*: $', send: '\n' },
    { expect: 'days .*: $', send: '\n' },
    { expect: 'time zone .*: $', send: '\n' },
    { expect: MENU, send: '3\n' },
    { expect: 'harness .*\\[command\\]: $', send: '\n' },
    { expect: 'model .*: $', send: 'opus\n' },
    { expect: 'effort .*: $', send: '\n' },
    { expect: 'tiers .*\\[none\\]: $', send: 'fast=haiku\n' },
    { expect: MENU, send: '\n' },
  ]);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /that edit is not taken \(the settings stay as shown above\):\n {2}[^\n]*schedule\.hours\.start[^\n]*\n/);
  // The valid agent edit was shown in a second panel, then cancelled: nothing written.
  assert.match(r.out, /model {6}not set by hbgen \(harness "command": your args decide\); tiers fast=haiku/);
  assert.match(r.out, /you did not confirm, so nothing was changed on this host and [^\n]*hbgen\.json is as it was/);
  assert.is(readFileSync(h.specFile, 'utf8'), before);
  assert.equal(snap(h), host);
  assert.not.ok(existsSync(join(h.home, '.config/systemd/user', `${UNIT}.timer`)));
});

test('pty: "n", "5" and end of input cancel; "y" still installs as shown', () => {
  for (const answer of ['n\n', '5\n', '\x04']) {
    const h = makeHost('systemd-user');
    const host = snap(h);
    const r = onPty(h, ['install', 'hbgen.json'], [{ expect: MENU, send: answer }]);
    assert.is(r.code, 1, r.out);
    assert.match(r.out, /you did not confirm, so nothing was changed on this host/);
    assert.equal(snap(h), host);
  }
  const h = makeHost('systemd-user');
  const spec = readFileSync(h.specFile, 'utf8');
  const r = onPty(h, ['install', 'hbgen.json'], [{ expect: MENU, send: 'y\n' }, { expect: 'Run one real wake .*\\[Y/n\\] $', send: 'n\n' }]);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /hbgen: installed "docs"/);
  assert.is(readFileSync(h.specFile, 'utf8'), spec, 'no edit, no write');
});

test.run();
