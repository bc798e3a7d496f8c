// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The job's end date, `until`, in every shell as /bin/sh: a fire at or after it logs
// skip-ended and runs no agent, a fire before it runs the agent, a wake by hand after it
// is skipped too; the spec refuses a time that is no date; plan draws no wake after it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SHELLS, makeCase, run } from './helpers/wrapper.ts';
import { validateSpec } from '../src/spec.ts';
import { week, weekText } from '../src/week.ts';
import { baseSpec } from './helpers/lifecycle.ts';

const ZONE = 'Europe/Berlin';
/** The wall-clock minute `ms` from now in Berlin, as until is written ("YYYY-MM-DDTHH:MM"). */
function berlin(ms: number): string {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(Date.now() + ms)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

for (const sh of SHELLS) {
  test(`${sh.name}: a fire after until is one skip-ended line and no agent; before it the agent runs; a wake by hand after it is skipped too`, async () => {
    const past = berlin(-2 * 60_000);
    const c = makeCase({ spec: { until: past } });
    const r = await run(c, sh);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.equal(c.runs(), [], 'the agent did not run');
    assert.match(c.log(), new RegExp(`hbgen tst skip-ended until ${past.replace('T', ' ')} \\(${ZONE}\\)\\n$`), c.log());
    const byHand = await run(c, sh, { args: ['--now'] });
    assert.is(byHand.code, 0, byHand.stderr);
    assert.equal(c.runs(), [], 'nor by hand');

    const later = makeCase({ spec: { until: berlin(3 * 86_400_000) } });
    const ran = await run(later, sh);
    assert.is(ran.code, 0, ran.stderr + later.log());
    assert.is(later.runs().length, 1, later.log());
    assert.not.match(later.log(), /skip-ended/);
  });
}

test('until must be a local date and time that exists; plan draws no wake at or after it and says why', () => {
  for (const bad of ['2026-12-24 18:00', '2026-02-30T10:00', '2026-12-24T24:00', '2026-13-01T10:00']) {
    const v = validateSpec({ ...baseSpec('/tmp/x', 'systemd-user'), until: bad });
    assert.ok(v.errors?.some((e) => e.startsWith('until: ')), `${bad}: ${v.errors}`);
  }
  const v = validateSpec({ ...baseSpec('/tmp/x', 'systemd-user'), until: '2026-12-05T12:00' });
  assert.equal(v.errors, undefined);
  const now = Date.parse('2026-12-03T06:00:00Z');
  const w = week({ spec: v.spec!, scheduler: { id: 'systemd-user', hostClock: false }, now, hostZone: ZONE });
  const cut = Date.parse('2026-12-05T11:00:00Z'); // 12:00 in Berlin (UTC+1 in December)
  assert.ok(w.fires.some((f) => f.wake), 'wakes before until');
  assert.ok(w.fires.filter((f) => f.t >= cut).every((f) => !f.wake && f.skip === 'ended'), 'no wake at or after it');
  assert.ok(w.fires.filter((f) => f.t < cut).every((f) => f.skip !== 'ended'));
  const ended = w.fires.filter((f) => f.skip === 'ended').length;
  assert.ok(ended > 0);
  assert.ok(weekText(w).includes(`${ended} fires at or after until (2026-12-05T12:00 ${ZONE}), which the wrapper skips (skip-ended): the job has ended then; \`hbgen stop\` removes its entry`), weekText(w).join('\n'));
});

test.run();
