// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// At the plan's limit the wrapper pauses until the reset instead of failing.
// Stand-in agents print each client's message exactly as the clients print it (Claude
// Code 2.1.197 and the forms users reported; codex 0.171 with its typographic
// apostrophe; a `command` agent's exit 75 and retry-after line) and exit 1; libfaketime in
// the spec's env (which the wrapper keeps) puts the wrapper's clock where each case needs
// it, and moves it past the reset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, type Case, type Shell, makeCase, run, shell, shellcheck } from './helpers/wrapper.ts';
import { rerenderAt } from './helpers/render.ts';
import { fakeClock } from './helpers/faketime.ts';
import { validateSpec } from '../src/spec.ts';

// One keeper of libfaketime's shared memory for the suite (test/helpers/faketime.ts says why).
const clock = fakeClock();
const dash = shell('dash');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

interface LimitOpts {
  harness?: 'claude-code' | 'codex' | 'command';
  path?: string;
  env?: Record<string, string>;
  spec?: Record<string, unknown>;
}

function limitCase(o: LimitOpts = {}): Case {
  return makeCase({ path: o.path, env: o.env, spec: { agent: { harness: o.harness ?? 'claude-code' }, ...(o.spec ?? {}) } });
}

const clockAt = (c: Case, when: string): void => rerenderAt(clock, c, when);

/** The agent prints `text` (on stderr, as the clients print errors) and exits `code`. */
function says(c: Case, text: string, code = 1, stream: 'out' | 'err' = 'err'): void {
  writeFileSync(join(c.rec, 'msg'), text);
  c.behave(`cat "$d/msg"${stream === 'err' ? ' >&2' : ''}\nexit ${code}\n`);
}

const paused = (c: Case) => join(c.state, 'paused');
const wakes = (c: Case) => readFileSync(join(c.state, 'wakes'), 'utf8').trim();
const last = (c: Case) => c.outcomes().at(-1)!;
/** `limit until T` with T within 10 s of `until` (for resets counted from the run's own second). */
const near = (out: string, until: string) => {
  const m = /^limit until (\S+)$/.exec(out);
  assert.ok(m && Math.abs(Date.parse(m[1]!) - Date.parse(until)) <= 10_000, `${out}, expected about ${until}`);
};

/** One wake at `when` whose agent says `text`; returns the outcome line. */
async function wakeAt(c: Case, when: string, text: string, sh: Shell = dash, code = 1): Promise<string> {
  clockAt(c, when);
  says(c, text, code);
  const r = await run(c, sh);
  // A limit ends the wake with 0; anything else with the agent's own status.
  assert.is(r.code, last(c).startsWith('limit ') ? 0 : code, `${r.stderr}\n${c.log()}`);
  return last(c);
}

// --- Claude Code ---------------------------------------------------------------------

