// The wake's bounds (spec limits) as the install panel and `hbgen status` show them: a
// `limits` row with the bounds and how this scheduler applies them, and with
// "limits": false one loud line, as the jail's when it is off (stand-in systemctl, the real
// wrapper). Also: the unit and the wrapper carry no bound then.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitsLine } from '../src/limits.ts';
import { names } from '../src/names.ts';
import { validateSpec } from '../src/spec.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const OFF = /\n {2}limits +OFF \("limits": false\): NOTHING BOUNDS A WAKE: a runaway agent \(a fork bomb, a memory leak\) can take every process and all the memory of this machine\n/;

test('install and status: the default bounds in a limits row, with how systemd applies them', async () => {
  const h = makeHost('systemd-user');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  // The panel's short line; status says how systemd applies them.
  assert.match(r.out, /\n {2}limits +tasks 4096, memory 50% of RAM, at most 8G, no swap, disk unbounded\n/, r.out);
  const s = await hb(h, 'status');
  assert.match(s.out, /\n {2}limits +tasks 4096, memory 50% of RAM, at most 8G, swap none; the service's TasksMax=, MemoryMax= and MemorySwapMax=0, .*; no bound on the disk or the private tmp \(docs\/threat-model\.md "Bounds on a wake"\)\n/, s.out);
  assert.equal(JSON.parse((await hb(h, 'status', { json: true })).out).limits, { on: true, tasks: 4096, memory: '50%', memoryCap: '8G' });
  const unit = readFileSync(join(h.home, '.config/systemd/user', `hbgen-${h.spec.name}.service`), 'utf8');
  assert.match(unit, /^TasksMax=4096\nMemoryMax=50%\nMemorySwapMax=0$/m);
});

test('"limits": false: one loud line in the panel and in status; no bound in the unit or the wrapper', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { limits: false });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, OFF, r.out);
  const s = await hb(h, 'status');
  assert.match(s.out, OFF, s.out);
  assert.equal(JSON.parse((await hb(h, 'status', { json: true })).out).limits, { on: false, tasks: null, memory: null, memoryCap: null });
  const unit = readFileSync(join(h.home, '.config/systemd/user', `hbgen-${h.spec.name}.service`), 'utf8');
  assert.not.match(unit, /TasksMax|MemoryMax/);
  assert.not.match(readFileSync(names(h.spec).wrapper, 'utf8'), /hbgen-bounds|hb_bnd/);
});

test('wakes stopped by a bound count toward the failing streak, and status names the bound', async () => {
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const at = (s: number) => new Date(Date.now() - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const detail = 'limits.tasks reached (4096 tasks of the user, inferred); raise limits.tasks in the spec';
  for (const [i, s] of [[1, 300], [2, 200], [3, 100]] as const) appendFileSync(names(h.spec).log, `${at(s)} hbgen docs start wake ${i}\n${at(s - 5)} hbgen docs fail 1 ${detail}\n`);
  const r = await hb(h, 'status');
  assert.match(r.out, new RegExp(`failing: the last 3 wakes in a row ended fail, denied, timeout or error \\(latest: fail 1 ${detail.replace(/[().]/g, '\\$&')} at `), r.out);
  assert.match(r.out, new RegExp(`last outcome: fail 1 ${detail.replace(/[().]/g, '\\$&')}`), r.out);
  assert.is.not(r.code, 0);
});

test('a size the spec sets is said as it is, a share without the cap; cron names its scope and rlimits; kubernetes bounds nothing of hbgen\'s', () => {
  const spec = (over: Record<string, unknown>) => {
    const v = validateSpec({ version: 1, name: 'x', repo: '/srv/x', agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'p' }, schedule: { scheduler: 'cron', every: '1h', hours: { start: '08:00', end: '18:00', timezone: 'UTC' } }, timeout: '20m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' }, sandbox: false, ...over });
    if (!v.spec) throw new Error(v.errors.join('\n'));
    return v.spec;
  };
  assert.match(limitsLine(spec({ limits: { memory: '2G', tasks: 500 } })), /^tasks 500, memory 2G, swap none; the wrapper runs the agent in a transient systemd scope \(systemd-run --user --scope\) where a user manager answers, else under rlimits/);
  assert.match(limitsLine(spec({ limits: { memory: '25%' } })), /^tasks 4096, memory 25% of RAM, swap none; /);
  const k8s = validateSpec(JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/specs/kubernetes.json'), 'utf8'))).spec!;
  assert.is(limitsLine(k8s), 'none of hbgen\'s: kubernetes.resources bound the pod (see docs/kubernetes.md)');
});

test.run();
