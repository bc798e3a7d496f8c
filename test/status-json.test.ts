// hbgen status --json: one JSON document on stdout with stable field names,
// the same exit status as the human form, made from the same findings (every problem the
// panel says is in the document, with a stable code, in the same order), and colour only on
// a terminal without NO_COLOR and never in JSON. Against the stand-in systemctl and the real
// rendered heartbeat.sh, as the other lifecycle tests.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { problemOf, isoIn } from '../src/host/audit/audit.ts';
import { names } from '../src/names.ts';
import { plan } from '../src/schedule.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

/** The document's fields, in order: docs/commands.md's list (a rename breaks scripts). */
const FIELDS = ['format', 'name', 'scheduler', 'repo', 'stateDir', 'state', 'healthy', 'problems', 'info', 'lastWake', 'nextFire', 'wakes', 'cap', 'billing', 'heart', 'running', 'paused', 'jail', 'limits', 'workspace', 'usage', 'checkedAt'];
const ESC = /\u001b/;

async function json(h: Host, opts: Parameters<typeof hb>[2] = {}) {
  const r = await hb(h, 'status', { ...opts, json: true });
  assert.not.match(r.out, ESC, 'no colour in JSON');
  const doc = JSON.parse(r.out);
  return { code: r.code, doc, err: r.err };
}

/** The human panel's problem lines, as said. */
const problemLines = (out: string) => out.split('\n').filter((l) => l.startsWith('  problem  ')).map((l) => l.slice(11));

test('not installed: a document (healthy false, code "not-installed") and exit 1, as the human form', async () => {
  const h = makeHost('systemd-user');
  const human = await hb(h, 'status');
  const { code, doc } = await json(h);
  assert.is(human.code, 1);
  assert.is(code, 1);
  assert.equal(Object.keys(doc), FIELDS);
  assert.is(doc.format, 1);
  assert.is(doc.name, 'docs');
  assert.is(doc.scheduler, 'systemd-user');
  assert.is(doc.repo, h.spec.repo);
  assert.is(doc.stateDir, names(h.spec).stateDir);
  assert.is(doc.state, 'not-installed');
  assert.is(doc.healthy, false);
  assert.is(doc.problems.length, 1);
  assert.is(doc.problems[0].code, 'not-installed');
  assert.match(doc.problems[0].message, /hbgen install/);
  for (const k of ['lastWake', 'nextFire', 'running', 'paused', 'billing', 'heart', 'wakes', 'cap']) assert.is(doc[k], null, k);
});

test('a spec that does not load: still one document (code "cannot-audit"), the line on stderr too, exit 1', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(h.specFile, '{"version": 1');
  const { code, doc, err } = await json(h);
  assert.is(code, 1);
  assert.is(doc.healthy, false);
  assert.is(doc.problems[0].code, 'cannot-audit');
  assert.match(err, /^hbgen: .*hbgen\.json/);
});

