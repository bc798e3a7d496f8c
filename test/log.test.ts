// hbgen log: the history per day in the working zone from both generations
// of runtime.log, the expected fires that left no line, the last wakes, --json; the
// logMaxBytes field; status reading the rotated generation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { log as logCmd, type LogReport } from '../src/commands/log.ts';
import { digestLines } from '../src/host/audit/digest.ts';
import { dailyCounts, dayStart, historyLines } from '../src/host/audit/history.ts';
import type { HostIO } from '../src/host/io.ts';
import { names } from '../src/names.ts';
import { validateSpec } from '../src/spec.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

const MIN = 60_000;
const NOW = Date.parse('2026-12-01T12:00:00Z'); // 13:00 in Berlin (UTC+1 all that week)
const INSTALLED = Date.parse('2026-11-26T10:00:00Z');
const iso = (t: number) => new Date(t).toISOString().replace(/\.000Z$/, 'Z');
const DATES = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01'];

/**
 * The spec's fires (every 30m at :07, 08:00–23:00 Europe/Berlin, UTC+1 that week: 07:07Z
 * to 21:37Z), computed here from the spec's words, each given a line (or none) by its
 * index; returns the log and, per date, what it holds.
 */
function fabricate() {
  const lines: string[] = [];
  const want = new Map<string, { started: number; ok: number; quiet: number; fail: number; timeout: number; limit: number; error: number; skips: Record<string, number>; silent: number[] }>();
  let wake = 0;
  for (const date of DATES) {
    const w = { started: 0, ok: 0, quiet: 0, fail: 0, timeout: 0, limit: 0, error: 0, skips: {} as Record<string, number>, silent: [] as number[] };
    want.set(date, w);
    for (let k = 0; k < 30; k++) {
      const t = Date.parse(`${date}T07:07:00Z`) + k * 30 * MIN;
      if (t > NOW - 2 * MIN) break;
      const at = (s: number) => iso(t + s * 1000);
      const skip = (kind: string) => {
        lines.push(`${at(0)} hbgen docs ${kind}`);
        w.skips[kind] = (w.skips[kind] ?? 0) + 1;
      };
      switch ((k + date.length + Number(date.slice(-2))) % 9) {
        case 0:
          lines.push(`${at(0)} hbgen docs start wake ${++wake}`, 'agent says hi', `${at(40)} hbgen docs ok`);
          w.started++, w.ok++;
          break;
        case 1:
          lines.push(`${at(0)} hbgen docs start wake ${++wake}`, `${at(12)} hbgen docs quiet`);
          w.started++, w.quiet++;
          break;
        case 2:
          lines.push(`${at(1)} hbgen docs start wake ${++wake}`, `${at(90)} hbgen docs fail 3`);
          w.started++, w.fail++;
          break;
        case 3:
          lines.push(`${at(0)} hbgen docs start wake ${++wake}`, `${at(600)} hbgen docs timeout 124`);
          w.started++, w.timeout++;
          break;
        case 4:
          skip('skip-locked');
          break;
        case 5:
          // skip-limit, or a kind this hbgen does not know: counted by its own name.
          skip(k % 2 ? 'skip-limit' : 'skip-future');
          break;
        case 6:
          lines.push(`${at(0)} hbgen docs error billing the client says it is logged in with an API key`);
          w.error++;
          break;
        case 8:
          if (k % 2) {
            w.silent.push(t); // the machine was asleep
            break;
          }
          lines.push(`${at(0)} hbgen docs start wake ${++wake}`, `${at(30)} hbgen docs limit until 2026-12-01T18:00:00Z`);
          w.started++, w.limit++;
          break;
        case 7:
          lines.push(`${at(0)} hbgen docs skip-gate exit 1`);
          w.skips['skip-gate'] = (w.skips['skip-gate'] ?? 0) + 1;
          break;
      }
    }
  }
  return { text: `${lines.join('\n')}\n`, want };
}

