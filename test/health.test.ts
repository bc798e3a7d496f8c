// status's health arithmetic (src/host/audit/health.ts): the scheduler's fires in a span, checked
// against systemd-analyze calendar on the fixtures' own OnCalendar= lines (DST weeks
// included); missed fires; failing wakes in a row.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type LogLine, parseLog } from '../src/formats.ts';
import { failStreak, firesBetween, missedFires, schedulerClock, wakes } from '../src/host/audit/health.ts';
import { lastOutcome } from '../src/host/audit/runtime-log.ts';
import { wakeLine } from '../src/commands/wake.ts';
import { plan } from '../src/schedule.ts';
import { renderNow } from './helpers/render.ts';
import { loadFixtures, sdCalendar } from './helpers/tools.ts';

const WEEKS = ['2027-01-04', '2027-03-22', '2027-10-25', '2027-11-01']; // Mondays, two with a DST change in Europe or the Americas

for (const fx of loadFixtures().filter((f) => f.spec.schedule.scheduler === 'systemd-user')) {
  test(`${fx.file}: firesBetween (systemd's clock) equals systemd-analyze calendar over DST weeks`, () => {
    const timer = renderNow(fx.spec).files.find((f) => f.path.endsWith('.timer'))!;
    const values = timer.content.split('\n').filter((l) => l.startsWith('OnCalendar=')).map((l) => l.slice('OnCalendar='.length));
    const clock = schedulerClock(plan(fx.spec), fx.spec.schedule.hours.timezone, false);
    for (const week of WEEKS) {
      const from = Date.parse(`${week}T00:00:00Z`);
      const to = from + 7 * 86_400_000;
      const ours = firesBetween(clock.entries, clock.zone, from, to);
      const theirs = [...new Set(values.flatMap((v) => sdCalendar(v, from / 1000 - 1, 400).map((e) => e * 1000)))].filter((t) => t >= from && t < to).sort((a, b) => a - b);
      const iso = (xs: number[]) => xs.map((t) => new Date(t).toISOString().slice(0, 16));
      assert.equal(iso(ours), iso(theirs), `week of ${week}`);
    }
  });
}

const L = (text: string): LogLine[] => parseLog(text, 'docs');

test('wakes and failStreak: the install check and skips do not count; three fails in a row, broken by an ok', () => {
  const log = [
    '2027-01-04T08:07:00Z hbgen docs start smoke',
    '2027-01-04T08:07:02Z hbgen docs quiet smoke',
    '2027-01-04T09:07:00Z hbgen docs start wake 1',
    '2027-01-04T09:08:00Z hbgen docs ok',
    '2027-01-04T09:37:00Z hbgen docs start wake 2',
    'Not logged in',
    '2027-01-04T09:37:01Z hbgen docs fail 1',
    '2027-01-04T10:07:00Z hbgen docs skip-locked',
    '2027-01-04T10:37:00Z hbgen docs start wake 3',
    '2027-01-04T11:02:00Z hbgen docs timeout after 25m',
    '2027-01-04T11:07:00Z hbgen docs start wake 4 by hand',
    '2027-01-04T11:07:01Z hbgen docs error billing not logged in',
  ].join('\n');
  assert.equal(wakes(L(log)).map((w) => `${w.start.detail}: ${w.end?.outcome}`), ['wake 1: ok', 'wake 2: fail', 'wake 3: timeout', 'wake 4 by hand: error']);
  const s = failStreak(L(log));
  assert.is(s.count, 3);
  assert.is(s.latest?.outcome, 'error');
  assert.is(failStreak(L(`${log}\n2027-01-04T11:37:00Z hbgen docs start wake 5\n2027-01-04T11:38:00Z hbgen docs quiet`)).count, 0);
  assert.equal(wakes(L('2027-01-04T09:07:00Z hbgen docs start wake 1')).map((w) => w.end), [undefined], 'a wake with no outcome line');
});

test('failStreak: an error before a wake started (setup, billing, lock) counts; a limit, skips, the install check and a signal before the agent do not break it; an ok does', () => {
  const log = [
    '2027-01-04T09:07:00Z hbgen docs start wake 1',
    '2027-01-04T09:08:00Z hbgen docs fail 2',
    '2027-01-04T09:37:00Z hbgen docs error repo /srv/docs is missing or not an accessible folder; mount or create it, or fix "repo" in the spec',
    '2027-01-04T09:50:00Z hbgen docs start smoke',
    '2027-01-04T09:50:02Z hbgen docs quiet smoke',
    '2027-01-04T10:07:00Z hbgen docs skip-window',
    '2027-01-04T10:17:00Z hbgen docs fail 143 signal TERM',
    '2027-01-04T10:37:00Z hbgen docs start wake 2',
    '2027-01-04T10:38:00Z hbgen docs limit until 2027-01-04T12:00:00Z',
    '2027-01-04T11:07:00Z hbgen docs error billing claude auth status says not logged in: the agent was not run',
    // The scheduler entry's own line: the wrapper did not run, so neither counts it.
    '2027-01-04T11:37:00Z hbgen docs error wrapper changed',
  ].join('\n');
  const s = failStreak(L(log));
  assert.is(s.count, 3);
  assert.match(s.latest!.detail, /^billing /);
  assert.is(failStreak(L(`${log}\n2027-01-04T11:37:00Z hbgen docs start wake 3\n2027-01-04T11:38:00Z hbgen docs ok`)).count, 0);
});

