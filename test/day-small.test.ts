// The smaller things a new user met on day one: the untouched HEART.md template is refused
// at install; "5pm" gets a suggestion; a misspelled field's "did you mean"
// comes before the "required" it causes; the schedule summary does not read as if the
// window's start were a fire; the systemd unit's Documentation= points at what hbgen
// installed, not at a man page.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderHeartMd } from '../src/gen/templates.ts';
import { names } from '../src/names.ts';
import { renderSpec } from '../src/pipeline.ts';
import { plan, summary } from '../src/schedule.ts';
import { SCHEDULERS } from '../src/schedulers.ts';
import { validateSpec } from '../src/spec.ts';
import { baseSpec, hb, makeHost } from './helpers/lifecycle.ts';

const spec = (over: Record<string, unknown> = {}) => ({ ...baseSpec('/tmp/x', 'systemd-user'), ...over });

test('install: HEART.md as hbgen init wrote it (no mission) is refused, naming the fix and --force-empty-heart; with that flag a caveat; a mission written, neither', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(join(h.repo, 'HEART.md'), renderHeartMd({ name: 'docs' }));
  let r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /\S+HEART\.md has no mission yet \(its "## Mission" section is empty but for hbgen init's hint\): every wake would spend your plan's allowance with nothing to work for; write the mission and current priorities there and install again \(or install with --force-empty-heart when the prompt alone is the mission\)/);
  r = await hb(h, 'install', { dryRun: true, forceEmptyHeart: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /caveats:\n(?: {2}- .*\n)* {2}- HEART\.md holds no mission \(installed with --force-empty-heart\)/);
  // A Mission heading followed at once by the next section is empty too.
  writeFileSync(join(h.repo, 'HEART.md'), '# Heart\n\n## Mission\n\n## Current priorities\n- docs\n');
  assert.is((await hb(h, 'install', { dryRun: true })).code, 1);
  writeFileSync(join(h.repo, 'HEART.md'), renderHeartMd({ name: 'docs' }).replace(/(## Mission\n\n<!--[\s\S]*?-->\n)/, '$1\nKeep the docs current for new users.\n'));
  r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.not.match(r.out + r.err, /no mission/);
  // A HEART.md of the person's own shape (no Mission heading) is theirs to judge.
  writeFileSync(join(h.repo, 'HEART.md'), 'Keep the docs current.\n');
  assert.is((await hb(h, 'install', { dryRun: true })).code, 0);
});

test('"5pm", "5:30 PM", "12am" as a time: the 24-hour spelling to write', () => {
  for (const [v, fix] of [['5pm', '17:00'], ['5:30 PM', '17:30'], ['12am', '00:00'], ['12pm', '12:00'], ['9 a.m.', '09:00']]) {
    const r = validateSpec(spec({ schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: v, end: '23:00', timezone: 'UTC' } } }));
    assert.equal(r.errors, [`schedule.hours.start: must be a time as "HH:MM" (00:00–23:59), got "${v}"; write "${fix}"`], v);
  }
});

test('"evry": the did-you-mean line first, then the "required" of the field it meant', () => {
  const r = validateSpec(spec({ schedule: { scheduler: 'systemd-user', evry: '30m', hours: { start: '08:00', end: '23:00', timezone: 'UTC' } } }));
  assert.equal(r.errors!.slice(0, 2), ['schedule.evry: unknown field; did you mean "every"?', 'schedule.every: required: choose the interval between wakes, one of 5m 10m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 24h']);
});

test('the summary says the minutes past each hour and the window as a window', () => {
  const s = validateSpec(spec())!.spec!;
  assert.is(summary(s, plan(s), SCHEDULERS['systemd-user']), 'fires at :07 and :37 past each hour, in the window 08:00–23:00 Europe/Berlin, every day');
});

test('the unit\'s Documentation= is the installed wrapper as a file: URI (percent-encoded, % doubled for systemd), then systemd.service(5)', async () => {
  const s = validateSpec(spec({ stateDir: '/home/ada/state dir %n' }))!.spec!;
  const unit = (await renderSpec(s)).files.find((f) => f.path === `host/${names(s).service}`)!.content;
  const doc = /^Documentation=(\S+) man:systemd\.service\(5\)$/m.exec(unit)?.[1];
  assert.is(doc, 'file:///home/ada/state%%20dir%%20%%25n/heartbeat.sh');
  assert.is(decodeURIComponent(doc!.replace(/%%/g, '%').slice('file://'.length)), names(s).wrapper);
});

test.run();
