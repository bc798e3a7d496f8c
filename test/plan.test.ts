// hbgen plan: the week of fires as a terminal grid and as SVG. The fire
// times are checked against the schedulers' own readings — `systemd-analyze calendar` on
// the rendered timer, cron-parser on the rendered crontab in the host zone — and which of
// them wake against the rendered window.sh; the SVG is drawn by a real renderer
// (rsvg-convert, Debian's librsvg2-bin) and its pixels looked at where each mark must be.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { planCmd } from '../src/commands/plan.ts';
import type { HostIO } from '../src/host/io.ts';
import { plan, summary } from '../src/schedule.ts';
import { validateSpec, type Spec } from '../src/spec.ts';
import { COLORS, SVG, type Week, markX, svgPanels, week, weekSvg, weekText } from '../src/week.ts';
import { etcFor } from './helpers/etc.ts';
import { cronFires, gateOpen, wall } from './helpers/hours.ts';
import { readPng } from './helpers/png.ts';
import { renderNow, writeGate } from './helpers/render.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hbgen-plan-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

function specOf(schedule: Record<string, unknown>): Spec {
  const v = validateSpec({
    version: 1, name: 'week', repo: '/srv/repo', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule, timeout: '10m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' },
  });
  if (!v.spec) throw new Error(v.errors.join('; '));
  return v.spec;
}

