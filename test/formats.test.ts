// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The formats that cross the sh/TypeScript boundary, checked end to end: render the
// scripts, run heartbeat.sh through its real paths, and parse what it wrote with the one
// parser in src/formats.ts. Every line of runtime.log must parse (the stand-in agent
// prints nothing), carry the spec's name and a time within moments of the run, and the
// outcomes must be the expected ones. The mkdir lock's owner record must parse too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { names } from '../src/names.ts';
import { join } from 'node:path';
import { LOG_DATE_FORMAT, formatLogLine, parseLockOwner, parseLog, parseLogLine, type LogLine } from '../src/formats.ts';
import { logDateShell } from '../generators/formats.ts';
import { PATHS, makeCase, run, shell, sleep, waitFor, type Case, type Shell } from './helpers/wrapper.ts';

/** Every line of the log parsed; fails on any line that does not parse. */
function parsedLog(c: Case, from: number, to: number): LogLine[] {
  const text = c.log();
  const lines = text.split('\n');
  assert.is(lines.pop(), '', 'the log ends with a newline');
  return lines.map((l) => {
    const p = parseLogLine(l);
    assert.ok(p, `runtime.log line does not parse: ${JSON.stringify(l)}`);
    assert.is(p!.name, c.spec.name);
    // The wrapper stamps some lines from an epoch it already has (hb_utc), others with
    // date(1): both must be the same format and the real time.
    const t = Date.parse(p!.time);
    assert.ok(t >= Math.floor(from / 1000) * 1000 - 1000 && t <= to + 1000, `${p!.time} is not within the run (${new Date(from).toISOString()} … ${new Date(to).toISOString()})`);
    assert.is(formatLogLine(p!), l, 'formatLogLine writes the same line back');
    return p!;
  });
}

const born = new WeakMap<Case, number>();
const fresh = (...a: Parameters<typeof makeCase>): Case => {
  const c = makeCase(...a);
  born.set(c, Date.now());
  return c;
};

async function outcomes(c: Case, sh: Shell, args: string[] = []): Promise<string[]> {
  const from = born.get(c)!;
  await run(c, sh, { args });
  const lines = parsedLog(c, from, Date.now());
  assert.equal(parseLog(c.log(), c.spec.name), lines, 'parseLog reads the same lines');
  return lines.map((l) => `${l.outcome}${l.detail ? ` ${l.detail}` : ''}`);
}

const hoursAway = () => {
  const h = (new Date().getUTCHours() + 12) % 24;
  const hh = (n: number) => String(n % 24).padStart(2, '0');
  return { start: `${hh(h)}:00`, end: `${hh(h + 1)}:00`, timezone: 'UTC' };
};

