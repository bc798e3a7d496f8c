// Help with mistakes: "did you mean" for unknown fields, enum values and
// commands (edit distance, never a wild guess); time zones in the wrong case, and legacy or
// fixed-offset zones refused for the working hours with the city zones they usually mean;
// "9:00" refused with "write 09:00"; `hbgen check DIR`; a flag before the command; and
// after `stop`, exactly what is kept. Each message is one line naming the field.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type SpecInput, validateSpec } from '../src/spec.ts';
import { closest, editDistance } from '../src/suggest.ts';
import { OPTIONS_OF } from '../src/cli-mistakes.ts';
import { HBGEN, ROOT, hbgen } from './helpers/cli.ts';
import { hb, makeHost } from './helpers/lifecycle.ts';

const base = (): any => ({
  version: 1,
  name: 'docs',
  repo: '/home/ada/docs',
  agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'Do one chunk.' },
  schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '18:00', timezone: 'Europe/Berlin' } },
  timeout: '10m',
  env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' },
});
const errorsOf = (edit: (s: any) => void): string[] => {
  const s = base();
  edit(s);
  return validateSpec(s as SpecInput).errors ?? [];
};
const zoneErrors = (zone: string) => errorsOf((s) => (s.schedule.hours.timezone = zone));

test('edit distance and "closest": one typo, a swap, a prefix; never a far or different-number guess', () => {
  assert.is(editDistance('rendr', 'render'), 1);
  assert.is(editDistance('stauts', 'status'), 1);
  assert.is(editDistance('', 'abc'), 3);
  const cmds = ['render', 'check', 'schema', 'init', 'install', 'status', 'stop', 'resume', 'wake', 'list'];
  assert.is(closest('rendr', cmds), 'render');
  assert.is(closest('stauts', cmds), 'status');
  assert.is(closest('Status', cmds), 'status');
  assert.is(closest('frobnicate', cmds), undefined);
  assert.is(closest('x', cmds), undefined);
  assert.is(closest('monday', ['mon', 'tue']), 'mon');
  assert.is(closest('systemd', ['launchd', 'systemd-user', 'cron']), 'systemd-user');
  assert.is(closest('1hr', ['1h', '2h']), '1h');
  assert.is(closest('45m', ['5m', '15m', '30m']), undefined, 'a number is not a typo of another');
});

test('unknown fields: "did you mean" at every level, not a field already there; else the old advice', () => {
  assert.ok(
    errorsOf((s) => {
      delete s.schedule.every;
      s.schedule.evry = '1h';
    }).includes('schedule.evry: unknown field; did you mean "every"?'),
  );
  assert.equal(errorsOf((s) => (s.schedule.evry = '1h')), ['schedule.evry: unknown field; remove it or check its spelling']);
  assert.equal(errorsOf((s) => (s.killAftr = '5s')), ['killAftr: unknown field; did you mean "killAfter"?']);
  assert.equal(errorsOf((s) => (s.schedule.hours.dayz = ['mon'])), ['schedule.hours.dayz: unknown field; did you mean "days"?']);
  assert.equal(errorsOf((s) => (s.agent.modle = 'x')), ['agent.modle: unknown field; did you mean "model"?']);
  // "every" is there already: "evry" is not a misspelling of it.
  assert.equal(errorsOf((s) => (s.schedule.every_ = '1h')), ['schedule.every_: unknown field; remove it or check its spelling']);
  assert.equal(errorsOf((s) => (s.banana = 1)), ['banana: unknown field; remove it or check its spelling']);
});

test('enum values: "did you mean" for harness, scheduler, every, days and lock', () => {
  assert.equal(errorsOf((s) => (s.agent.harness = 'claude')), ['agent.harness: must be one of claude-code codex command, got "claude"; did you mean "claude-code"?']);
  assert.equal(errorsOf((s) => (s.schedule.scheduler = 'systemd')), ['schedule.scheduler: must be one of launchd systemd-user cron kubernetes, got "systemd"; did you mean "systemd-user"?']);
  assert.equal(errorsOf((s) => (s.schedule.every = '1hr')), ['schedule.every: must be one of 5m 10m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 24h, got "1hr"; did you mean "1h"?']);
  assert.equal(errorsOf((s) => (s.schedule.every = '45m')), ['schedule.every: must be one of 5m 10m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 24h, got "45m"']);
  assert.equal(errorsOf((s) => (s.schedule.hours.days = ['Monday'])), ['schedule.hours.days[0]: must be one of mon tue wed thu fri sat sun, got "Monday"; did you mean "mon"?']);
  assert.equal(errorsOf((s) => (s.lock = 'flok')), ['lock: must be one of auto flock mkdir; did you mean "flock"?']);
});

