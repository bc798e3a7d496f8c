// Issue 17 in the log readers: `limit until …` ends a wake (no "wake without an outcome"),
// never counts toward the failing streak and never breaks one; skip-limit is a log line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLog } from '../src/formats.ts';
import { failStreak, wakes } from '../src/host/health.ts';
import { wakeWithoutOutcome } from '../src/commands/status.ts';

const log = (...rows: string[]) => parseLog(rows.map((r, i) => `2026-12-01T0${Math.floor(i / 6)}:${String((i % 6) * 10).padStart(2, '0')}:00Z hbgen docs ${r}`).join('\n'), 'docs');

test('limit and skip-limit are outcomes; a limit ends its wake', () => {
  const l = log('start wake 1', 'limit until 2026-12-01T05:00:00Z', 'skip-limit until 2026-12-01T05:00:00Z');
  assert.equal(l.map((x) => x.outcome), ['start', 'limit', 'skip-limit']);
  assert.is(wakes(l)[0]!.end!.outcome, 'limit');
  assert.is(wakeWithoutOutcome(l), null);
});

test('the failing streak neither counts nor breaks on limit wakes', () => {
  const limits = log('start wake 1', 'limit until X', 'start wake 1', 'limit until X', 'start wake 1', 'limit until X');
  assert.is(failStreak(limits).count, 0);
  const mixed = log('start wake 1', 'fail 1', 'start wake 2', 'limit until X', 'start wake 2', 'fail 1', 'start wake 3', 'limit until X', 'start wake 3', 'timeout after 25m');
  assert.is(failStreak(mixed).count, 3);
  assert.is(failStreak(mixed).latest!.outcome, 'timeout');
});

test.run();
