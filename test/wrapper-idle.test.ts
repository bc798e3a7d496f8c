// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Idle backoff (spec idleAfter, idleEvery): a simulated day of 30 fires (libfaketime, every
// 30 minutes from 08:00 to 22:30 in Berlin) in which nothing changes runs the agent idleAfter
// times and then at most once every idleEvery; an edit of HEART.md makes the next fire run;
// a failing wake ends the backoff; with idleAfter false every fire runs. The agent's own
// "Next useful wake: not before" line in STATE.md skips the fires before it (never longer
// than idleEvery), until the person changes something.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { SHELLS, type Case, join, makeCase, run, shell } from './helpers/wrapper.ts';
import { fakeClock } from './helpers/faketime.ts';
import { week, weekText } from '../src/week.ts';
import { rerenderAt } from './helpers/render.ts';

const clock = fakeClock();
const dash = shell('dash');

const clockAt = (c: Case, when: string): void => rerenderAt(clock, c, when);

/** Fire i of the day: 08:00:30 Berlin (07:00:30 UTC in December) plus i half hours (half a
 * minute in: libfaketime may read the clock a second early, which at 08:00:00 is outside the hours). */
const at = (i: number) => new Date(Date.parse('2026-12-03T07:00:30Z') + i * 30 * 60_000).toISOString();

async function day(c: Case, fires: number, during?: (i: number) => void): Promise<string[]> {
  return fireAt(c, Array.from({ length: fires }, (_, i) => at(i)), during);
}

/** One scheduled fire at each of `times` (UTC instants): those that ran the agent. */
async function fireAt(c: Case, times: string[], during?: (i: number) => void, sh = dash): Promise<string[]> {
  const ran: string[] = [];
  for (const [i, t] of times.entries()) {
    during?.(i);
    clockAt(c, t);
    const before = c.runs().length;
    const r = await run(c, sh);
    assert.is(r.code, 0, `fire ${i}: ${r.stderr}${c.log()}`);
    if (c.runs().length > before) ran.push(t);
  }
  return ran;
}

/** The idle record's fields ("N PAID[ NOTBEFORE]"). */
const record = (c: Case): number[] => readFileSync(join(c.state, 'idle'), 'utf8').trim().split(' ').map(Number);

/** An agent that writes STATE.md with `line` (a printf format: \\n makes a new line) at its first wake only, as one would that has nothing to do before then. */
function asks(c: Case, line: string): void {
  c.behave(`[ -e "$d/asked" ] || { printf '# STATE\\n\\n## Next\\n\\n- the release, once the API is out\\n${line}\\n' >STATE.md; : >"$d/asked"; }\n`);
}

/** A file's mtime comes from the kernel's coarse clock: an edit waits 20 ms, so that it is newer than the record the wake before it wrote. */
const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);

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
  // Each edit waits 20 ms first (pause): an edit in the same tick as the record's write would
  // not be newer than it.
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

// Fires in Berlin (UTC+1 in December): at(i) is 08:00:30 local plus i half hours.
test('the agent asks for no wake before 10:15: the fires before it skip and say so, the first at or after it runs; --now runs anyway', async () => {
  const c = makeCase({});
  asks(c, 'Next useful wake: not before 2026-12-03 10:15');
  const ran = await day(c, 6);
  assert.equal(ran, [at(0), at(5)], c.log());
  // The wake that wrote the line changed STATE.md (its count starts over); the time is its
  // third field, 10:15 Berlin.
  const skips = c.outcomes().filter((l) => l.startsWith('skip-idle '));
  assert.equal(skips, Array(4).fill('skip-idle the agent asked for no wake before 2026-12-03T09:15:00Z (STATE.md); the next looks then, or at the first fire after the repo, HEART.md or STATE.md changes'), c.log());
  // After 10:15 the line is past: the record holds no time, and the wakes follow the streak.
  assert.is(record(c).length, 2, readFileSync(join(c.state, 'idle'), 'utf8'));

  const n = makeCase({});
  asks(n, 'Next useful wake: not before 2026-12-03 12:00');
  await day(n, 2);
  assert.is(n.runs().length, 1, n.log());
  assert.is(record(n)[2], Date.parse('2026-12-03T11:00:00Z') / 1000);
  clockAt(n, at(2));
  await run(n, dash, { args: ['--now'] });
  assert.is(n.runs().length, 2, `a wake by hand is not skipped: ${n.log()}`);
  // It left STATE.md as it was: the line still holds, and the next fire is skipped again.
  await day(n, 4);
  assert.is(n.runs().length, 2, n.log());
  assert.match(n.outcomes().at(-1)!, /^skip-idle the agent asked for no wake before 2026-12-03T11:00:00Z/);
});