test('note lines (how notify or a ping went) are the log\'s own: never the last outcome, never a wake\'s end', () => {
  const log = L([
    '2027-01-04T09:07:00Z hbgen docs start wake 1',
    '2027-01-04T09:08:00Z hbgen docs fail 1',
    '2027-01-04T09:08:00Z hbgen docs note notify failing 3: exit 0',
    '2027-01-04T09:08:01Z hbgen docs note ping /fail failed: curl exit 7',
  ].join('\n'));
  assert.equal(log.map((l) => l.outcome), ['start', 'fail', 'note', 'note']);
  assert.is(lastOutcome(log)?.outcome, 'fail');
  assert.is(failStreak(log).count, 1);
  assert.equal(wakes(log).map((w) => w.end?.outcome), ['fail']);
  assert.is(wakeLine(log, '/x/runtime.log', 1), 'wake 1: fail 1 after 60 s (see /x/runtime.log)', 'hbgen wake says the outcome, not the note');
  assert.is(wakeLine(log, '/x/runtime.log', 1, '/x/agent.log'), "wake 1: fail 1 after 60 s (see /x/runtime.log; the agent's output is in /x/agent.log)", 'a fail names agent.log too');
});

test('hbgen wake says how long the wake took by the log\'s `took N s` (the boot clock), not by the stamps a clock step moved', () => {
  // The wall clock was stepped back during the wake: its stamps say 0 s (or less), the boot clock 28 s.
  const stepped = L([
    '2026-12-07T20:58:30Z hbgen docs start wake 4',
    '2026-12-07T20:58:02Z hbgen docs took 28 s',
    '2026-12-07T20:58:02Z hbgen docs ok',
  ].join('\n'));
  assert.is(wakeLine(stepped, '/x/runtime.log', 0), 'wake 4: ok after 28 s (see /x/runtime.log)');
  const forward = L([
    '2026-12-07T20:58:00Z hbgen docs start wake 5',
    '2026-12-07T21:58:28Z hbgen docs took 28 s',
    '2026-12-07T21:58:28Z hbgen docs quiet',
  ].join('\n'));
  assert.is(wakeLine(forward, '/x/runtime.log', 0), 'wake 5: quiet after 28 s (see /x/runtime.log)', 'a step forward does not lengthen it either');
  // Without a `took` line (a wrapper that could not read the boot clock) the stamps, never a negative length.
  const none = L(['2026-12-07T20:58:30Z hbgen docs start wake 6', '2026-12-07T20:58:02Z hbgen docs ok'].join('\n'));
  assert.is(wakeLine(none, '/x/runtime.log', 0), 'wake 6: ok (its length unknown: the clock was stepped during it) (see /x/runtime.log)');
});

test('missedFires: a fire with no line in the log is missed; a skip counts as a line; fires before the install or inside the grace do not count', () => {
  const spec: any = { name: 'docs', schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '08:00', end: '12:00', timezone: 'UTC' } } };
  const clock = schedulerClock(plan(spec), 'UTC', true);
  const now = Date.parse('2027-01-04T11:00:00Z');
  const log = L(['2027-01-04T08:07:01Z hbgen docs skip-locked', '2027-01-04T08:37:00Z hbgen docs start wake 1', '2027-01-04T08:37:05Z hbgen docs quiet', '2027-01-04T10:07:02Z hbgen docs skip-window'].join('\n'));
  const iso = (xs: number[]) => xs.map((t) => new Date(t).toISOString().slice(11, 16));
  assert.equal(iso(missedFires(log, clock, Date.parse('2027-01-04T07:00:00Z'), now)), ['09:07', '09:37', '10:37']);
  assert.equal(iso(missedFires(log, clock, Date.parse('2027-01-04T09:40:00Z'), now)), ['10:37'], 'only fires after the install');
  assert.equal(iso(missedFires(log, clock, Date.parse('2027-01-04T07:00:00Z'), Date.parse('2027-01-04T10:38:00Z'))), ['09:07', '09:37'], 'a fire a minute ago is not yet missed');
});

test.run();
