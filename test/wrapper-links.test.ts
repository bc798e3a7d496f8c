// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Hard links in a state folder the agent can write (one inside the repo).
// `ln ~/victim <state>/wake.marker` made the next wake truncate the victim, and
// `ln ~/victim2 <state>/runtime.log` made it append its log lines there, while status said
// healthy. The wrapper now removes every file it replaces before writing it (removing a
// hard link drops only that name) and refuses a runtime.log that is not a plain file with
// one name (error on the scheduler's stderr, exit 78, nothing written); status reports such
// files as problems. Install refuses a state folder inside the repo for host schedulers;
// this is the wrapper's own defence all the same, so the wrapper cases put it there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, type Case, makeCase, run } from './helpers/wrapper.ts';
import { names } from '../src/names.ts';
import { type Host, hb, makeHost } from './helpers/lifecycle.ts';

/** A wrapper case whose state folder is inside the repo, as the agent could reach it. */
function inRepo(path?: string): Case {
  return makeCase({ path, spec: { stateDir: '.agent-platform' } });
}

/** A file outside the repo the agent's user can write: what a planted link points at. */
function victim(c: Case, name: string, text: string): string {
  const f = join(c.dir, name);
  writeFileSync(f, text);
  return f;
}

for (const sh of SHELLS) {
  test(`${sh.name}: hard links planted at the counter's and agent record's files aside and at heart.sum's names leave the files they point at untouched`, async () => {
    const c = inRepo(PATHS.bare);
    writeFileSync(join(c.repo, 'HEART.md'), 'be kind\n');
    c.behave('echo done >"$PWD/work"\n');
    assert.is((await run(c, sh)).code, 0, c.log());
    const planted: [string, string][] = [];
    // The files the wrapper writes on this path (the count and the agent record
    // are written in aside/ and moved into place by the agent's process; the new counter
    // is change detection's marker, so wake.marker is no longer written).
    for (const name of ['aside/wakes', 'aside/agent', 'heart.sum', 'heart.sum.tmp']) {
      const v = victim(c, `victim-${name.replace("/", "-")}`, `precious ${name}\n`);
      rmSync(join(c.state, name), { force: true });
      linkSync(v, join(c.state, name));
      planted.push([v, name]);
    }
    writeFileSync(join(c.repo, 'HEART.md'), 'be kinder\n');
    const r = await run(c, sh);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.equal(c.outcomes().filter((o) => !o.startsWith('start ')), ['ok', 'ok'], c.log());
    for (const [v, name] of planted) {
      assert.is(readFileSync(v, 'utf8'), `precious ${name}\n`, `${name}: the victim is untouched`);
      if (existsSync(join(c.state, name))) assert.is(lstatSync(join(c.state, name)).nlink, 1, `${name} is the wrapper's own file now`);
    }
    assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), '2\n');
  });

  test(`${sh.name}: a runtime.log hard-linked to another file is refused: error on the scheduler's stderr, exit 78, nothing appended, no agent`, async () => {
    const c = inRepo(PATHS.bare);
    const v = victim(c, 'victim2', 'my notes\n');
    mkdirSync(c.state, { recursive: true });
    linkSync(v, join(c.state, 'runtime.log'));
    const r = await run(c, sh);
    assert.is(r.code, 78, r.stderr);
    assert.match(r.stderr, /^hbgen tst: log \S+\/runtime\.log is not a plain file with one name \(a hard link to another file, a FIFO or a device\); remove it \(the wrapper never writes through links\)\n$/);
    assert.is(readFileSync(v, 'utf8'), 'my notes\n', 'nothing appended to the victim');
    assert.equal(c.runs(), [], 'the agent did not run');
  });

  test(`${sh.name}: an agent.log hard-linked to another file, a symbolic link or a FIFO is refused: error on the scheduler's stderr, exit 78, nothing appended, no agent`, async () => {
    for (const how of ['hard', 'symbolic', 'fifo'] as const) {
      const c = inRepo(PATHS.bare);
      const v = victim(c, 'victim5', 'my notes\n');
      mkdirSync(c.state, { recursive: true });
      const at = join(c.state, 'agent.log');
      if (how === 'hard') linkSync(v, at);
      else if (how === 'symbolic') symlinkSync(v, at);
      else execFileSync('mkfifo', [at]);
      const r = await run(c, sh);
      assert.is(r.code, 78, `${how}: ${r.stderr}`);
      const said =
        how === 'hard'
          ? /^hbgen tst: log \S+\/agent\.log is not a plain file with one name \(a hard link to another file, a FIFO or a device\); remove it \(the wrapper never writes through links\)\n$/
          : /^hbgen tst: the agent's log \S+\/agent\.log is a symbolic link or not a plain file; remove it \(the wrapper never writes through links\)\n$/;
      assert.match(r.stderr, said, how);
      assert.is(readFileSync(v, 'utf8'), 'my notes\n', `${how}: nothing appended to the victim`);
      assert.equal(c.runs(), [], `${how}: the agent did not run`);
    }
  });
}