// systemd in the working zone, over the week Europe/Berlin's clocks go back (a repeated hour).
const BERLIN = specOf({ scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '01:00', end: '05:00', timezone: 'Europe/Berlin' } });
const BERLIN_NOW = Date.parse('2027-10-28T12:00:00Z');
// The spring week: the hour 02:00–03:00 does not exist on Sunday.
const SPRING_NOW = Date.parse('2027-03-24T12:00:00Z');
// cron on a host clock in Europe/Berlin for working hours in New York: the two zones change
// clocks a week apart, so the entries are widened and the gate closes some fires.
const NY = specOf({ scheduler: 'cron', every: '1h', minute: 13, hours: { start: '09:00', end: '17:00', timezone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'] }, hostTimezone: 'Europe/Berlin' });
const NY_NOW = Date.parse('2027-10-27T12:00:00Z');

/**
 * `systemd-analyze calendar` on each OnCalendar= value from `from` (seconds), for `n`
 * elapses each (the helper in hours.ts asks for one a minute, which takes seconds here):
 * a few more than the plan has, so that an extra fire in the span would show.
 */
function systemdFires(values: string[], from: number, to: number, n: number): number[] {
  const out = new Set<number>();
  for (const expr of values) {
    const r = spawnSync('systemd-analyze', ['calendar', `--base-time=@${from - 1}`, `--iterations=${n}`, expr], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC', LC_ALL: 'C', SYSTEMD_COLORS: '0' } });
    assert.is(r.status, 0, r.stderr);
    for (const m of r.stdout.matchAll(/(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/g)) {
      const t = Date.parse(`${m[1]!.replace(' ', 'T')}Z`) / 1000;
      if (t >= from && t < to) out.add(t);
    }
  }
  return [...out].sort((a, b) => a - b);
}

const secs = (xs: number[]) => xs.map((t) => Math.floor(t / 1000));
const isoMin = (xs: number[]) => xs.map((t) => new Date(t * 1000).toISOString().slice(0, 16));

for (const [label, now] of [['autumn', BERLIN_NOW], ['spring', SPRING_NOW]] as const) {
  test(`systemd (${label} DST week): the plan's fires are exactly systemd-analyze calendar's for the rendered timer`, () => {
    const w = week({ spec: BERLIN, scheduler: { id: 'systemd-user', hostClock: false }, now, hostZone: 'Etc/UTC' });
    const timer = renderNow(BERLIN).files.find((f) => f.path.endsWith('.timer'))!.content;
    const values = timer.split('\n').filter((l) => l.startsWith('OnCalendar=')).map((l) => l.slice('OnCalendar='.length));
    const from = w.from / 1000;
    const to = w.to / 1000;
    assert.is(to - from, 7 * 86400 + (label === 'autumn' ? 3600 : -3600), 'seven local days, one of them 25 (or 23) hours long');
    assert.equal(isoMin(secs(w.fires.map((f) => f.t))), isoMin(systemdFires(values, from, to, w.fires.length + 5)));
    assert.is(w.fires.length, 7 * 8 - (label === 'spring' ? 2 : 0), 'eight wakes a night; the spring night skips 02:07 and 02:37');
    assert.ok(w.fires.every((f) => f.wake), 'systemd fires only wakes');
    assert.is(w.dst.length, 1);
  });
}

test('cron on a host clock in another zone: fires as cron-parser reads the crontab in the host zone; wakes exactly where window.sh opens; the rest counted as wasted', () => {
  const w = week({ spec: NY, scheduler: { id: 'cron', hostClock: true }, now: NY_NOW, hostZone: 'Europe/Berlin' });
  const r = renderNow(NY);
  const files = r.files;
  const crontab = files.find((f) => f.path.endsWith('crontab'))!.content;
  const lines = crontab.split('\n').filter((l) => /^[\d*]/.test(l));
  const fired = cronFires(lines, 'Europe/Berlin', w.from / 1000, w.to / 1000);
  assert.equal(isoMin(secs(w.fires.map((f) => f.t))), isoMin(fired));
  const windowSh = writeGate(join(tmp, 'window.sh'), r);
  const open = gateOpen(windowSh, fired);
  assert.equal(w.fires.filter((f) => f.wake).map((f) => f.t / 1000), fired.filter((t) => open.has(t)));
  const wasted = w.fires.filter((f) => !f.wake).length;
  assert.ok(wasted > 0, 'the widened entries fire where the gate closes');
  assert.equal(w.missed, []);
  const text = weekText(w).join('\n');
  assert.match(text, new RegExp(`\\n${w.fires.length - wasted} wakes in the 7 days; ${wasted} wasted fires, which the gate closes \\(the cron entries read the host clock \\(Europe/Berlin\\) and are widened`));
  assert.match(text, /\nThe same fires on the host's clock \(Europe\/Berlin\):\n/);
});

test('a fire with less than minRun of the window left is drawn and counted as a skip, not a wake: the wakes are exactly where the rendered window.sh is open at the fire and still open minRun later', () => {
  // The window ends at 06:55: the :53 fire has 2 minutes left, below the default minRun (5m),
  // so the wrapper logs skip-window at it every night.
  const spec = specOf({ scheduler: 'systemd-user', every: '30m', minute: 23, hours: { start: '22:00', end: '06:55', timezone: 'Europe/Berlin' } });
  assert.is(spec.minRun, '5m');
  const w = week({ spec, scheduler: { id: 'systemd-user', hostClock: false }, now: BERLIN_NOW, hostZone: 'Europe/Berlin' });
  const windowSh = writeGate(join(tmp, 'window-minrun.sh'), renderNow(spec));
  const fired = secs(w.fires.map((f) => f.t));
  const open = gateOpen(windowSh, fired);
  // minRun 5m: the run's last whole minute starts 4 minutes after the fire.
  const stillOpen = gateOpen(windowSh, fired.map((t) => t + 240));
  const runs = fired.filter((t) => open.has(t) && stillOpen.has(t + 240));
  assert.equal(w.fires.filter((f) => f.wake).map((f) => f.t / 1000), runs);
  const late = w.fires.filter((f) => f.skip === 'minRun');
  assert.ok(late.length >= 7, `a skipped :53 fire every night (${late.length})`);
  assert.ok(late.every((f) => wall('Europe/Berlin', f.t)[3] === 53 && wall('Europe/Berlin', f.t)[2] === 6), late.map((f) => new Date(f.t).toISOString()).join(' '));
  const text = weekText(w).join('\n');
  // The panel's interval row (the schedule's summary) says the same.
  assert.match(summary(spec, plan(spec), { id: 'systemd-user', hostClock: false }), /; the fire at 06:53 has less than minRun \(5m\) of the window left and is always skipped \(7 of the 126 fires a week\)$/);
  assert.match(text, new RegExp(`\\n${runs.length} wakes in the 7 days; ${late.length} wasted fires: ${late.length} with less than minRun \\(5m\\) of the window left, which the wrapper skips every time \\(skip-window\\)`));
  // Drawn as a skip: the 06:00 hour holds the :23 wake, so its mark is a wake; a window ending
  // at 06:50 with fires at :53 shows the skip in that hour alone.
  const only = specOf({ scheduler: 'systemd-user', every: '1h', minute: 53, hours: { start: '05:00', end: '06:55', timezone: 'Europe/Berlin' } });
  const w2 = week({ spec: only, scheduler: { id: 'systemd-user', hostClock: false }, now: BERLIN_NOW, hostZone: 'Europe/Berlin' });
  const row = rowOf(weekText(w2), 'Europe/Berlin', '2027-10-29');
  assert.is(markAt(row, 5), '#');
  assert.is(markAt(row, 6), 'x');
});

/** The grid's row for `date` in the block of `zone`. */
function rowOf(text: string[], zone: string, date: string): string {
  const at = text.findIndex((l) => l.endsWith(`(hours in ${zone})`));
  const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(`${date}T12:00:00Z`).getUTCDay()];
  const r = text.slice(at + 1).find((l) => l.startsWith(`  ${wd} ${date.slice(8)} `) || l === `  ${wd} ${date.slice(8)}`);
  assert.ok(r !== undefined, `a row for ${date} under ${zone}`);
  return r!;
}
const markAt = (row: string, hour: number) => row[9 + 3 * hour + 1] ?? ' ';

function checkGrid(w: Week, text: string[], zone: string, fires: { t: number; wake: boolean }[]) {
  const cells = new Map<string, string>();
  for (const f of fires) {
    const [date, , h] = wall(zone, f.t);
    const k = `${date} ${h}`;
    if (f.wake || !cells.has(k)) cells.set(k, f.wake ? '#' : 'x');
  }
  for (const [k, mark] of cells) {
    const [date, h] = k.split(' ');
    assert.is(markAt(rowOf(text, zone, date!), Number(h)), mark, `${zone} ${k}`);
  }
  // And no mark where nothing fires.
  const at = text.findIndex((l) => l.endsWith(`(hours in ${zone})`));
  let marks = 0;
  for (const l of text.slice(at + 1)) {
    if (!/^ {2}\w{3} \d\d/.test(l)) break;
    for (let h = 0; h < 24; h++) if ('#x'.includes(markAt(l, h)) && markAt(l, h) !== ' ') marks++;
  }
  assert.is(marks, cells.size, `${zone}: as many marks as hours with a fire`);
}

test('the terminal grid: a mark in the row and hour of every fire (both clocks), none elsewhere; the window and the DST change shown', () => {
  const berlin = week({ spec: BERLIN, scheduler: { id: 'systemd-user', hostClock: false }, now: BERLIN_NOW, hostZone: 'America/New_York' });
  const text = weekText(berlin);
  assert.match(text[0]!, /^hbgen plan: "week" \(systemd-user\), the 7 days from Thu 2027-10-28, in Europe\/Berlin$/);
  checkGrid(berlin, text, 'Europe/Berlin', berlin.fires);
  checkGrid(berlin, text, 'America/New_York', berlin.fires);
  assert.match(rowOf(text, 'Europe/Berlin', '2027-10-31'), /← clocks go back 03:00 → 02:00$/);
  // The window 01:00–05:00 has a fire every hour here; on the host clock it is elsewhere.
  assert.not.match(rowOf(text, 'Europe/Berlin', '2027-10-29'), /\./);
  const ny = week({ spec: NY, scheduler: { id: 'cron', hostClock: true }, now: NY_NOW, hostZone: 'Europe/Berlin' });
  const t2 = weekText(ny);
  checkGrid(ny, t2, 'America/New_York', ny.fires);
  checkGrid(ny, t2, 'Europe/Berlin', ny.fires);
  // Window hours without a fire are dots: 09:00–09:13 has none before the first fire? No:
  // the first fire is 09:13, in that hour; a Saturday has no window at all.
  assert.is(rowOf(t2, 'America/New_York', '2027-10-30').trim(), 'Sat 30');
  // Same zones: no second grid.
  const same = weekText(week({ spec: BERLIN, scheduler: { id: 'systemd-user', hostClock: false }, now: BERLIN_NOW, hostZone: 'Europe/Berlin' }));
  assert.not.match(same.join('\n'), /host's clock/);
  assert.match(same.join('\n'), /0 wasted fires \(every fire is a wake\)/);
});

test('hbgen plan: the host zone from /etc/localtime, the clock from HostIO; a host clock in another zone than planned is said, and its missed wakes counted', async () => {
  const root = mkdtempSync(join(tmp, 'cmd-'));
  const specFile = join(root, 'hbgen.json');
  writeFileSync(specFile, JSON.stringify({ version: 1, name: 'week', repo: '/srv/repo', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' }, schedule: { scheduler: 'cron', every: '1h', minute: 13, hours: { start: '09:00', end: '17:00', timezone: 'America/New_York' } }, timeout: '10m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' } }));
  const run = async (zone: string, svg?: string) => {
    let out = '';
    let err = '';
    const io: HostIO = { env: {}, uid: 0, user: 'ada', cwd: root, stdin: new PassThrough(), out: (s) => (out += s), err: (s) => (err += s), now: () => new Date(NY_NOW), etc: etcFor(root, zone) };
    const code = await planCmd({ spec: 'hbgen.json', svg }, io);
    return { code, out, err };
  };
  const here = await run('America/New_York');
  assert.is(here.code, 0);
  assert.is(here.err, '');
  assert.match(here.out, /^hbgen plan: "week" \(cron\), the 7 days from Wed 2027-10-27, in America\/New_York\n/);
  assert.match(here.out, /\n56 wakes in the 7 days; 0 wasted fires \(every fire is a wake\)\n$/);
  const away = await run('Europe/Berlin');
  assert.match(away.err, /^hbgen: warning: schedule: this host's clock runs in Europe\/Berlin, but the cron entries are planned for America\/New_York/);
  assert.match(away.out, /\nThe same fires on the host's clock \(Europe\/Berlin\):\n/);
  assert.match(away.out, /\n\d+ expected wakes will not fire: the host clock runs in Europe\/Berlin, not the zone the entries are planned for/);
  const svg = await run('America/New_York', 'week.svg');
  assert.match(svg.out, /^hbgen plan: wrote week\.svg \(the 7 days from today in America\/New_York: 56 wakes, 0 fires that wake no agent\)\n$/);
  assert.ok(readFileSync(join(root, 'week.svg'), 'utf8').startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  const bad = await run('America/New_York', 'no/such/folder/week.svg').catch((e: { lines: string[] }) => e);
  assert.match((bad as { lines: string[] }).lines[0]!, /no\/such\/folder\/week\.svg.*: cannot write it/);
  const empty = await run('America/New_York', '').catch((e: { lines: string[]; exitCode: number }) => e);
  assert.equal([(empty as { lines: string[] }).lines, (empty as { exitCode: number }).exitCode], [['--svg needs a file name, e.g. --svg week.svg'], 2]);
});

// ---- the SVG, drawn by rsvg-convert ----

const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const near = (p: number[], c: string) => hex(c).every((v, i) => Math.abs(v - p[i]!) <= 6);

function rasterize(svg: string, name: string) {
  const s = join(tmp, `${name}.svg`);
  const p = join(tmp, `${name}.png`);
  writeFileSync(s, svg);
  const r = spawnSync('rsvg-convert', ['--format=png', '-o', p, s], { encoding: 'utf8' });
  assert.is(r.status, 0, `rsvg-convert: ${r.stderr} (install Debian's librsvg2-bin)`);
  return readPng(readFileSync(p));
}

/** Every fire's mark, looked up in the rendering where the fire's local time puts it; the missing ones. */
function missingMarks(w: Week, fires: { t: number; wake: boolean }[], img: ReturnType<typeof readPng>): string[] {
  const missing: string[] = [];
  for (const p of svgPanels(w)) {
    const dates = p.rows.map((r) => r.date);
    for (const f of fires) {
      const [date, , h, m] = wall(p.zone, f.t);
      const i = dates.indexOf(date);
      assert.ok(i >= 0, `a row for ${date} in ${p.zone}`);
      const x = Math.ceil(markX(h, m) - SVG.markW / 2);
      const y = Math.round(p.y + i * SVG.rowH + SVG.rowH / 2);
      if (!near(img.at(x, y), f.wake ? COLORS.wake : COLORS.wasted)) missing.push(`${p.zone} ${date} ${h}:${m} (${new Date(f.t).toISOString()})`);
    }
  }
  return missing;
}

test('SVG through rsvg-convert: a mark of the right colour at every fire the scheduler makes, on both clocks; DST lines; and the check fails when a mark is missing', () => {
  for (const [spec, now, hostZone, id, hostClock] of [
    [BERLIN, BERLIN_NOW, 'America/New_York', 'systemd-user', false],
    [NY, NY_NOW, 'Europe/Berlin', 'cron', true],
  ] as const) {
    const w = week({ spec, scheduler: { id, hostClock }, now, hostZone });
    // The oracle: systemd's own reading of the rendered timer; the cron fires are the plan's,
    // which the test above holds to cron-parser's reading and to window.sh.
    const files = renderNow(spec).files;
    const oracle = id === 'systemd-user'
      ? systemdFires(files.find((f) => f.path.endsWith('.timer'))!.content.split('\n').filter((l) => l.startsWith('OnCalendar=')).map((l) => l.slice(11)), w.from / 1000, w.to / 1000, w.fires.length + 5).map((t) => ({ t: t * 1000, wake: true }))
      : w.fires;
    assert.is(oracle.length, w.fires.length);
    const svg = weekSvg(w);
    assert.is(weekSvg(week({ spec, scheduler: { id, hostClock }, now, hostZone })), svg, 'the same input gives the same bytes');
    assert.match(svg, new RegExp(`Hours in ${spec.schedule.hours.timezone.replace('/', '\\/')} \\(working zone\\)`));
    assert.match(svg, new RegExp(`The same fires on the host's clock: hours in ${hostZone.replace('/', '\\/')}`));
    for (const l of ['a wake', 'a fire that wakes no agent', 'working hours', 'clock change \\(DST\\)']) assert.match(svg, new RegExp(`>${l}</text>`));
    const img = rasterize(svg, id);
    assert.equal(missingMarks(w, oracle, img), []);
    if (hostClock) assert.ok(oracle.some((f) => !f.wake), 'wasted fires drawn too');
    // The DST changes: a dashed line at the wall-clock time of each change, in its row.
    for (const p of svgPanels(w)) {
      for (const [i, r] of p.rows.entries()) {
        for (const d of r.dst) {
          const [hh, mm] = d.before.split(':').map(Number) as [number, number];
          const x = Math.round(markX(hh, mm));
          const y = p.y + i * SVG.rowH + 1;
          const hit = [x - 1, x].some((xx) => near(img.at(xx, y), COLORS.dst));
          assert.ok(hit, `${p.zone} ${r.date}: a DST line at ${d.before}`);
        }
      }
    }
    assert.ok(svgPanels(w).some((p) => p.rows.some((r) => r.dst.length)), 'the week has a DST change');
    // The check sees a missing mark: drop one wake and render again.
    const one = /<rect class="wake" data-utc="([^"]+)"[^>]*\/>\n/.exec(svg)!;
    const img2 = rasterize(svg.replace(one[0], ''), `${id}-missing`);
    const gone = missingMarks(w, oracle, img2);
    assert.is(gone.length, 1, gone.join('\n'));
    assert.ok(gone[0]!.endsWith(`(${one[1]})`));
  }
});

test('SVG: window cells painted where the hours are open, not where they are closed', () => {
  const w = week({ spec: NY, scheduler: { id: 'cron', hostClock: true }, now: NY_NOW, hostZone: 'Europe/Berlin' });
  const img = rasterize(weekSvg(w), 'window');
  const p = svgPanels(w)[0]!;
  const i = p.rows.findIndex((r) => r.date === '2027-10-28');
  const y = p.y + i * SVG.rowH + 2;
  // 09:40 New York is open (between marks), 20:40 closed; Saturday closed all day.
  assert.ok(near(img.at(Math.round(markX(9, 40)), y), COLORS.window));
  assert.ok(near(img.at(Math.round(markX(20, 40)), y), COLORS.background));
  const sat = p.rows.findIndex((r) => r.date === '2027-10-30');
  assert.ok(near(img.at(Math.round(markX(12, 40)), p.y + sat * SVG.rowH + 2), COLORS.background));
});

test.run();
