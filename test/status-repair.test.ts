// status repairs hbgen's own state-folder files only into a real folder, never through a
// link: a host/ or a whole state folder that is a symbolic link is reported
// as a problem (exit 1) and nothing is written where it points. In-process against a cron
// install on a recording STAND-IN crontab (never a real user's table), its state folder
// outside the repo.
import { readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { hb, installedOnStandInCrontab } from './helpers/lifecycle.ts';

const installed = installedOnStandInCrontab;

test('a changed file in a real state folder is still repaired (the rule the links below must not bend)', async () => {
  const h = await installed();
  const n = names(h.spec);
  const good = readFileSync(n.gate);
  writeFileSync(n.gate, '#!/bin/sh\nexit 0\n');
  const r = await hb(h, 'status');
  // Repaired, and a problem all the same: only a process with the person's rights could have
  // changed it, so status exits 1 until the next install.
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.out, /tampered: .*window\.sh differed from what hbgen installed \(changed\); hbgen put the installed bytes back/);
  assert.ok(readFileSync(n.gate).equals(good));
});

test('host/ as a symbolic link: status says so (exit 1) and writes nothing where it points', async () => {
  const h = await installed();
  const n = names(h.spec);
  const host = join(n.stateDir, 'host');
  const elsewhere = join(h.root, 'elsewhere');
  renameSync(host, elsewhere);
  symlinkSync(elsewhere, host);
  const victim = join(elsewhere, 'crontab');
  writeFileSync(victim, 'the victim\n');
  const before = readdirSync(elsewhere).sort();
  const r = await hb(h, 'status');
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.out, new RegExp(`problem  ${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a symbolic link, which hbgen never writes through`));
  assert.not.match(r.out, /repaired:/);
  assert.not.match(r.out, /\nhealthy\n/);
  assert.is(readFileSync(victim, 'utf8'), 'the victim\n', 'nothing was written through the link');
  assert.equal(readdirSync(elsewhere).sort(), before, 'no temporary file was left there either');
});

test('the state folder as a symbolic link: status says the wrapper refuses it (exit 1), repairs nothing and does not rewrite state.json through it', async () => {
  const h = await installed();
  const n = names(h.spec);
  const real = `${n.stateDir}.real`;
  renameSync(n.stateDir, real);
  symlinkSync(real, n.stateDir);
  writeFileSync(join(real, 'window.sh'), '#!/bin/sh\nexit 0\n');
  const state = readFileSync(join(real, 'state.json'));
  const r = await hb(h, 'status');
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.out, new RegExp(`problem  ${n.stateDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a symbolic link, which the wrapper refuses`));
  assert.not.match(r.out, /repaired:/);
  assert.is(readFileSync(join(real, 'window.sh'), 'utf8'), '#!/bin/sh\nexit 0\n', 'window.sh was not repaired through the link');
  assert.ok(readFileSync(join(real, 'state.json')).equals(state), 'state.json was not rewritten through the link');
  const j = await hb(h, 'status', { json: true });
  assert.ok((JSON.parse(j.out) as { problems: { code: string }[] }).problems.some((p) => p.code === 'state-link'), j.out);
});

test.run();