test('without find(1) on PATH the link count comes from ls -ldn: a hard-linked log is still refused, a plain one works', async () => {
  const dir = join(PATHS.bare, '..', 'no-find');
  if (!existsSync(dir)) {
    mkdirSync(dir);
    for (const t of readdirSync(PATHS.bare)) if (t !== 'find') symlinkSync(join(PATHS.bare, t), join(dir, t));
  }
  for (const sh of [SHELLS[0]!, SHELLS[5]!]) {
    const c = inRepo(dir);
    assert.is((await run(c, sh)).code, 0, c.log());
    const v = victim(c, 'victim4', 'mine\n');
    rmSync(join(c.state, 'runtime.log'));
    linkSync(v, join(c.state, 'runtime.log'));
    const r = await run(c, sh);
    assert.is(r.code, 78, `${sh.name}: ${r.stderr}`);
    assert.match(r.stderr, /is not a plain file with one name/);
    assert.is(readFileSync(v, 'utf8'), 'mine\n');
    // agent.log the same (the one find that looks at both is missing too).
    rmSync(join(c.state, 'runtime.log'));
    rmSync(join(c.state, 'agent.log'));
    linkSync(v, join(c.state, 'agent.log'));
    const r2 = await run(c, sh);
    assert.is(r2.code, 78, `${sh.name}: ${r2.stderr}`);
    assert.match(r2.stderr, /log \S+\/agent\.log is not a plain file with one name/);
    assert.is(readFileSync(v, 'utf8'), 'mine\n');
  }
});

test('the rotation: a hard link planted at runtime.log.1 loses only its name, and the fresh runtime.log is a file of its own', async () => {
  const c = makeCase({ spec: { stateDir: '.agent-platform', logMaxBytes: 65536 } });
  mkdirSync(c.state, { recursive: true });
  writeFileSync(join(c.state, 'runtime.log'), `${'x'.repeat(70000)}\n`);
  const v = victim(c, 'victim3', 'keep\n');
  linkSync(v, join(c.state, 'runtime.log.1'));
  assert.is((await run(c, SHELLS[0]!)).code, 0, c.log());
  assert.is(readFileSync(v, 'utf8'), 'keep\n');
  assert.is(lstatSync(join(c.state, 'runtime.log')).nlink, 1);
  assert.match(readFileSync(join(c.state, 'runtime.log.1'), 'utf8'), /^x{70000}\n/);
  // agent.log's rotation the same.
  writeFileSync(join(c.state, 'agent.log'), `${'y'.repeat(70000)}\n`);
  const v2 = victim(c, 'victim6', 'keep\n');
  linkSync(v2, join(c.state, 'agent.log.1'));
  assert.is((await run(c, SHELLS[0]!)).code, 0, c.log());
  assert.is(readFileSync(v2, 'utf8'), 'keep\n');
  assert.is(lstatSync(join(c.state, 'agent.log')).nlink, 1);
  assert.match(readFileSync(join(c.state, 'agent.log.1'), 'utf8'), /^y{70000}\n/);
});

