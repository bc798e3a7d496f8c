// needs root: it creates scratch users (useradd)
// cron artifacts of every fixture spec (scheduler overridden to cron):
// - the block's shape: BEGIN/END markers, comments, job lines, no environment lines,
//   day-of-month `*` (crontab(5): restricted DOM and DOW are ORed);
// - the real crontab(1) installs it for a scratch user without a word and `crontab -l`
//   returns the same bytes;
// - cron-parser expands the lines over whole weeks, in the host clock's zone: exactly the
//   expected wakes (host zone = working zone) or a superset (foreign host zone), never
//   two lines for one minute;
// - a command over Debian cron's 998-byte limit is refused by render, naming the field,
//   and one of exactly 998 bytes is accepted by the real crontab(1).
// The real daemon running the rendered line is in escape.test.ts (one minute-long wait).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CronExpressionParser } from 'cron-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderNow } from './helpers/render.ts';
import { fireMinute } from '../src/schedule.ts';
import { validateSpec, type Spec } from '../src/spec.ts';
import { ROOT, crontabInstall, crontabList, expectedWakes, loadFixtures, run, scratchUser, stateDirOf, tmp } from './helpers/tools.ts';

const fixtures = loadFixtures();
const JOB = /^(\S+) (\S+) (\S+) (\S+) (\S+) (.*)$/;

function renderCrontab(spec: Spec): string {
  const r = renderNow(spec, { scheduler: 'cron' });
  assert.equal(r.errors, []);
  const f = r.files.find((x) => x.path === 'host/crontab');
  assert.ok(f, 'host/crontab rendered');
  return f!.content;
}