const CLAUDE: [string, string, string, string][] = [
  // [what, now (UTC), message, expected reset (UTC)]
  ['session limit, a time later today in the named zone', '2026-12-01T02:00:00Z', "You've hit your session limit · resets 4:20am (Europe/Warsaw)", '2026-12-01T03:20:00Z'],
  ['"limit" at 3pm, across midnight (23:30 in Berlin now)', '2026-12-01T22:30:00Z', "You've hit your limit · resets 3pm (Europe/Berlin)", '2026-12-02T14:00:00Z'],
  ['a zone other than the working zone', '2026-12-01T20:00:00Z', "You've hit your session limit · resets 9:05am (America/New_York)", '2026-12-02T14:05:00Z'],
  ['a weekly limit on a weekday (Tuesday now, Monday next)', '2026-12-01T10:00:00Z', "You've hit your weekly limit · resets Mon 9am (Europe/Warsaw)", '2026-12-07T08:00:00Z'],
  ['the weekly form of 2.1.197: month and day', '2026-12-01T10:00:00Z', "You've hit your weekly limit · resets Dec 8, 10am (Europe/Warsaw)", '2026-12-08T09:00:00Z'],
  ['a month and day in the next year', '2026-12-30T10:00:00Z', "You've hit your Opus limit · resets Jan 2, 9:30am (UTC)", '2027-01-02T09:30:00Z'],
  ['a reset across the spring clock change', '2027-03-28T00:30:00Z', "You've hit your session limit · resets 3:30am (Europe/Berlin)", '2027-03-28T01:30:00Z'],
  ['newer ICU: a narrow no-break space before "AM"', '2026-12-01T02:00:00Z', "You've hit your session limit · resets 4:20\u202fAM (Europe/Warsaw)", '2026-12-01T03:20:00Z'],
  ['older versions: the epoch', '2026-12-01T10:00:00Z', 'Claude AI usage limit reached|1796126400', '2026-12-01T12:00:00Z'],
  // Claude Code 2.1.197's other limit messages (its bundle, bin/claude.exe).
  ['out of usage credits (2.1.197), with a reset', '2026-12-01T02:00:00Z', "You're out of usage credits · resets 4:20am (Europe/Warsaw)", '2026-12-01T03:20:00Z'],
  // Claude Code 2.1.332's (its bundle, bin/claude.exe): kinds that are not "<word> limit".
  ['out of extra usage (2.1.332), with a reset', '2026-12-01T02:00:00Z', "You're out of extra usage · resets 4:20am (Europe/Warsaw)", '2026-12-01T03:20:00Z'],
  ["the team's pooled group budget (2.1.332), with a reset", '2026-12-01T02:00:00Z', "You've hit your team's pooled group budget · resets 4:20am (Europe/Warsaw)", '2026-12-01T03:20:00Z'],
  ['the 5-hour limit (2.1.332), progress saved after the reset', '2026-12-01T02:00:00Z', "You've hit your 5-hour limit · resets 4:20am (Europe/Warsaw) · progress saved", '2026-12-01T03:20:00Z'],
  ['a time far away is capped at 8 days', '2026-12-01T10:00:00Z', "You've hit your weekly limit · resets Dec 31, 2030, 9am (UTC)", '2026-12-09T10:00:00Z'],
];

for (const [what, now, msg, until] of CLAUDE) {
  test(`claude-code: ${what}: limit until ${until}, uncounted, no failure`, async () => {
    const c = limitCase();
    writeFileSync(join(c.state, 'wakes'), '4\n');
    const out = await wakeAt(c, now, `Working on it\n${msg}\n`);
    // The capped case depends on the run's own second: compare to the minute.
    if (what.includes('capped')) near(out, until);
    else assert.is(out, `limit until ${until}`);
    assert.equal(c.outcomes(), ['start wake 5', out]);
    assert.is(wakes(c), '4', 'the wake is given back to the counter');
    const [head, text] = readFileSync(paused(c), 'utf8').split('\n');
    assert.is(Number(head!.split(' ')[0]) * 1000, Date.parse(out.slice('limit until '.length)));
    assert.is(text, msg);
  });
}

test('claude-code: no reset time, or one that cannot be read: now + limitBackoff (default 1h, or the spec\'s)', async () => {
  for (const [msg, backoff, secs, note] of [
    ["You've hit your session limit", undefined, 3600, 'no reset time given'],
    ["You've hit your monthly spend limit · raise it at claude.ai/settings/usage", undefined, 3600, 'no reset time given'],
    // The forms of 2.1.197 with a "." after "limit" (or no "limit" at all).
    ["You've reached your Fable 5 limit. /model to switch models.", undefined, 3600, 'no reset time given'],
    ["You've hit your monthly spend limit. /model to switch models.", undefined, 3600, 'no reset time given'],
    ["You've hit your monthly spend limit.", undefined, 3600, 'no reset time given'],
    ["You're out of usage credits. /model to switch models.", undefined, 3600, 'no reset time given'],
    ["You're out of usage credits", undefined, 3600, 'no reset time given'],
    ['Your org is out of usage · contact your admin', undefined, 3600, 'no reset time given'],
    ["You've hit your session limit · resets soonish (Europe/Warsaw)", '2h', 7200, 'reset time not understood'],
    ["You've hit your session limit · resets 4am (Mars/Olympus)", '90m', 5400, 'reset time not understood'],
  ] as const) {
    const c = limitCase({ spec: backoff ? { limitBackoff: backoff } : {} });
    const now = Date.parse('2026-12-01T10:00:00Z');
    const out = await wakeAt(c, iso(now), `${msg}\n`);
    const m = /^limit until (\S+) \((.*)\)$/.exec(out);
    assert.ok(m, out);
    const t = Date.parse(m![1]!);
    assert.ok(t >= now + (secs - 5) * 1000 && t <= now + (secs + 10) * 1000, `${msg}: ${out}`);
    assert.is(m![2], `${note}; limitBackoff ${backoff ?? '1h'}`);
  }
});

