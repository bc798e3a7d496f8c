// Idle backoff (spec idleAfter, idleEvery): a simulated day of 30 fires (libfaketime, every
// 30 minutes from 08:00 to 22:30 in Berlin) in which nothing changes runs the agent idleAfter
// times and then at most once every idleEvery; an edit of HEART.md makes the next fire run;
// a failing wake ends the backoff; with idleAfter false every fire runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { type Case, join, makeCase, run, shell } from './helpers/wrapper.ts';
import { fakeClock } from './helpers/faketime.ts';
import { validateSpec } from '../src/spec.ts';
import { week, weekText } from '../src/week.ts';
import { renderNow } from './helpers/render.ts';

const clock = fakeClock();
const dash = shell('dash');

/** Re-render the wrapper with its clock (libfaketime, in the spec env) at `when`. */
function clockAt(c: Case, when: string): void {
  const v = validateSpec({ ...c.spec, env: { ...c.spec.env, ...clock.envAt(when) } });
  assert.ok(v.spec, String(v.errors));
  for (const f of renderNow(v.spec!).files) if (f.path.endsWith('.sh')) writeFileSync(join(c.state, f.path), f.content, { mode: 0o755 });
}

/** Fire i of the day: 08:00:30 Berlin (07:00:30 UTC in December) plus i half hours (half a
 * minute in: libfaketime may read the clock a second early, which at 08:00:00 is outside the hours). */
const at = (i: number) => new Date(Date.parse('2026-12-03T07:00:30Z') + i * 30 * 60_000).toISOString();

async function day(c: Case, fires: number, during?: (i: number) => void): Promise<string[]> {
  const ran: string[] = [];
  for (let i = 0; i < fires; i++) {
    during?.(i);
    clockAt(c, at(i));
    const before = c.runs().length;
    const r = await run(c, dash);
    assert.is(r.code, 0, `fire ${i}: ${r.stderr}${c.log()}`);
    if (c.runs().length > before) ran.push(at(i));
  }
  return ran;
}

// idleEvery 230m, not the default 4h: a fire exactly 4 h after the paid wake may read its
// clock a second early under libfaketime, which would move the look by one fire.
test('a day of 30 fires with nothing changed: 3 wakes, then at most one every idleEvery; the skips say until when', async () => {
  assert.ok(await clock.ready(), 'libfaketime is ready');
  const c = makeCase({ spec: { idleEvery: '230m', schedule: { every: '30m', hours: { start: '08:00', end: '23:00' } } } });
  writeFileSync(join(c.repo, 'HEART.md'), '# Mission\nkeep the docs true\n');
  const ran = await day(c, 30);
  // The first wake has nothing to compare with; the next 3 changed nothing (07:30 to 08:30
  // UTC); then one look at the first fire 230 minutes or more after the last paid one.
  assert.equal(ran, [at(0), at(1), at(2), at(3), at(11), at(19), at(27)], c.log());
  for (let k = 4; k < ran.length; k++) assert.ok(Date.parse(ran[k]!) - Date.parse(ran[k - 1]!) >= 230 * 60_000, 'at most one paid wake every idleEvery');
  const skips = c.outcomes().filter((l) => l.startsWith('skip-idle '));
  assert.is(skips.length, 23);
  assert.match(skips[0]!, /^skip-idle 3 wakes in a row changed nothing; the next looks at 2026-12-03T12:20:(29|30)Z, or at the first fire after the repo, HEART\.md or STATE\.md changes$/);
});

test('an edit of HEART.md (or a file of the repo) makes the next fire run; a failure ends the backoff; idleAfter false never backs off', async () => {
  const c = makeCase({ spec: { idleAfter: 2 } });
  writeFileSync(join(c.repo, 'HEART.md'), '# Mission\nkeep the docs true\n');
  // A file's mtime comes from the kernel's coarse clock (a few ms a tick): an edit in the same
  // tick as the record's write would not be newer than it, so each edit waits 20 ms first.
  const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  const ran = await day(c, 8, (i) => {
    if (i === 4 || i === 6) pause();
    if (i === 4) writeFileSync(join(c.repo, 'HEART.md'), '# Mission\nkeep the docs true; the API page first\n');
    if (i === 6) writeFileSync(join(c.repo, 'notes.txt'), 'the person worked here\n');
  });
  // 0 has nothing to compare with; 1 and 2 changed nothing; 3 is skipped; 4 runs after the
  // HEART edit (its count starts over at 0), 5 runs (1); 6 runs after the edit of notes.txt; 7 runs (1).
  assert.equal(ran, [at(0), at(1), at(2), at(4), at(5), at(6), at(7)], c.log());

  const f = makeCase({ spec: { idleAfter: 1 } });
  f.behave('exit 0\n');
  await day(f, 3);
  assert.is(f.runs().length, 2, 'backed off after one wake that changed nothing');
  // A wake by hand runs, and its failure ends the backoff: the next fire runs.
  f.behave('exit 2\n');
  await run(f, dash, { args: ['--now'] });
  f.behave('exit 0\n');
  clockAt(f, at(3));
  await run(f, dash);
  assert.is(f.runs().length, 4, f.log());

  const off = makeCase({ spec: { idleAfter: false } });
  assert.equal((await day(off, 6)).length, 6, off.log());
});

test('plan says the backoff is on, and not when idleAfter is false', () => {
  const base = makeCase({ install: false }).spec;
  const text = (over: Record<string, unknown>) => weekText(week({ spec: { ...base, ...over }, scheduler: { id: 'systemd-user', hostClock: false }, now: Date.parse('2026-12-03T06:00:00Z'), hostZone: 'Europe/Berlin' })).join('\n');
  assert.match(text({}), /\nidle backoff: after 3 wakes in a row that change nothing \(the repo, HEART\.md, STATE\.md\), fires log skip-idle and run no agent until something changes or this long has passed since the last wake: 4h; the wakes counted next are the most there can be\n/);
  assert.match(text({ idleAfter: 1, idleEvery: '90m' }), /after 1 wake in a row .*: 90m;/);
  assert.not.match(text({ idleAfter: false }), /idle backoff/);
});

test.run();
