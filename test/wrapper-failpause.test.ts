// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The pause after failures (spec pauseAfter), in every shell as /bin/sh: the real wrapper
// with a failing agent over pauseAfter + 2 fires runs it pauseAfter times, then every fire
// is one skip-paused line and no agent; notify is told once (paused); a wake by hand still
// runs and its success ends the pause; an edit of HEART.md ends it at the next fire; with
// pauseAfter false the wrapper never pauses; the spec refuses 0.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SHELLS, type Case, agentShell, join, makeCase, run, shell } from './helpers/wrapper.ts';
import { FAIL_PAUSE_FILE, parseFailPause } from '../src/formats.ts';
import { validateSpec } from '../src/spec.ts';
import { baseSpec } from './helpers/lifecycle.ts';

// The notify stand-in: appends "EVENT STREAK" to $HBTEST_DIR/calls (the case's folder, in
// the spec's env), so that one program serves every case.
const tools = mkdtempSync(join(tmpdir(), 'hbgen-failpause-'));
process.on('exit', () => rmSync(tools, { recursive: true, force: true }));
const notifier = join(tools, 'notify');
writeFileSync(notifier, `#!${agentShell}\nprintf '%s %s\\n' "$HBGEN_EVENT" "$HBGEN_STREAK" >>"$HBTEST_DIR/calls"\n`, { mode: 0o755 });

const calls = (c: Case) => (existsSync(join(c.rec, 'calls')) ? readFileSync(join(c.rec, 'calls'), 'utf8').split('\n').filter(Boolean) : []);
const pauseFile = (c: Case) => join(c.state, FAIL_PAUSE_FILE);
const notes = (c: Case) => c.outcomes().filter((l) => l.startsWith('note ')).map((l) => l.slice(5));
/** The outcome lines of the wakes and skips, without notes. */
const ends = (c: Case) => c.outcomes().filter((l) => !l.startsWith('note ') && !l.startsWith('start '));

for (const sh of SHELLS) {
  test(`${sh.name}: ${3} failing wakes in a row pause the job: 2 more fires are skip-paused, no agent; notify told once; a wake by hand that succeeds ends it`, async () => {
    const c = makeCase({ spec: { pauseAfter: 3, notify: [notifier], notifyAfter: 2 } });
    c.behave('exit 3\n');
    for (let i = 0; i < 5; i++) {
      const r = await run(c, sh);
      assert.is(r.code, i < 3 ? 3 : 0, `fire ${i + 1}: ${r.stderr}${c.log()}`);
    }
    assert.is(c.runs().length, 3, c.log());
    const e = ends(c);
    assert.equal(e.slice(0, 3), ['fail 3', 'fail 3', 'fail 3'], c.log());
    assert.is(e.length, 5, c.log());
    for (const l of e.slice(3)) assert.match(l, /^skip-paused after 3 failing wakes in a row since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; hbgen resume --now ends it$/);
    assert.equal(calls(c), ['failing 2', 'paused 3'], 'notify told of the pause once');
    assert.ok(notes(c).includes('paused after 3 failing wakes in a row: later fires log skip-paused and run no agent; hbgen resume --now ends it'), c.log());
    const rec = parseFailPause(readFileSync(pauseFile(c), 'utf8'));
    assert.ok(rec, 'the pause file is in its shape');
    assert.is(rec!.count, 3);
    assert.is(rec!.last, 'fail 3');
    assert.is(rec!.heart, 'none', 'no HEART.md in this repo');

    // A wake by hand runs the agent; its success ends the pause and the streak.
    c.behave('exit 0\n');
    const byHand = await run(c, sh, { args: ['--now'] });
    assert.is(byHand.code, 0, byHand.stderr + c.log());
    assert.is(c.runs().length, 4);
    assert.not.ok(existsSync(pauseFile(c)), 'the pause is over');
    assert.ok(notes(c).includes('the pause after failures is over: this wake succeeded'), c.log());
    assert.equal(calls(c), ['failing 2', 'paused 3', 'recovered 3']);
    const next = await run(c, sh);
    assert.is(next.code, 0);
    assert.is(c.runs().length, 5, 'the next fire runs the agent');
  });
}

test('an edit of HEART.md ends the pause at the next fire, which runs; one more failure pauses again at once; without notify too', async () => {
  const sh = shell('dash');
  const c = makeCase({ spec: { pauseAfter: 2 } });
  writeFileSync(join(c.repo, 'HEART.md'), '# Mission\nfix the build\n');
  c.behave('exit 4\n');
  for (let i = 0; i < 3; i++) await run(c, sh);
  assert.is(c.runs().length, 2, c.log());
  assert.match(ends(c).at(-1)!, /^skip-paused after 2 failing wakes/);
  const heart = parseFailPause(readFileSync(pauseFile(c), 'utf8'))!.heart;
  assert.match(heart, /^[0-9a-f]{64}$/, 'HEART.md summed at the pause');

  writeFileSync(join(c.repo, 'HEART.md'), '# Mission\nfix the build; the tests are in test/\n');
  const r = await run(c, sh);
  assert.is(r.code, 4, r.stderr + c.log());
  assert.is(c.runs().length, 3, 'the fire after the edit ran the agent');
  assert.ok(notes(c).includes('the pause after failures is over: HEART.md changed since it began; this wake runs the agent'), c.log());
  // The streak is kept (3 now): this failure began a new pause, with the new HEART.md's sum.
  const again = parseFailPause(readFileSync(pauseFile(c), 'utf8'))!;
  assert.is(again.count, 3);
  assert.is.not(again.heart, heart);
  await run(c, sh);
  assert.is(c.runs().length, 3, c.log());
  assert.match(ends(c).at(-1)!, /^skip-paused after 3 failing wakes/);
  assert.equal(calls(c), [], 'no notify in this spec');
});

test('pauseAfter false: a job that fails every time is never paused; a plain skip neither counts nor resets the streak', async () => {
  const sh = shell('dash');
  const off = makeCase({ spec: { pauseAfter: false } });
  off.behave('exit 1\n');
  for (let i = 0; i < 7; i++) await run(off, sh);
  assert.is(off.runs().length, 7, off.log());
  assert.not.ok(existsSync(pauseFile(off)));
  assert.not.match(off.log(), /skip-paused/);

  // A closed gate between failures: the streak counts 2 failures across it.
  const c = makeCase({ spec: { pauseAfter: 2, gate: ['/usr/bin/test', '!', '-e', join(tools, 'closed')] } });
  c.behave('exit 1\n');
  await run(c, sh);
  writeFileSync(join(tools, 'closed'), '');
  await run(c, sh);
  rmSync(join(tools, 'closed'));
  await run(c, sh);
  await run(c, sh);
  assert.equal(ends(c), ['fail 1', 'skip-gate exit 1', 'fail 1', ends(c)[3]!], c.log());
  assert.match(ends(c)[3]!, /^skip-paused after 2 failing wakes/);
});

test('pauseAfter: a whole number at least 1, or false', () => {
  for (const bad of [0, -1, 2.5, true, '5']) {
    const v = validateSpec({ ...baseSpec('/tmp/x', 'systemd-user'), pauseAfter: bad });
    assert.ok(v.errors?.includes('pauseAfter: must be a whole number of failing wakes in a row, at least 1 (default 5), or false to never pause'), `${bad}: ${v.errors}`);
  }
  for (const good of [1, 5, false]) assert.equal(validateSpec({ ...baseSpec('/tmp/x', 'systemd-user'), pauseAfter: good }).errors, undefined);
});

test.run();
