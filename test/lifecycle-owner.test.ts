// needs root: it creates scratch users (useradd); it gives files to other users (chown)
// One owner: a scratch user (the person) installs on its real crontab; root (the intruder,
// as `sudo hbgen …` is) then runs the commands that write to that install, and the wrapper
// itself. Each refuses with one sentence naming the state folder, its owner and the user to
// run as, and nothing in the state folder (nor the person's HOME) changes: owners, modes,
// sizes and mtimes compared. The person's next wake still works. Then a file root left in the
// install: status and doctor, as the person, name it with the chown that gives it back.
import { spawnSync } from 'node:child_process';
import { appendFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { cronUser, realOrSkip, type CronUser } from './helpers/cronuser.ts';
import { hb, makeHost, type Host } from './helpers/lifecycle.ts';

const real = realOrSkip(test, 'lifecycle-owner');
let U: CronUser;
let h: Host;
let sd: string;

/** Every entry under the folders with its owner, mode, size and mtime: "nothing was written". */
function listing(...dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return;
    out.push(`${p} ${st.uid} ${(st.mode & 0o7777).toString(8)} ${st.isDirectory() ? '-' : st.size} ${st.mtimeMs}`);
    if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(join(p, e));
  };
  for (const d of dirs) walk(d);
  return out;
}
const snap = () => listing(sd, h.home);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const refusal = (cmd: string, lead = 'hbgen: ') =>
  new RegExp(
    `${lead}the state folder ${esc(sd)} belongs to ${U.name} \\(uid ${U.uid}\\), not to you \\(uid 0\\), and hbgen writes to an install only as the owner of its state folder, so nothing was changed; run hbgen as ${U.name}, e\\.g\\. \`sudo -u ${U.name} ${esc(cmd)}\`\\n`,
  );

real('setup: a scratch user installs on its real crontab and wakes once', () => {
  U = cronUser('hbgen-owner');
  U.set(null);
  h = makeHost('cron');
  U.own(h);
  sd = names(h.spec).stateDir;
  const i = U.run(h, 'install', { yes: true });
  assert.is(i.code, 0, i.err + i.out);
  const w = U.run(h, 'wake');
  assert.is(w.code, 0, w.err + w.out);
  assert.is(lstatSync(sd).uid, U.uid);
});

real('root: hbgen wake refuses, exit 1, naming the folder, its owner and the user; nothing changed', async () => {
  const before = snap();
  const r = await hb(h, 'wake');
  assert.is(r.code, 1, r.err + r.out);
  assert.match(r.err, refusal(`hbgen wake ${h.specFile}`));
  assert.equal(snap(), before);
});

real('root: heartbeat.sh run directly (a fire, and --now) exits 78 with its line on stderr; nothing changed, no runtime.log line', () => {
  const before = snap();
  const log = readFileSync(join(sd, 'runtime.log'), 'utf8');
  for (const args of [[], ['--now']]) {
    const r = spawnSync('/bin/sh', [join(sd, 'heartbeat.sh'), ...args], { env: h.env, encoding: 'utf8', cwd: '/' });
    assert.is(r.status, 78, r.stderr);
    assert.match(r.stderr, new RegExp(`hbgen docs: state folder ${esc(sd)} belongs to ${U.name} \\(uid ${U.uid}\\), not to uid 0 that runs this wrapper, so nothing ran`));
    assert.equal(snap(), before, args.join(' ') || 'a fire');
  }
  assert.is(readFileSync(join(sd, 'runtime.log'), 'utf8'), log);
});

real('root: stop, resume, resume --now, install, doctor and log --send refuse the same way; nothing changed', async () => {
  const before = snap();
  const table = U.table();
  for (const [cmd, opts, line] of [
    ['stop', {}, `hbgen stop ${h.specFile}`],
    ['resume', { yes: true }, `hbgen resume ${h.specFile}`],
    ['resume', { resumeNow: true }, `hbgen resume --now ${h.specFile}`],
    ['install', { yes: true }, `hbgen install ${h.specFile}`],
    ['doctor', {}, `hbgen doctor ${h.specFile}`],
    ['log', { digest: 'today', send: true }, `hbgen log --digest today --send ${h.specFile}`],
  ] as const) {
    const r = await hb(h, cmd, opts);
    assert.is(r.code, 1, `${cmd}: ${r.err}${r.out}`);
    assert.match(r.err, refusal(line), cmd);
    assert.equal(snap(), before, cmd);
  }
  assert.ok(U.table()?.equals(table!), 'the crontab as it was');
});

