// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// A wall clock stepped during a wake (NTP after a suspend, a person setting it by hand) must
// not give the wake a negative or made-up length in `hbgen log` or status: the wrapper writes
// the boot clock's count (`took N s`, just before the outcome) and both read it. The
// REAL rendered wrapper runs under dash, its clock set by libfaketime from a file that the
// agent rewrites mid-wake, three hours back; /proc/uptime, the boot clock, is not faked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLog } from '../src/formats.ts';
import { lastWakes } from '../src/host/audit/history.ts';
import { wakeSeconds, wakes } from '../src/host/audit/health.ts';
import { FAKETIME_LIB, fakeClock } from './helpers/faketime.ts';
import { join, makeCase, run, shell } from './helpers/wrapper.ts';

const clock = fakeClock();

test('a clock stepped three hours back during the wake: the log says how long it took by the boot clock, not -10800 s', async () => {
  assert.ok(FAKETIME_LIB, 'libfaketime (Debian faketime) is installed');
  assert.ok(await clock.ready(), 'the faketime keeper is up');
  const stamp = join(mkdtempSync(join(tmpdir(), 'hbgen-step-')), 'faketime');
  writeFileSync(stamp, '+0\n');
  const shared = clock.envAt(new Date().toISOString()).FAKETIME_SHARED!;
  const env = { LD_PRELOAD: FAKETIME_LIB!, FAKETIME_TIMESTAMP_FILE: stamp, FAKETIME_NO_CACHE: '1', FAKETIME_SHARED: shared };
  const d = makeCase({ standInEnv: env, spec: { timeout: '30s' } });
  d.behave(`printf '%s\\n' -3h >${JSON.stringify(stamp)}\nsleep 2\nexit 0\n`);
  assert.is((await run(d, shell('dash'))).code, 0, d.rawLog());
  const lines = parseLog(d.rawLog(), d.spec.name);
  const [w] = wakes(lines);
  assert.ok(w?.end, d.rawLog());
  // The stamps say the wake ended before it started.
  assert.ok(Date.parse(w!.end!.time) - Date.parse(w!.start.time) < -10_000 * 1000, `the step is in the stamps:\n${d.rawLog()}`);
  assert.ok(w!.took !== undefined && w!.took >= 2 && w!.took <= 10, `took N s, from the boot clock:\n${d.rawLog()}`);
  assert.is(wakeSeconds(w!), w!.took);
  assert.is(lastWakes(lines, 5).at(-1)!.seconds, w!.took);
  // The outcome stays the wake's last line.
  assert.match(d.rawLog().trimEnd().split('\n').at(-1)!, / hbgen \S+ (ok|quiet)$/);
});

test('without the boot clock line (an older wrapper, or no /proc/uptime), a negative span is unknown, never shown', () => {
  const log = '2026-01-05T12:00:00Z hbgen x start wake 3\n2026-01-05T09:00:02Z hbgen x ok\n2026-01-05T12:30:00Z hbgen x start wake 4\n2026-01-05T12:30:09Z hbgen x quiet\n';
  const rows = lastWakes(parseLog(log, 'x'), 5);
  assert.equal(rows.map((r) => r.seconds), [null, 9]);
});

test.run();
