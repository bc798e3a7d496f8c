// The README's Quick start and its example spec, run as written, so that
// they cannot drift from the program again. The day-one block (README "Quick start") is
// read from README.md and run line by line with the built CLI as `hbgen` on PATH, in a
// scratch HOME with a git repo at ~/src/docs; the scheduler is the stand-in systemctl
// (test/helpers/standins.ts, it writes only under the scratch HOME), the agent a STAND-IN
// `claude` that answers its login questions as a subscription does. The one line a test
// cannot type, the editor's, is replaced by doing what it says. The example spec
// (docs/spec.md, "The spec") is validated and rendered as it stands.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateSpec } from '../src/spec.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { HBGEN, ROOT } from './helpers/cli.ts';
import { blockAfter, commands, hbgenBin, typeLine } from './helpers/readme.ts';
import { makeStandIns } from './helpers/standins.ts';

const SPEC_DOC = readFileSync(join(ROOT, 'docs', 'spec.md'), 'utf8');

const example = () => JSON.parse(blockAfter('A complete example', 'json', SPEC_DOC, 'docs/spec.md'));

test('docs/spec.md "The spec": the example validates, uses the claude-code preset, and renders', () => {
  const raw = example();
  const v = validateSpec(raw);
  assert.equal(v.errors, undefined, JSON.stringify(v.errors));
  assert.is(raw.agent.harness, 'claude-code', 'the example runs Claude through its preset (a command harness is billed "not checked")');
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-readme.'));
  try {
    writeFileSync(join(dir, 'hbgen.json'), JSON.stringify(raw));
    const r = spawnSync(process.execPath, [HBGEN, 'render', 'hbgen.json'], { cwd: dir, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /==> heartbeat\.sh <==/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('README "Quick start": the day-one block runs as written in a scratch HOME (init, render, install, wake, tail, status, log, stop)', () => {
  const lines = commands(blockAfter('The whole day-one session', 'sh'));
  assert.ok(lines.length >= 8, lines.join('\n'));
  const root = mkdtempSync(join(tmpdir(), 'hbgen-readme.'));
  chmodSync(root, 0o755);
  try {
    const home = join(root, 'home');
    const repo = join(home, 'src', 'docs');
    mkdirSync(repo, { recursive: true });
    // hbgen on PATH as `npm install -g .` puts it; the agent's client, logged in on a plan.
    const bin = hbgenBin(join(root, 'bin'));
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\n${subscriptionAnswers()}echo "agent ran in $PWD"\n`, { mode: 0o755 });
    const tools = makeStandIns(join(root, 'standins'));
    const env = { HOME: home, PATH: `${bin}:${tools.bin}:/usr/bin:/bin`, LANG: 'C.UTF-8', USER: 'ada', LOGNAME: 'ada', TERM: 'dumb', EDITOR: 'false' };
    assert.is(spawnSync('git', ['init', '-q', repo]).status, 0);
    let cwd = home;
    const said: Record<string, { code: number | null; out: string }> = {};
    for (let line of lines) {
      const cd = /^cd (\S+) && (.*)$/.exec(line);
      if (cd) {
        cwd = cd[1]!.replace(/^~/, home);
        line = cd[2]!;
      }
      if (line.startsWith('$EDITOR ')) {
        // What the editor line says: a mission in HEART.md, and what init left out of hbgen.json (here the README example's values).
        assert.match(line, /HEART\.md/);
        writeFileSync(join(cwd, 'HEART.md'), '# Mission\n\nKeep the docs current: one page per wake.\n');
        const spec = JSON.parse(readFileSync(join(cwd, 'hbgen.json'), 'utf8'));
        const ex = example();
        spec.schedule = { ...ex.schedule, ...spec.schedule, hours: { ...ex.schedule.hours, days: undefined, ...spec.schedule.hours, start: '00:00', end: '24:00' } };
        delete spec.schedule.minute;
        spec.timeout ??= ex.timeout;
        writeFileSync(join(cwd, 'hbgen.json'), JSON.stringify(spec, null, 2));
        continue;
      }
      // `hbgen install` asks on a terminal: script(1) gives it one, and the answer is y.
      const r = typeLine(line, line === 'hbgen install', cwd, env);
      said[line] = { code: r.status, out: `${r.stdout}${r.stderr}` };
      assert.is(r.status, 0, `\`${line}\` exited ${r.status}:\n${r.stdout}${r.stderr}`);
    }
    const init = JSON.parse(readFileSync(join(repo, 'hbgen.json'), 'utf8'));
    assert.is(init.agent.harness, 'claude-code', 'init chose the preset for claude');
    assert.is(init.schedule.scheduler, 'systemd-user');
    // On a terminal the panel ends in install's menu (docs/commands.md "Commands", install), answered y.
    assert.match(said['hbgen install']!.out, /Install "docs" on this host with these settings\?\r?\n(?: +\d\) .*\r?\n)+\[1-5, y\/N\]/);
    assert.match(said['hbgen wake']!.out, /wake 1: (ok|quiet) after \d+ s/);
    // tail of both logs: the wake's lines in runtime.log, the agent's output after a copy of its start line in agent.log.
    const tail = said['tail ~/.local/state/hbgen/docs/runtime.log ~/.local/state/hbgen/docs/agent.log']!.out;
    assert.match(tail, /==> \S+\/runtime\.log <==\n[\s\S]*hbgen docs start wake 1 by hand[^\n]*\n[\s\S]*==> \S+\/agent\.log <==\n[\s\S]*hbgen docs start wake 1 by hand[^\n]*\nagent ran /, tail);
    assert.match(said['hbgen status']!.out, /\nhealthy\n/);
    assert.match(said['hbgen status']!.out, /billing +Claude subscription login \(max\) at install/, `billed on the plan, checked: ${said['hbgen status']!.out}`);
    const js = JSON.parse(said['hbgen status --json']!.out);
    assert.is(js.healthy, true);
    assert.is(js.billing.result, 'subscription');
    assert.match(said['hbgen log']!.out, /wake 1/);
    assert.match(said['hbgen stop']!.out, /kept/);
  } finally {
    if (!process.env.HBTEST_KEEP) rmSync(root, { recursive: true, force: true });
  }
});

test.run();
