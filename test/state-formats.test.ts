// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Every state file and log detail has one definition (src/formats.ts),
// and what each shell writes from it reads back with its one parser. Under every shell of
// the matrix: the printf formats themselves through the shell's own printf, then the real
// wrapper's outputs — the `wake N` detail (and `by hand`), the outcome words, the wake
// counter and the agent record, the pause file with its `limit until` / `skip-limit until` lines, the 8-day bound
// (a pause just inside it stops the wakes in sh and is in force for hbgen status, one just
// past it is ignored by both), and the mkdir lock's staleness bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LOCK_OWNER_PRINTF,
  LOG_PRINTF,
  OUTCOMES,
  OUTCOME_WORDS,
  PAUSE_MAX_SECONDS,
  PAUSE_PRINTF,
  WAKES_PRINTF,
  AGENT_RECORD_PRINTF,
  AGENT_FILE,
  formatPause,
  parseLockOwner,
  parseLog,
  parseLogLine,
  parsePause,
  parseUntilDetail,
  parseWakeDetail,
  parseWakes,
  parseAgentRecord,
  formatAgentRecord,
  formatWakes,
  type LogLine,
} from '../src/formats.ts';
import { activePause } from '../src/host/audit/pause.ts';
import { durations } from '../src/spec.ts';
import { loadFixtureSpec } from './helpers/fixtures.ts';

// The wake bound of a spec with timeout 50s and killAfter 20s, as validateSpec and durations() give it.
const WAKE_50_20 = durations({ ...loadFixtureSpec('example'), timeout: '50s', killAfter: '20s' }).wake;
import { wakesDone } from '../src/host/audit/runtime-log.ts';
import { SHELLS, makeCase, run, waitFor, type Case } from './helpers/wrapper.ts';

const epoch = () => Math.floor(Date.now() / 1000);

/** Every wrapper line of the log, each one parsed (one that does not parse fails the test;
 * the agent's own output shares the file). */
function lines(c: Case): LogLine[] {
  const text = c.log();
  const out = text
    .split('\n')
    .filter((l) => / hbgen /.test(l))
    .map((l) => {
      const p = parseLogLine(l);
      assert.ok(p, `runtime.log line does not parse: ${JSON.stringify(l)}`);
      assert.ok((OUTCOMES as readonly string[]).includes(p!.outcome));
      return p!;
    });
  assert.equal(parseLog(text, c.spec.name), out);
  return out;
}

