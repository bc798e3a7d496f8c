// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The daily digest (spec digest): the wrapper sends it at the first fire at or after the
// digest time of each day and not again that day, never before the time (libfaketime moves
// the wrapper's clock), at the next fire when the window holds none then; a digest.argv that
// is missing or a link runs nothing and the wake still runs. `hbgen log --digest --send`
// keeps the digest in the state folder and sends it through notify and the ping's /log, or
// skips a day when nothing happened (digest.empty). install records digest.argv in
// state.json; status says when the last digest went and reports the file's drift; forget
// removes it. Through the built CLI, a real fire runs the real `hbgen log --digest --send`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { type Case, SHELLS, join, makeCase, run, shell } from './helpers/wrapper.ts';
import { fakeClock } from './helpers/faketime.ts';
import { rerenderAt } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';
import { names } from '../src/names.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';
import { HBGEN, hbgen } from './helpers/cli.ts';
import { blockAfter, commands, hbgenBin, typeLine } from './helpers/readme.ts';
import { makeStub } from './helpers/crontab.ts';
import { digestArgvText } from '../src/host/install/digest-argv.ts';
import { digestWhen } from '../src/schedule.ts';

const clock = fakeClock();
const dash = shell('dash');

const clockAt = (c: Case, when: string): void => rerenderAt(clock, c, when);

/**
 * A case whose digest.argv runs a stand-in of `hbgen` (/bin/sh and a script): it records its
 * arguments, one run a line, and prints the line the wrapper notes (or fails, with `fail`).
 */
function digestCase(spec: Record<string, unknown>, stamp: string | null, fail = false): Case & { sent: () => string[] } {
  // Every fire must run its agent: no idle backoff (its own suite).
  const c = makeCase({ spec: { idleAfter: false, ...spec } });
  const standIn = join(c.dir, 'fake-hbgen');
  writeFileSync(standIn, fail ? 'echo "boom: no digest" >&2\nexit 3\n' : `printf '%s\\n' "$*" >>"${c.rec}/digest"\necho "sent for Wed 2026-12-02: written to somewhere"\necho "a second line, not noted"\n`, { mode: 0o755 });
  writeFileSync(join(c.state, 'digest.argv'), `/bin/sh\n${standIn}\n`);
  if (stamp !== null) writeFileSync(join(c.state, 'digest.stamp'), `${stamp}\n`);
  const sent = () => (existsSync(join(c.rec, 'digest')) ? readFileSync(join(c.rec, 'digest'), 'utf8').split('\n').filter(Boolean) : []);
  return Object.assign(c, { sent });
}

/** One scheduled fire at `when` (UTC); the agent must run. */
async function fire(c: Case, when: string, sh = dash): Promise<void> {
  clockAt(c, when);
  const before = c.runs().length;
  const r = await run(c, sh);
  assert.is(r.code, 0, `${when} (${sh.name}): ${r.stderr}${c.log()}`);
  assert.is(c.runs().length, before + 1, `${when} (${sh.name}): the wake ran, whatever the digest did\n${c.log()}`);
}

const stampOf = (c: Case) => readFileSync(join(c.state, 'digest.stamp'), 'utf8');
const digestNotes = (c: Case) => c.outcomes().filter((l) => l.startsWith('note digest'));