real('root: status reads and writes nothing (the health record included); with a repair to make it refuses, exit 1', async () => {
  const before = snap();
  const st = await hb(h, 'status');
  assert.match(st.out, /note {5}the state folder .* belongs to .*, not to you \(uid 0\)/);
  assert.equal(snap(), before, 'a status with nothing to repair');
  // A file status would put back: its bytes changed, its owner still the person.
  const gate = join(sd, 'window.sh');
  const text = readFileSync(gate, 'utf8');
  writeFileSync(gate, `${text}# edited\n`);
  const edited = snap();
  const r = await hb(h, 'status');
  assert.is(r.code, 1, r.err + r.out);
  assert.match(r.err, refusal(`hbgen status ${h.specFile}`, `hbgen: ${esc(gate)} would be put back, and `));
  assert.equal(snap(), edited);
  const json = await hb(h, 'status', { json: true });
  assert.is(json.code, 1);
  assert.is(JSON.parse(json.out).problems[0].code, 'cannot-audit');
  // The person's status puts it back, as theirs.
  const mine = U.run(h, 'status');
  assert.match(mine.out, /window\.sh/);
  assert.is(readFileSync(gate, 'utf8'), text);
  assert.is(lstatSync(gate).uid, U.uid);
});

real("the person's next wake after root's refused attempts works", () => {
  const w = U.run(h, 'wake');
  assert.is(w.code, 0, w.err + w.out);
  assert.match(w.out, /^wake \d+: /);
});

real("a file root left in the state folder, and a folder in the jail's private tmp: status and doctor, as the person, name each with its chown; status exit 1", () => {
  const planted = join(sd, 'wakes.aside');
  writeFileSync(planted, '3\n', { mode: 0o600 });
  const cache = join(h.home, '.cache', 'hbgen', 'docs');
  mkdirSync(cache, { recursive: true });
  spawnSync('chown', ['-R', `${U.name}:`, join(h.home, '.cache')]);
  const tmp = join(cache, 'tmp');
  mkdirSync(tmp, { mode: 0o700 });
  appendFileSync(join(tmp, 'x'), 'root');
  const st = U.run(h, 'status');
  assert.is(st.code, 1, st.out + st.err);
  const says = (p: string) => new RegExp(`problem  foreign owner: ${esc(p)} belongs to root \\(uid 0\\), not to ${U.name} \\(uid ${U.uid}\\) who owns the state folder ${esc(sd)}, so the wakes, which run as ${U.name}, cannot replace it \\(hbgen was run as another user\\); give it back with \`sudo chown -R ${U.name}: ${esc(p)}\`\\n`);
  assert.match(st.out, says(planted));
  assert.match(st.out, says(tmp));
  assert.not.match(st.out, new RegExp(`foreign owner: ${esc(tmp)}/x`), 'the topmost path only');
  const json = JSON.parse(U.run(h, 'status', { json: true }).out);
  assert.ok(json.problems.some((p: { code: string }) => p.code === 'foreign-owner'), JSON.stringify(json.problems));
  const d = U.run(h, 'doctor' as 'status');
  assert.is(d.code, 1, d.out + d.err);
  assert.match(d.out, new RegExp(`FAIL  owner: ${esc(planted)} belongs to root`));
  assert.match(d.out, /\nit would not run right now: [^\n]*owner/);
  assert.not.match(d.out, /it would run right now/);
  // Given back, neither is named any more.
  rmSync(planted);
  spawnSync('chown', ['-R', `${U.name}:`, tmp]);
  assert.not.match(U.run(h, 'status').out, /foreign owner/);
});

test.run();
