// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh step 4b: runtime.log rotated to runtime.log.1 past logMaxBytes, under the
// lock only, across the shell matrix and on a PATH without flock/timeout (mkdir lock):
// at the cap (on the next wake; without find(1), on the wake counter's checking wakes), every byte kept and no line split,
// one rotation among simultaneous wakes, a planted runtime.log.1 never written through;
// agent.log (the agent's output) by the same rule to agent.log.1, each log on its own size.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, makeCase, run, shell, shellcheck, type Case } from './helpers/wrapper.ts';

const CAP = 65536;
const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ hbgen tst (\S+)/;

/** A log of complete lines, `bytes` long or a little more: earlier wakes' lines and agent output. */
function filler(bytes: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const l = i % 3 === 0 ? `2026-11-30T10:${String(i % 60).padStart(2, '0')}:00Z hbgen tst quiet old wake ${i}` : `agent output line ${i} ${'x'.repeat(40)}`;
    out.push(l);
    n += l.length + 1;
  }
  return `${out.join('\n')}\n`;
}

/** logMaxBytes null: the spec leaves it out (the default, 10 MiB). agentSize: an agent.log of that many bytes first. */
function prepared(opts: { path?: string; lock?: string; counter?: string; size: number; agentSize?: number; logMaxBytes?: number | null }): { c: Case; old: string; oldAgent: string } {
  const max = opts.logMaxBytes === undefined ? CAP : opts.logMaxBytes;
  const c = makeCase({ path: opts.path, spec: { lock: opts.lock ?? 'auto', ...(max ? { logMaxBytes: max } : {}) } });
  const old = filler(opts.size);
  writeFileSync(join(c.state, 'runtime.log'), old);
  const oldAgent = opts.agentSize === undefined ? '' : filler(opts.agentSize);
  if (opts.agentSize !== undefined) writeFileSync(join(c.state, 'agent.log'), oldAgent);
  if (opts.counter !== undefined) writeFileSync(join(c.state, 'wakes'), `${opts.counter}\n`);
  c.behave('echo agent says hello\n');
  return { c, old, oldAgent };
}

const log1 = (c: Case) => join(c.state, 'runtime.log.1');
const read1 = (c: Case) => readFileSync(log1(c), 'utf8');
const agent1 = (c: Case) => join(c.state, 'agent.log.1');

test('the rendered wrapper with logMaxBytes passes shellcheck; the cap is its value in the script', () => {
  const { c } = prepared({ size: 10, logMaxBytes: 123456 });
  const sc = shellcheck(join(c.state, 'heartbeat.sh'));
  assert.ok(sc.ok, sc.out);
  assert.match(c.files['heartbeat.sh']!, /^hb_logmax=123456$/m);
  const d = prepared({ size: 10, logMaxBytes: null }).c;
  assert.match(d.files['heartbeat.sh']!, /^hb_logmax=10485760$/m, 'the default cap is 10 MiB');
});

for (const sh of SHELLS) {
  for (const [label, path, lock] of [['flock', PATHS.full, 'flock'], ['mkdir lock, bare PATH', PATHS.bare, 'auto']] as const) {
    test(`${sh.name} (${label}): past the cap runtime.log becomes runtime.log.1 whole, and the wake goes on in a fresh runtime.log`, async () => {
      const { c, old } = prepared({ path, lock, counter: '5', size: CAP + 1 });
      const r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.is(read1(c), old, 'the old generation is the old log, byte for byte');
      // The fresh log holds this wake only: its start and the outcome; the agent's output is in agent.log.
      assert.equal(c.outcomes(), ['start wake 6', 'quiet'], c.log());
      assert.match(c.log(), /^\S+ hbgen tst start wake 6\n\S+ hbgen tst quiet\n$/);
      assert.match(c.agentLog(), /^\S+ hbgen tst start wake 6\nagent says hello\n$/);
      assert.not.ok(existsSync(agent1(c)), 'agent.log is below the cap: not rotated');
      assert.is(lstatSync(join(c.state, 'runtime.log')).mode & 0o777, 0o600, 'the fresh log gets the private umask');
    });
  }
}