test('time zones: wrong case and small typos suggest the real name', () => {
  assert.equal(zoneErrors('america/new_york'), ['schedule.hours.timezone: unknown IANA time zone "america/new_york" (case matters); did you mean "America/New_York"?']);
  assert.equal(zoneErrors('EUROPE/BERLIN'), ['schedule.hours.timezone: unknown IANA time zone "EUROPE/BERLIN" (case matters); did you mean "Europe/Berlin"?']);
  assert.equal(zoneErrors('Europe/Berln'), ['schedule.hours.timezone: unknown IANA time zone "Europe/Berln"; did you mean "Europe/Berlin"?']);
  assert.equal(zoneErrors('Mars/Olympus'), ['schedule.hours.timezone: unknown IANA time zone "Mars/Olympus"; use an exact name from the tz database such as "Europe/Berlin" (case matters)']);
  assert.equal(errorsOf((s) => (s.schedule.hostTimezone = 'asia/tokyo')), ['schedule.hostTimezone: unknown IANA time zone "asia/tokyo" (case matters); did you mean "Asia/Tokyo"?']);
});

test('legacy and fixed-offset zones are refused for the working hours, naming the city zones meant; UTC stays', () => {
  const said: Record<string, RegExp> = {
    EST: /^schedule\.hours\.timezone: "EST" is UTC−5 all year, with no summer time: a New York user would be an hour off all summer; use the city zone you mean, e\.g\. "America\/New_York" or "America\/Panama"$/,
    MST: /"MST" is UTC−7 all year.*"America\/Denver" or "America\/Phoenix"$/,
    HST: /"HST" is a fixed offset \(UTC−10\), not the time of a place; .*"Pacific\/Honolulu"$/,
    EST5EDT: /"EST5EDT" is a legacy zone kept for old systems.*"America\/New_York"$/,
    CST6CDT: /"CST6CDT" is a legacy zone.*"America\/Chicago"$/,
    MST7MDT: /"MST7MDT" is a legacy zone.*"America\/Denver"$/,
    PST8PDT: /"PST8PDT" is a legacy zone.*"America\/Los_Angeles"$/,
    'Etc/GMT+5': /"Etc\/GMT\+5" is a fixed offset, UTC−5 all year \(Etc\/GMT names invert the sign\) with no summer time, not the time of a place; use the city zone you mean, e\.g\. "America\/New_York" or "America\/Bogota"$/,
    'Etc/GMT-9': /UTC\+9 all year.*"Asia\/Tokyo"$/,
    'GMT+5': /"GMT\+5" is a UTC offset, not a zone: .*"Asia\/Karachi"/,
    'UTC-3': /"UTC-3" is a UTC offset, not a zone: .*"America\/Sao_Paulo"/,
    '+05:30': /"\+05:30" is a UTC offset, not a zone: .*timedatectl list-timezones/,
  };
  for (const [zone, re] of Object.entries(said)) {
    const e = zoneErrors(zone);
    assert.is(e.length, 1, `${zone}: ${e.join('\n')}`);
    assert.match(e[0]!, re, zone);
    assert.match(e[0]!, /^schedule\.hours\.timezone: /);
  }
  // The suggested cities are real zones the spec takes.
  for (const c of ['America/New_York', 'America/Panama', 'America/Phoenix', 'Pacific/Honolulu', 'America/Chicago', 'America/Los_Angeles', 'America/Bogota', 'Asia/Karachi', 'America/Sao_Paulo', 'Asia/Tokyo', 'Europe/Berlin']) {
    assert.equal(zoneErrors(c), [], c);
  }
  for (const ok of ['UTC', 'Etc/UTC', 'Etc/GMT', 'US/Eastern']) assert.equal(zoneErrors(ok), [], ok);
  // The host clock is what it is: a legacy name there is only the machine's setting.
  assert.equal(errorsOf((s) => (s.schedule.hostTimezone = 'EST')), []);
});

