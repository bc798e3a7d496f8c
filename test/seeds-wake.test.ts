// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The wake's side: the allowance line of the context block (minutes left and
// the day's token budget left), under every shell as /bin/sh.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { SHELLS, makeCase, run, shell, type Case } from './helpers/wrapper.ts';
import { renderNow } from './helpers/render.ts';
import type { Spec } from '../src/spec.ts';

/** The case's wrapper rendered again from its spec plus `extra` (fields another change adds, such as budget). */
function rerender(c: Case, extra: Record<string, unknown>): void {
  const r = renderNow({ ...c.spec, ...extra } as Spec);
  assert.equal(r.errors, []);
  writeFileSync(join(c.state, 'heartbeat.sh'), r.files.find((f) => f.path === 'heartbeat.sh')!.content, { mode: 0o755 });
}

const berlinDay = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
// idleAfter false: these cases run quiet wakes in a row that change nothing, which the idle
// backoff (test/wrapper-idle) would skip.
const allowance = (c: Case) => /\nAllowance: ([^\n]*)$/.exec(c.argv().at(-1)!)?.[1];

for (const sh of SHELLS) {
  test(`${sh.name}: the allowance line gives the minutes left, and with a budget what is left of it today`, async () => {
    const c = makeCase({ spec: { timeout: '3m', schedule: { every: '5m' }, idleAfter: false } });
    let r = await run(c, sh);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.is(allowance(c), '3 minutes left in this wake (scale down as it tightens)');
    rerender(c, { budget: 200000 });
    r = await run(c, sh);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.is(allowance(c), '3 minutes left in this wake; budget 200000 of 200000 tokens left today (scale down as it tightens)');
    // Today's spend counts; another day's does not; more than the budget leaves 0.
    writeFileSync(join(c.state, 'usage'), `${berlinDay()} 0150000\n`);
    r = await run(c, sh);
    assert.is(allowance(c), '3 minutes left in this wake; budget 50000 of 200000 tokens left today (scale down as it tightens)');
    writeFileSync(join(c.state, 'usage'), `2001-01-01 150000\n`);
    r = await run(c, sh);
    assert.is(allowance(c), '3 minutes left in this wake; budget 200000 of 200000 tokens left today (scale down as it tightens)');
    writeFileSync(join(c.state, 'usage'), `${berlinDay()} 999999\n`);
    r = await run(c, sh);
    assert.match(allowance(c)!, /; budget 0 of 200000 tokens left today/);
    assert.equal(c.outcomes().filter((o) => o.startsWith('start')).length, 5, c.log());
  });
}

test('dash: a usage file that is a FIFO or garbage is never opened or believed: the whole budget is left', async () => {
  const c = makeCase({ spec: { timeout: '3m', idleAfter: false } });
  rerender(c, { budget: 1000 });
  execFileSync('mkfifo', [join(c.state, 'usage')]);
  let r = await run(c, shell('dash'), { limitMs: 10000 });
  assert.is(r.code, 0, r.stderr + c.log());
  assert.match(allowance(c)!, /; budget 1000 of 1000 tokens left today/);
  execFileSync('rm', [join(c.state, 'usage')]);
  writeFileSync(join(c.state, 'usage'), `${berlinDay()} 12x\n`);
  r = await run(c, shell('dash'));
  assert.match(allowance(c)!, /; budget 1000 of 1000 tokens left today/);
});

test.run();