test('dash: at the cap exactly nothing moves; one byte past it rotates', async () => {
  const a = makeCase({ spec: { logMaxBytes: CAP } });
  writeFileSync(join(a.state, 'runtime.log'), 'y'.repeat(CAP - 1) + '\n');
  writeFileSync(join(a.state, 'wakes'), '10\n');
  assert.is((await run(a, shell('dash'))).code, 0);
  assert.not.ok(existsSync(log1(a)), 'a log of exactly logMaxBytes stays');
  const b = makeCase({ spec: { logMaxBytes: CAP } });
  writeFileSync(join(b.state, 'runtime.log'), 'y'.repeat(CAP) + '\n');
  writeFileSync(join(b.state, 'wakes'), '10\n');
  assert.is((await run(b, shell('dash'))).code, 0);
  assert.is(read1(b), 'y'.repeat(CAP) + '\n');
});

test('dash: the default cap (10 MiB) and a log below it: no rotation; a first wake (no counter) checks too', async () => {
  const { c } = prepared({ size: CAP * 2, logMaxBytes: null });
  assert.is((await run(c, shell('dash'))).code, 0);
  assert.not.ok(existsSync(log1(c)));
  const big = prepared({ size: 10 * 1024 * 1024 + 100, logMaxBytes: null });
  assert.is((await run(big.c, shell('dash'))).code, 0);
  assert.is(read1(big.c), big.old);
  assert.equal(big.c.outcomes(), ['start wake 1', 'quiet']);
});

// Whether the log is past the cap comes with the wrapper's one-name check of it
// (the same find, no fork of its own), so a log past the cap is rotated by the next wake,
// whatever its counter. Only where find is missing (the ls fallback knows no size) is the
// size measured on wakes whose counter ends in 0 or 5 only (no fork on the others).
test('dash: a log past the cap is rotated by the next wake whatever the counter; without find(1), on wakes whose counter ends in 0 or 5 only', async () => {
  for (const counter of ['3', '4', '9', '10', '15', '0']) {
    const { c } = prepared({ counter, size: CAP + 1, logMaxBytes: CAP });
    assert.is((await run(c, shell('dash'))).code, 0);
    assert.ok(existsSync(log1(c)), `counter ${counter}`);
  }
  const noFind = join(PATHS.bare, '..', 'no-find-rotate');
  if (!existsSync(noFind)) {
    mkdirSync(noFind);
    for (const t of readdirSync(PATHS.bare)) if (t !== 'find') symlinkSync(join(PATHS.bare, t), join(noFind, t));
  }
  for (const [counter, rotates] of [['3', false], ['4', false], ['9', false], ['10', true], ['15', true], ['0', true]] as const) {
    const { c } = prepared({ path: noFind, counter, size: CAP + 1, logMaxBytes: CAP });
    assert.is((await run(c, shell('dash'))).code, 0, c.log().slice(-500));
    assert.is(existsSync(log1(c)), rotates, `no find, counter ${counter}`);
  }
});

for (const sh of [shell('dash'), shell('mksh'), shell('busybox sh'), shell('yash')]) {
  for (const [label, path, lock] of [['flock', PATHS.full, 'flock'], ['mkdir lock', PATHS.bare, 'auto']] as const) {
    test(`${sh.name} (${label}): 10 simultaneous wakes past the cap: one rotation under the lock, no line lost, none split, none twice`, async () => {
      const { c, old } = prepared({ path, lock, counter: '5', size: CAP + 1 });
      c.behave('echo agent says hello\nsleep 1\necho agent says bye\n');
      const rs = await Promise.all(Array.from({ length: 10 }, () => run(c, sh)));
      for (const r of rs) assert.is(r.code, 0, r.stderr);
      const one = read1(c);
      // The old generation is the old log, then at most the lines of wakes that opened it
      // before the rename (they skip: the lock is taken).
      assert.ok(one.startsWith(old), 'the old log is whole in runtime.log.1');
      const both = one.slice(old.length) + c.log();
      const lines = both.split('\n');
      assert.is(lines.pop(), '', 'both files end with a whole line');
      for (const l of lines) assert.ok(LINE.test(l), `a whole line of the wrapper's: ${JSON.stringify(l)}`);
      const outs = lines.map((l) => LINE.exec(l)?.[1]).filter(Boolean);
      assert.is(outs.filter((o) => o === 'skip-locked').length, 9, both);
      assert.is(outs.filter((o) => o === 'start').length, 1, both);
      assert.is(outs.filter((o) => o === 'quiet').length, 1, both);
      // The running wake's lines are all in the fresh log, in order (skip-locked lines of
      // the others may come between).
      const own = c.log().split('\n').filter((l) => !/ skip-locked$/.test(l)).join('\n');
      assert.match(own, /hbgen tst start wake 6\n\S+ hbgen tst quiet\n/);
      assert.match(c.agentLog(), /^\S+ hbgen tst start wake 6\nagent says hello\nagent says bye\n$/);
      assert.equal(readdirSync(c.state).filter((f) => f.startsWith('runtime.log') || f.startsWith('agent.log')).sort(), ['agent.log', 'runtime.log', 'runtime.log.1']);
    });
  }
}

