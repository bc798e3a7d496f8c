// window.sh (the working-hours check) under every shell: EPOCH arguments around DST changes, across
// midnight with days, leading-zero hours, boundaries, faketime for "now", and the fault
// exit 2 for a zone that is not there under its exact name.
import { test } from 'uvu';
import { faketimeSync } from './helpers/faketime.ts';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'hbgen-win-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

// window.sh is not re-exec'd, so each shell can run it directly.
const SHELLS: [string, string[]][] = [
  ['dash', ['/usr/bin/dash']],
  ['bash', ['/usr/bin/bash']],
  ['bash --posix', ['/usr/bin/bash', '--posix']],
  ['busybox sh', ['/usr/bin/busybox', 'sh']],
  ['mksh', ['/usr/bin/mksh']],
  ['posh', ['/usr/bin/posh']],
  ['yash', ['/usr/bin/yash']],
];

let n = 0;
function gate(hours: Record<string, unknown>, edit?: (s: string) => string): string {
  const v = validateSpec({
    version: 1,
    name: 'win',
    repo: '/srv/repo',
    agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'x' },
    schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours },
    timeout: '5m',
    env: { HOME: '/root', PATH: '/usr/bin:/bin' },
  });
  if (!v.spec) throw new Error(v.errors.join('; '));
  const r = renderNow(v.spec);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  let text = r.files.find((f) => f.path === 'window.sh')!.content;
  if (edit) text = edit(text);
  const p = join(dir, `w${n++}.sh`);
  writeFileSync(p, text, { mode: 0o755 });
  // The runtime it pins, beside it.
  for (const f of r.files) if (f.path.startsWith('runtime-')) writeFileSync(join(dir, f.path), f.content);
  return p;
}

const at = (iso: string) => String(Date.parse(iso) / 1000);
const env = { PATH: '/usr/bin:/bin', LC_ALL: 'C' };