test('installed and woken: healthy, the last wake, the next fire in both clocks, wakes, billing, HEART.md; exit 0 both ways', async () => {
  const h = makeHost('systemd-user', { lock: 'flock' });
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\nWrite the docs.\n');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  const now = new Date();
  const human = await hb(h, 'status', { now: () => now });
  const { code, doc } = await json(h, { now: () => now });
  assert.is(human.code, 0, human.out);
  assert.is(code, 0, JSON.stringify(doc.problems));
  assert.equal(Object.keys(doc), FIELDS);
  assert.is(doc.state, 'installed');
  assert.is(doc.healthy, true);
  assert.equal(doc.problems, []);
  // The info lines are the panel's "ok" lines.
  assert.equal(doc.info, human.out.split('\n').filter((l) => /^ {2}(ok|note|warn) +/.test(l)).map((l) => l.slice(11)));
  assert.is(doc.lastWake.number, 1);
  assert.ok(['ok', 'quiet'].includes(doc.lastWake.outcome), doc.lastWake.outcome);
  assert.match(doc.lastWake.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.match(human.out, new RegExp(`last wake +1 by hand at ${doc.lastWake.time}, ${doc.lastWake.outcome} after`));
  assert.is(doc.wakes, 1);
  assert.is(doc.cap, null);
  // A `command` harness is not asked about billing: the record says so.
  assert.equal(doc.billing, { result: 'not checked', method: null, identity: null, checkedAt: null });
  assert.equal(doc.heart, { changed: false });
  assert.is(doc.running, null);
  // The next fire: the same instant in UTC and in the working zone, on the plan's grid (:07 and :37 Berlin time, 08:00–23:00).
  assert.is(doc.nextFire.zone, 'Europe/Berlin');
  assert.match(doc.nextFire.iso, /^\d{4}-\d\d-\d\dT\d\d:(07|37):00\.000Z$/);
  assert.match(doc.nextFire.working, /^\d{4}-\d\d-\d\dT\d\d:(07|37):00\+0[12]:00$/);
  assert.is(Date.parse(doc.nextFire.working), Date.parse(doc.nextFire.iso));
  assert.ok(Date.parse(doc.nextFire.iso) > now.getTime());
  const hour = Number(doc.nextFire.working.slice(11, 13));
  assert.ok(hour >= 8 && hour < 23, doc.nextFire.working);
  assert.is(plan(h.spec).everyMinutes, 30);
  // HEART.md edited: the next wake reads it.
  writeFileSync(join(h.repo, 'HEART.md'), '# Mission\nWrite the docs, and the tests.\n');
  assert.equal((await json(h)).doc.heart, { changed: true });
});

test('problems: the same messages as the panel, in order, each with its stable code; the same exit status', async () => {
  const h = makeHost('systemd-user', { lock: 'flock', cap: 1 });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  // The installed wrapper edited by hand where status cannot put it back (a host file): here the spec file changes.
  const raw = JSON.parse(readFileSync(h.specFile, 'utf8'));
  writeFileSync(h.specFile, JSON.stringify({ ...raw, timeout: '11m' }, null, 2));
  const human = await hb(h, 'status');
  const { code, doc } = await json(h);
  assert.is(human.code, 1);
  assert.is(code, 1);
  assert.is(doc.healthy, false);
  assert.equal(doc.problems.map((p: { message: string }) => p.message), problemLines(human.out));
  const codes = doc.problems.map((p: { code: string }) => p.code);
  assert.ok(codes.includes('drift'), codes.join(' '));
  assert.ok(codes.includes('cap'), codes.join(' '));
  for (const c of codes) assert.match(c, /^[a-z]+(-[a-z]+)*$/);
  assert.is(doc.wakes, 1);
  assert.is(doc.cap, 1);
});

test('stopped: code "stopped", exit 1 as the human form', async () => {
  const h = makeHost('systemd-user', { lock: 'flock' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is((await hb(h, 'wake')).code, 0);
  assert.is((await hb(h, 'stop')).code, 0);
  const human = await hb(h, 'status');
  const { code, doc } = await json(h);
  assert.is(human.code, 1);
  assert.match(human.out, /\n {2}stopped: there is no scheduler entry/);
  assert.is(code, 1);
  assert.is(doc.state, 'stopped');
  assert.equal(doc.problems.map((p: { code: string }) => p.code), ['stopped']);
  assert.is(doc.nextFire, null);
  // What it did before it stopped is still there for a script.
  assert.is(doc.lastWake.number, 1);
  assert.is(doc.wakes, 1);
});

test('a heartbeat running now: running.pid is its wrapper', async () => {
  const h = makeHost('systemd-user', { lock: 'flock', timeout: '20s', killAfter: '1s' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  writeFileSync(h.bin, '#!/bin/sh\necho agent started\nexec sleep 30\n');
  const n = names(h.spec);
  const child = spawn('/bin/sh', [n.wrapper, '--now'], { detached: true, stdio: 'ignore' });
  const exited = new Promise((res) => child.on('exit', res));
  try {
    for (let i = 0; i < 200 && !(existsSync(n.log) && / start wake 1 by hand\n/.test(readFileSync(n.log, 'utf8'))); i++) await new Promise((r) => setTimeout(r, 50));
    const { doc } = await json(h);
    assert.equal(doc.running, { pid: child.pid });
  } finally {
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
});

test('colour: on a terminal only, never with NO_COLOR, never in --json', async () => {
  const h = makeHost('systemd-user', { lock: 'flock' });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const tty = await hb(h, 'status', { outTTY: true });
  assert.match(tty.out, /\u001b\[32mhealthy\u001b\[0m\n$/);
  assert.match(tty.out, /\n {2}\u001b\[32mok\u001b\[0m {7}/);
  const plain = (await hb(h, 'status')).out;
  assert.not.match(plain, ESC);
  // The same bytes once the colour is taken out.
  assert.is(tty.out.replace(/\u001b\[\d+m/g, ''), plain);
  for (const env of [{ NO_COLOR: '1' }, { TERM: 'dumb' }] as Record<string, string>[]) assert.not.match((await hb(h, 'status', { outTTY: true, env })).out, ESC, JSON.stringify(env));
  // NO_COLOR set but empty does not count (no-color.org).
  assert.match((await hb(h, 'status', { outTTY: true, env: { NO_COLOR: '' } })).out, ESC);
  assert.not.match((await hb(h, 'status', { outTTY: true, json: true })).out, ESC);
  // Problems in red.
  writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), timeout: '11m' }, null, 2));
  const bad = await hb(h, 'status', { outTTY: true });
  assert.match(bad.out, /\n {2}\u001b\[31mproblem\u001b\[0m {2}drift: /);
  assert.match(bad.out, /\u001b\[31m\d+ problems?\u001b\[0m\n$/);
});

test('problem codes: a kind said by another module ("drift: …", "orphan: …") is its code, else the fallback; ISO with the zone offset', () => {
  assert.equal(problemOf('orphan: state.json says installed, but …', 'scheduler'), { code: 'orphan', message: 'orphan: state.json says installed, but …' });
  assert.is(problemOf('duplicate or broken block in your crontab: line 3 …', 'scheduler').code, 'duplicate');
  assert.is(problemOf('missing binary: agent.bin: …', 'x').code, 'missing-binary');
  assert.is(problemOf('`systemctl --user` cannot reach your systemd user manager', 'scheduler').code, 'scheduler');
  assert.is(isoIn(new Date('2026-07-01T06:07:00Z'), 'Europe/Berlin'), '2026-07-01T08:07:00+02:00');
  assert.is(isoIn(new Date('2026-12-01T12:00:00Z'), 'America/St_Johns'), '2026-12-01T08:30:00-03:30');
  assert.is(isoIn(new Date('2026-12-01T12:00:00Z'), 'UTC'), '2026-12-01T12:00:00+00:00');
});

test.run();