test('"9:00" is refused with "write 09:00" (and "17" with "write 17:00", "24" for the end with "write 24:00")', () => {
  assert.equal(errorsOf((s) => (s.schedule.hours.start = '9:00')), ['schedule.hours.start: must be a time as "HH:MM" (00:00–23:59), got "9:00"; write "09:00"']);
  assert.equal(errorsOf((s) => (s.schedule.hours.end = '17')), ['schedule.hours.end: must be a time as "HH:MM" (00:00–23:59 or 24:00), got "17"; write "17:00"']);
  assert.equal(errorsOf((s) => (s.schedule.hours.end = '24')), ['schedule.hours.end: must be a time as "HH:MM" (00:00–23:59 or 24:00), got "24"; write "24:00"']);
  assert.equal(errorsOf((s) => (s.schedule.hours.start = '24')), ['schedule.hours.start: must be a time as "HH:MM" (00:00–23:59), got "24"']);
  assert.equal(errorsOf((s) => (s.schedule.hours.start = '9:75')), ['schedule.hours.start: must be a time as "HH:MM" (00:00–23:59), got "9:75"']);
});

test('the CLI: a mistyped command gets "did you mean"; an unknown one the list; both one line, exit 2', () => {
  let r = hbgen(['rendr']);
  assert.is(r.code, 2);
  assert.is(r.stderr, 'hbgen: unknown command "rendr" (did you mean "render"?); see hbgen --help\n');
  r = hbgen(['stauts']);
  assert.is(r.stderr, 'hbgen: unknown command "stauts" (did you mean "status"?); see hbgen --help\n');
  r = hbgen(['frobnicate']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^hbgen: unknown command "frobnicate"; the commands are render, check, schema, runtime, init, install, status, stop, resume, wake, doctor, log, plan, forget, list, upgrade, completion(, [a-z]+)*; see hbgen --help\n$/);
  assert.is(r.stdout, '');
});

test('the CLI: a mistyped option gets the closest option of its command, or the command it belongs to, or what the command takes; a bad enum value gets did you mean', () => {
  for (const [args, said] of [
    [['render', '--sceduler', 'cron'], 'unknown option --sceduler (did you mean "--scheduler"?)'],
    [['status', '--jsn'], 'unknown option --jsn (did you mean "--json"?)'],
    [['install', '--dryrun'], 'unknown option --dryrun (did you mean "--dry-run"?)'],
    [['stop', '--al'], 'unknown option --al (did you mean "--all"?)'],
    [['render', '--bogus'], 'unknown option --bogus for render; render takes --out, --scheduler'],
    // An option of another command, and a misspelled one of another command.
    [['wake', '--now'], 'unknown option --now for wake: --now is an option of resume (`hbgen resume --now`), not of wake; wake takes no options'],
    [['render', '--jsn'], 'unknown option --jsn for render: did you mean --json? it is an option of status, log, list, not of render; render takes --out, --scheduler'],
    [['list', '--keep-log'], 'unknown option --keep-log for list: did you mean --keep-logs? it is an option of forget, not of list; list takes --json'],
    // A short flag, several at once, and the commands that take few options: never yargs' bare "Unknown argument".
    [['plan', '-C'], 'unknown option -C for plan; plan takes --svg'],
    [['plan', '-Cx'], 'unknown options -C, -x for plan; plan takes --svg'],
    [['status', '--aa', '--bb'], 'unknown options --aa, --bb for status; status takes --json'],
    [['doctor', '--bogus'], 'unknown option --bogus for doctor; doctor takes no options'],
    [['upgrade', '--bogus'], 'unknown option --bogus for upgrade; upgrade takes --all, --yes, --dry-run'],
    [['runtime', '--bogus'], 'unknown option --bogus for runtime; runtime takes --sha256'],
    // An extra argument is not called an option; a required one left out is named.
    [['plan', 'a', 'bb'], 'unexpected argument "bb" for plan: it takes `hbgen plan SPEC` (quote a path with spaces)'],
    [['schema', 'x'], 'unexpected argument "x": schema takes no argument'],
    [['forget'], 'forget: name the install, as `hbgen forget NAME` (`hbgen list` lists them)'],
    // A value outside an option's choices, as the spec's enum fields are said.
    [['render', '--scheduler', 'sytemd-user'], '--scheduler: must be one of launchd systemd-user cron kubernetes, got "sytemd-user"; did you mean "systemd-user"?'],
  ] as const) {
    const r = hbgen([...args]);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stderr, `hbgen: ${said}; see hbgen --help\n`);
  }
});

