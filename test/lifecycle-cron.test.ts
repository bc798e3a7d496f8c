// needs root: it creates scratch users (useradd); it runs hbgen as scratch users on their real crontab; it runs commands as other users (runuser)
// install / status / stop on the cron path.
// - Real crontab(1): hbgen runs as the scratch user hbgen-life-test (runuser, through
//   test/helpers/lifecycle-driver.ts; the real heartbeat.sh, or a STAND-IN where a test
//   makes the install check fail), so no real user's crontab is touched; root reads and
//   sets that user's table with `crontab -u`.
// - A recording STAND-IN crontab (test/helpers/crontab.ts) first on PATH, in-process as
//   root, for failures the real one cannot be made to show.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { B, makeStub } from './helpers/crontab.ts';
import { cronUser, realOrSkip, type CronUser } from './helpers/cronuser.ts';
import { hb, lines, makeHost, rewriteSpec, tree, type Host } from './helpers/lifecycle.ts';
import { FAKETIME_LIB } from './helpers/faketime.ts';

const real = realOrSkip(test, 'lifecycle-cron');
let U: CronUser;

const show = (b: Buffer | null) => (b === null ? 'null' : JSON.stringify(b.toString('latin1')));
function same(a: Buffer | null, b: Buffer | null, msg: string) {
  assert.ok(a === null ? b === null : b !== null && a.equals(b), `${msg}: got ${show(a)}, want ${show(b)}`);
}
function host(): Host {
  const h = makeHost('cron');
  U.own(h);
  return h;
}
const block = (h: Host) => readFileSync(join(names(h.spec).stateDir, 'host/crontab'));

const TRICKY = B('SHELL=/bin/bash\nPATH=/opt/bin:/usr/bin:/bin\nMAILTO=""\n# caf\xe9 au lait \xff\n0 5 * * * backup --all > /tmp/x 2>&1\n\n   # indented\n# trailing note without newline');

real('setup: the scratch user hbgen-life-test with no crontab', () => {
  U = cronUser('hbgen-life-test');
  U.set(null);
  assert.is(U.table(), null);
});