function jobLines(block: string): string[] {
  return block.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

const iso = (xs: number[]) => xs.map((e) => new Date(e * 1000).toISOString().slice(0, 16));

for (const fx of fixtures) {
  test(`${fx.file}: the block has markers, comments and plain job lines only`, () => {
    const block = renderCrontab(fx.spec);
    const lines = block.split('\n');
    assert.is(lines.pop(), '', 'ends with a newline (crontab(1): "missing newline before EOF")');
    assert.is(lines[0], `# BEGIN hbgen ${fx.spec.name}`);
    assert.is(lines[lines.length - 1], `# END hbgen ${fx.spec.name}`);
    assert.match(lines[1]!, new RegExp(`^# .*hbgen.*"${fx.spec.name}"`), 'generated-by comment right after BEGIN');
    const jobs = jobLines(block);
    assert.ok(jobs.length > 0);
    for (const l of lines) {
      assert.not.match(l, /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/, `environment line in the block: ${l}`);
      assert.not.match(l, /^\s*@/, `@-schedule in the block: ${l}`);
      assert.not.ok(l.endsWith('\\'), 'no line continuation');
    }
    for (const j of jobs) {
      const m = JOB.exec(j);
      assert.ok(m, `job line: ${j}`);
      assert.is(m![3], '*', 'day of month stays *');
      assert.is(m![4], '*', 'month stays *');
      assert.ok(m![6]!.startsWith('/bin/sh '), 'calls /bin/sh explicitly');
      assert.ok(Buffer.byteLength(m![6]!) <= 998, 'within the 998-byte command limit');
    }
    // One command for all lines.
    assert.is(new Set(jobs.map((j) => JOB.exec(j)![6])).size, 1);
  });

  test(`${fx.file}: cron-parser fires the lines at the expected wakes`, () => {
    const jobs = jobLines(renderCrontab(fx.spec)).map((j) => JOB.exec(j)!.slice(1, 6).join(' '));
    const host = fx.spec.schedule.hostTimezone ?? fx.spec.schedule.hours.timezone;
    const exact = host === fx.spec.schedule.hours.timezone;
    const minute = fx.spec.schedule.minute ?? fireMinute(fx.spec);
    for (const week of ['2027-01-04', '2027-03-22', '2027-07-05']) {
      const { wakes, from, to } = expectedWakes(fx.spec, minute, week);
      const fires: number[] = [];
      for (const expr of jobs) {
        const it = CronExpressionParser.parse(expr, { currentDate: new Date((from - 1) * 1000), tz: host });
        for (;;) {
          const t = it.next().getTime() / 1000;
          if (t >= to) break;
          fires.push(t);
        }
      }
      fires.sort((a, b) => a - b);
      assert.is(new Set(fires).size, fires.length, `${week}: two lines fire in the same minute`);
      if (exact) {
        assert.equal(iso(fires), iso(wakes), `week of ${week}: cron fires (UTC) vs expected`);
      } else {
        const set = new Set(fires);
        assert.equal(iso(wakes.filter((w) => !set.has(w))), [], `week of ${week}: expected wakes the host lines miss`);
      }
    }
  });
}

test('crontab(1) installs every rendered block and crontab -l returns the same bytes', () => {
  const user = scratchUser('c');
  try {
    for (const fx of fixtures) {
      const block = renderCrontab(fx.spec);
      const r = crontabInstall(user.name, block);
      assert.is(`${r.stdout}${r.stderr}`, '', `${fx.file}: crontab(1) diagnostics`);
      assert.is(r.code, 0, `${fx.file}: crontab exit`);
      const l = crontabList(user.name);
      assert.is(l.code, 0);
      assert.ok(l.out.equals(Buffer.from(block)), `${fx.file}: crontab -l differs from what was installed`);
    }
    // The block placed first, above a user's own table (whose last line may lack its
    // newline, or set variables such as MAILTO that must not reach hbgen's lines).
    const fx = fixtures.find((f) => f.file === 'hostile.json')!;
    const mine = '# my jobs\nMAILTO=""\n5 4 * * * /usr/bin/true\n# trailing comment';
    const table = `${renderCrontab(fx.spec)}${mine}`;
    const r = crontabInstall(user.name, table);
    assert.is(`${r.stdout}${r.stderr}`, '');
    assert.ok(crontabList(user.name).out.equals(Buffer.from(table)));
  } finally {
    user.remove();
  }
});

/** The bytes of a spec's cron command: the rendered job line's, or what render's refusal says. */
function commandBytes(s: Spec): number {
  const r = renderNow(s, { scheduler: 'cron' });
  if (r.errors.length) return Number(/the cron command would be (\d+) bytes/.exec(r.errors[0]!)![1]);
  const block = r.files.find((x) => x.path === 'host/crontab')!.content;
  return Buffer.byteLength(JOB.exec(jobLines(block)[0]!)![6]!);
}

/** A spec whose cron command is exactly `bytes` long (a 2-byte "ü" keeps bytes != chars). */
function specWithCommandBytes(bytes: number): Spec {
  const base = fixtures.find((f) => f.file === 'cron.json')!;
  const make = (n: number): Spec => {
    const segs: string[] = [];
    for (let left = n; left > 0; left -= 100) segs.push('a'.repeat(Math.min(100, left)));
    // The state folder inside the repo, so that the repo's length sets the command's.
    const v = validateSpec({ ...base.raw, repo: `/ü/${segs.join('/')}`, stateDir: '.agent-platform' });
    if (!v.spec) throw new Error(v.errors.join('\n'));
    return v.spec;
  };
  // Each 100 characters of repo add 101 bytes ("/" + 100): aim, then look around the
  // aim for the exact size.
  const n0 = Math.floor(((bytes - commandBytes(make(1))) * 100) / 101);
  for (let d = 0; d < 40; d++) {
    for (const n of [n0 + d, n0 - d]) {
      const s = make(n);
      if (commandBytes(s) === bytes) return s;
    }
  }
  throw new Error(`no spec with a ${bytes}-byte cron command near repo length ${n0}`);
}

test('a cron command of 998 bytes renders and crontab(1) takes it; 999 bytes is refused by render, naming the field', () => {
  const ok = specWithCommandBytes(998);
  const block = renderCrontab(ok);
  const cmd = JOB.exec(jobLines(block)[0]!)![6]!;
  assert.is(Buffer.byteLength(cmd), 998);
  const user = scratchUser('l');
  try {
    const r = crontabInstall(user.name, block);
    assert.is(`${r.stdout}${r.stderr}`, '', 'crontab(1) accepts 998 bytes');
    assert.is(r.code, 0);
    // ...and the real crontab(1) draws the line one byte later: the limit is real.
    const over = block.replace(cmd, `${cmd.slice(0, -1)}x'`);
    const o = crontabInstall(user.name, over);
    assert.is.not(o.code, 0);
    assert.match(o.stderr, /command too long/);
  } finally {
    user.remove();
  }

  const tooLong = specWithCommandBytes(999);
  const r = renderNow(tooLong, { scheduler: 'cron' });
  assert.equal(r.files, []);
  assert.is(r.errors.length, 1);
  assert.match(r.errors[0]!, /^repo: .*999 bytes.*998/);

  // An absolute stateDir carries the whole path: the error names stateDir.
  const abs = { ...tooLong, repo: '/home/ada/src/site', stateDir: stateDirOf(tooLong) };
  const ra = renderNow(abs, { scheduler: 'cron' });
  assert.match(ra.errors[0] ?? '', /^stateDir: .*999 bytes/);

  // Through the CLI: exit 1, one stderr line naming the field, nothing written.
  const dir = tmp('hbgen-cron-long');
  const specFile = join(dir, 'long.json');
  const base = fixtures.find((f) => f.file === 'cron.json')!;
  writeFileSync(specFile, JSON.stringify({ ...base.raw, repo: tooLong.repo, stateDir: '.agent-platform' }));
  const out = join(dir, 'out');
  mkdirSync(out);
  const cli = run(process.execPath, [join(ROOT, 'bin', 'hbgen.cjs'), 'render', specFile, '--out', out]);
  assert.is(cli.code, 1);
  assert.match(cli.stderr, /repo: .*over cron's 998-byte limit/);
  assert.equal(readdirSync(out), [], 'nothing written');
});

test.run();