test('the CLI: a flag before the command is the command\'s own, or named as not one of its options', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hbgen-mistakes-'));
  // `hbgen --json list` reads as `hbgen list --json`.
  const env = { ...process.env, HOME: tmp, PATH: '/usr/bin:/bin' };
  const a = hbgen(['--json', 'list'], { env, cwd: tmp });
  const b = hbgen(['list', '--json'], { env, cwd: tmp });
  assert.is(a.code, 0, a.stderr);
  assert.is(a.stdout, b.stdout);
  assert.ok(Array.isArray(JSON.parse(a.stdout)));
  const v = hbgen(['--verbose', 'render']);
  assert.is(v.code, 2);
  assert.is(v.stderr, 'hbgen: --verbose: not an option of this command (hbgen takes only --help and --version before the command; options go after it, as in `hbgen status --json`); see hbgen --help\n');
  // --help and --version before the command keep their meaning.
  assert.is(hbgen(['--version']).code, 0);
  assert.match(hbgen(['--help', 'render']).stdout, /hbgen render/);
});

test('hbgen check DIR uses ./hbgen.json like every other command; no folder at all is a usage error', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hbgen-check-'));
  writeFileSync(join(tmp, 'hbgen.json'), readFileSync(join(ROOT, 'fixtures/specs/example.json')));
  const out = join(tmp, 'out');
  assert.is(hbgen(['render', '--out', out], { cwd: tmp }).code, 0);
  const one = hbgen(['check', out], { cwd: tmp });
  assert.is(one.code, 0, one.stderr);
  assert.is(one.stderr, `hbgen: ${out} matches ./hbgen.json\n`);
  const two = hbgen(['check', 'hbgen.json', out], { cwd: tmp });
  assert.is(two.code, 0, two.stderr);
  const none = hbgen(['check'], { cwd: tmp });
  assert.is(none.code, 2);
  assert.is(none.stderr, 'hbgen: check: name the rendered folder, as `hbgen check [SPEC] DIR`; see hbgen --help\n');
  // From a folder without hbgen.json, one argument that is a spec's folder: said, with the two-argument form.
  const folder = hbgen(['check', tmp], { cwd: out });
  assert.is(folder.code, 2, folder.stderr);
  assert.is(folder.stderr, `hbgen: check: with one argument, ${tmp} is the rendered folder, compared with a render of ./hbgen.json, which is not here; to check a rendered folder against ${tmp}/hbgen.json, give both: \`hbgen check ${tmp} DIR\`; see hbgen --help\n`);
  assert.ok(HBGEN);
});

test('after stop, the message lists exactly what is kept: every entry of the state folder, and the repo', async () => {
  const h = makeHost('systemd-user', { lock: 'flock' });
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\n');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  const r = await hb(h, 'stop');
  assert.is(r.code, 0, r.err);
  const n = names(h.spec);
  const line = r.out.split('\n').find((l) => l.startsWith(`  kept in ${n.stateDir}: `));
  assert.ok(line, r.out);
  const said = line!.slice(`  kept in ${n.stateDir}: `.length).split(', ').map((e) => e.replace(/ \(.*\)$/, '').replace(/\/$/, ''));
  assert.equal(said, readdirSync(n.stateDir).sort());
  assert.match(line!, /runtime\.log \(the wake log\)/);
  assert.match(line!, /state\.json \(marked stopped: the record `hbgen resume` looks for\)/);
  assert.match(line!, /wakes \(the wake counter: 1\)/);
  assert.match(line!, /heartbeat\.sh \(the wrapper: nothing runs it now\)/);
  assert.match(r.out, new RegExp(`\\n {2}kept ${h.repo} as it is: stop never touches the repo`));
  // A name planted in the folder (it sits in the repo here) reaches the terminal without its escape sequence.
  assert.is((await hb(h, 'resume', { yes: true })).code, 0);
  writeFileSync(join(n.stateDir, 'x\u001b[2Jy'), '');
  const again = await hb(h, 'stop');
  assert.is(again.code, 0, again.err);
  assert.match(again.out, /, x\?\[2Jy(, |$)/m);
  assert.not.match(again.out, /\u001b/);
});

test('OPTIONS_OF (the answer to a flag given to the wrong command) is each command\'s --help, exactly', () => {
  // Every command is in it (completion is yargs' own).
  const commands = [...hbgen(['--help']).stdout.matchAll(/^ {2}hbgen ([a-z]+)/gm)].map((m) => m[1]!).filter((c) => c !== 'completion');
  assert.equal(Object.keys(OPTIONS_OF).sort(), commands.sort());
  for (const [cmd, flags] of Object.entries(OPTIONS_OF)) {
    const help = hbgen([cmd, '--help']).stdout;
    const listed = [...help.matchAll(/^ {2}(?:-\w, | {4})(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).filter((f) => f !== '--help' && f !== '--version');
    assert.equal(listed.sort(), [...flags].sort(), cmd);
  }
});

test.run();
