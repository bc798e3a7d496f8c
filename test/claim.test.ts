// claim.sh (chunk claims in a shared folder): take / release / list, atomic under concurrency, stale
// takeover serialized, names validated; under several shells.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCase } from './helpers/wrapper.ts';

const SHELLS: [string, string[]][] = [
  ['dash', ['/usr/bin/dash']],
  ['bash --posix', ['/usr/bin/bash', '--posix']],
  ['busybox sh', ['/usr/bin/busybox', 'sh']],
  ['mksh', ['/usr/bin/mksh']],
  ['posh', ['/usr/bin/posh']],
  ['yash', ['/usr/bin/yash']],
];

function setup(ascii = false) {
  // staleAfter = timeout 2s + killAfter 1s = 3 s; a state path with non-ASCII, except for
  // yash: in the C locale yash cannot even hold a non-ASCII $0 (a documented limit).
  const c = makeCase({ spec: { shared: true, stateDir: ascii ? 'etat' : 'état' } });
  return { c, claim: join(c.state, 'claim.sh'), claims: join(c.repo, '.agent-platform', 'claims') };
}

const env = { PATH: '/usr/bin:/bin', HBGEN_NAME: 'tst', HBGEN_WAKE: '4' };
function cl(sh: string[], claim: string, ...args: string[]) {
  const r = spawnSync(sh[0]!, [...sh.slice(1), claim, ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function clAsync(sh: string[], claim: string, ...args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(sh[0]!, [...sh.slice(1), claim, ...args], { env, stdio: 'ignore' });
    p.on('close', (code) => resolve(code));
  });
}

for (const [name, sh] of SHELLS) {
  test(`${name}: take, take by another, idempotent take, list, release`, () => {
    const { claim, claims } = setup(name === 'yash');
    assert.is(cl(sh, claim, 'take', 'chunk-1', 'alice').code, 0);
    assert.is(cl(sh, claim, 'take', 'chunk-1', 'bob').code, 1);
    assert.is(cl(sh, claim, 'take', 'chunk-1', 'alice').code, 0, 'the holder may take again');
    assert.is(cl(sh, claim, 'take', 'docs.v2_x').code, 0, 'default owner from HBGEN_NAME:HBGEN_WAKE');
    const list = cl(sh, claim, 'list');
    assert.is(list.code, 0);
    assert.match(list.out, /^chunk-1 alice \d+s\ndocs\.v2_x tst:4 \d+s\n$/);
    assert.is(cl(sh, claim, 'release', 'chunk-1', 'bob').code, 1, 'not the holder');
    assert.is(cl(sh, claim, 'release', 'chunk-1', 'alice').code, 0);
    assert.not.ok(existsSync(join(claims, 'chunk-1')));
    assert.is(cl(sh, claim, 'take', 'chunk-1', 'bob').code, 0);
    assert.is(cl(sh, claim, 'release', 'chunk-1').code, 0, 'release without owner');
    assert.is(cl(sh, claim, 'release', 'never-taken').code, 0);
  });

  test(`${name}: invalid names and usage exit 2`, () => {
    const { claim, claims } = setup(name === 'yash');
    for (const bad of ['', '../x', '.hidden', 'a b', 'a/b', "it's", '$(id)', 'x'.repeat(101)]) {
      const r = cl(sh, claim, 'take', bad);
      assert.is(r.code, 2, `name ${JSON.stringify(bad)}`);
      assert.is(r.err.trim().split('\n').length, 1);
    }
    assert.is(cl(sh, claim, 'take', 'ok', 'bad owner').code, 2);
    assert.is(cl(sh, claim, 'frob').code, 2);
    assert.is(cl(sh, claim).code, 2);
    assert.is(cl(sh, claim, 'take').code, 2);
    assert.not.ok(existsSync(join(claims, '..', 'x')));
  });

  test(`${name}: a claim older than timeout + killAfter is taken over; a fresh one is not`, () => {
    const { claim, claims } = setup(name === 'yash');
    assert.is(cl(sh, claim, 'take', 'a', 'alice').code, 0);
    writeFileSync(join(claims, 'a', 'owner'), `alice ${Math.floor(Date.now() / 1000) - 60}\n`);
    assert.is(cl(sh, claim, 'take', 'a', 'bob').code, 0);
    assert.match(readFileSync(join(claims, 'a', 'owner'), 'utf8'), /^bob \d+\n$/);
    assert.is(cl(sh, claim, 'take', 'a', 'carol').code, 1);
    // no owner record: stale by the folder's age only
    assert.is(cl(sh, claim, 'take', 'b', 'alice').code, 0);
    writeFileSync(join(claims, 'b', 'owner'), '');
    assert.is(cl(sh, claim, 'take', 'b', 'bob').code, 1);
    const t = Date.now() / 1000 - 180;
    utimesSync(join(claims, 'b'), t, t);
    assert.is(cl(sh, claim, 'take', 'b', 'bob').code, 0);
  });
}

test('10 concurrent takes: exactly one wins; 8 concurrent takeovers of a stale claim: exactly one', async () => {
  for (const [, sh] of [SHELLS[0]!, SHELLS[2]!]) {
    const { claim, claims } = setup();
    const codes = await Promise.all(Array.from({ length: 10 }, (_, i) => clAsync(sh, claim, 'take', 'hot', `agent${i}`)));
    assert.is(codes.filter((x) => x === 0).length, 1, JSON.stringify(codes));
    assert.is(codes.filter((x) => x === 1).length, 9);
    writeFileSync(join(claims, 'hot', 'owner'), `agent0 ${Math.floor(Date.now() / 1000) - 60}\n`);
    const codes2 = await Promise.all(Array.from({ length: 8 }, (_, i) => clAsync(sh, claim, 'take', 'hot', `new${i}`)));
    assert.is(codes2.filter((x) => x === 0).length, 1, JSON.stringify(codes2));
  }
});

test.run();