for (const sh of SHELLS) {
  test(`${sh.name}: the printf formats of src/formats.ts, through this shell's printf, parse back`, async () => {
    const c = makeCase({ install: true });
    const script = join(c.dir, 'formats.sh');
    // Each format as the templates pass it (a single-quoted word: its \n is printf's escape).
    writeFileSync(
      script,
      [
        `printf '${LOG_PRINTF}' 2026-12-01T08:07:00Z tst 'start wake 7 by hand' >"$1/log"`,
        `printf '${LOCK_OWNER_PRINTF}' 4242 1764576420 >"$1/owner"`,
        `printf '${PAUSE_PRINTF}' 1764580000 1764576420 "You've hit your session limit" >"$1/paused"`,
        `printf '${WAKES_PRINTF}' 12 >"$1/wakes"`,
        `printf '${AGENT_RECORD_PRINTF}' 4243 '' >"$1/agent"`,
        '',
      ].join('\n'),
    );
    const r = await run(null, sh, { script, args: [c.rec] });
    assert.is(r.code, 0, r.stderr);
    const log = parseLogLine(readFileSync(join(c.rec, 'log'), 'utf8').replace(/\n$/, ''));
    assert.equal(log, { time: '2026-12-01T08:07:00Z', name: 'tst', outcome: 'start', detail: 'wake 7 by hand' });
    assert.equal(parseWakeDetail(log!.detail), { n: 7, byHand: true, jail: false });
    assert.equal(parseLockOwner(readFileSync(join(c.rec, 'owner'), 'utf8')), { pid: 4242, epoch: 1764576420 });
    const paused = readFileSync(join(c.rec, 'paused'), 'utf8');
    assert.equal(parsePause(paused), { until: 1764580000, since: 1764576420, message: "You've hit your session limit" });
    assert.is(formatPause(parsePause(paused)!), paused, 'formatPause writes the same bytes as the shell');
    assert.is(parseWakes(readFileSync(join(c.rec, 'wakes'), 'utf8')), 12);
    const agent = readFileSync(join(c.rec, 'agent'), 'utf8');
    assert.equal(parseAgentRecord(agent), { pid: 4243, pgid: null });
    assert.is(formatAgentRecord({ pid: 4243, pgid: null }), agent);
  });

  test(`${sh.name}: wake detail, outcomes, counter and pause written by the wrapper parse back with src/formats.ts`, async () => {
    const c = makeCase({ spec: { cap: 9 } });
    let r = await run(c, sh);
    assert.is(r.code, 0, r.stderr);
    let l = lines(c);
    assert.equal(l.map((x) => x.outcome), [OUTCOME_WORDS.start, OUTCOME_WORDS.quiet]);
    assert.equal(parseWakeDetail(l[0]!.detail), { n: 1, byHand: false, jail: false });
    assert.is(wakesDone(join(c.state, 'wakes')), 1);
    assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), formatWakes(1), 'the agent is done: the count alone');

    // While the agent runs, the counter holds its count and the agent record timeout(1)'s
    // PID and group (both written by the agent's process before it became the agent).
    c.behave(`while [ ! -e "$HBTEST_DIR/go" ]; do sleep 0.05; done\n`);
    rmSync(join(c.rec, 'started'));
    const running = run(c, sh);
    await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
    assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), formatWakes(2));
    const text = readFileSync(join(c.state, AGENT_FILE), 'utf8');
    const rec = parseAgentRecord(text);
    assert.ok(rec && rec.pgid === rec.pid, text);
    assert.match(readFileSync(`/proc/${rec!.pid}/cmdline`, 'utf8').split('\0')[0]!, /timeout$/, 'the record names timeout(1), which runs the agent');
    assert.is(formatAgentRecord(rec!), text, 'formatAgentRecord writes what the shell wrote');
    writeFileSync(join(c.rec, 'go'), '');
    assert.is((await running).code, 0);
    assert.not.ok(existsSync(join(c.state, AGENT_FILE)), 'the agent is done: its record is gone');
    c.behave('');
    lines(c);

    // A command agent asks for a pause (exit 75, `retry-after: SECONDS`): the pause file.
    c.behave('echo "retry-after: 3600"\nexit 75\n');
    const before = epoch();
    r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 0, r.stderr);
    l = lines(c).slice(2);
    assert.equal(parseWakeDetail(l[2]!.detail), { n: 3, byHand: true, jail: false });
    assert.is(l[3]!.outcome, OUTCOME_WORDS.limit);
    const until = parseUntilDetail(l[3]!.detail);
    assert.ok(until, l[3]!.detail);
    const pause = parsePause(readFileSync(join(c.state, 'paused'), 'utf8'));
    assert.ok(pause, 'the pause file parses');
    assert.is(new Date(pause!.until * 1000).toISOString().replace('.000', ''), until!.until, 'the file and the log line name one reset');
    assert.ok(pause!.until >= before + 3600 && pause!.until <= epoch() + 3600, `until ${pause!.until}`);
    assert.ok(pause!.since >= before - 1 && pause!.since <= epoch(), `since ${pause!.since}`);
    assert.is(pause!.message, 'retry-after: 3600');
    assert.is(activePause(c.state, new Date())?.until.getTime(), pause!.until * 1000, 'hbgen status reads the same pause');
    assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), formatWakes(2), 'the limited wake was given back to the counter');

    // The next wake skips on it, naming the same time.
    r = await run(c, sh);
    l = lines(c).slice(2);
    assert.is(l[4]!.outcome, OUTCOME_WORDS.skipLimit);
    assert.is(parseUntilDetail(l[4]!.detail)?.until, until!.until);

    // The 8-day bound, one number for both sides: just inside it, a pause (written with
    // formatPause) stops the wake and is in force for status; just past it, neither believes it.
    c.behave('');
    writeFileSync(join(c.state, 'paused'), formatPause({ until: epoch() + PAUSE_MAX_SECONDS - 60, since: epoch(), message: 'inside' }));
    assert.ok(activePause(c.state, new Date()), 'status: a pause inside the bound is in force');
    r = await run(c, sh);
    l = lines(c).slice(2);
    assert.is(l.length, 6);
    assert.is(l[5]!.outcome, OUTCOME_WORDS.skipLimit);
    writeFileSync(join(c.state, 'paused'), formatPause({ until: epoch() + PAUSE_MAX_SECONDS + 60, since: epoch(), message: 'past' }));
    assert.is(activePause(c.state, new Date()), null, 'status: a pause past the bound is not believed');
    r = await run(c, sh);
    l = lines(c).slice(2);
    assert.equal(l.slice(6).map((x) => x.outcome), [OUTCOME_WORDS.start, OUTCOME_WORDS.quiet]);
    assert.equal(parseWakeDetail(l[6]!.detail), { n: 3, byHand: false, jail: false });
  });

  test(`${sh.name}: the mkdir lock's staleness bound is the spec's wake bound for the wrapper too`, async () => {
    const c = makeCase({ spec: { lock: 'mkdir', timeout: '50s', killAfter: '20s' } });
    const bound = WAKE_50_20;
    const lockd = join(c.state, 'heartbeat.lock.d');
    // A lock folder without an owner record (a wrapper killed between mkdir and the write):
    // only its age decides. Younger than the bound: held; older (a minute of find's rounding
    // beyond it): taken over.
    mkdirSync(lockd);
    const young = epoch() - 5;
    utimesSync(lockd, young, young);
    let r = await run(c, sh);
    assert.is(r.code, 0, r.stderr);
    assert.equal(lines(c).map((x) => x.outcome), [OUTCOME_WORDS.skipLocked]);
    const old = epoch() - (Math.ceil(bound / 60) * 60 + 90);
    utimesSync(lockd, old, old);
    r = await run(c, sh);
    assert.is(r.code, 0, r.stderr);
    assert.equal(lines(c).slice(1).map((x) => x.outcome), [OUTCOME_WORDS.start, OUTCOME_WORDS.quiet]);
  });
}

