// Rendering is pure: the same spec gives the same bytes under any time zone, locale,
// clock and working directory. The spec here crosses zones so that the
// time-zone arithmetic is exercised, and every backend is rendered.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, hbgen } from './helpers/cli.ts';

const spec = {
  version: 1,
  name: 'pure',
  repo: '/srv/répo with space',
  agent: { harness: 'claude-code', bin: '/opt/claude/bin/claude', model: 'sonnet', prompt: 'Say "hi" at $HOME\nthen stop.' },
  schedule: {
    scheduler: 'cron',
    every: '15m',
    hours: { start: '08:30', end: '01:15', timezone: 'America/Santiago', days: ['mon', 'wed', 'fri', 'sat'] },
    hostTimezone: 'Asia/Kathmandu',
  },
  timeout: '10m',
  env: { HOME: '/home/ada', PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
};

const dir = mkdtempSync(join(tmpdir(), 'hbgen-purity-'));
const file = join(dir, 'spec.json');
writeFileSync(file, JSON.stringify(spec));

const hosts: [string, NodeJS.ProcessEnv, string, string[]][] = [
  ['UTC, C locale, repo root', { TZ: 'UTC', LANG: 'C', LC_ALL: 'C' }, ROOT, []],
  ['Pacific/Chatham, Turkish locale, /', { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }, '/', []],
  ['America/New_York, German locale, temp dir', { TZ: 'America/New_York', LANG: 'de_DE.UTF-8' }, dir, []],
  ['a fake clock in 2031 (faketime)', { TZ: 'Asia/Tokyo' }, dir, ['faketime', '2031-06-15 23:59:30']],
  ['a fake clock in 1999 (faketime)', { TZ: 'Europe/London' }, dir, ['faketime', '1999-12-31 23:59:59']],
];

for (const scheduler of ['cron', 'launchd', 'systemd-user']) {
  test(`render is byte-identical on every host: ${scheduler}`, () => {
    const outputs = hosts.map(([label, env, cwd, prefix]) => {
      const render = () => hbgen(['render', file, '--scheduler', scheduler], { cwd, env: { PATH: process.env.PATH, ...env }, prefix });
      let r = render();
      // faketime(1) failing to start (a semaphore left by an earlier process of its PID:
      // helpers/faketime.ts) is not a render: it is run again, as faketimeSync does.
      for (let i = 0; i < 4 && /^faketime: sem_open: File exists/m.test(r.stderr); i++) r = render();
      assert.is(r.code, 0, `${label}: ${r.stderr}`);
      return { label, out: r.stdout + '\n--stderr--\n' + r.stderr };
    });
    assert.ok(outputs[0]!.out.length > 1000);
    for (const o of outputs.slice(1)) assert.fixture(o.out, outputs[0]!.out, o.label);
  });
}

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