test('dailyCounts: per day in the working zone, skips by kind (an unknown skip-* too), missed fires from the install on', async () => {
  const { text, want } = fabricate();
  const spec = validateSpec({
    version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } },
    timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' },
  }).spec!;
  const { plan } = await import('../src/schedule.ts');
  // The install check's lines and another spec's lines are not this history.
  const extra = `${iso(INSTALLED)} hbgen docs start smoke\n${iso(INSTALLED + 1000)} hbgen docs skip-locked\n${iso(INSTALLED + 2000)} hbgen docs quiet smoke\n${iso(INSTALLED)} hbgen other start wake 9\n`;
  const days = dailyCounts({ lines: historyLines(extra + text, 'docs'), zone: 'Europe/Berlin', now: NOW, days: 7, expected: { clock: { entries: plan(spec).zoneEntries, zone: 'Europe/Berlin' }, since: INSTALLED } });
  assert.equal(days.map((d) => d.date), DATES);
  for (const d of days) {
    const w = want.get(d.date)!;
    assert.equal([d.started, d.ok, d.quiet, d.fail, d.timeout, d.limit, d.error], [w.started, w.ok, w.quiet, w.fail, w.timeout, w.limit, w.error], d.date);
    for (const k of ['skip-window', 'skip-gate', 'skip-locked', 'skip-cap', 'skip-limit', 'skip-future']) assert.is(d.skipped[k] ?? 0, w.skips[k] ?? 0, `${d.date} ${k}`);
    // Missed: the silent fires at or after the install; the day before it is not known.
    if (d.date === '2026-11-25') assert.is(d.missed, null);
    else assert.is(d.missed, w.silent.filter((t) => t >= INSTALLED).length, d.date);
  }
  assert.ok(days.slice(1).some((d) => d.missed! > 0), 'some fires were missed');
  assert.ok(days.some((d) => d.skipped['skip-future']) && days.some((d) => d.skipped['skip-limit']) && days.some((d) => d.limit), 'the week has every kind');
  // Without a plan (not installed), nothing is known about missed fires.
  const none = dailyCounts({ lines: historyLines(text, 'docs'), zone: 'Europe/Berlin', now: NOW, days: 2, expected: null });
  assert.equal(none.map((d) => [d.date, d.missed]), [['2026-11-30', null], ['2026-12-01', null]]);
});

test('dayStart: local midnight in the zone, on a DST day too', () => {
  assert.is(iso(dayStart('2026-12-01', 'Europe/Berlin')), '2026-11-30T23:00:00Z');
  assert.is(iso(dayStart('2026-03-29', 'Europe/Berlin')), '2026-03-28T23:00:00Z');
  assert.is(iso(dayStart('2026-03-30', 'Europe/Berlin')), '2026-03-29T22:00:00Z');
  assert.is(iso(dayStart('2026-11-01', 'America/New_York')), '2026-11-01T04:00:00Z');
  // Some zones skipped midnight itself (America/Santiago's spring change at 24:00).
  assert.is(iso(dayStart('2026-09-06', 'America/Santiago')), '2026-09-06T04:00:00Z');
});

function io(h: Host, now = NOW) {
  let out = '';
  const x: HostIO = { env: h.env, uid: process.getuid!(), user: 'ada', cwd: h.root, stdin: new PassThrough(), out: (s) => (out += s), err: () => {}, now: () => new Date(now) };
  return { x, out: () => out };
}

async function installedHost(): Promise<Host> {
  const h = makeHost('systemd-user', { lock: 'flock' });
  const r = await hb(h, 'install', { yes: true, now: () => new Date(INSTALLED) });
  assert.is(r.code, 0, r.err + r.out);
  return h;
}