for (const sh of SHELLS) {
  test(`${sh.name}: the digest goes at the first fire at or after 08:30, not before it, and not again that day`, async () => {
    assert.ok(await clock.ready(), 'libfaketime is ready');
    // Berlin is UTC+1 in December: 07:20Z is 08:20 there. Yesterday's went after the time.
    const c = digestCase({ digest: '08:30' }, '2026-12-02 08:35 CET');
    await fire(c, '2026-12-03T07:20:30Z', sh);
    assert.equal(c.sent(), [], 'nothing before the time');
    assert.is(stampOf(c), '2026-12-02 08:35 CET\n');
    await fire(c, '2026-12-03T07:35:30Z', sh);
    assert.equal(c.sent(), [`log --digest yesterday --send --state ${c.state}`]);
    assert.is(stampOf(c), '2026-12-03 08:35 CET\n');
    assert.equal(digestNotes(c), ['note digest sent for Wed 2026-12-02: written to somewhere']);
    await fire(c, '2026-12-03T07:40:30Z', sh);
    await fire(c, '2026-12-04T07:25:30Z', sh);
    assert.is(c.sent().length, 1, 'not again that day, nor the next before the time');
    await fire(c, '2026-12-04T07:30:30Z', sh);
    assert.is(c.sent().length, 2, 'the next day at the time');
    assert.is(stampOf(c), '2026-12-04 08:30 CET\n');
  });
}

test('a window with no fire at or after the digest time: that day\'s digest goes at the next fire, once', async () => {
  // 08:00–18:00, the digest at 19:00: the last went at 17:55 on the 2nd (for the 1st).
  const c = digestCase({ digest: '19:00', schedule: { hours: { start: '08:00', end: '18:00' } } }, '2026-12-02 17:55 CET');
  await fire(c, '2026-12-02T16:58:30Z');
  assert.equal(c.sent(), [], 'the 2nd\'s digest time has not come');
  await fire(c, '2026-12-03T07:05:30Z');
  assert.is(c.sent().length, 1, 'the 2nd\'s digest at the 3rd\'s first fire');
  await fire(c, '2026-12-03T16:55:30Z');
  assert.is(c.sent().length, 1, 'the 3rd\'s waits for the 4th');
  await fire(c, '2026-12-04T07:00:30Z');
  assert.is(c.sent().length, 2);
});

test('no stamp yet (the first fire since install): it is written and nothing is sent; the first digest goes at the next digest time', async () => {
  const c = digestCase({ digest: { at: '08:30', empty: 'send' } }, null);
  await fire(c, '2026-12-03T08:00:30Z');
  assert.equal(c.sent(), []);
  assert.is(stampOf(c), '2026-12-03 09:00 CET\n');
  assert.equal(digestNotes(c), ['note digest: none sent yet; the first goes at the first fire at or after 08:30']);
  await fire(c, '2026-12-04T07:25:30Z');
  assert.equal(c.sent(), []);
  await fire(c, '2026-12-04T07:35:30Z');
  assert.is(c.sent().length, 1);
  // Garbage counts as none: the count starts again, nothing is sent.
  writeFileSync(join(c.state, 'digest.stamp'), 'yesterday, I think\n');
  await fire(c, '2026-12-05T07:35:30Z');
  assert.is(c.sent().length, 1);
  assert.is(stampOf(c), '2026-12-05 08:35 CET\n');
});

test('a digest.argv that is a link, missing or not two absolute paths runs nothing: one note, and the wake runs; a failing digest is noted', async () => {
  const at = '2026-12-03T08:35:30Z';
  const cases: [string, (c: Case) => void, RegExp][] = [
    ['a link', (c) => {
      const real = join(c.dir, 'argv-elsewhere');
      writeFileSync(real, readFileSync(join(c.state, 'digest.argv')));
      rmSync(join(c.state, 'digest.argv'));
      symlinkSync(real, join(c.state, 'digest.argv'));
    }, /^note digest not sent: \S+\/digest\.argv is missing, a link or not a plain file; run hbgen install again$/],
    ['missing', (c) => rmSync(join(c.state, 'digest.argv')), /^note digest not sent: \S+\/digest\.argv is missing, a link or not a plain file; run hbgen install again$/],
    ['a FIFO', (c) => {
      rmSync(join(c.state, 'digest.argv'));
      assert.is(spawnSync('mkfifo', [join(c.state, 'digest.argv')]).status, 0);
    }, /^note digest not sent: \S+\/digest\.argv is missing, a link or not a plain file; run hbgen install again$/],
    ['relative', (c) => writeFileSync(join(c.state, 'digest.argv'), 'sh\nfake-hbgen\n'), /^note digest not sent: \S+\/digest\.argv holds no two absolute paths; run hbgen install again$/],
  ];
  for (const [what, breakIt, note] of cases) {
    const c = digestCase({ digest: '08:30' }, '2026-12-02 08:35 CET');
    breakIt(c);
    await fire(c, at);
    assert.equal(c.sent(), [], what);
    const notes = digestNotes(c);
    assert.is(notes.length, 1, `${what}: ${c.log()}`);
    assert.match(notes[0]!, note, what);
    // Once a day all the same: the next fire does not try again.
    await fire(c, '2026-12-03T08:40:30Z');
    assert.is(digestNotes(c).length, 1, what);
  }
  const f = digestCase({ digest: '08:30' }, '2026-12-02 08:35 CET', true);
  await fire(f, at);
  assert.equal(digestNotes(f), ['note digest not sent: exit 3: boom: no digest']);
  assert.not.ok(existsSync(join(f.state, 'digest.out')) || existsSync(join(f.state, 'digest.err')), 'its output files are removed');
});