function runGate(sh: string[], file: string, args: string[], extraEnv: Record<string, string> = {}, cwd = dir) {
  const r = spawnSync(sh[0]!, [...sh.slice(1), file, ...args], { env: { ...env, ...extraEnv }, cwd, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

const CASES: [string, Record<string, unknown>, [string, number][]][] = [
  [
    'America/New_York 02:00-03:00 never opens on spring-forward day 2027-03-14',
    { start: '02:00', end: '03:00', timezone: 'America/New_York' },
    [
      ['2027-03-13T07:30:00Z', 0], // Sat 02:30 EST
      ['2027-03-14T06:59:00Z', 1], // 01:59 EST
      ['2027-03-14T07:00:00Z', 1], // 03:00 EDT (02:xx does not exist)
      ['2027-03-14T07:30:00Z', 1],
      ['2027-03-15T06:30:00Z', 0], // Mon 02:30 EDT
    ],
  ],
  [
    'America/New_York 01:00-02:00 on fall-back day 2027-11-07: open at the first pass of the repeated hour only',
    { start: '01:00', end: '02:00', timezone: 'America/New_York' },
    [
      ['2027-11-07T04:59:00Z', 1], // 00:59 EDT
      ['2027-11-07T05:00:00Z', 0], // 01:00 EDT, first pass
      ['2027-11-07T05:30:00Z', 0], // 01:30 EDT
      ['2027-11-07T05:59:00Z', 0], // 01:59 EDT
      ['2027-11-07T06:00:00Z', 1], // 01:00 EST, the same wall clock again
      ['2027-11-07T06:30:00Z', 1], // 01:30 EST, again
      ['2027-11-07T06:59:00Z', 1], // 01:59 EST, again
      ['2027-11-07T07:00:00Z', 1], // 02:00 EST
      ['2027-11-08T06:30:00Z', 0], // the next day 01:30 EST, an ordinary night
    ],
  ],
  [
    'Australia/Lord_Howe 01:00-03:00 on its 30-minute fall-back 2027-04-04: 01:30-01:59 counts once',
    { start: '01:00', end: '03:00', timezone: 'Australia/Lord_Howe' },
    [
      ['2027-04-03T14:15:00Z', 0], // 01:15 +11
      ['2027-04-03T14:45:00Z', 0], // 01:45 +11, first pass
      ['2027-04-03T15:00:00Z', 1], // 01:30 +10:30, the same wall clock again
      ['2027-04-03T15:15:00Z', 1], // 01:45 +10:30, again
      ['2027-04-03T15:30:00Z', 0], // 02:00 +10:30
    ],
  ],
  [
    'Europe/Berlin 08:00-17:00 Mon-Fri across the 2027-03-28 change',
    { start: '08:00', end: '17:00', timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    [
      ['2027-03-26T07:30:00Z', 0], // Fri 08:30 CET
      ['2027-03-26T06:59:00Z', 1], // Fri 07:59 CET
      ['2027-03-27T10:00:00Z', 1], // Sat
      ['2027-03-29T06:30:00Z', 0], // Mon 08:30 CEST
      ['2027-03-29T05:59:00Z', 1], // Mon 07:59 CEST
      ['2027-03-29T14:59:00Z', 0], // Mon 16:59
      ['2027-03-29T15:00:00Z', 1], // Mon 17:00: end is exclusive
    ],
  ],
  [
    'Fri 22:00-02:00 Mon-Fri crosses midnight: the day the window opened counts',
    { start: '22:00', end: '02:00', timezone: 'UTC', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    [
      ['2027-01-02T01:30:00Z', 0], // Sat 01:30, opened Fri
      ['2027-01-04T01:30:00Z', 1], // Mon 01:30, Sun did not open
      ['2027-01-01T23:00:00Z', 0], // Fri 23:00
      ['2027-01-03T23:00:00Z', 1], // Sun 23:00
      ['2027-01-04T22:00:00Z', 0], // Mon 22:00
      ['2027-01-05T01:59:00Z', 0], // Tue 01:59
      ['2027-01-05T02:00:00Z', 1], // Tue 02:00
      ['2027-01-04T21:59:00Z', 1],
    ],
  ],
  [
    'leading-zero hours 08 and 09 (no octal arithmetic)',
    { start: '08:00', end: '09:30', timezone: 'UTC' },
    [
      ['2027-01-04T07:59:00Z', 1],
      ['2027-01-04T08:00:00Z', 0],
      ['2027-01-04T08:15:00Z', 0],
      ['2027-01-04T09:09:00Z', 0],
      ['2027-01-04T09:29:00Z', 0],
      ['2027-01-04T09:30:00Z', 1],
    ],
  ],
  [
    'round the clock 00:00-24:00',
    { start: '00:00', end: '24:00', timezone: 'Asia/Kathmandu' },
    [
      ['2027-01-04T00:00:00Z', 0],
      ['2027-01-04T18:14:00Z', 0], // 23:59 +0545
      ['2027-01-04T18:15:00Z', 0], // 00:00
    ],
  ],
  [
    'Asia/Kathmandu 09:00-17:00: the +05:45 offset',
    { start: '09:00', end: '17:00', timezone: 'Asia/Kathmandu' },
    [
      ['2027-01-04T03:07:00Z', 1], // 08:52
      ['2027-01-04T03:22:00Z', 0], // 09:07
      ['2027-01-04T11:07:00Z', 0], // 16:52
      ['2027-01-04T11:22:00Z', 1], // 17:07
    ],
  ],
];

for (const [name, hours, points] of CASES) {
  test(name, () => {
    const file = gate(hours);
    for (const [shName, sh] of SHELLS) {
      for (const [iso, want] of points) {
        const r = runGate(sh, file, [at(iso)]);
        assert.is(r.code, want, `${shName} at ${iso}: ${r.stderr}`);
        assert.is(r.stderr, '', `${shName} at ${iso}`);
      }
    }
  });
}

test('now, under faketime: DST and crossing midnight', () => {
  const ny = gate({ start: '02:00', end: '03:00', timezone: 'America/New_York' });
  const cross = gate({ start: '22:00', end: '02:00', timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
  const cases: [string, string, number][] = [
    [ny, '2027-03-14 07:30:00', 1],
    [ny, '2027-03-13 07:30:00', 0],
    [cross, '2027-01-02 00:30:00', 0], // Sat 01:30 Berlin
    [cross, '2027-01-04 00:30:00', 1], // Mon 01:30 Berlin
  ];
  for (const [shName, sh] of SHELLS) {
    for (const [file, when, want] of cases) {
      const r = faketimeSync([when, ...sh, file], { env: { ...env, TZ: 'UTC' }, encoding: 'utf8' });
      assert.is(r.status, want, `${shName} ${when}: ${r.stderr}`);
    }
  }
});

test('a GNU date -r trap: a file named like the epoch in the cwd changes nothing', () => {
  const file = gate({ start: '08:00', end: '09:00', timezone: 'UTC' });
  const cwd = join(dir, 'cwd');
  mkdirSync(cwd, { recursive: true });
  const e = at('2027-01-04T08:30:00Z');
  writeFileSync(join(cwd, e), '');
  for (const [shName, sh] of SHELLS) assert.is(runGate(sh, file, [e], {}, cwd).code, 0, shName);
});

test('faults exit 2: unknown zone, mis-cased zone, TZDIR without the zone, bad EPOCH', () => {
  const mars = gate({ start: '00:00', end: '24:00', timezone: 'UTC' }, (s) => s.replace("wn_glob='[U]TC'", "wn_glob='[M]ars/[O]lympus'").replace("wn_zone='UTC'", "wn_zone='Mars/Olympus'"));
  const lower = gate({ start: '00:00', end: '24:00', timezone: 'Europe/Berlin' }, (s) => s.replace("wn_glob='[E]urope/[B]erlin'", "wn_glob='[e]urope/[b]erlin'").replace("wn_zone='Europe/Berlin'", "wn_zone='europe/berlin'"));
  const ok = gate({ start: '00:00', end: '24:00', timezone: 'Europe/Berlin' });
  const emptyTz = join(dir, 'zoneinfo-empty');
  mkdirSync(emptyTz, { recursive: true });
  for (const [shName, sh] of SHELLS) {
    for (const [file, args, extra, what] of [
      [mars, [], {}, 'Mars/Olympus'],
      [lower, [], {}, 'europe/berlin'],
      [ok, [], { TZDIR: emptyTz }, 'TZDIR without the zone'],
      [ok, ['12ab'], {}, 'bad EPOCH'],
      [ok, ['-5'], {}, 'negative EPOCH'],
    ] as [string, string[], Record<string, string>, string][]) {
      const r = runGate(sh, file, args, extra);
      assert.is(r.code, 2, `${shName}: ${what}: ${r.stderr}`);
      assert.is(r.stderr.trim().split('\n').length, 1, `${shName}: ${what}: one line`);
    }
    assert.is(runGate(sh, ok, []).code, 0, `${shName}: open now`);
  }
});

test.run();