for (const sh of SHELLS) {
  test(`${sh.name}: a runtime.log.1 planted as a symbolic link is replaced, never written through`, async () => {
    const { c, old } = prepared({ path: PATHS.bare, counter: '5', size: CAP + 1, logMaxBytes: CAP });
    const target = join(c.dir, 'precious');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, log1(c));
    assert.is((await run(c, sh)).code, 0);
    assert.is(readFileSync(target, 'utf8'), 'keep me\n', 'the link target is untouched');
    assert.ok(lstatSync(log1(c)).isFile(), 'runtime.log.1 is a plain file now');
    assert.is(read1(c), old);
  });
}

test('dash: a runtime.log.1 planted as a folder: no rotation, a note on the scheduler log, the wake runs, the folder untouched', async () => {
  const { c, old } = prepared({ counter: '5', size: CAP + 1, logMaxBytes: CAP });
  mkdirSync(log1(c));
  writeFileSync(join(log1(c), 'inside'), 'x');
  const r = await run(c, shell('dash'));
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /runtime\.log\.1 is not a file hbgen can replace \(a folder\?\); remove it, so that runtime\.log can be rotated/);
  assert.equal(readdirSync(log1(c)), ['inside']);
  assert.ok(c.log().startsWith(old));
  assert.match(c.log(), /start wake 6\n\S+ hbgen tst quiet\n$/);
  assert.match(c.agentLog(), /start wake 6\nagent says hello\n$/);
});

for (const sh of SHELLS) {
  for (const [label, path, lock] of [['flock', PATHS.full, 'flock'], ['mkdir lock, bare PATH', PATHS.bare, 'auto']] as const) {
    test(`${sh.name} (${label}): agent.log past the cap becomes agent.log.1 whole, runtime.log below it stays; both past it: both rotate`, async () => {
      const { c, old, oldAgent } = prepared({ path, lock, counter: '5', size: 100, agentSize: CAP + 1 });
      const r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.is(readFileSync(agent1(c), 'utf8'), oldAgent, "the old generation is the agent's old log, byte for byte");
      assert.match(c.agentLog(), /^\S+ hbgen tst start wake 6\nagent says hello\n$/, 'the fresh agent.log holds this wake only');
      assert.is(lstatSync(join(c.state, 'agent.log')).mode & 0o777, 0o600, 'the fresh agent.log gets the private umask');
      assert.not.ok(existsSync(log1(c)), 'runtime.log is below the cap: not rotated');
      assert.ok(c.log().startsWith(old));
      assert.equal(c.outcomes().slice(-2), ['start wake 6', 'quiet']);

      const b = prepared({ path, lock, counter: '5', size: CAP + 1, agentSize: CAP + 1 });
      assert.is((await run(b.c, sh)).code, 0, b.c.log());
      assert.is(read1(b.c), b.old);
      assert.is(readFileSync(agent1(b.c), 'utf8'), b.oldAgent);
      assert.match(b.c.log(), /^\S+ hbgen tst start wake 6\n\S+ hbgen tst quiet\n$/);
      assert.match(b.c.agentLog(), /^\S+ hbgen tst start wake 6\nagent says hello\n$/);
    });
  }
}

test('dash: an agent.log.1 planted as a folder: no rotation of agent.log, a note naming it on the scheduler log, the wake runs', async () => {
  const { c, oldAgent } = prepared({ counter: '5', size: 100, agentSize: CAP + 1, logMaxBytes: CAP });
  mkdirSync(agent1(c));
  const r = await run(c, shell('dash'));
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /agent\.log\.1 is not a file hbgen can replace \(a folder\?\); remove it, so that agent\.log can be rotated/);
  assert.ok(c.agentLog().startsWith(oldAgent));
  assert.match(c.agentLog(), /start wake 6\nagent says hello\n$/);
});

test.run();
