// PROTOCOL.md and LOG.md as `hbgen init` writes them carry the seed's fan-out and
// tier rules, the allowance, and the seed's log shape with the working zone's abbreviation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderLogMd, renderProtocolMd } from '../src/gen/templates.ts';

const protocol = renderProtocolMd({ name: 'docs' });
const log = renderLogMd({ name: 'docs' });
// The seed's shape: `2026-07-23 22:38 CEST — Curr: <mission-relevant state> — <key change/blocker/next>`.
const SHAPE = /^`(\d{4}-\d\d-\d\d \d\d:\d\d [A-Z][A-Za-z0-9+-]{1,5}) — Curr: (done|partial|blocked|idle|stopped|<state>): [^—`]+ — [^—`]+`/m;

test('LOG.md and PROTOCOL.md give the seed shape, with the zone abbreviation and the Curr: label', () => {
  for (const [what, text] of [['LOG.md', log], ['PROTOCOL.md', protocol]] as const) {
    const m = SHAPE.exec(text.split('\n').map((l) => l.trim()).join('\n'));
    assert.ok(m, `${what} has no line in the seed's shape:\n${text}`);
    assert.is(m![1], '2026-07-23 22:38 CEST', what);
    assert.not.match(text, /YYYY-MM-DD HH:MM <state>/, `${what}: the old shape is gone`);
  }
  // The stop line uses the same shape, and the time comes from the context block's Local time.
  assert.match(protocol, /`<Local time> — Curr: stopped — <which condition>`/);
  assert.match(protocol, /as the context block's `Local time`\s+gives it \(with its zone abbreviation\)/);
});

test('PROTOCOL.md has the fan-out and tier rules (the strong tier once a wake), asks to verify finished work, and reads the Allowance line', () => {
  const flat = protocol.replace(/\s+/g, ' ');
  for (const rule of [
    /## Subagents and tiers/,
    /Delegate only when parallelism helps/,
    /No recursive spawning: a subagent you start must not start subagents of its own .*unless HEART\.md explicitly allows it/,
    /cheapest tier of `Model tiers` that can do its job well; keep the strongest tier for the hard reasoning/,
    /keep the strongest tier for the hard reasoning, and use it at most once per wake unless HEART\.md allows more/,
    /Before you record it as done, verify it: run the tests or the check that shows it works, and record `partial` with what failed/,
    /Scale down as the allowance tightens/,
    /`Allowance`: the minutes left in this wake .* how much of it is left today/,
  ]) assert.match(flat, rule);
});

test.run();
