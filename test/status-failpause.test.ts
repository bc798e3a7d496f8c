// The pause after failures as the person sees it (stand-in systemctl, the real installed
// heartbeat.sh run as the scheduler runs it): status says `paused after N failures since
// <time>: <last outcome>; hbgen resume --now` and exits 1; `hbgen resume --now` ends it
// without a reinstall; the install of a changed spec ends it (one that changes nothing says
// how it ends); an edit of HEART.md ends it at the next fire.
// Idle backoff: status says idle, not broken (a note; healthy), also when the agent asked for
// no wake before a time.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAIL_PAUSE_FILE, IDLE_FILE } from '../src/formats.ts';
import { names } from '../src/names.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

/** One scheduled fire: the installed wrapper under /bin/sh, not by hand (no --now). */
function fire(state: string): number | null {
  return spawnSync('/bin/sh', [join(state, 'heartbeat.sh')], { env: { PATH: '/usr/bin:/bin' }, stdio: 'ignore' }).status;
}

// The wrapper reads the real clock, so the window is the whole day: every fire is a wake,
// whenever the suite runs.
const ALL_DAY = { scheduler: 'systemd-user' as const, every: '30m' as const, minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } };

test('status: paused after N failures, exit 1; resume --now ends it; a new install ends it; a HEART.md edit ends it', async () => {
  const h = makeHost('systemd-user', { pauseAfter: 2, schedule: ALL_DAY });
  const state = names(h.spec).stateDir;
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  assert.match(inst.out, /\n {2}pause {6}after 2 failing wakes in a row/, inst.out);
  writeFileSync(h.bin, '#!/bin/sh\necho "cannot reach the build server"\nexit 3\n');
  const pausedBy = async () => {
    for (let i = 0; i < 3; i++) fire(state);
    assert.ok(existsSync(join(state, FAIL_PAUSE_FILE)), 'paused');
  };
  await pausedBy();
  let st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /paused after 2 failures since \d{4}-\d\d-\d\d \d\d:\d\d Europe\/Berlin \([^)]+\): fail 3; hbgen resume --now \(its fires log skip-paused and run no agent/, st.out);
  assert.not.match(st.out, /failing: the last/, 'said once, as the pause');
  const js = JSON.parse((await hb(h, 'status', { json: true })).out);
  assert.ok(js.problems.some((p: { code: string }) => p.code === 'paused-failing'), JSON.stringify(js.problems));

  const r = await hb(h, 'resume', { resumeNow: true });
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /"docs" was paused after 2 failing wakes in a row since .*; the pause is ended, and the next fire runs the agent/);
  assert.not.ok(existsSync(join(state, FAIL_PAUSE_FILE)));
  st = await hb(h, 'status');
  assert.not.match(st.out, /paused after \d+ failures since/, st.out);

  // The streak is kept: the next failing fire pauses again; a new install ends it.
  fire(state);
  assert.ok(existsSync(join(state, FAIL_PAUSE_FILE)), 'paused again by one more failure');
  // An install that changes nothing says how the pause ends; one of a changed spec ends it.
  const same = await hb(h, 'install', { yes: true });
  assert.match(same.out, /nothing changed, and it stays paused after 3 failing wakes in a row: `hbgen resume --now` ends that pause/, same.out);
  rewriteSpec(h, { timeout: '9m', schedule: ALL_DAY });
  const again = await hb(h, 'install', { yes: true });
  assert.is(again.code, 0, again.out + again.err);
  assert.match(again.out, /hbgen: the pause after failing wakes is ended by this install; the next fire runs the agent/);
  assert.not.ok(existsSync(join(state, FAIL_PAUSE_FILE)));

  // A HEART.md edit: the next fire runs the agent.
  fire(state);
  assert.ok(existsSync(join(state, FAIL_PAUSE_FILE)));
  writeFileSync(h.bin, '#!/bin/sh\necho fixed\nexit 0\n');
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\nKeep the docs true; the build server moved.\n');
  assert.is(fire(state), 0);
  assert.not.ok(existsSync(join(state, FAIL_PAUSE_FILE)));
  st = await hb(h, 'status');
  assert.not.match(st.out, /paused after \d+ failures since/, st.out);
});

test('status tells idle from broken: the idle backoff is a note, and status stays healthy', async () => {
  const h = makeHost('systemd-user');
  const state = names(h.spec).stateDir;
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  // As the wrapper leaves it after three wakes that changed nothing, the last paid one at 10:07 UTC.
  writeFileSync(join(state, IDLE_FILE), `3 ${Date.parse('2026-12-03T10:07:00Z') / 1000}\n`);
  const st = await hb(h, 'status', { now: () => new Date('2026-12-03T11:00:00Z') });
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /idle, not broken: the last 3 wakes changed nothing, so fires until 2026-12-03 15:07 Europe\/Berlin \(2026-12-03T14:07Z\) log skip-idle and run no agent, unless the repo, HEART\.md or STATE\.md changes first/, st.out);
  writeFileSync(join(state, IDLE_FILE), `2 ${Date.parse('2026-12-03T10:07:00Z') / 1000}\n`);
  assert.not.match((await hb(h, 'status')).out, /idle, not broken/, 'not yet idle after 2');
  // The agent's "Next useful wake: not before" line, as the wrapper keeps it: a third field.
  writeFileSync(join(state, IDLE_FILE), `0 ${Date.parse('2026-12-03T10:07:00Z') / 1000} ${Date.parse('2026-12-03T12:30:00Z') / 1000}\n`);
  const asked = await hb(h, 'status', { now: () => new Date('2026-12-03T11:00:00Z') });
  assert.is(asked.code, 0, asked.out);
  assert.match(asked.out, /idle, not broken: the agent asked for no wake before 2026-12-03 13:30 Europe\/Berlin \(2026-12-03T12:30Z\) \(its "Next useful wake: not before" line in STATE\.md\), so fires until then log skip-idle and run no agent, unless the repo, HEART\.md or STATE\.md changes first/, asked.out);
  assert.not.match((await hb(h, 'status', { now: () => new Date('2026-12-03T12:31:00Z') })).out, /idle, not broken/, 'the time asked for is past');
});

test.run();