// Claude Code 2.1.332 marks these usage_limit_reached (its list of message starts, and the
// org's paused cap); none names a reset: each pauses for limitBackoff.
for (const msg of [
  "You're out of extra usage",
  "Your seat type doesn't include extra usage",
  "Your seat type doesn't include usage credits",
  "Your seat type doesn't include usage",
  'Fable 5 requires usage credits',
  'Opus 4.5 requires usage credits. /model to switch models.',
  'Your usage allocation has been disabled by your admin · ask your admin for a higher limit',
  "Your group's usage limit is set to $0 · ask your admin for a higher limit",
  'Usage is paused for your organization. For help, please contact support.',
  "You've hit your team's pooled group budget. It resets Dec 8, 10am (Europe/Warsaw). /model to switch models.",
  'Your org is out of usage · add funds to continue',
]) {
  test(`claude-code 2.1.332: "${msg}" pauses for limitBackoff`, async () => {
    const c = limitCase();
    const now = Date.parse('2026-12-01T10:00:00Z');
    const out = await wakeAt(c, iso(now), `Working on it\n${msg}\n`);
    const m = /^limit until (\S+) \((.*)\)$/.exec(out);
    assert.ok(m, out);
    const t = Date.parse(m![1]!);
    assert.ok(t >= now + 3595_000 && t <= now + 3610_000, `${msg}: ${out}`);
    assert.is(m![2], 'no reset time given; limitBackoff 1h');
    assert.is(readFileSync(paused(c), 'utf8').split('\n')[1], msg);
  });
}

test('claude-code: output that only looks like a limit does not pause (fail 1 as before)', async () => {
  for (const text of [
    // A test file the agent printed: the message inside other text, indented, quoted.
    "test('limit', () => expect(msg).toBe(\"You've hit your session limit · resets 4am (UTC)\"))\n",
    "  You've hit your session limit · resets 4am (UTC)\n",
    'Error: rate limit reached, retry later\n',
    "You've hit your session limit on purpose in this test fixture\n",
    'usage limit reached\n',
    "You’ve hit your usage limit. Try again at 4:20 PM.\n", // codex's form, not claude's
    'Opus is the model that requires usage credits\n',
    "You're out of extra usage, it seems, says the test\n",
  ]) {
    const c = limitCase();
    const out = await wakeAt(c, '2026-12-01T10:00:00Z', text);
    assert.is(out, 'fail 1', text);
    assert.not.ok(existsSync(paused(c)), text);
    assert.is(wakes(c), '1');
  }
  // The exact message, but the run succeeded: not a limit.
  const c = limitCase();
  const out = await wakeAt(c, '2026-12-01T10:00:00Z', "You've hit your session limit · resets 4am (UTC)\n", dash, 0);
  assert.is(out, 'quiet');
  assert.not.ok(existsSync(paused(c)));
});

test('claude-code: a message printed by an earlier wake does not count', async () => {
  const c = limitCase();
  const first = await wakeAt(c, '2026-12-01T02:00:00Z', "You've hit your session limit · resets 4:20am (Europe/Warsaw)\n");
  assert.is(first, 'limit until 2026-12-01T03:20:00Z');
  const out = await wakeAt(c, '2026-12-01T04:00:00Z', 'something else broke\n');
  assert.is(out, 'fail 1');
  assert.not.ok(existsSync(paused(c)));
});

