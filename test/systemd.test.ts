// systemd-user artifacts of every fixture spec, checked by systemd itself:
// - systemd-analyze verify --user on the rendered service + timer prints nothing;
// - systemd --test decodes ExecStart= to exactly the entry that checks the wrapper's SHA-256
//   (the real sha256sum's) and runs it: ["/bin/sh", "-c", SCRIPT, "hbgen-<name>",
//   <stateDir>/heartbeat.sh] (running it is test/entry.test.ts);
// - systemd-analyze calendar fires every OnCalendar= value exactly at the wakes an
//   independent calculator (test/helpers/tools.ts) derives from the spec, over a plain
//   week and two weeks with a DST change (US 2027-03-14, EU 2027-03-28);
// - the ini package reads the keys hbgen's units promise (oneshot, control-group kill,
//   no catch-up runs, 1s accuracy).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as iniParse } from 'ini';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectedEntry } from './helpers/entry.ts';
import { renderNow } from './helpers/render.ts';
import { fireMinute } from '../src/schedule.ts';
import {
  execDollar,
  expectedWakes,
  loadFixtures,
  rebase,
  sdCalendar,
  sdDecodedExecStart,
  sdVerify,
  stateDirOf,
  tmp,
} from './helpers/tools.ts';

const WEEKS = ['2027-01-04', '2027-03-08', '2027-03-22']; // Mondays
const fixtures = loadFixtures();

test('fixtures include the specs these tests rely on', () => {
  const files = fixtures.map((f) => f.file);
  for (const f of ['example.json', 'cron.json', 'launchd.json', 'hostile.json', 'midnight.json']) assert.ok(files.includes(f), f);
  for (const f of fixtures) assert.is(f.raw.$schema, '../schema.json', `${f.file}: $schema`);
});

function render(spec: Parameters<typeof renderNow>[0]) {
  const r = renderNow(spec, { scheduler: 'systemd-user' });
  assert.equal(r.errors, []);
  const service = r.files.find((f) => f.path === `host/hbgen-${spec.name}.service`);
  const timer = r.files.find((f) => f.path === `host/hbgen-${spec.name}.timer`);
  assert.ok(service && timer, 'service and timer rendered');
  const wrapper = r.files.find((f) => f.path === 'heartbeat.sh')!;
  return { service: service!, timer: timer!, files: r.files, wrapper };
}

