// hbgen doctor on a healthy install of every scheduler: the install's checks again, each
// passing, exit 0. The scheduler's listing compares the host with the rendered tree, so
// doctor must hand the backends the render (a cron install once failed "scheduler" on a
// healthy table, reading the block from an empty file list). systemd and launchd run on the
// recording STAND-INs of test/helpers/standins.ts, cron on the STAND-IN crontab; kubernetes
// runs off this host, where doctor starts nothing: it says so, a usage error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type Host, hb, installedOnStandInCrontab, makeHost } from './helpers/lifecycle.ts';

async function healthy(h: Host, entry: RegExp): Promise<void> {
  const state = readFileSync(join(names(h.spec).stateDir, 'state.json'));
  const d = await hb(h, 'doctor');
  assert.is(d.code, 0, d.out + d.err);
  assert.not.match(d.out, /FAIL/);
  assert.match(d.out, entry);
  assert.match(d.out, /\nit would run right now\n$/);
  assert.ok(readFileSync(join(names(h.spec).stateDir, 'state.json')).equals(state), 'state.json as it was');
}

for (const s of ['systemd-user', 'launchd'] as const) {
  test(`doctor on a healthy ${s} install: every check ok, exit 0`, async () => {
    const h = makeHost(s);
    const i = await hb(h, 'install', { yes: true });
    assert.is(i.code, 0, i.out + i.err);
    await healthy(h, /ok {4}scheduler: /);
  });
}

test('doctor on a healthy cron install: the block is found byte for byte as written, exit 0', async () => {
  const h = await installedOnStandInCrontab();
  await healthy(h, /ok {4}scheduler: crontab -l holds hbgen's block "docs" at lines \d+–\d+, byte for byte as written\n/);
});

test('doctor on kubernetes: it runs off this host, so doctor says where to look instead (exit 2)', async () => {
  const h = makeHost('kubernetes', { kubernetes: { image: 'ghcr.io/acme/agent:1.2', git: { url: 'https://github.com/acme/docs.git' } } } as never);
  const d = await hb(h, 'doctor');
  assert.is(d.code, 2, d.out + d.err);
  assert.match(d.err, /a kubernetes install runs off this host, where hbgen does not start jobs; run `hbgen status`/);
});

test.run();