test('a time past idleEvery is cut to it; one beyond the working window skips the next fires inside the hours up to it', async () => {
  const c = makeCase({ spec: { idleEvery: '230m' } });
  asks(c, 'Next useful wake: not before 2026-12-04 09:00');
  const ran = await day(c, 9);
  // 230 minutes after the paid wake at 08:00:30 (its clock may read a second early).
  assert.equal(ran, [at(0), at(8)], c.log());
  assert.match(c.outcomes().find((l) => l.startsWith('skip-idle'))!, /^skip-idle the agent asked for no wake before 2026-12-03T10:50:(29|30)Z \(STATE\.md\)/);

  // Hours 08:00 to 10:00 Berlin, idleEvery 26h: the line asks for tomorrow 09:00.
  const w = makeCase({ spec: { idleEvery: '26h', schedule: { every: '30m', hours: { start: '08:00', end: '10:00' } } } });
  asks(w, 'Next useful wake: not before 2026-12-04 09:00');
  const t = (d: number, hm: string) => new Date(Date.parse(`2026-12-0${d}T${hm}:30+01:00`)).toISOString();
  const times = [t(3, '08:00'), t(3, '08:30'), t(3, '09:30'), t(3, '10:30'), t(3, '22:00'), t(4, '08:00'), t(4, '08:30'), t(4, '09:00'), t(4, '09:30')];
  assert.equal(await fireAt(w, times), [t(3, '08:00'), t(4, '09:00'), t(4, '09:30')], w.log());
  const outs = w.outcomes().filter((l) => l.startsWith('skip'));
  assert.equal(outs.map((l) => l.split(' ')[0]), ['skip-idle', 'skip-idle', 'skip-window', 'skip-window', 'skip-idle', 'skip-idle'], w.log());
  assert.match(outs[0]!, /^skip-idle the agent asked for no wake before 2026-12-04T08:00:00Z/);
});

test('the person edits STATE.md: the next fire runs, and reads the line again; a file of the repo too', async () => {
  const c = makeCase({});
  asks(c, 'Next useful wake: not before 2026-12-03 12:00');
  const ran = await day(c, 5, (i) => {
    if (i !== 2) return;
    pause();
    writeFileSync(join(c.repo, 'STATE.md'), `${readFileSync(join(c.repo, 'STATE.md'), 'utf8')}- a note of the person's\n`);
  });
  // Fire 2 runs after the edit; the line is still there, so fires 3 and 4 skip again.
  assert.equal(ran, [at(0), at(2)], c.log());
  assert.is(record(c)[2], Date.parse('2026-12-03T11:00:00Z') / 1000);
  // The person removes the line: the next fire runs, and the record holds no time any more.
  pause();
  writeFileSync(join(c.repo, 'STATE.md'), '# STATE\n');
  clockAt(c, at(5));
  await run(c, dash);
  assert.is(c.runs().length, 3, c.log());
  assert.is(record(c).length, 2);
  // Another file of the repo also makes the next fire run; the line, unread, still holds.
  const o = makeCase({});
  asks(o, 'Next useful wake: not before 2026-12-03 12:00');
  assert.equal(await day(o, 4, (i) => i === 2 && (pause(), writeFileSync(join(o.repo, 'notes.txt'), 'x\n'))), [at(0), at(2)], o.log());
  assert.is(record(o)[2], Date.parse('2026-12-03T11:00:00Z') / 1000);
});

test('a line of another shape is a note (once, where it is read) and no skip; the shape accepts trailing blanks and a CRLF', async () => {
  const NOTE = 'note STATE.md: its "Next useful wake: not before" line is not understood, and wakes follow the schedule; write it as "Next useful wake: not before YYYY-MM-DD HH:MM" (the wall time of the working time zone, as the context block\'s Local time gives it) or remove it';
  const c = makeCase({});
  asks(c, 'Next useful wake: not before tomorrow 9:00');
  assert.equal(await day(c, 4), [at(0), at(1), at(2), at(3)], c.log());
  assert.equal(c.outcomes().filter((l) => l.startsWith('note STATE.md')), [NOTE], c.log());
  for (const bad of ['2026-12-3 12:00', '2026-12-03 9:00', '2026-02-30 12:00', '2026-13-01 12:00', '2026-12-03 24:00', '2026-12-03 12:60', '2026-12-03 12:00 CET', '2026-12-03T12:00', ' 2026-12-03 12:00', '1969-12-31 12:00', '0899-12-31 12:00', '2026-00-10 12:00', '2026-12-00 12:00']) {
    const b = makeCase({});
    asks(b, `Next useful wake: not before ${bad}`);
    await day(b, 2);
    assert.is(b.runs().length, 2, `${bad}: ${b.log()}`);
    assert.ok(b.outcomes().includes(NOTE), `${bad}: ${b.log()}`);
  }
  for (const good of ['2026-12-03 12:00   ', '2026-12-03 12:00\t', '2026-12-03 12:00\r']) {
    const g = makeCase({});
    asks(g, `Next useful wake: not before ${good}`);
    await day(g, 2);
    assert.is(g.runs().length, 1, `${JSON.stringify(good)}: ${g.log()}`);
    assert.not.ok(g.outcomes().some((l) => l.startsWith('note')), g.log());
  }
  // Only the first such line counts; one not at the start of a line is no such line.
  const f = makeCase({});
  asks(f, '  Next useful wake: not before 2026-12-03 09:00\\nNext useful wake: not before 2026-12-03 12:00\\nNext useful wake: not before 2026-12-03 09:00');
  await day(f, 3);
  assert.is(f.runs().length, 1, f.log());
  assert.is(record(f)[2], Date.parse('2026-12-03T11:00:00Z') / 1000);
});

