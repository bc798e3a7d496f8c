// issue 26: install proves the install where it runs. HEART.md is required (refused when
// missing or empty, status reports one removed after install); the install check runs the
// wrapper through the scheduler (STAND-IN systemctl/launchctl here: they record the call and
// run the unit's wrapper as the scheduler would, with no terminal), or under cron's documented
// environment for cron; a STAND-IN client that is "logged in" only with a terminal fails
// that check where the terminal's check passed.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { hb, makeHost } from './helpers/lifecycle.ts';

test('HEART.md missing: install refuses, naming hbgen init, and changes nothing', async () => {
  const h = makeHost('systemd-user');
  rmSync(join(h.repo, 'HEART.md'));
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /HEART\.md does not exist .*run `hbgen init .*` to scaffold it/);
  assert.match(r.err, /nothing was changed on this host/);
  assert.not.ok(existsSync(names(h.spec).stateDir), 'no state folder');
  assert.not.ok(h.tools.calls().some((c) => / (enable|start|daemon-reload)/.test(c)), h.tools.calls().join('\n'));
});

test('HEART.md empty (blank lines only): install refuses', async () => {
  const h = makeHost('cron');
  writeFileSync(join(h.repo, 'HEART.md'), '\n  \n');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /HEART\.md is empty: every wake reads its mission there/);
});

test('status reports a HEART.md removed after install (and is healthy again once it is back)', async () => {
  const h = makeHost('systemd-user');
  const i = await hb(h, 'install', { yes: true });
  assert.is(i.code, 0, i.out + i.err);
  const ok = await hb(h, 'status');
  assert.not.match(ok.out, /HEART\.md was/);
  rmSync(join(h.repo, 'HEART.md'));
  const s = await hb(h, 'status');
  assert.is(s.code, 1, s.out);
  assert.match(s.out, /problem {2}.*HEART\.md was removed since install: every wake now runs with no mission/);
  const j = await hb(h, 'status', { json: true });
  assert.ok(JSON.parse(j.out).problems.some((p: { code: string }) => p.code === 'heart-missing'), j.out);
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\nagain\n');
  assert.not.match((await hb(h, 'status')).out, /HEART\.md was/);
});

test.run();
