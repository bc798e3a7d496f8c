// status and the wake without an outcome line ("every start line gets an outcome line, or
// status says which wake ended without one"), against the stand-in systemctl and
// the real rendered heartbeat.sh: a wrapper killed with SIGKILL mid-run, a start line the
// full disk left alone, a wake running now (not a problem), an agent whose output lacks its
// last newline (in agent.log; the outcome still reads, also in an older log that shared
// the file), and a runtime.log swapped for a link.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

const logOf = (h: Host) => join(names(h.spec).stateDir, 'runtime.log');
const NO_OUTCOME = /problem {2}wake (\d+) started at (\S+) has no outcome line: its wrapper was killed \(SIGKILL, out of memory, power loss\) or runtime\.log could not be written/;
const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(check(), what);
};

async function installed(over: Parameters<typeof makeHost>[1] = {}): Promise<Host> {
  const h = makeHost('systemd-user', { lock: 'flock', timeout: '20s', killAfter: '1s', ...over });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  return h;
}

test('a wake that ended with its outcome is healthy; a start line left alone is a problem naming the wake', async () => {
  const h = await installed();
  assert.is((await hb(h, 'wake')).code, 0);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /last outcome: quiet at /);
  assert.not.match(st.out, /no outcome line/);
  // What a wrapper killed between its start line and its outcome leaves (or a full disk
  // that took the start line and not the outcome). Later skips do not end it.
  appendFileSync(logOf(h), '2026-12-01T08:07:00Z hbgen docs start wake 2\nagent output\n2026-12-01T08:37:00Z hbgen docs skip-locked\n2026-12-01T09:07:00Z hbgen docs skip-window\n');
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  const m = NO_OUTCOME.exec(st.out);
  assert.ok(m, st.out);
  assert.is(m![1], '2');
  assert.is(m![2], '2026-12-01T08:07:00Z');
  // A later wake that ends (by hand) settles it.
  assert.is((await hb(h, 'wake')).code, 0);
  st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.not.match(st.out, /no outcome line/);
});

test('the real wrapper killed with SIGKILL mid-run: running, then "wake N has no outcome line"', async () => {
  const h = await installed();
  writeFileSync(h.bin, '#!/bin/sh\necho agent started\nexec sleep 30\n');
  const w = join(names(h.spec).stateDir, 'heartbeat.sh');
  const child = spawn('/bin/sh', [w, '--now'], { detached: true, stdio: 'ignore' });
  const exited = new Promise((res) => child.on('exit', res));
  const record = join(names(h.spec).stateDir, 'agent');
  await until(() => existsSync(record) && / hbgen docs start wake 1 by hand\n/.test(readFileSync(logOf(h), 'utf8')), 'the agent started');
  try {
    let st = await hb(h, 'status');
    assert.match(st.out, /a heartbeat is running now/);
    assert.not.match(st.out, /no outcome line/);
    process.kill(child.pid!, 'SIGKILL');
    await exited;
    st = await hb(h, 'status');
    assert.is(st.code, 1, st.out);
    const m = NO_OUTCOME.exec(st.out);
    assert.ok(m, st.out);
    assert.is(m![1], '1');
  } finally {
    // The agent outlives its wrapper (its group is timeout(1)'s): end it here.
    const pg = Number(readFileSync(record, 'utf8').trim().split(' ')[1]);
    if (pg > 1) {
      try {
        process.kill(-pg, 'SIGKILL');
      } catch {}
    }
  }
});

test('an agent whose output lacks its last newline: it stays in agent.log, the outcome is a whole line of runtime.log; an older log whose torn line the outcome ends still reads', async () => {
  const h = await installed();
  writeFileSync(h.bin, "#!/bin/sh\nprintf 'no newline at the end'\n");
  assert.is((await hb(h, 'wake')).code, 0);
  const log = readFileSync(logOf(h), 'utf8');
  assert.match(log, /\n\d{4}-\S+ hbgen docs start wake 1 by hand\n\d{4}-\S+ hbgen docs took \d+ s\n\d{4}-\S+ hbgen docs quiet\n$/, log);
  assert.not.match(log, /no newline/);
  assert.match(readFileSync(names(h.spec).agentLog, 'utf8'), /\d{4}-\S+ hbgen docs start wake 1 by hand\nno newline at the end$/);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  assert.match(st.out, /last outcome: quiet at /);
  // A runtime.log an hbgen before agent.log wrote holds the agent's output: a torn last
  // line of it ends with the wrapper's outcome, which still reads.
  const now = new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  appendFileSync(logOf(h), `${now} hbgen docs start wake 2 by hand\nan older agent's output, no newline${now} hbgen docs fail 1\n`);
  writeFileSync(names(h.spec).wakes, '2\n');
  st = await hb(h, 'status');
  assert.match(st.out, /last outcome: fail 1 at /, st.out);
});

test('a runtime.log swapped for a link is a problem, and status does not read through it', async () => {
  const h = await installed();
  const target = join(h.root, 'elsewhere.log');
  writeFileSync(target, '2026-12-01T08:07:00Z hbgen docs ok\n');
  rmSync(logOf(h));
  symlinkSync(target, logOf(h));
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /runtime\.log is a symbolic link, which the wrapper refuses \(every wake exits 78\); remove it/);
  assert.not.match(st.out, /last outcome: ok/);
});

test('a jailed wake that ended `error tampered git …` is a problem (exit 1) naming it, and stays one after a clean wake', async () => {
  const h = await installed();
  assert.is((await hb(h, 'wake')).code, 0);
  // After the install, on the host's clock (the test host's own).
  const at = Date.parse(JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8')).installedAt) + 1000;
  const stamp = new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
  const later = new Date(at + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  appendFileSync(logOf(h), `${stamp} hbgen docs start wake 2 jail\n${stamp} hbgen docs error tampered git ./sub/.git/config sets core.fsmonitor\n${later} hbgen docs start wake 3 jail\n${later} hbgen docs quiet\n`);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /tampered git: the wake at \S+ left git a program to run outside the jail \(\.\/sub\/\.git\/config sets core\.fsmonitor\); do not run git in that folder/, st.out);
});

test('the advice after `tampered git` is true: install with the spec unchanged leaves the problem, the stop and resume it names clear it', async () => {
  const h = await installed();
  assert.is((await hb(h, 'wake')).code, 0);
  const at = Date.parse(JSON.parse(readFileSync(join(names(h.spec).stateDir, 'state.json'), 'utf8')).installedAt) + 1000;
  const stamp = new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
  appendFileSync(logOf(h), `${stamp} hbgen docs start wake 2 jail\n${stamp} hbgen docs error tampered git ./docs-site/config sets core.pager\n`);
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  const advice = /\(\.\/docs-site\/config sets core\.pager\); do not run git in that folder until you have removed what this names \([^)]*\), then run `hbgen stop docs` and `hbgen resume` to clear this/;
  assert.match(st.out, advice, st.out);
  // An install of the unchanged spec changes nothing, so it is not what the advice names.
  const again = await hb(h, 'install', { yes: true });
  assert.match(again.out, /nothing changed/, again.out);
  assert.match((await hb(h, 'status')).out, /tampered git: /);
  // What the advice names, run as it says it.
  assert.is((await hb(h, 'stop', { name: 'docs' })).code, 0);
  const res = await hb(h, 'resume', { yes: true });
  assert.is(res.code, 0, res.out + res.err);
  const after = await hb(h, 'status');
  assert.not.match(after.out, /tampered git: /, after.out);
  assert.not.match(after.out, /problem {2}/, after.out);
});

test.run();