test('without digest the wrapper sets no digest time and a fire writes no stamp', async () => {
  const c = makeCase();
  assert.not.match(c.files['heartbeat.sh']!, /hb_digest_at/);
  await fire(c, '2026-12-03T08:35:30Z');
  assert.not.ok(existsSync(join(c.state, 'digest.stamp')));
  const d = makeCase({ spec: { digest: { at: '07:05', empty: 'skip' } } });
  assert.match(d.files['heartbeat.sh']!, /^hb_digest_at='07:05'$/m);
});

// --- hbgen log --digest --send ---------------------------------------------------------

interface Posted {
  url: string;
  body: string;
}

/** A local stand-in of the ping's host: records each request; answers `status`. */
async function pingHost(status = 200): Promise<{ url: string; got: Posted[]; close: () => void }> {
  const got: Posted[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ url: `${req.method} ${req.url}`, body });
      res.writeHead(status).end('OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping/abc`, got, close: () => server.close() };
}

/** A notify stand-in that writes its environment, one variable a line, to `<root>/notify.env`. */
function recorder(root: string): string {
  const f = join(root, 'notify-rec');
  writeFileSync(f, `#!/bin/sh\nenv >"${root}/notify.env"\nexit \${NOTIFY_EXIT:-0}\n`, { mode: 0o755 });
  return f;
}

const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A host with digest, notify and ping installed, and a wake of yesterday (12:00 in Berlin) in its log. */
async function sendHost(digest: unknown, ping: string, wakeYesterday: boolean): Promise<Host> {
  const h = makeHost('systemd-user');
  const rec = recorder(h.root);
  writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), digest, notify: [rec, 'hello'], ping }, null, 2));
  const v = validateSpec(JSON.parse(readFileSync(h.specFile, 'utf8')));
  h.spec = v.spec!;
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  if (wakeYesterday) {
    const noon = Date.now() - 24 * 60 * MIN;
    const n = names(h.spec);
    writeFileSync(n.log, `${readFileSync(n.log, 'utf8')}${iso(noon)} hbgen docs start wake 1\n${iso(noon + 40_000)} hbgen docs ok\n`);
  }
  return h;
}