// In print mode the real client prints no near-limit notice, so these words
// on a line of their own can only be the agent's answer: a plain ok/quiet, no note.
test('claude-code: an answer that reads like a near-limit notice is a plain quiet (no near-limit note)', async () => {
  for (const text of ['Approaching your 5-hour usage limit — Claude will wrap up the current step.', 'Approaching session limit · resets 4:20am (Europe/Warsaw)', "You've used 91% of your weekly limit · resets Mon 9am (Europe/Warsaw)"]) {
    const c = limitCase();
    const out = await wakeAt(c, '2026-12-01T10:00:00Z', `did the chunk\n${text}\n`, dash, 0);
    assert.is(out, 'quiet', text);
    assert.not.ok(existsSync(paused(c)));
    assert.is(wakes(c), '1');
  }
});

// --- Codex -----------------------------------------------------------------------------

const CODEX: [string, string, string, string][] = [
  ['the same day, in the system zone (TZ Asia/Tokyo)', '2026-12-01T02:00:00Z', 'ERROR: You’ve hit your usage limit. Try again at 4:20 PM.', '2026-12-01T07:20:00Z'],
  ['another day, with its date', '2026-12-01T02:00:00Z', 'ERROR: You’ve hit your usage limit. Try again at Dec 3rd, 2026 9:00 AM.', '2026-12-03T00:00:00Z'],
  ['a plan hint, "or try again at"', '2026-12-01T02:00:00Z', 'You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 11:05 PM.', '2026-12-01T14:05:00Z'],
  ['older versions: a plain apostrophe', '2026-12-01T02:00:00Z', "You've hit your usage limit. Try again at 12:30 PM.", '2026-12-01T03:30:00Z'],
  ['a duration', '2026-12-01T02:00:00Z', 'ERROR: You’ve hit your usage limit. Please try again in 2 hours 30 minutes.', '2026-12-01T04:30:00Z'],
];

for (const [what, now, msg, until] of CODEX) {
  test(`codex: ${what}: limit until ${until}`, async () => {
    const c = limitCase({ harness: 'codex', env: { TZ: 'Asia/Tokyo' } });
    const out = await wakeAt(c, now, `${msg}\n`);
    if (what === 'a duration') near(out, until);
    else assert.is(out, `limit until ${until}`);
    assert.is(wakes(c), '0');
  });
}

test('codex: "Try again later." is now + limitBackoff; a claude message is not codex\'s', async () => {
  const c = limitCase({ harness: 'codex' });
  const now = Date.parse('2026-12-01T02:00:00Z');
  const out = await wakeAt(c, iso(now), 'ERROR: You’ve hit your usage limit. Try again later.\n');
  const m = /^limit until (\S+) \(no reset time given; limitBackoff 1h\)$/.exec(out);
  assert.ok(m, out);
  assert.ok(Math.abs(Date.parse(m![1]!) - now - 3600_000) < 10_000, out);
  const d = limitCase({ harness: 'codex' });
  assert.is(await wakeAt(d, iso(now), "You've hit your session limit · resets 4am (UTC)\n"), 'fail 1');
});

// --- command -------------------------------------------------------------------------------

test('command: exit 75 asks for the pause; retry-after seconds or a UTC time; exit 1 never', async () => {
  const now = Date.parse('2026-12-01T02:00:00Z');
  let c = limitCase({ harness: 'command' });
  clockAt(c, iso(now));
  says(c, 'tired\nretry-after: 600\n', 75, 'out');
  await run(c, dash);
  let m = /^limit until (\S+)$/.exec(last(c));
  assert.ok(m, c.log());
  assert.ok(Math.abs(Date.parse(m![1]!) - now - 600_000) < 10_000, last(c));

  c = limitCase({ harness: 'command' });
  clockAt(c, iso(now));
  says(c, 'retry-after: 2026-12-01T05:00:00Z\n', 75, 'out');
  await run(c, dash);
  assert.is(last(c), 'limit until 2026-12-01T05:00:00Z');

  c = limitCase({ harness: 'command' });
  clockAt(c, iso(now));
  says(c, 'no line\n', 75);
  await run(c, dash);
  m = /^limit until (\S+) \(no reset time given; limitBackoff 1h\)$/.exec(last(c));
  assert.ok(m, c.log());

  c = limitCase({ harness: 'command' });
  clockAt(c, iso(now));
  says(c, 'retry-after: 600\n', 1, 'out');
  const r = await run(c, dash);
  assert.is(r.code, 1);
  assert.is(last(c), 'fail 1');
  assert.not.ok(existsSync(paused(c)));
});