test('the rendered scripts carry the wake bound; no template writes an outcome word of its own', () => {
  const c = makeCase({ spec: { shared: true, timeout: '50s', killAfter: '20s' }, install: false });
  assert.match(c.files['claim.sh']!, new RegExp(`\\ncl_stale=${WAKE_50_20}\\n`));
  // The runtime computes the same from heartbeat.sh's hb_timeout and hb_kill: their sum.
  assert.equal(WAKE_50_20, 70);
  assert.match(c.files['heartbeat.sh']!, /\nhb_timeout=50\nhb_timeout_text='50s'\nhb_kill=20\n/);
  const rt = Object.entries(c.files).find(([k]) => k.startsWith('runtime-'))![1];
  assert.match(rt, /lk_old "\$hb_lockd" \$\(\(\(hb_timeout \+ hb_kill \+ 59\) \/ 60\)\)\n/);
  // Where the wrapper logs an outcome (hb_log, hb_logat, the outcome it ends with), the
  // word comes from the render context ({{out.*}}), never a literal.
  const dir = join(import.meta.dirname, '..', 'templates', 'partials', 'heartbeat');
  const words = OUTCOMES.map((o) => o.replace('-', '\\-')).join('|');
  const literal = new RegExp(`(?:hb_logat? (?:"\\$hb_stamp" )?"|hb_outcome_out="?|hb_lockskip='?)(?:${words})(?:[ "']|$)`, 'm');
  for (const f of readdirSync(dir)) {
    const m = literal.exec(readFileSync(join(dir, f), 'utf8'));
    assert.not.ok(m, `${f}: ${m?.[0]} is an outcome word written as a literal; use {{out.…}} (src/formats.ts OUTCOME_WORDS)`);
  }
});

test.run();