test('--send: the digest is kept in <stateDir>/digest/DATE.txt, sent through notify (HBGEN_EVENT=digest, HBGEN_DIGEST) and POSTed to the ping\'s /log', async () => {
  const ping = await pingHost();
  try {
    const h = await sendHost('08:30', ping.url, true);
    // A commit of yesterday whose subject holds a terminal's control sequence (the agent writes subjects).
    const when = new Date(Date.now() - 24 * 60 * MIN).toISOString();
    const git = (...a: string[]) => spawnSync('git', ['-C', h.repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } });
    git('init', '-q', '-b', 'main');
    git('add', 'README');
    assert.is(git('commit', '-qm', 'docs: clear \u001b[2J the screen').status, 0);
    const got = ping.got.length;
    const r = await hb(h, 'log', { digest: 'yesterday', send: true });
    assert.is(r.code, 0, r.err);
    const m = /^sent for \w{3} (\d{4}-\d\d-\d\d): written to (\S+); notify exit 0; ping \/log ok\n$/.exec(r.out);
    assert.ok(m, r.out);
    const file = m![2]!;
    assert.is(file, join(names(h.spec).stateDir, 'digest', `${m![1]}.txt`));
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^hbgen digest: "docs", \w{3} \d{4}-\d\d-\d\d \(Europe\/Berlin\)\n {2}wakes {5}1 wake ran: 1 ok\n/);
    assert.match(text, /\n {2}commits {3}1 commit: [0-9a-f]+ \(HEAD -> main\) docs: clear \?\[2J the screen\n/, text);
    const env = readFileSync(join(h.root, 'notify.env'), 'utf8');
    assert.match(env, /^HBGEN_EVENT=digest$/m);
    assert.ok(env.includes(`HBGEN_DIGEST=${text.trimEnd()}`), env);
    assert.match(env, new RegExp(`^HBGEN_DIGEST_FILE=${file}$`, 'm'));
    assert.match(env, /^HOME=.*\/home$/m, 'the spec\'s env');
    assert.not.match(env, /^LANG=/m, 'nothing of the caller\'s env');
    const posted = ping.got.slice(got);
    assert.equal(posted, [{ url: 'POST /ping/abc/log', body: text }]);
    // notify and ping failing: said, and still exit 0.
    const bad = await pingHost(500);
    try {
      writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), ping: bad.url, notify: ['/bin/sh', '-c', 'exit 4'] }, null, 2));
      assert.is((await hb(h, 'install', { yes: true })).code, 0);
      const f = await hb(h, 'log', { digest: 'yesterday', send: true });
      assert.is(f.code, 0, f.err);
      assert.match(f.out, /^sent for \w{3} \d{4}-\d\d-\d\d: written to \S+; notify failed: exit 4; ping \/log failed: HTTP 500\n$/);
    } finally {
      bad.close();
    }
  } finally {
    ping.close();
  }
});

test('--send: a day when nothing happened is skipped (one line, nothing written or sent), unless digest.empty is "send"; only 14 days are kept', async () => {
  const ping = await pingHost();
  try {
    const h = await sendHost('08:30', ping.url, false);
    const got = ping.got.length;
    const r = await hb(h, 'log', { digest: 'yesterday', send: true });
    assert.is(r.code, 0, r.err);
    assert.match(r.out, /^skipped: nothing happened on \w{3} \d{4}-\d\d-\d\d \(no wake ran, no error, no missed fire\)\n$/);
    assert.not.ok(existsSync(join(names(h.spec).stateDir, 'digest')));
    assert.not.ok(existsSync(join(h.root, 'notify.env')));
    assert.is(ping.got.length, got);
    writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), digest: { at: '08:30', empty: 'send' } }, null, 2));
    assert.is((await hb(h, 'install', { yes: true })).code, 0);
    const dir = join(names(h.spec).stateDir, 'digest');
    mkdirSync(dir);
    for (let d = 1; d <= 20; d++) writeFileSync(join(dir, `2025-01-${String(d).padStart(2, '0')}.txt`), 'old\n');
    const s = await hb(h, 'log', { digest: 'yesterday', send: true });
    assert.match(s.out, /^sent for .*; notify exit 0; ping \/log ok\n$/, s.out);
    assert.match(readFileSync(join(h.root, 'notify.env'), 'utf8'), /^HBGEN_DIGEST=hbgen digest: "docs", [\s\S]*no wake ran/m);
    const kept = readdirSync(dir).sort();
    assert.is(kept.length, 14);
    assert.is(kept[0], '2025-01-08.txt', 'the oldest went');
    // A link in the day's place is replaced, not written through.
    const target = join(h.root, 'elsewhere.txt');
    writeFileSync(target, 'mine\n');
    const day = kept[kept.length - 1]!;
    rmSync(join(dir, day));
    symlinkSync(target, join(dir, day));
    await hb(h, 'log', { digest: 'yesterday', send: true });
    assert.is(readFileSync(target, 'utf8'), 'mine\n');
  } finally {
    ping.close();
  }
});