test('STATE.md as a link or a FIFO is not read (no wait on the FIFO); a time already past is no time; idleAfter false ignores the line', async () => {
  const l = makeCase({});
  writeFileSync(join(l.dir, 'elsewhere.md'), 'Next useful wake: not before 2026-12-03 12:00\n');
  symlinkSync(join(l.dir, 'elsewhere.md'), join(l.repo, 'STATE.md'));
  assert.equal(await day(l, 2), [at(0), at(1)], l.log());
  assert.is(record(l).length, 2);
  const f = makeCase({});
  assert.is(spawnSync('mkfifo', [join(f.repo, 'STATE.md')]).status, 0);
  clockAt(f, at(0));
  const r = await run(f, dash, { limitMs: 10_000 });
  assert.is(r.code, 0, f.log());
  assert.ok(r.ms < 8000, `the wake did not wait on the FIFO (${r.ms} ms)`);
  assert.equal(f.outcomes().filter((o) => o !== 'start wake 1'), ['quiet'], f.log());
  assert.is(record(f).length, 2);
  const p = makeCase({});
  asks(p, 'Next useful wake: not before 2026-12-03 07:00');
  assert.equal(await day(p, 2), [at(0), at(1)], p.log());
  assert.is(record(p).length, 2);
  const off = makeCase({ spec: { idleAfter: false } });
  asks(off, 'Next useful wake: not before 2026-12-03 12:00');
  assert.equal((await day(off, 3)).length, 3, off.log());
  assert.not.ok(off.outcomes().some((o) => o.startsWith('skip-idle')));
});

test('every shell reads the line (CRLF, among 3000 other lines) and skips the fire before it; a bad line is the note', async () => {
  for (const sh of SHELLS) {
    const c = makeCase({});
    asks(c, `${'- a done item\\n'.repeat(3000)}Next useful wake: not before 2026-12-03 09:15\r`);
    assert.equal(await fireAt(c, [at(0), at(1), at(3)], undefined, sh), [at(0), at(3)], `${sh.name}: ${c.log()}`);
    assert.match(c.outcomes().find((l) => l.startsWith('skip-idle'))!, /^skip-idle the agent asked for no wake before 2026-12-03T08:15:00Z/, sh.name);
    const b = makeCase({});
    asks(b, 'Next useful wake: not before 2026-12-03 08:60');
    await fireAt(b, [at(0), at(1)], undefined, sh);
    assert.is(b.runs().length, 2, `${sh.name}: ${b.log()}`);
    assert.ok(b.outcomes().some((l) => l.startsWith('note STATE.md: its "Next useful wake: not before" line is not understood')), `${sh.name}: ${b.log()}`);
  }
});

test('plan says the backoff is on, and not when idleAfter is false', () => {
  const base = makeCase({ install: false }).spec;
  const text = (over: Record<string, unknown>) => weekText(week({ spec: { ...base, ...over }, scheduler: { id: 'systemd-user', hostClock: false }, now: Date.parse('2026-12-03T06:00:00Z'), hostZone: 'Europe/Berlin' })).join('\n');
  assert.match(text({}), /\nidle backoff: after 3 wakes in a row that change nothing \(the repo, HEART\.md, STATE\.md\), fires log skip-idle and run no agent until something changes or this long has passed since the last wake: 4h; the agent can also ask for no wake before a time, never later than that \(a "Next useful wake: not before" line in STATE\.md\); the wakes counted next are the most there can be\n/);
  assert.match(text({ idleAfter: 1, idleEvery: '90m' }), /after 1 wake in a row .*: 90m;/);
  assert.not.match(text({ idleAfter: false }), /idle backoff/);
});

test.run();