test('hbgen log: both generations read, a table per day, the last wakes with time, outcome and duration; --json', async () => {
  const h = await installedHost();
  const n = names(h.spec);
  const { text, want } = fabricate();
  // Split the history as the wrapper's rotation does: the older part in runtime.log.1.
  const all = text.split('\n');
  const cut = all.findIndex((l) => l.startsWith('2026-11-29'));
  writeFileSync(`${n.log}.1`, `${readFileSync(n.log, 'utf8')}${all.slice(0, cut).join('\n')}\n`);
  writeFileSync(n.log, all.slice(cut).join('\n'));
  const o = io(h);
  assert.is(await logCmd({ spec: h.specFile, days: 7 }, o.x), 0);
  const out = o.out();
  if (process.env.SHOW) console.log(out);
  assert.match(out, new RegExp(`^hbgen log: "docs", the last 7 days in Europe/Berlin \\(${n.log}\\.1 and ${n.log}\\)\\n`));
  assert.match(out, /\n {2}day +started {2}ok {2}quiet {2}denied {2}fail {2}timeout {2}limit {2}reserve {2}error {2}skip-window {2}skip-gate {2}skip-locked {2}skip-cap {2}skip-limit {2}skip-future {2}missed {2}asleep\n/);
  const w = want.get('2026-11-30')!;
  const row = out.split('\n').find((l) => l.includes('Mon 2026-11-30'))!;
  assert.equal(row.trim().split(/\s+/).slice(2), [w.started, w.ok, w.quiet, 0, w.fail, w.timeout, w.limit, 0, w.error, 0, w.skips['skip-gate'] ?? 0, w.skips['skip-locked'] ?? 0, 0, w.skips['skip-limit'] ?? 0, w.skips['skip-future'] ?? 0, w.silent.length, 0].map(String));
  assert.match(out.split('\n').find((l) => l.includes('Wed 2026-11-25'))!, / -$/, 'before the install: not known');
  // The last wakes, in the working zone: the fabricated log's last five starts.
  const starts = text.split('\n').filter((l) => / start wake /.test(l)).slice(-5);
  const lastBlock = out.slice(out.indexOf('the last 5 wakes (Europe/Berlin):'));
  assert.is(lastBlock.split('\n').filter((l) => l.startsWith('  wake ')).length, 5, out);
  const last = starts.at(-1)!;
  const t = Date.parse(last.slice(0, 20));
  const local = new Date(t + 60 * MIN).toISOString();
  assert.match(lastBlock, new RegExp(`wake ${/wake (\d+)/.exec(last)![1]}  ${local.slice(0, 10)} ${local.slice(11, 16)}  \\d+ s  (ok|quiet|fail 3|timeout 124|limit until \\S+)\\n`));
  // --json: the same, as data.
  const j = io(h);
  assert.is(await logCmd({ spec: h.specFile, days: 3, json: true }, j.x), 0);
  const r = JSON.parse(j.out()) as LogReport;
  assert.equal(Object.keys(r), ['name', 'files', 'skipped', 'timezone', 'expectedCounted', 'days', 'lastWakes']);
  assert.equal(r.files, [`${n.log}.1`, n.log]);
  assert.is(r.expectedCounted, true);
  assert.equal(r.days.map((d) => d.date), ['2026-11-29', '2026-11-30', '2026-12-01']);
  assert.equal(Object.keys(r.days[0]!), ['date', 'started', 'ok', 'quiet', 'denied', 'fail', 'timeout', 'limit', 'reserve', 'error', 'skipped', 'missed', 'asleep', 'tokens']);
  assert.is(r.days[1]!.started, w.started);
  assert.is(r.days[1]!.missed, w.silent.length);
  assert.is(r.lastWakes.length, 5);
  assert.equal(Object.keys(r.lastWakes[0]!), ['wake', 'byHand', 'start', 'outcome', 'detail', 'end', 'seconds', 'usage', 'windows', 'startLocal']);
  const lw = r.lastWakes.at(-1)!;
  assert.is(lw.start, last.slice(0, 20));
  assert.is(typeof lw.seconds, 'number');
  // A runtime.log.1 that is a symbolic link is never read through.
  const elsewhere = join(h.root, 'elsewhere.log');
  writeFileSync(elsewhere, `${iso(NOW - 3 * 60 * MIN)} hbgen docs start wake 999\n${iso(NOW - 3 * 60 * MIN + 5000)} hbgen docs ok\n`);
  renameSync(`${n.log}.1`, join(h.root, 'old.log'));
  symlinkSync(elsewhere, `${n.log}.1`);
  const l = io(h);
  await logCmd({ spec: h.specFile, days: 1, json: true }, l.x);
  const rl = JSON.parse(l.out()) as LogReport;
  assert.equal(rl.files, [n.log]);
  assert.not.ok(rl.lastWakes.some((x) => x.wake === 999));
});

test('hbgen log: a spec not installed has no missed column figures; no log yet; --days must be 1 to 366', async () => {
  const h = makeHost('cron');
  const o = io(h);
  assert.is(await logCmd({ spec: h.specFile }, o.x), 0);
  assert.match(o.out(), /\(no runtime\.log yet\)/);
  assert.match(o.out(), /missed \(fires that left no line\): not counted, state\.json does not say installed/);
  assert.match(o.out(), /\nno wake has run yet\n$/);
  assert.is(o.out().split('\n').filter((l) => /^ {2}\w{3} \d{4}-/.test(l)).length, 7, 'seven days by default');
  // docs/commands.md's sample has the columns `hbgen log` prints (asleep last), in order.
  const cols = (text: string) => text.split('\n').find((l) => /^ {2}day +started /.test(l))?.trim().split(/\s+/);
  assert.equal(cols(readFileSync(join(import.meta.dirname, '../docs/commands.md'), 'utf8')), cols(o.out()));
  for (const days of [0, -1, 1.5, 367, Number.NaN]) {
    await logCmd({ spec: h.specFile, days }, o.x).then(
      () => assert.unreachable(`--days ${days} accepted`),
      (e: Error & { lines?: string[] }) => assert.match(e.lines?.[0] ?? '', /^--days must be a whole number of days from 1 to 366(, got -?[\d.]+)?$/),
    );
  }
});