// --- status -----------------------------------------------------------------------------
async function installed(): Promise<Host> {
  // A state folder outside the repo (install refuses one inside it); the links are planted
  // there after the install, as anyone able to write it could.
  const h = makeHost('systemd-user', { lock: 'flock', timeout: '20s', killAfter: '1s' }, 'outside');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.is((await hb(h, 'wake')).code, 0);
  return h;
}

test('status: a hard-linked runtime.log or wake counter, an agent.log that is a link, or a FIFO in the state folder, is a problem (exit 1) naming the file', async () => {
  const h = await installed();
  const state = names(h.spec).stateDir;
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  const v = join(h.root, 'victim');
  writeFileSync(v, 'mine\n');
  // (The wrapper no longer writes wake.marker; the counter, which it replaces every wake,
  // stands in for it here.)
  const count = readFileSync(join(state, 'wakes'));
  rmSync(join(state, 'wakes'));
  linkSync(v, join(state, 'wakes'));
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}\S+\/wakes has 2 names: a hard link shares its content with another file: the wrapper never makes one, and it does not write through this one; remove it/);
  rmSync(join(state, 'wakes'));
  writeFileSync(join(state, 'wakes'), count);
  const log = readFileSync(join(state, 'runtime.log'));
  const v2 = join(h.root, 'victim2');
  writeFileSync(v2, log);
  rmSync(join(state, 'runtime.log'));
  linkSync(v2, join(state, 'runtime.log'));
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}\S+\/runtime\.log has 2 names: a hard link shares its content with another file: the wrapper never makes one, and it refuses this one, so every wake exits 78; remove it/);
  const json = JSON.parse((await hb(h, 'status', { json: true })).out) as { problems: { code: string }[] };
  assert.ok(json.problems.some((p) => p.code === 'state-link'), JSON.stringify(json.problems));
  rmSync(join(state, 'runtime.log'));
  writeFileSync(join(state, 'runtime.log'), log);
  // agent.log, which the wrapper refuses the same way, also as a symbolic link (not read through).
  const out = readFileSync(join(state, 'agent.log'));
  rmSync(join(state, 'agent.log'));
  symlinkSync(v2, join(state, 'agent.log'));
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}\S+\/agent\.log is a symbolic link: the wrapper never makes one, and it refuses this one, so every wake exits 78; remove it/);
  rmSync(join(state, 'agent.log'));
  writeFileSync(join(state, 'agent.log'), out);
  execFileSync('mkfifo', [join(state, 'streak')]);
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}\S+\/streak is not a plain file \(a FIFO, a device, a socket or a folder\)/);
  rmSync(join(state, 'streak'));
  st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
});

// In status: two far pauses at the plan's limit in a row are a problem.
test('status: two far pauses in a row with no ok or quiet wake between are a problem (limit-repeated); one is not', async () => {
  const h = await installed();
  const log = join(names(h.spec).stateDir, 'runtime.log');
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  const t = Date.now() - 3600_000;
  appendFileSync(log, `${at(t)} hbgen docs start wake 2\n${at(t)} hbgen docs limit until ${at(t + 7 * 86400_000)}\n`);
  let st = await hb(h, 'status');
  assert.is(st.code, 0, st.out);
  appendFileSync(log, `${at(t + 60_000)} hbgen docs start wake 2\n${at(t + 60_000)} hbgen docs limit until ${at(t + 3660_000)} (a second far reset in a row with no ok or quiet wake between: not believed, paused for 1h)\n`);
  st = await hb(h, 'status');
  assert.is(st.code, 1, st.out);
  assert.match(st.out, /problem {2}repeated far pauses: 2 wakes in a row hit the plan's limit with a reset more than a day away and no ok or quiet wake between \(latest: limit until \S+ \(a second far reset in a row [^)]*\) at \S+\); a weekly limit does not strike twice like that, so the agent's output may be imitating its client's message: read \S+runtime\.log, and `hbgen resume --now` ends a pause\n/);
  const json = JSON.parse((await hb(h, 'status', { json: true })).out) as { problems: { code: string }[] };
  assert.equal(json.problems.map((p) => p.code), ['limit-repeated']);
});

test.run();