test('--send and --state: usage errors without --digest (or --send); --state reads the install\'s record, never the spec file', async () => {
  const h = await sendHost('08:30', 'https://hc-ping.com/abc', true);
  const a = await hb(h, 'log', { send: true });
  assert.is(a.code, 2);
  assert.match(a.err, /^hbgen: --send goes with --digest: `hbgen log --digest yesterday --send`\n$/);
  const b = await hb(h, 'log', { digest: 'yesterday', state: names(h.spec).stateDir });
  assert.is(b.code, 2);
  assert.match(b.err, /^hbgen: --state goes with --send/);
  // The spec file now names another notify: --state goes by state.json's.
  const other = join(h.root, 'other-notify');
  writeFileSync(other, `#!/bin/sh\ntouch "${h.root}/other-ran"\n`, { mode: 0o755 });
  writeFileSync(h.specFile, JSON.stringify({ ...JSON.parse(readFileSync(h.specFile, 'utf8')), notify: [other], ping: undefined }, null, 2));
  const c = await hb(h, 'log', { digest: 'yesterday', send: true, state: names(h.spec).stateDir });
  assert.is(c.code, 0, c.err);
  assert.not.ok(existsSync(join(h.root, 'other-ran')), 'the spec file\'s notify did not run');
  assert.ok(existsSync(join(h.root, 'notify.env')), 'the installed notify ran');
  const d = await hb(h, 'log', { digest: 'yesterday', send: true, state: join(h.root, 'nowhere') });
  assert.is(d.code, 1);
  assert.match(d.err, /^hbgen: \S+\/nowhere\/state\.json: no install is recorded there; /);
});

test('the spec field: "HH:MM" or {at, empty}; one sentence naming it; refused for kubernetes and with a state folder inside the repo', () => {
  const base = {
    version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } },
    timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' },
  };
  assert.equal(validateSpec({ ...base, digest: '08:30' }).spec?.digest, '08:30');
  assert.equal(validateSpec({ ...base, digest: { at: '08:30', empty: 'send' } }).spec?.digest, { at: '08:30', empty: 'send' });
  assert.equal(validateSpec({ ...base, digest: '8:30' }).errors, ['digest: must be a time as "HH:MM" (00:00–23:59), got "8:30"; write "08:30"']);
  assert.equal(validateSpec({ ...base, digest: 830 }).errors, ['digest: must be a time "HH:MM" such as "08:30", or an object {at, empty}']);
  assert.equal(validateSpec({ ...base, digest: { at: '08:30', empty: 'maybe' } }).errors, ['digest.empty: must be "skip" (the default: no digest for a day when nothing happened) or "send"']);
  assert.equal(validateSpec({ ...base, digest: '08:30', stateDir: '.agent-platform' }).errors, ['digest: needs the state folder outside the repo (stateDir ".agent-platform" is inside it): the wrapper runs the program recorded there outside the agent\'s sandbox; leave stateDir out or move it out of the repo']);
  const k = validateSpec({ ...base, digest: '08:30', schedule: { ...base.schedule, scheduler: 'kubernetes' }, kubernetes: { image: 'x:1', git: { url: 'https://example.com/r.git' } } });
  assert.ok((k.errors ?? []).includes('digest: does not apply to schedule.scheduler "kubernetes": the pod has no hbgen to build the digest; remove it and read `hbgen log --digest` instead'), (k.errors ?? []).join('\n'));
});