test('status reads the rotated generation: the last outcome is found in runtime.log.1', async () => {
  const h = await installedHost();
  assert.is((await hb(h, 'wake')).code, 0);
  const n = names(h.spec);
  // What the wrapper's rotation leaves: the old log whole in runtime.log.1, a fresh one.
  renameSync(n.log, `${n.log}.1`);
  writeFileSync(n.log, '');
  const st = await hb(h, 'status');
  assert.match(st.out, /last outcome: quiet at /, st.out);
  assert.match(st.out, /last wake {2}1 by hand at /, st.out);
});

test('hbgen log --digest: one day in a few lines (wakes and outcomes, skips by reason, commits on their branch, tokens, what status flags); today, yesterday or a date; --json', async () => {
  const h = makeHost('systemd-user');
  const git = (...a: string[]) => spawnSync('git', ['-C', h.repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'the start of the day');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  // Two wakes by hand (the stand-in agent changes nothing: quiet), and a skip the wrapper would write.
  for (let i = 0; i < 2; i++) assert.is((await hb(h, 'wake')).code, 0);
  const n = names(h.spec);
  writeFileSync(n.log, `${readFileSync(n.log, 'utf8')}${iso(Math.floor(Date.now() / 1000) * 1000)} hbgen ${h.spec.name} skip-gate /usr/bin/on_ac_power exit 1\n`);
  const r = await hb(h, 'log', { digest: 'today' });
  assert.is(r.code, 0, r.err);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: h.spec.schedule.hours.timezone }).format(new Date());
  const out = r.out.split('\n');
  assert.match(out[0]!, new RegExp(`^hbgen digest: "docs", \\w{3} ${today} \\(${h.spec.schedule.hours.timezone.replace('/', '\\/')}\\)$`));
  assert.match(r.out, /\n {2}wakes {5}2 wakes ran: 2 quiet\n/, r.out);
  assert.match(r.out, /\n {2}skipped {3}1 fire: 1 gate\n/, r.out);
  assert.match(r.out, /\n {2}commits {3}1 commit: [0-9a-f]+ \(HEAD -> main\) the start of the day\n/, r.out);
  assert.match(r.out, /\n {2}status {4}nothing to look at\n/, r.out);
  const j = await hb(h, 'log', { digest: 'yesterday', json: true });
  const doc = JSON.parse(j.out);
  assert.is(doc.day.started, 0);
  assert.equal(doc.commits, []);
  // Every way a wake ends is named, a denied one too (pure lines of the counts).
  const day = { ...doc.day, started: 3, ok: 1, denied: 1, fail: 1 };
  assert.match(digestLines({ ...doc, day, commits: null }).join('\n'), /\n {2}wakes {5}3 wakes ran: 1 ok, 1 denied, 1 fail\n[\s\S]*\n {2}commits {3}not read \(the repo is no git work tree hbgen may read\)\n/);
  const bad = await hb(h, 'log', { digest: '2020-01-01' });
  assert.is(bad.code, 2);
  assert.match(bad.err, /^hbgen: --digest takes "yesterday" \(the default\), "today" or a date YYYY-MM-DD of the last 366 days in /);
});

test('logMaxBytes: a whole number from 65536 to 536870912', () => {
  const base = {
    version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } },
    timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' },
  };
  assert.ok(validateSpec({ ...base, logMaxBytes: 65536 }).spec);
  assert.ok(validateSpec({ ...base, logMaxBytes: 536870912 }).spec);
  const err = (v: unknown) => validateSpec({ ...base, logMaxBytes: v }).errors?.join('\n') ?? '';
  assert.match(err(65535), /logMaxBytes: must be at least 65536 \(64 KiB\); the default is 10485760 \(10 MiB\)/);
  assert.match(err(536870913), /logMaxBytes: must be at most 536870912 \(512 MiB\)/);
  assert.match(err(100000.5), /logMaxBytes: must be a whole number of bytes, e.g. 10485760 \(10 MiB\)/);
  assert.match(err('10M'), /logMaxBytes: must be a whole number of bytes/);
});

test.run();
