// needs root: it makes each shell /bin/sh by a bind mount (unshare -m); it gives files to other users (chown)
// The wrapper refuses a state folder that belongs to another uid than the one it runs as,
// before it writes anything (no runtime.log line, no lock, no counter), in every shell of
// the matrix: exit 78 and one line on the caller's stderr naming the folder, its owner and
// the user to run it as. Root is not exempt: these runs are root's, the folder nobody's.
// Controls: the same case owned by root wakes as usual; a runtime that is not the pinned one
// is refused without its courtesy line in another user's runtime.log.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { appendFileSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHELLS, makeCase, run, type Case } from './helpers/wrapper.ts';

/** nobody's uid here, and its name, as the wrapper's ls shows them. */
const NOBODY = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim());

/** Every entry of `dir` with its owner, mode, size and mtime: what "nothing was written" compares. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = lstatSync(p);
      out.push(`${p} ${st.uid} ${(st.mode & 0o7777).toString(8)} ${st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  const st = lstatSync(dir);
  out.push(`${dir} ${st.uid} ${(st.mode & 0o7777).toString(8)} ${st.mtimeMs}`);
  walk(dir);
  return out;
}

function givenToNobody(c: Case): void {
  // A runtime.log already there: the refusal must not append to it either.
  appendFileSync(join(c.state, 'runtime.log'), '');
  assert.is(spawnSync('chown', ['-R', 'nobody:', c.state]).status, 0, 'chown');
}

for (const sh of SHELLS) {
  test(`${sh.name}: a state folder of another uid: exit 78, one line naming it, its owner and whom to run as; nothing written`, async () => {
    const c = makeCase();
    givenToNobody(c);
    const before = listing(c.state);
    for (const args of [[], ['--now']]) {
      const r = await run(c, sh, { args });
      assert.is(r.code, 78, r.stderr);
      assert.match(r.stderr, new RegExp(`hbgen tst: state folder ${c.state} belongs to nobody \\(uid ${NOBODY}\\), not to uid 0 that runs this wrapper, so nothing ran and nothing was written there \\(not even runtime\\.log\\); run it as nobody, e\\.g\\. sudo -u nobody hbgen wake tst\\n`));
      assert.equal(listing(c.state), before, `${args.join(' ') || 'a fire'}: the state folder as it was`);
    }
    assert.equal(c.runs(), [], 'the agent never ran');
  });

  test(`${sh.name}: the owner's own wake is not refused (control)`, async () => {
    const c = makeCase();
    const r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 0, r.stderr);
    assert.not.match(r.stderr, /belongs to/);
    assert.equal(c.runs().length, 1);
  });
}

test('a runtime that is not the pinned one, in a state folder of another uid: refused with no line in its runtime.log', async () => {
  const c = makeCase();
  const rt = readdirSync(c.state).find((f) => f.startsWith('runtime-'))!;
  writeFileSync(join(c.state, rt), '# not the runtime\n');
  // heartbeat.sh writes that line only into a runtime.log that is there.
  appendFileSync(join(c.state, 'runtime.log'), '');
  const mine = await run(c, SHELLS[0]!);
  assert.is(mine.code, 78);
  assert.match(c.log(), /error /, 'control: the owner gets the line');
  givenToNobody(c);
  const before = listing(c.state);
  for (const sh of SHELLS) {
    const r = await run(c, sh);
    assert.is(r.code, 78, `${sh.name}: ${r.stderr}`);
    assert.equal(listing(c.state), before, `${sh.name}: nothing written`);
  }
});

test.run();