for (const sh of [shell('dash'), shell('busybox sh')]) {
  for (const [tname, path] of [
    ['full', PATHS.full],
    ['bare', PATHS.bare],
  ] as const) {
    test(`${sh.name} / ${tname}: every runtime.log line of every path parses with parseLogLine`, async () => {
      const c = fresh({ path, spec: { cap: 3, timeout: '1s', killAfter: '1s' } });
      assert.equal(await outcomes(c, sh), ['start wake 1', 'quiet']);
      c.behave('printf x >>"$HBGEN_REPO/README"\n');
      assert.equal((await outcomes(c, sh)).slice(2), ['start wake 2', 'ok']);
      c.behave('exec 2>/dev/null # the agent shell reports its killed sleep: not a line of the wrapper\nsleep 5\n');
      assert.equal((await outcomes(c, sh)).slice(4), ['start wake 3', 'timeout after 1s']);
      c.behave('');
      assert.equal((await outcomes(c, sh)).slice(6), ['skip-cap 3 of 3 wakes done']);
      writeFileSync(join(c.state, 'wakes'), '0\n');
      c.behave('exit 3\n');
      assert.equal((await outcomes(c, sh, ['--now'])).slice(7), ['start wake 1 by hand', 'fail 3']);
      writeFileSync(join(c.state, 'wakes'), 'x\n');
      assert.match((await outcomes(c, sh)).slice(9).join('|'), /^error the wake counter .* does not hold a number; delete it to start counting again$/);

      const closed = fresh({ path, spec: { schedule: { hours: hoursAway() } } });
      assert.equal(await outcomes(closed, sh), ['skip-window']);

      const gated = fresh({ path, spec: { gate: ['/bin/false'] } });
      assert.equal(await outcomes(gated, sh), ['skip-gate exit 1']);

      const term = makeCase({ path, spec: { timeout: '20s' } });
      term.behave('exec 2>/dev/null\n: >"$HBTEST_DIR/ready"\nsleep 10\n');
      let pid = 0;
      const from = Date.now();
      const p = run(term, sh, { onSpawn: (x) => (pid = x) });
      await waitFor(() => existsSync(join(term.rec, 'ready')), 5000, 'agent started');
      process.kill(pid, 'SIGTERM');
      await p;
      assert.equal(
        parsedLog(term, from, Date.now()).map((l) => `${l.outcome} ${l.detail}`),
        ['start wake 1', 'fail 143 signal TERM'],
      );
    });
  }

  test(`${sh.name}: --smoke, skip-locked, and the mkdir lock's owner record parses with parseLockOwner`, async () => {
    const c = makeCase({ spec: { lock: 'mkdir' } });
    const owner = join(c.state, 'heartbeat.lock.d', 'owner');
    const from = Date.now();
    let pid = 0;
    const smoke = run(c, sh, { args: ['--smoke'], onSpawn: (x) => (pid = x) });
    await waitFor(() => existsSync(owner), 5000, 'lock owner written');
    const rec = parseLockOwner(readFileSync(owner, 'utf8'));
    assert.ok(rec, readFileSync(owner, 'utf8'));
    assert.is(rec!.pid, pid, 'the owner is the wrapper (it re-execs in place: same PID)');
    assert.ok(rec!.epoch >= Math.floor(from / 1000) - 1 && rec!.epoch <= Date.now() / 1000 + 1, `epoch ${rec!.epoch}`);
    await sleep(100);
    const second = await run(c, sh, { args: ['--smoke'] });
    assert.is(second.code, 0);
    await smoke;
    const lines = parsedLog(c, from, Date.now()).map((l) => `${l.outcome} ${l.detail}`.trim());
    assert.equal(lines.sort(), ['skip-locked smoke', 'start smoke', 'quiet smoke'].sort());
    assert.not.ok(existsSync(owner), 'released');
    // A claim's owner record (claim.sh writes it with the same code) parses as "WHO EPOCH".
    const shared = makeCase({ spec: { shared: true } });
    const r = await run(null, sh, { script: join(shared.state, 'claim.sh'), args: ['take', 'chunk-1', 'me'] });
    assert.is(r.code, 0, r.stderr);
    assert.match(readFileSync(join(names(shared.spec).claimsDir, 'chunk-1', 'owner'), 'utf8'), /^me \d+\n$/);
  });
}

test('a text line holding more than one record start: the first whose outcome is one is the record', () => {
  const T1 = '2026-12-01T08:07:00Z';
  const T2 = '2026-12-01T08:07:05Z';
  // A detail copied from the agent's output (a refused model's message) that holds a record: the line's own start wins.
  assert.equal(parseLogLine(`${T1} hbgen docs error model sonnet refused: nope ${T2} hbgen docs ok`), { time: T1, name: 'docs', outcome: 'error', detail: `model sonnet refused: nope ${T2} hbgen docs ok` });
  // A gate's output without its final newline, then the wrapper's line.
  assert.equal(parseLogLine(`gate said ${T2} hbgen docs skip-gate exit 1`), { time: T2, name: 'docs', outcome: 'skip-gate', detail: 'exit 1' });
  // A wrapper line a full disk cut inside its outcome, then the wrapper's next line: that one.
  assert.equal(parseLogLine(`${T1} hbgen docs quie${T2} hbgen docs error cannot write runtime.log`), { time: T2, name: 'docs', outcome: 'error', detail: 'cannot write runtime.log' });
  assert.is(parseLogLine(`${T1} hbgen docs quie`), null);
  assert.is(parseLogLine('the agent said hbgen docs ok'), null);
});

test('the stamp built from an epoch is LOG_DATE_FORMAT field for field', () => {
  assert.is(logDateShell(LOG_DATE_FORMAT), '"${hb_utc_Y}-${hb_utc_m}-${hb_utc_d}T${hb_utc_H}:${hb_utc_M}:${hb_utc_S}Z"');
  assert.throws(() => logDateShell('+%Y %j'), /%j has no hb_utc field/);
  assert.throws(() => logDateShell('+%Y$(id)'), /not plain text/);
});

test.run();