for (const fx of fixtures) {
  test(`${fx.file}: systemd-analyze verify is silent and systemd decodes ExecStart to the entry that checks the wrapper`, () => {
    const root = tmp('hbgen-sd');
    const spec = rebase(fx.spec, root);
    const { service, timer, wrapper: rendered } = render(spec);
    const wrapper = `${stateDirOf(spec)}/heartbeat.sh`;
    mkdirSync(stateDirOf(spec), { recursive: true });
    writeFileSync(wrapper, 'exit 0\n', { mode: 0o755 });
    const unitDir = join(root, 'units');
    mkdirSync(unitDir);
    chmodSync(unitDir, 0o755);
    const sPath = join(unitDir, `hbgen-${spec.name}.service`);
    const tPath = join(unitDir, `hbgen-${spec.name}.timer`);
    writeFileSync(sPath, service.content, { mode: service.mode });
    writeFileSync(tPath, timer.content, { mode: timer.mode });
    assert.is(service.mode, 0o644);
    assert.is(timer.mode, 0o644);

    assert.is(sdVerify([tPath, sPath]), '', 'systemd-analyze verify --user output');

    const decoded = sdDecodedExecStart(unitDir, `hbgen-${spec.name}.timer`).get(`hbgen-${spec.name}.service`);
    assert.ok(decoded, 'service loaded through the timer');
    assert.is(decoded!.length, 1, 'one ExecStart command');
    assert.equal(decoded![0]!.map(execDollar), expectedEntry(spec.name, stateDirOf(spec), rendered.content));
  });

  test(`${fx.file}: unit keys (ini) and file shape`, () => {
    const { service, timer } = render(fx.spec);
    const wrapper = `${stateDirOf(fx.spec)}/heartbeat.sh`;
    const s = iniParse(service.content) as Record<string, Record<string, string>>;
    const t = iniParse(timer.content) as Record<string, Record<string, unknown>>;
    assert.is(s.Service!.Type, 'oneshot');
    assert.is(s.Service!.KillMode, 'control-group');
    // catchUp "once" (the default) is Persistent=true; ini turns it into a boolean.
    assert.is(String(t.Timer!.Persistent), String((fx.spec.catchUp ?? 'once') === 'once'));
    assert.is(t.Timer!.Unit, `hbgen-${fx.spec.name}.service`);
    assert.is(t.Timer!.AccuracySec, '1s');
    assert.is(t.Install!.WantedBy, 'timers.target');
    // The ini package ends a value at "#" or ";", and the entry's script holds ";": the
    // raw line is checked here, its meaning by systemd itself (the decode above).
    const execLines = service.content.split('\n').filter((l) => l.startsWith('ExecStart='));
    assert.is(execLines.length, 1);
    assert.ok(execLines[0]!.startsWith('ExecStart=/bin/sh -c "'), 'the entry: /bin/sh -c SCRIPT');
    if (!/[\\"%$]/.test(wrapper)) assert.ok(execLines[0]!.endsWith(`" hbgen-${fx.spec.name} "${wrapper}"`), execLines[0]);
    // No environment and no working directory in units: the wrapper sets both, so a unit
    // would only hold a second copy, and the environment may hold secrets.
    assert.not.match(service.content, /^(Environment|EnvironmentFile|WorkingDirectory)=/m);
    for (const f of [service, timer]) {
      assert.match(f.content.split('\n')[0]!, new RegExp(`^# .*hbgen.*"${fx.spec.name}"`), `${f.path}: first comment`);
      assert.ok(f.content.endsWith('\n'));
    }
  });

  test(`${fx.file}: systemd-analyze calendar fires OnCalendar= exactly at the expected wakes`, () => {
    const { timer } = render(fx.spec);
    const values = timer.content
      .split('\n')
      .filter((l) => l.startsWith('OnCalendar='))
      .map((l) => l.slice('OnCalendar='.length));
    assert.ok(values.length > 0, 'some OnCalendar=');
    const zone = fx.spec.schedule.hours.timezone;
    for (const v of values) assert.ok(v.endsWith(` ${zone}`), `zone suffix, exact as written in the spec: ${v}`);
    // The minute: the spec's when set; otherwise the product's derived one, whose
    // contract (never :00 or :30) is checked in passing.
    const minute = fx.spec.schedule.minute ?? fireMinute(fx.spec);
    if (fx.spec.schedule.minute === undefined) {
      const every = fx.spec.schedule.every;
      const step = Math.min(60, Number(every.slice(0, -1)) * (every.endsWith('h') ? 60 : 1));
      for (let m = minute % step; m < 60; m += step) assert.ok(m !== 0 && m !== 30, `derived minute :${minute} every ${every} fires at :${m}`);
    }
    for (const week of WEEKS) {
      const { wakes, from, to } = expectedWakes(fx.spec, minute, week);
      assert.ok(wakes.length > 0, `${week}: the spec has wakes`);
      const fired: number[] = [];
      for (const v of values) fired.push(...sdCalendar(v, from - 1, wakes.length + 1).filter((e) => e >= from && e < to));
      fired.sort((a, b) => a - b);
      const iso = (xs: number[]) => xs.map((e) => new Date(e * 1000).toISOString().slice(0, 16));
      assert.equal(iso(fired), iso(wakes), `week of ${week}: systemd fires (UTC) vs expected`);
    }
  });
}

test('hostile.json: ExecStart carries %, $, quotes and backslashes through systemd escaping', () => {
  const fx = fixtures.find((f) => f.file === 'hostile.json')!;
  const { service } = render(fx.spec);
  const line = service.content.split('\n').find((l) => l.startsWith('ExecStart='))!;
  // Spot checks of the encoding itself; the decode above is the real proof.
  assert.match(line, /%%d/);
  assert.match(line, /\$\$HOME/);
  assert.match(line, /\\"q\\"/);
  assert.not.match(line, /[^%]%d/);
});

test('the wrapper file must exist for verify: a missing ExecStart argument is not what verify checks', () => {
  // Document the oracle's reach: verify checks the executable (/bin/sh), so the tests
  // above create the wrapper anyway and rely on the decoded argv for the path itself.
  const root = tmp('hbgen-sd-missing');
  const u = join(root, 'hbgen-x.service');
  writeFileSync(u, '[Service]\nType=oneshot\nExecStart="/nonexistent dir/run.sh"\n');
  const out = sdVerify([u]);
  assert.match(out, /nonexistent dir\/run\.sh/, 'verify names a missing executable, decoded');
  const v = readFileSync(u, 'utf8');
  assert.ok(v.length > 0);
});

test.run();