real('real crontab: no table → install --yes (the block is the whole table) → again a no-op → stop → no crontab again', () => {
  const h = host();
  U.set(null);
  const r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /  crontab -   \(the new table on stdin, after re-reading it; read back after\)\n/);
  assert.match(r.out, /ok {4}scheduler: crontab -l holds hbgen's block "docs" at lines 1–\d+, byte for byte as written/);
  same(U.table(), block(h), 'the table is exactly the block');
  const s = JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8'));
  assert.equal(s.cron, { tableBefore: 'absent', block: block(h).toString('utf8') });
  assert.equal(s.ids, { begin: '# BEGIN hbgen docs', end: '# END hbgen docs' });

  const again = U.run(h, 'install', { yes: true });
  assert.is(again.code, 0);
  assert.match(again.out, /is already installed .* nothing changed/);

  const st = U.run(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /ok {7}your crontab holds hbgen's block "docs" at lines 1–\d+\n/);
  assert.match(st.out, /ok {7}next fire: \d{4}-\d\d-\d\d (0[8-9]|1\d|2[0-2]):(07|37) Europe\/Berlin/);

  const stop = U.run(h, 'stop');
  assert.is(stop.code, 0, stop.err);
  assert.match(stop.out, /ran crontab -r: you had no crontab before install/);
  assert.is(U.table(), null, '`crontab -l` says "no crontab" again');
  assert.match(U.run(h, 'stop').out, /already stopped/);
});

real('real crontab: --dry-run and no terminal change nothing; a tricky table comes back byte for byte after install + stop, three times', () => {
  const h = host();
  U.set(TRICKY);
  const homeBefore = tree(h.home);
  const dry = U.run(h, 'install', { dryRun: true });
  assert.is(dry.code, 0, dry.err);
  assert.match(dry.out, /your crontab: hbgen's block "docs" \(# BEGIN hbgen docs … # END hbgen docs\) first, every other byte kept/);
  assert.match(dry.out, /once the block is in: line \d+ of your crontab sets SHELL below hbgen's block "docs": it applies only to the lines below it/);
  const notty = U.run(h, 'install');
  assert.is(notty.code, 1);
  assert.match(notty.err, /there is no terminal to ask for consent/);
  same(U.table(), TRICKY, 'untouched');
  assert.equal(tree(h.home), homeBefore);
  assert.not.ok(existsSync(names(h.spec).stateDir));
  for (let i = 0; i < 3; i++) {
    const r = U.run(h, 'install', { yes: true });
    assert.is(r.code, 0, r.err + r.out);
    same(U.table(), Buffer.concat([block(h), TRICKY]), `cycle ${i}: block first, every other byte kept`);
    const s = U.run(h, 'stop');
    assert.is(s.code, 0, s.err);
    same(U.table(), TRICKY, `cycle ${i}: the original bytes after stop`);
  }
  assert.equal(tree(h.home), homeBefore);
});

real('real crontab: a duplicated block is refused with the lines to remove, and the table is untouched', () => {
  const h = host();
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  const dup = Buffer.concat([block(h), B('0 5 * * * x\n'), block(h)]);
  U.set(dup);
  const r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /your crontab: hbgen's block "docs" appears 2 times, at lines 1–\d+ and \d+–\d+; keep one and delete the others, for example lines \d+–\d+/);
  assert.match(r.err, /nothing was changed on this host/);
  same(U.table(), dup, 'untouched');
  const st = U.run(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /problem {2}duplicate or broken block in your crontab: hbgen's block "docs" appears 2 times/);
  U.set(null);
});

real('real crontab: a copy of the job line outside hbgen\'s block is found by status, doctor and stop; stop removes only the block, never the line, and does not call the install stopped until it is gone', () => {
  const h = host();
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  const job = block(h).toString('latin1').split('\n').find((l) => /heartbeat\.sh/.test(l) && !l.startsWith('#'))!;
  assert.ok(job, block(h).toString('latin1'));
  // The person copied the job line below their own (a `crontab -e` that kept a copy).
  const table = Buffer.concat([block(h), B(`0 5 * * * mine\n${job}\n`)]);
  U.set(table);
  const strayLine = table.toString('latin1').split('\n').indexOf(job, block(h).toString('latin1').split('\n').length - 1) + 1;
  const st = U.run(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, new RegExp(`problem  stray: line ${strayLine} of your crontab \\(7,37 8-22 \\* \\* \\* /bin/sh -c .*heartbeat\\.sh'?\\) runs \\S+/heartbeat\\.sh, and hbgen did not write it: it fires wakes whatever hbgen says; delete that line with \`crontab -e\``), st.out);
  const d = U.run(h, 'doctor');
  assert.is(d.code, 1, d.out + d.err);
  assert.match(d.out, new RegExp(`FAIL  other entries: line ${strayLine} of your crontab`), d.out);
  assert.match(d.out, /it would not run right now: .*other entries/, d.out);

  const stop = U.run(h, 'stop');
  assert.is(stop.code, 1, stop.out + stop.err);
  assert.match(stop.out, /removed hbgen's block "docs" from your crontab/);
  // The block is gone: the copy is now line 2, as stop names it after its own removal.
  assert.match(stop.err, new RegExp(`hbgen: line 2 of your crontab \\(`), stop.err);
  assert.match(stop.err, /hbgen: so "docs" is not stopped: hbgen's own entries are gone, but that entry still wakes it; remove it as said, then run `hbgen stop \S+` again\n/, stop.err);
  assert.not.match(stop.out, /hbgen: stopped "docs"/);
  // Only hbgen's block went: the person's lines, the copy among them, byte for byte.
  same(U.table(), B(`0 5 * * * mine\n${job}\n`), 'every byte outside the block kept');
  const st2 = U.run(h, 'status');
  assert.is(st2.code, 1, st2.out);
  assert.match(st2.out, /problem  stray: line 2 of your crontab/, st2.out);
  assert.not.match(st2.out, /stopped: there is no scheduler entry/);
  const again = U.run(h, 'stop');
  assert.is(again.code, 1, again.out + again.err);
  assert.match(again.err, /so "docs" is not stopped/);

  // The person removes the line: stopped, and status says so.
  U.set(B('0 5 * * * mine\n'));
  const done = U.run(h, 'stop');
  assert.is(done.code, 0, done.out + done.err);
  assert.match(done.out, /already stopped/);
  const st3 = U.run(h, 'status');
  assert.match(st3.out, /stopped: there is no scheduler entry/, st3.out);
  assert.not.match(st3.out, /stray/);
  // A commented-out copy runs nothing: not a stray.
  U.set(B(`0 5 * * * mine\n#${job}\n`));
  assert.is(U.run(h, 'stop').code, 0);
  U.set(null);
});

real('real crontab: a BEGIN marker without its END is refused with its line number; the table is untouched', () => {
  const h = host();
  const broken = B('0 5 * * * mine\n# BEGIN hbgen docs\n7 8 * * * x\n');
  U.set(broken);
  const r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 1);
  assert.match(r.err, /hbgen: your crontab: line 2 is "# BEGIN hbgen docs" but no "# END hbgen docs" follows it\n/);
  same(U.table(), broken, 'untouched');
  U.set(null);
});

real('real crontab: a block the user dropped is an orphan (status 1) and is simply re-created', () => {
  const h = host();
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  U.set(B('0 5 * * * mine\n'));
  const st = U.run(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /problem {2}orphan: state\.json says installed, but your crontab holds no block "docs"/);
  const r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err);
  same(U.table(), Buffer.concat([block(h), B('0 5 * * * mine\n')]), 're-created, first');
  assert.is(U.run(h, 'stop').code, 0);
  same(U.table(), B('0 5 * * * mine\n'), 'stop keeps the user line');
  U.set(null);
});

real('real crontab, stand-in wrapper: a failing smoke test restores the table byte for byte (present) and "no crontab" (absent)', () => {
  for (const before of [TRICKY, null]) {
    const h = host();
    U.set(before);
    const homeBefore = tree(h.home);
    const r = U.run(h, 'install', { yes: true, wrapper: { smokeExit: 78 } });
    assert.is(r.code, 1);
    assert.match(r.err, /hbgen undid everything it did: the host is as it was before/);
    same(U.table(), before, 'crontab as before');
    assert.equal(tree(h.home), homeBefore);
    assert.not.ok(existsSync(names(h.spec).stateDir), 'the state folder install created is gone');
  }
});

real('real crontab, stand-in wrapper: a failing re-install keeps the old block and runtime.log, and says the earlier install is unchanged and still active', () => {
  const h = host();
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  assert.is(U.run(h, 'wake').code, 0);
  const log = join(names(h.spec).stateDir, 'runtime.log');
  const tableBefore = U.table();
  const logBefore = readFileSync(log);
  const agentLogBefore = readFileSync(names(h.spec).agentLog);
  const stateBefore = tree(names(h.spec).stateDir);
  rewriteSpec(h, { timeout: '20m' });
  const r = U.run(h, 'install', { yes: true, wrapper: { smokeExit: 78 } });
  assert.is(r.code, 1, r.out);
  assert.match(r.err, /^hbgen: the install check failed \(cron's environment, exit status, lock, runtime\.log\), so these settings of "docs" are not installed\nhbgen: hbgen undid everything it did: the earlier install of "docs" is unchanged and still active\n$/);
  same(U.table(), tableBefore, 'the old block and the user line, byte for byte');
  assert.ok(readFileSync(log).equals(logBefore), 'runtime.log as the wake left it');
  assert.ok(readFileSync(names(h.spec).agentLog).equals(agentLogBefore), 'agent.log as the wake left it');
  assert.equal(tree(names(h.spec).stateDir), stateBefore, 'the old wrapper and state.json are back');
  assert.equal(lines(log).slice(-2), ['hbgen docs start wake 1 by hand', 'hbgen docs quiet']);
  assert.equal(lines(names(h.spec).agentLog).slice(-2), ['hbgen docs start wake 1 by hand', 'agent ran']);
  assert.is(U.run(h, 'stop').code, 0);
  U.set(null);
});

real('real crontab: the state folder gone (git clean -fdx), status names the live block (exit 1), stop removes only it', () => {
  const h = host();
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  rmSync(names(h.spec).stateDir, { recursive: true });
  const st = U.run(h, 'status');
  assert.is(st.code, 1);
  assert.match(st.out, /problem {2}the state folder is gone; the scheduler still runs the crontab block "docs" \(lines 1–\d+ of your crontab\); `hbgen stop` removes it/);
  const r = U.run(h, 'stop');
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /the state folder is gone; removing what the scheduler still runs for "docs", found by its name\n {2}removed hbgen's block "docs" from your crontab/);
  same(U.table(), B('0 5 * * * mine\n'), 'the user line kept, the block gone');
  assert.match(U.run(h, 'stop').out, /nothing to stop/);
  U.set(null);
});

real('real crontab + stand-in systemctl: switching the spec cron → systemd-user → cron leaves one scheduler; the panel names what goes; the user\'s lines stay', () => {
  const h = host();
  U.set(B('0 5 * * * mine\n'));
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  const calls = () => h.tools.calls().join('\n');
  rewriteSpec(h, { schedule: { ...h.spec.schedule, scheduler: 'systemd-user' } });
  let r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /then, the check passed, it removes what the earlier install runs on another scheduler \(one scheduler at a time\):\n {2}cron: .*crontab.*\n/);
  assert.match(r.out, /removing the earlier install on cron:\n {2}removed hbgen's block "docs" from your crontab/);
  same(U.table(), B('0 5 * * * mine\n'), 'the cron block gone, the user line kept');
  assert.match(calls(), /systemctl --user enable --now hbgen-docs\.timer/);
  assert.match(U.run(h, 'install', { yes: true }).out, /is already installed/, 'a second install is a no-op: nothing left on cron');

  rewriteSpec(h, { schedule: { ...h.spec.schedule, scheduler: 'cron' } });
  r = U.run(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /removing the earlier install on systemd-user:\n {2}ran systemctl --user disable --now hbgen-docs\.timer/);
  assert.ok(!existsSync(join(h.home, '.config/systemd/user/hbgen-docs.timer')), 'the timer unit is gone');
  const table = U.table();
  assert.match(table?.toString("latin1") ?? "(no crontab)", /^# BEGIN hbgen docs\n[^]*# END hbgen docs\n0 5 \* \* \* mine\n$/, `${r.out}\n${r.err}`);
  U.set(null);
});

real('real crontab, no cron daemon firing it: two hours on (libfaketime), status names the first missed fire and the likely causes (exit 1)', () => {
  const lib = FAKETIME_LIB;
  assert.ok(lib, 'libfaketime (Debian faketime) is installed');
  const h = makeHost('cron', { schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  U.own(h);
  U.set(null);
  assert.is(U.run(h, 'install', { yes: true }).code, 0);
  assert.is(U.run(h, 'status').code, 0, 'just installed: nothing was due yet');
  const later = U.run(h, 'status', { env: { LD_PRELOAD: lib!, FAKETIME: '+2h', FAKETIME_DONT_FAKE_MONOTONIC: '1' } });
  assert.is(later.code, 1, later.out);
  assert.match(later.out, /problem {2}missed fire: the scheduler was due to fire at \d{4}-\d\d-\d\d \d\d:(07|37) UTC \([^)]+\) and nothing was logged \([3-4] fires in the last 24 h left no line\); likely: .*or the cron daemon was not running/);
  U.set(null);
});

test('stand-in crontab: `crontab -l` refused (cron.deny) is refused before the question; `crontab -` never runs', async () => {
  const stub = makeStub();
  const h = makeHost('cron');
  const env = { PATH: `${stub.dir}:${h.tools.bin}:/usr/bin:/bin` };
  stub.set('deny', true);
  const r = await hb(h, 'install', { yes: true, env });
  assert.is(r.code, 1);
  assert.match(r.err, /`crontab -l` failed \(exit 1\): You \(stub\) are not allowed to use this program \(crontab\); See crontab\(1\) for more information; fix access to cron/);
  assert.equal(stub.calls(), ['-l|C']);
  assert.not.ok(existsSync(names(h.spec).stateDir));
  stub.remove();
});

test('stand-in crontab: a failing `crontab -` undoes the install: state folder gone, table unchanged', async () => {
  const stub = makeStub();
  const h = makeHost('cron');
  const env = { PATH: `${stub.dir}:${h.tools.bin}:/usr/bin:/bin` };
  stub.setTable(TRICKY);
  stub.setText('write-error', 'crontab: disk full\n');
  const r = await hb(h, 'install', { yes: true, env });
  assert.is(r.code, 1);
  assert.match(r.err, /installing failed: `crontab -` failed \(exit 1\): crontab: disk full; your crontab was not changed/);
  assert.match(r.err, /hbgen undid everything it did/);
  same(stub.table(), TRICKY, 'table unchanged');
  assert.not.ok(existsSync(names(h.spec).stateDir));
  stub.remove();
});

test('stand-in crontab: a table edited after the first read is read again under the lock and merged; nothing is lost', async () => {
  const stub = makeStub();
  const h = makeHost('cron');
  const env = { PATH: `${stub.dir}:${h.tools.bin}:/usr/bin:/bin` };
  stub.setTable(B('0 1 * * * first\n'));
  stub.setText('mutate-with', B('0 1 * * * first\n0 2 * * * added meanwhile\n'));
  stub.setText('mutate-at', '2');
  const r = await hb(h, 'install', { yes: true, env });
  assert.is(r.code, 0, r.err + r.out);
  same(stub.table(), Buffer.concat([block(h), B('0 1 * * * first\n0 2 * * * added meanwhile\n')]), 'the later edit is kept');
  // The install check's lines: start, how it ran in cron's environment, quiet, the second run's skip.
  assert.equal(lines(join(names(h.spec).stateDir, 'runtime.log')).length, 4);
  stub.remove();
});

test('stand-in crontab + systemctl: systemd-user → cron leaves no copy of the units under host/; the panel names each before it goes', async () => {
  const stub = makeStub();
  const h = makeHost('systemd-user');
  const env = { PATH: `${stub.dir}:${h.tools.bin}:/usr/bin:/bin` };
  assert.is((await hb(h, 'install', { yes: true, env })).code, 0);
  const host = names(h.spec).hostDir;
  assert.ok(existsSync(join(host, 'hbgen-docs.timer')), 'the systemd install keeps a copy of its timer');
  rewriteSpec(h, { schedule: { ...h.spec.schedule, scheduler: 'cron' } });
  const r = await hb(h, 'install', { yes: true, env });
  assert.is(r.code, 0, r.err + r.out);
  for (const u of ['hbgen-docs.service', 'hbgen-docs.timer']) {
    assert.ok(r.out.includes(`  ${join(host, u)}  removed once the check passed: the earlier install's copy of an entry no scheduler runs now\n`), r.out);
  }
  assert.equal(readdirSync(host), ['crontab'], 'only the entry cron runs');
  const st = await hb(h, 'status', { env });
  assert.is(st.code, 0, st.out);
  stub.remove();
});

test.run();
