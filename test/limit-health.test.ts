// In the log readers: `limit until …` ends a wake (no "wake without an outcome"),
// never counts toward the failing streak and never breaks one; skip-limit is a log line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLog } from '../src/formats.ts';
import { failStreak, farPauses, wakes } from '../src/host/audit/health.ts';
import { wakeWithoutOutcome } from '../src/host/audit/audit.ts';

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

// The log rows are 10 minutes apart from 2026-12-01T00:00Z (see log()).
test('far pauses (a reset more than a day after the line, or one the wrapper cut) in a row since the last ok or quiet wake', () => {
  const far = 'limit until 2026-12-08T09:00:00Z';
  const cut = 'limit until 2026-12-01T02:00:00Z (a second far reset in a row with no ok or quiet wake between: not believed, paused for 1h)';
  const nearOne = 'limit until 2026-12-01T05:00:00Z';
  assert.is(farPauses(log('start wake 1', far)).count, 1);
  const two = farPauses(log('start wake 1', far, 'skip-limit until 2026-12-08T09:00:00Z', 'start wake 1', 'fail 1', 'start wake 2', cut));
  assert.is(two.count, 2);
  assert.is(two.latest!.detail, cut.slice('limit '.length));
  assert.is(farPauses(log('start wake 1', far, 'start wake 1', nearOne, 'start wake 1', far)).count, 2, 'a near pause between neither counts nor breaks the run');
  assert.is(farPauses(log('start wake 1', far, 'start wake 1', 'quiet', 'start wake 2', far)).count, 1, 'an ok or quiet wake starts it again');
  assert.is(farPauses(log('start wake 1', far, 'start wake 1', 'ok near-limit', 'start wake 2', nearOne)).count, 0);
  assert.is(farPauses(log('start smoke', far)).count, 0, 'a line after no wake start is no pause of a wake');
});

test.run();
