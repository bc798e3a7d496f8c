// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The agent's command line limits (COMMAND_LINE in src/spec.ts) against the real wrapper:
// the context block fits the allowance kept for it, and the largest command line the spec
// accepts reaches the agent whole, in every shell of the matrix.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMAND_LINE } from '../src/spec.ts';
import { SHELLS, makeCase, run, type Case } from './helpers/wrapper.ts';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

test('the context block stays within the 1 KiB kept for it (beyond the spec\'s models and claim path)', async () => {
  // The longest zone name there is, shared (the claim.sh line) and model tiers.
  const c = makeCase({
    spec: {
      name: 'a'.repeat(40),
      shared: true,
      agent: { prompt: 'P', models: { fast: 'haiku', strong: 'opus' } },
      schedule: { hours: { start: '00:00', end: '24:00', timezone: 'America/Argentina/ComodRivadavia' } },
    },
  });
  const r = await run(c, SHELLS[0]!);
  assert.is(r.code, 0, r.stderr);
  const msg = c.argv().at(-1)!;
  assert.ok(msg.startsWith('P\n\n---\n'), msg);
  const spec = c.spec;
  const ownData = utf8(spec.repo) + utf8(spec.stateDir) + Object.entries(spec.agent.models!).reduce((n, [k, v]) => n + utf8(k) + utf8(v) + 1, 0);
  const block = utf8(msg) - 1 - ownData;
  // 379 bytes when this was written. Half the allowance: room for the block to grow.
  assert.ok(block < COMMAND_LINE.contextBytes / 2, `context block ${block} bytes:\n${msg}`);
});

/** The largest spec accepted: the longest prompt, and the environment filled to the total. */
function largestCase(): Case {
  const prompt = 'p'.repeat(COMMAND_LINE.argBytes - COMMAND_LINE.contextBytes);
  const at = (n: number) => {
    try {
      return makeCase({ spec: { agent: { prompt }, idleAfter: false }, env: { BIG: 'b'.repeat(n) }, install: false });
    } catch {
      return undefined;
    }
  };
  let lo = 0;
  let hi = COMMAND_LINE.totalBytes;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(mid)) lo = mid;
    else hi = mid;
  }
  assert.ok(lo > 10000 && at(lo + 1) === undefined, `bisection: ${lo}`);
  return makeCase({ spec: { agent: { prompt }, idleAfter: false }, env: { BIG: 'b'.repeat(lo) } });
}

test('the largest accepted prompt and environment reach the agent whole, in every shell', async () => {
  const c = largestCase();
  for (const sh of SHELLS) {
    const r = await run(c, sh);
    assert.is(r.code, 0, `${sh.name}: ${r.stderr}`);
    // quiet: the agent exited 0 and changed nothing; a failed exec would be "fail 126".
    assert.is(c.outcomes().at(-1), 'quiet', `${sh.name}: ${c.log().slice(-500)}`);
    assert.ok(c.argv().at(-1)!.startsWith(c.spec.agent.prompt), sh.name);
    assert.ok(c.env().includes(`BIG=${c.spec.env.BIG}`), sh.name);
  }
  assert.is(c.runs().length, SHELLS.length, 'the agent ran once per shell');
});

test.run();
