// A wake that hits the plan's limit (a `command` agent's
// exit 75 here; the client message forms are tested in wrapper-limit) is `limit until`,
// the wakes after it are skipped, status stays healthy and says until when, the failing
// streak never counts it, and `hbgen resume --now` ends the pause without a reinstall.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { hb, makeHost } from './helpers/lifecycle.ts';

test('stand-in systemctl: limit, skip-limit, status healthy and paused, no failing streak, resume --now ends the pause only', async () => {
  const h = makeHost('systemd-user');
  const state = names(h.spec).stateDir;
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const stateJson = readFileSync(join(state, 'state.json'), 'utf8');
  writeFileSync(h.bin, '#!/bin/sh\necho "quota gone"\necho "retry-after: 7200"\nexit 75\n');
  const w = await hb(h, 'wake');
  assert.is(w.code, 0, w.out + w.err);
  assert.match(w.out, /^wake 1: limit until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ after \d+ s/m);
  assert.is(readFileSync(join(state, 'wakes'), 'utf8'), '0\n', 'the wake was given back');
  // Three more tries (by hand, as a scheduler's fires would): skipped, not failures.
  for (let i = 0; i < 3; i++) {
    const s = await hb(h, 'wake');
    assert.is(s.code, 0);
    assert.match(s.out, /^wake: skip-limit until \S+ \(see /m);
  }
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /note {5}paused by the plan's limit until \d{4}-\d\d-\d\d \d\d:\d\d Europe\/Berlin \([^)]+\) \(the agent's client said: "retry-after: 7200"\): wakes until then are skipped \(skip-limit\); `hbgen resume --now` ends the pause by hand/);
  assert.not.match(st.out, /API key|extra usage|usage credits/i);
  // The same, for scripts: healthy, with the pause's end in UTC and in the working zone.
  const js = await hb(h, 'status', { json: true });
  assert.is(js.code, 0, js.out);
  const doc = JSON.parse(js.out);
  assert.is(doc.healthy, true);
  assert.match(doc.paused.until, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.match(doc.paused.working, /Europe\/Berlin/);
  assert.is(doc.paused.message, 'retry-after: 7200');
  // Several limit wakes in a row (the pause ended by hand each time) are no failing streak.
  for (let i = 0; i < 3; i++) {
    assert.is((await hb(h, 'resume', { resumeNow: true })).code, 0);
    assert.match((await hb(h, 'wake')).out, /^wake 1: limit until /m);
  }
  st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.not.match(st.out, /failing/);
  // resume --now: the pause file goes, nothing is reinstalled (state.json untouched).
  const r = await hb(h, 'resume', { resumeNow: true });
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /was paused by the plan's limit until .*; the pause is ended, and the next wake runs the agent \(nothing was reinstalled\)/);
  assert.not.ok(existsSync(join(state, 'paused')));
  const noHealth = (t: string) => ({ ...JSON.parse(t), health: undefined });
  assert.equal(noHealth(readFileSync(join(state, 'state.json'), 'utf8')), noHealth(stateJson));
  assert.match((await hb(h, 'resume', { resumeNow: true })).out, /is not paused by the plan's limit; nothing changed/);
  st = await hb(h, 'status');
  assert.not.match(st.out, /paused by/);
  writeFileSync(h.bin, '#!/bin/sh\necho fine\n');
  assert.match((await hb(h, 'wake')).out, /^wake 1: quiet after \d+ s/m);
  // Three real failures still make the install unhealthy, limits in between or not.
  writeFileSync(h.bin, '#!/bin/sh\necho broken\nexit 1\n');
  for (let i = 0; i < 3; i++) assert.is((await hb(h, 'wake')).code, 1);
  assert.is((await hb(h, 'status')).code, 1);
});

test('resume --now with --reset-cap is a usage error', async () => {
  const h = makeHost('systemd-user');
  const r = await hb(h, 'resume', { resumeNow: true, resetCap: true });
  assert.is(r.code, 2);
  assert.match(r.err, /--now only ends the pauses \(the plan's limit's, and the one after failing wakes\) and cannot be combined with --reset-cap/);
});

test.run();