test('a window that crosses midnight: a day is the window that opens on it (22:00 to 22:00)', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '22:00', end: '06:00', timezone: 'Europe/Berlin' } } });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  // Berlin UTC+1: wakes at 23:07 on the 1st and 02:07 on the 2nd are one window, the 1st's.
  writeFileSync(n.log, `${readFileSync(n.log, 'utf8')}2026-12-01T22:07:00Z hbgen docs start wake 1\n2026-12-01T22:08:00Z hbgen docs ok\n2026-12-02T01:07:00Z hbgen docs start wake 2\n2026-12-02T01:08:00Z hbgen docs quiet\n`);
  const now = () => new Date('2026-12-02T21:10:00Z'); // 22:10 on the 2nd: its window has opened
  const r = await hb(h, 'log', { digest: 'yesterday', now });
  assert.match(r.out, /^hbgen digest: "docs", Tue 2026-12-01 22:00 to Wed 22:00 \(Europe\/Berlin\)\n {2}wakes {5}2 wakes ran: 1 ok, 1 quiet\n/, r.out);
});

test('the panel and plan say at which fire the digest actually goes: the first at or after its time, else the next day\'s first', async () => {
  const base = {
    version: 1, name: 'docs', repo: '/r', agent: { harness: 'command', bin: '/bin/true', prompt: 'p' },
    schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '09:00', end: '18:00', timezone: 'Europe/Berlin' } },
    timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' },
  };
  assert.is(digestWhen(validateSpec({ ...base, digest: '08:30' }).spec!), 'at the first fire at or after it, 09:07');
  assert.is(digestWhen(validateSpec({ ...base, digest: '12:10' }).spec!), 'at the first fire at or after it, 12:37');
  assert.is(digestWhen(validateSpec({ ...base, digest: '19:00' }).spec!), "at the next fire, the next day's first (09:07): the window has none at or after it");
  const h = makeHost('systemd-user', { digest: { at: '19:00', empty: 'send' } });
  const out = hbgen(['plan', h.specFile], { cwd: h.root, env: h.env });
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stdout, /\ndigest: 19:00 Europe\/Berlin, at the first fire at or after it, 19:07 \(the wrapper sends it at a fire\)\n/, out.stdout);
});

test('"yesterday" is the last day the window opened: on a Monday after a weekend off, Friday', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '08:00', end: '18:00', timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } } });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const r = await hb(h, 'log', { digest: 'yesterday', now: () => new Date('2026-12-07T08:10:00Z') });
  assert.match(r.out, /^hbgen digest: "docs", Fri 2026-12-04 \(Europe\/Berlin\)\n/, r.out);
  const t = await hb(h, 'log', { digest: 'yesterday', now: () => new Date('2026-12-08T08:10:00Z') });
  assert.match(t.out, /^hbgen digest: "docs", Mon 2026-12-07 \(Europe\/Berlin\)\n/, t.out);
});

// --- through the built CLI: install, a real fire, status, forget --------------------------

const stub = makeStub();
process.on('exit', () => stub.remove());