// --- The pause -------------------------------------------------------------------------------

const CORE_MSG = "You've hit your session limit · resets 4:20am (Europe/Warsaw)\n";

for (const sh of SHELLS) {
  for (const [tname, path] of [['full', PATHS.full], ['bare', PATHS.bare]] as const) {
    test(`${sh.name} / ${tname}: limit, skip-limit until the reset (agent not run, uncounted), then a wake that runs and is told`, async () => {
      const c = limitCase({ path });
      const out = await wakeAt(c, '2026-12-01T02:00:00Z', CORE_MSG, sh);
      assert.is(out, 'limit until 2026-12-01T03:20:00Z');
      assert.equal(c.runs().length, 1);
      // Before the reset: skipped before the lock, the agent not started, nothing counted.
      clockAt(c, '2026-12-01T03:19:00Z');
      let r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.is(r.stderr, '');
      assert.is(last(c), 'skip-limit until 2026-12-01T03:20:00Z');
      assert.equal(c.runs().length, 1, 'the agent did not run');
      assert.is(wakes(c), '0');
      // hbgen wake (--now) waits too.
      r = await run(c, sh, { args: ['--now'] });
      assert.is(last(c), 'skip-limit until 2026-12-01T03:20:00Z');
      // After the reset the wake runs, as wake 1 again, and its context block says so.
      clockAt(c, '2026-12-01T03:21:00Z');
      c.behave('exit 0\n');
      r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.equal(c.outcomes().slice(-2), ['start wake 1', 'quiet']);
      assert.equal(c.runs().length, 2);
      const prompt = c.argv().at(-1)!;
      assert.match(prompt, /\nPlan limit: the previous wake hit the plan's usage limit at 2026-12-01T0[12]:\d\d:\d\dZ; it reset at 2026-12-01T03:20:00Z \(UTC\)\. Choose a smaller chunk\.$/);
      assert.not.ok(existsSync(paused(c)), 'the pause is done');
      // The next wake is not told again.
      await run(c, sh);
      assert.not.match(c.argv().at(-1)!, /Plan limit/);
    });
  }
}

test('the pause survives as a file: a planted one too far away, garbage or a link is ignored', async () => {
  // Six quiet wakes in a row that change nothing: without idleAfter false the idle backoff
  // (tested in wrapper-idle) would skip the later ones.
  const c = limitCase({ spec: { idleAfter: false } });
  clockAt(c, '2026-12-01T02:00:00Z');
  c.behave('exit 0\n');
  const now = Date.parse('2026-12-01T02:00:00Z') / 1000;
  writeFileSync(paused(c), `${now + 9 * 86400} ${now}\nplanted\n`);
  await run(c, dash);
  assert.is(last(c), 'quiet', c.log());
  for (const junk of ['soon\n', '\n', `${now + 3600}x ${now}\n`]) {
    writeFileSync(paused(c), junk);
    await run(c, dash);
    assert.is(last(c), 'quiet', junk);
  }
  const target = join(c.dir, 'elsewhere');
  writeFileSync(target, `${now + 3600} ${now}\nx\n`);
  symlinkSync(target, paused(c));
  await run(c, dash);
  assert.is(last(c), 'quiet');
  assert.ok(existsSync(target), 'the link target is left alone');
  // A pause the wrapper would believe, written by hand, is honoured.
  writeFileSync(paused(c), `${now + 3600} ${now}\nby hand\n`);
  await run(c, dash);
  assert.is(last(c), `skip-limit until ${iso((now + 3600) * 1000)}`);
});

// An agent that keeps printing a far reset paused the wakes for 8 days, again
// and again. A weekly limit does not strike twice without a wake that ran on the reset plan.
test('a far pause is believed once; the next far one with no ok or quiet wake between is cut to limitBackoff and says so; a near one is not cut; an ok wake starts the count again', async () => {
  const c = limitCase();
  const limits = () => readFileSync(join(c.state, 'limits'), 'utf8');
  assert.is(await wakeAt(c, '2026-12-01T10:00:00Z', "You've hit your weekly limit · resets Dec 8, 10am (Europe/Warsaw)\n"), 'limit until 2026-12-08T09:00:00Z');
  assert.is(limits(), '1 1\n');
  // Past the reset the agent prints the same again, a week further: not believed.
  let out = await wakeAt(c, '2026-12-08T09:30:00Z', "You've hit your weekly limit · resets Dec 15, 10am (Europe/Warsaw)\n");
  let m = /^limit until (\S+) \(a second far reset in a row with no ok or quiet wake between: not believed, paused for 1h\)$/.exec(out);
  assert.ok(m, out);
  near(`limit until ${m![1]}`, '2026-12-08T10:30:00Z');
  assert.is(limits(), '2 2\n');
  assert.is(Number(readFileSync(paused(c), 'utf8').split(' ')[0]) * 1000, Date.parse(m![1]!), 'the pause file holds the cut time');
  // A session limit (hours away) is believed as ever.
  assert.is(await wakeAt(c, '2026-12-08T10:40:00Z', "You've hit your session limit · resets 1pm (Europe/Warsaw)\n"), 'limit until 2026-12-08T12:00:00Z');
  assert.is(limits(), '3 2\n');
  // A wake that ran on the plan: the count starts again, and a weekly limit is believed.
  assert.is(await wakeAt(c, '2026-12-08T13:00:00Z', 'all done\n', dash, 0), 'quiet');
  assert.not.ok(existsSync(join(c.state, 'limits')));
  assert.is(await wakeAt(c, '2026-12-09T10:00:00Z', "You've hit your weekly limit · resets Dec 15, 10am (Europe/Warsaw)\n"), 'limit until 2026-12-15T09:00:00Z');
  // A failing wake between two far pauses does not break the run; garbage counts as none.
  out = await wakeAt(c, '2026-12-15T09:30:00Z', 'boom\n', dash, 1);
  assert.is(out, 'fail 1');
  out = await wakeAt(c, '2026-12-15T09:40:00Z', "You've hit your weekly limit · resets Dec 22, 10am (Europe/Warsaw)\n");
  assert.match(out, /not believed, paused for 1h\)$/);
  writeFileSync(join(c.state, 'limits'), 'x y\n');
  rmSync(paused(c));
  assert.is(await wakeAt(c, '2026-12-15T11:00:00Z', "You've hit your weekly limit · resets Dec 22, 10am (Europe/Warsaw)\n"), 'limit until 2026-12-22T09:00:00Z');
});

test('--smoke ignores the pause', async () => {
  const c = limitCase();
  clockAt(c, '2026-12-01T02:00:00Z');
  const now = Date.parse('2026-12-01T02:00:00Z') / 1000;
  writeFileSync(paused(c), `${now + 3600} ${now}\nx\n`);
  const r = await run(c, dash, { args: ['--smoke'] });
  assert.is(r.code, 0);
  assert.equal(c.outcomes(), ['start smoke', 'quiet smoke']);
});

test('limitBackoff: a duration, refused otherwise with the field named', () => {
  const base = limitCase().spec;
  assert.ok(validateSpec({ ...base, limitBackoff: '45m' }).spec);
  const bad = validateSpec({ ...base, limitBackoff: 'soon' });
  assert.equal(bad.errors, ['limitBackoff: must be a whole number of s, m or h, at least 1s (e.g. "25m"), got "soon"']);
});

test('shellcheck -s sh is clean for each harness', () => {
  for (const harness of ['claude-code', 'codex', 'command'] as const) {
    const c = limitCase({ harness });
    const r = shellcheck(join(c.state, 'heartbeat.sh'));
    assert.ok(r.ok, `${harness}: ${r.out}`);
  }
});

test.run();