test('install records digest.argv (node and this CLI) in state.json; a fire runs the real `hbgen log --digest --send`; status says when it went and reports an edit; forget removes it', async () => {
  const ping = await pingHost();
  try {
    const h = makeHost('systemd-user', { stateDir: undefined });
    const rec = recorder(h.root);
    const spec = { ...JSON.parse(readFileSync(h.specFile, 'utf8')), digest: { at: '00:00', empty: 'send' }, notify: [rec], ping: ping.url };
    spec.schedule.hours = { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' };
    writeFileSync(h.specFile, JSON.stringify(spec, null, 2));
    const env = { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` };
    const cli = (args: string[]) => hbgen(args, { cwd: h.root, env });
    const inst = cli(['install', h.specFile, '--yes']);
    assert.is(inst.code, 0, inst.stderr + inst.stdout);
    assert.match(inst.stdout, /\n {2}digest +00:00 Europe\/Berlin, at the first fire at or after it, 00:07: `hbgen log --digest --send` outside the jail, kept in the state folder, sent through notify and the ping's \/log\n/, inst.stdout);
    const state = names(validateSpec(spec).spec!).stateDir;
    const argvFile = join(state, 'digest.argv');
    assert.is(readFileSync(argvFile, 'utf8'), `${realpathSync(process.execPath)}\n${realpathSync(HBGEN)}\n`);
    assert.is(readFileSync(argvFile, 'utf8'), digestArgvText());
    const recorded = JSON.parse(readFileSync(join(state, 'state.json'), 'utf8')).files.map((f: { path: string }) => f.path);
    assert.ok(recorded.includes(argvFile), recorded.join('\n'));
    let st = cli(['status', h.specFile]);
    assert.match(st.stdout, /\n {2}digest +00:00 Europe\/Berlin, at the first fire at or after it; none sent yet \(\S+\/digest\/ will keep them\)\n/, st.stdout);
    // Yesterday's went (00:00 is at or after the time): today's is due at this fire.
    const y = new Date(Date.now() - 86_400_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
    writeFileSync(join(state, 'digest.stamp'), `${y} 00:05 CET\n`);
    const fired = await new Promise<number>((res) => {
      const p = spawn('/bin/sh', [join(state, 'heartbeat.sh')], { env: { PATH: '/usr/bin:/bin' }, stdio: 'ignore' });
      p.on('close', (code) => res(code ?? -1));
    });
    assert.is(fired, 0);
    const log = readFileSync(join(state, 'runtime.log'), 'utf8');
    assert.match(log, /hbgen docs note digest sent for \w{3} \d{4}-\d\d-\d\d: written to \S+\/digest\/\d{4}-\d\d-\d\d\.txt; notify exit 0; ping \/log ok\n/, log);
    assert.match(readFileSync(join(h.root, 'notify.env'), 'utf8'), /^HBGEN_EVENT=digest$/m);
    assert.is(ping.got.filter((g) => g.url === 'POST /ping/abc/log').length, 1);
    assert.match(log, /hbgen docs start wake 1\n/, 'the wake ran after it');
    st = cli(['status', h.specFile]);
    assert.match(st.stdout, /\n {2}digest +00:00 Europe\/Berlin, at the first fire at or after it; the last went \d{4}-\d\d-\d\d \d\d:\d\d CET /, st.stdout);
    // An edit of digest.argv is drift (only install writes it).
    writeFileSync(argvFile, '/bin/sh\n/tmp/other\n');
    st = cli(['status', h.specFile]);
    assert.match(st.stdout, new RegExp(`drift: ${argvFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed since install`), st.stdout);
    assert.is(cli(['stop', h.specFile]).code, 0);
    const f = cli(['forget', 'docs', '--yes']);
    assert.is(f.code, 0, f.stderr + f.stdout);
    assert.not.ok(existsSync(argvFile), 'forget removed digest.argv');
    assert.not.ok(existsSync(join(state, 'digest')), 'and the digests');
  } finally {
    ping.close();
  }
});

test('status says what became of the last digest, as the wrapper noted it: sent, skipped (none sent, and why), not sent, or none yet; never "went" for one that did not', async () => {
  const h = makeHost('systemd-user');
  const spec = { ...JSON.parse(readFileSync(h.specFile, 'utf8')), digest: { at: '07:00' } };
  writeFileSync(h.specFile, JSON.stringify(spec, null, 2));
  const inst = await hb(h, 'install', { yes: true });
  assert.is(inst.code, 0, inst.out + inst.err);
  const state = names(validateSpec(spec).spec!).stateDir;
  const row = async () => /\n {2}digest +([^\n]*)\n/.exec((await hb(h, 'status')).out)?.[1] ?? '';
  const note = (t: string, d: string) => writeFileSync(join(state, 'runtime.log'), `${readFileSync(join(state, 'runtime.log'), 'utf8')}${t} hbgen docs note ${d}\n`);
  assert.match(await row(), /; none sent yet \(\S+\/digest\/ will keep them\)$/);
  // The first fire only starts the count: the stamp is written, nothing is sent.
  writeFileSync(join(state, 'digest.stamp'), '2026-12-06 08:07 CET\n');
  note('2026-12-06T07:07:01Z', 'digest: none sent yet; the first goes at the first fire at or after 07:00');
  assert.match(await row(), /; none sent yet \(/);
  // A day when nothing happened: skipped, and the digest folder was never made.
  writeFileSync(join(state, 'digest.stamp'), '2026-12-07 07:07 CET\n');
  note('2026-12-07T06:07:01Z', 'digest skipped: nothing happened on Sun 2026-12-06 (no wake ran, no error, no missed fire)');
  const skipped = await row();
  assert.not.match(skipped, /went/);
  assert.match(skipped, /; the last, due 2026-12-07 07:07 CET, was skipped and none sent: nothing happened on Sun 2026-12-06 \(no wake ran, no error, no missed fire\) \(\S+\/digest\/ will keep them\)$/, skipped);
  assert.not.ok(existsSync(join(state, 'digest')));
  // One that failed says why.
  note('2026-12-07T06:07:02Z', 'digest not sent: exit 3: boom');
  assert.match(await row(), /; the last, due 2026-12-07 07:07 CET, was not sent: exit 3: boom \(/);
  // One that went.
  mkdirSync(join(state, 'digest'));
  note('2026-12-07T06:07:03Z', 'digest sent for Sun 2026-12-06: written to /x/digest/2026-12-06.txt; notify exit 0');
  assert.match(await row(), /; the last went 2026-12-07 07:07 CET \(sent for Sun 2026-12-06: written to \/x\/digest\/2026-12-06\.txt; notify exit 0\) \(\S+\/digest\/ keeps them\)$/);
});

test('README "The morning digest": its block runs as written after the spec edit it names (install, status, log --digest yesterday)', () => {
  const lines = commands(blockAfter('### The morning digest', 'sh'));
  assert.equal(lines, ['hbgen install', 'hbgen status', 'hbgen log --digest yesterday']);
  // The edit the README names, in a spec in the folder the lines run in.
  const h = makeHost('systemd-user', { stateDir: undefined });
  const spec = { ...JSON.parse(readFileSync(h.specFile, 'utf8')), digest: '08:30' };
  writeFileSync(h.specFile, JSON.stringify(spec, null, 2));
  const env = { ...h.env, PATH: `${hbgenBin(join(h.root, 'newbin'))}:${stub.dir}:${h.env.PATH}`, TERM: 'dumb' };
  const said = lines.map((line) => {
    // install asks on a terminal.
    const r = typeLine(line, line === 'hbgen install', h.root, env);
    assert.is(r.status, 0, `\`${line}\` exited ${r.status}:\n${r.stdout}${r.stderr}`);
    return `${r.stdout}${r.stderr}`;
  });
  const [inst, st, dg] = said as [string, string, string];
  assert.match(inst, /\n {2}digest +08:30 Europe\/Berlin, at the first fire at or after it, 08:37: `hbgen log --digest --send` outside the jail/, inst);
  assert.ok(existsSync(join(names(validateSpec(spec).spec!).stateDir, 'digest.argv')), 'install recorded what the wrapper runs');
  assert.match(st, /\n {2}digest +08:30 Europe\/Berlin, at the first fire at or after it; none sent yet/, st);
  assert.match(st, /\nhealthy\n/, st);
  // The window opens every day, so yesterday is the calendar's (the install came after it).
  const y = new Date(Date.now() - 86_400_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
  assert.match(dg, new RegExp(`^hbgen digest: "docs", \\w{3} ${y} \\(Europe/Berlin\\)\\n {2}wakes +no wake ran\\n`), dg);
  assert.match(dg, /\n {2}tokens +none logged\n {2}status +nothing to look at\n$/, dg);
});

test.run();
