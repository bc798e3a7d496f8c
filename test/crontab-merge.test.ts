// src/host/cron/crontab.ts, pure part: findBlocks, mergeBlock, removeBlock, tableProblems over
// many user tables, as bytes. What crontab(1) itself does with these tables is checked in
// test/crontab-host.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UserError } from '../src/errors.ts';
import { findBlocks, listingAmbiguities, mergeBlock, removeBlock, tableProblems } from '../src/host/cron/crontab.ts';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';
import { ACCEPT_CASES, B, DOCS, DOCS2, DOCS_LINES, USER_TABLES, block } from './helpers/crontab.ts';

const ROOT = join(import.meta.dirname, '..');

/** The UserError `f` throws (fails when it returns or throws something else). */
function refusal(f: () => unknown): UserError {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  assert.unreachable('expected a UserError');
  throw new Error('unreachable');
}

const show = (b: Buffer | null) => (b === null ? 'null' : JSON.stringify(b.toString('latin1')));
function same(actual: Buffer | null, expected: Buffer | null, msg: string) {
  assert.ok(actual === null ? expected === null : expected !== null && actual.equals(expected), `${msg}: got ${show(actual)}, want ${show(expected)}`);
}

// ------------------------------------------------------------------ every user table

for (const u of USER_TABLES) {
  test(`${u.name}: added first, unchanged twice, replaced in place, removed to the original bytes`, () => {
    const original = Buffer.from(u.table);
    const m = mergeBlock(u.table, DOCS, 'docs');
    assert.is(m.action, 'added');
    same(m.table, Buffer.concat([DOCS, u.table]), 'block goes first, user bytes follow untouched');
    same(u.table, original, 'input not mutated');

    const scan = findBlocks(m.table, 'docs');
    assert.equal(scan.problems, []);
    assert.equal(scan.blocks, [{ begin: 0, end: DOCS_LINES - 1, start: 0, endByte: DOCS.length }]);

    const again = mergeBlock(m.table, DOCS, 'docs');
    assert.is(again.action, 'unchanged');
    same(again.table, m.table, 'installing twice changes nothing');

    const r = mergeBlock(m.table, DOCS2, 'docs', { previous: DOCS });
    assert.is(r.action, 'replaced');
    same(r.table, Buffer.concat([DOCS2, u.table]), 'replaced in place');

    for (const t of [m.table, r.table]) {
      const rm = removeBlock(t, 'docs');
      assert.ok(rm.removed);
      same(rm.table, u.table.length === 0 ? null : u.table, 'remove returns the original bytes');
    }
    const none = removeBlock(u.table, 'docs');
    assert.not.ok(none.removed);
    same(none.table, u.table, 'nothing to remove: table as it was');
  });
}

test('absent table: the block alone; removing it says "remove the table" (null), or an empty table with keepEmpty', () => {
  const m = mergeBlock(null, DOCS, 'docs');
  assert.is(m.action, 'added');
  same(m.table, DOCS, 'just the block');
  assert.equal(m.warnings, []);
  same(removeBlock(m.table, 'docs').table, null, 'null = crontab -r');
  same(removeBlock(m.table, 'docs', { keepEmpty: true }).table, B(''), 'keepEmpty: an empty, present table');
});

test('results never alias the input buffer', () => {
  const t = B('# mine\n');
  const m = mergeBlock(t, DOCS, 'docs');
  m.table.fill(0);
  same(t, B('# mine\n'), 'input intact');
  const u = mergeBlock(Buffer.concat([DOCS, t]), DOCS, 'docs');
  assert.is(u.action, 'unchanged');
  const before = Buffer.from(u.table);
  const none = removeBlock(before, 'other');
  none.table!.fill(0);
  same(u.table, before, 'removeBlock result is a copy');
});

test('a block that is not first is replaced where it is, not moved', () => {
  const t = Buffer.concat([B('# a\n0 1 * * * x\n'), DOCS, B('# b\n')]);
  const r = mergeBlock(t, DOCS2, 'docs');
  assert.is(r.action, 'replaced');
  same(r.table, Buffer.concat([B('# a\n0 1 * * * x\n'), DOCS2, B('# b\n')]), 'same position');
  same(removeBlock(r.table, 'docs').table, B('# a\n0 1 * * * x\n# b\n'), 'removed in the middle');
});

test("another name's block is untouched by add, replace and remove", () => {
  const other = block('other');
  const t = Buffer.concat([other, B('# mine\n')]);
  const m = mergeBlock(t, DOCS, 'docs');
  same(m.table, Buffer.concat([DOCS, other, B('# mine\n')]), 'added before the other block');
  const r = mergeBlock(m.table, DOCS2, 'docs');
  same(r.table, Buffer.concat([DOCS2, other, B('# mine\n')]), 'other block intact');
  same(removeBlock(r.table, 'docs').table, t, 'other block intact after remove');
  same(removeBlock(r.table, 'other').table, Buffer.concat([DOCS2, B('# mine\n')]), 'the other name removes only its own');
  // names that share a prefix are different names
  const p = Buffer.concat([block('docs-2'), block('doc')]);
  assert.equal(findBlocks(p, 'docs').blocks, []);
  same(mergeBlock(p, DOCS, 'docs').table, Buffer.concat([DOCS, p]), 'docs-2 and doc untouched');
});

test('an END marker that is the last line without a newline still closes the block', () => {
  const t = Buffer.concat([B('# x\n'), DOCS.subarray(0, DOCS.length - 1)]);
  const scan = findBlocks(t, 'docs');
  assert.equal(scan.problems, []);
  assert.equal(scan.blocks, [{ begin: 1, end: DOCS_LINES, start: 4, endByte: t.length }]);
  same(removeBlock(t, 'docs').table, B('# x\n'), 'removed');
  same(mergeBlock(t, DOCS2, 'docs').table, Buffer.concat([B('# x\n'), DOCS2]), 'replaced, now with its newline');
});

// ------------------------------------------------------------------ refusals

const CRLF_DOCS = B(DOCS.toString('latin1').replace(/\n/g, '\r\n'));
const REFUSED: { name: string; table: Buffer; says: RegExp[] }[] = [
  {
    name: 'a copied duplicate block',
    table: Buffer.concat([DOCS, B('0 5 * * * x\n'), DOCS]),
    says: [/appears 2 times, at lines 1–5 and 7–11; keep one and delete the others, for example lines 7–11/],
  },
  {
    name: 'three copies',
    table: Buffer.concat([DOCS, DOCS, DOCS]),
    says: [/appears 3 times, at lines 1–5, 6–10 and 11–15; .* for example lines 6–10 and 11–15/],
  },
  { name: 'BEGIN without END', table: B('# x\n# BEGIN hbgen docs\n* * * * * y\n'), says: [/^line 2 is "# BEGIN hbgen docs" but no "# END hbgen docs" follows it$/] },
  { name: 'BEGIN as the last line without newline', table: B('# x\n# BEGIN hbgen docs'), says: [/^line 2 is "# BEGIN hbgen docs" but no/] },
  { name: 'END without BEGIN', table: B('# x\n# END hbgen docs\n'), says: [/^line 2 is "# END hbgen docs" without a "# BEGIN hbgen docs" above it$/] },
  { name: 'END before BEGIN', table: B('# END hbgen docs\n# BEGIN hbgen docs\n'), says: [/^line 1 is "# END hbgen docs" without/, /^line 2 is "# BEGIN hbgen docs" but no/] },
  {
    name: 'nested BEGIN',
    table: B('# BEGIN hbgen docs\n# BEGIN hbgen docs\n* * * * * y\n# END hbgen docs\n'),
    says: [/^line 2 is a second "# BEGIN hbgen docs" before the "# END hbgen docs" of the block opened on line 1$/],
  },
  {
    name: 'CRLF markers',
    table: Buffer.concat([B('# mine\r\n'), CRLF_DOCS]),
    says: [
      /^line 2 looks like hbgen's marker "# BEGIN hbgen docs" but ends in a carriage return \(CRLF\); hbgen only trusts exact marker lines$/,
      /^line 6 looks like hbgen's marker "# END hbgen docs" but ends in a carriage return/,
    ],
  },
  {
    name: "CRLF markers as Debian's crontab -l lists them (the text \\r)",
    table: Buffer.concat([B('# mine\\r\n'), B(DOCS.toString('latin1').replace(/\n/g, '\\r\n'))]),
    says: [/^line 2 looks like hbgen's marker "# BEGIN hbgen docs" but ends in a carriage return \(CRLF\)/, /^line 6 looks like hbgen's marker "# END hbgen docs" but ends/],
  },
  { name: 'trailing spaces on a marker', table: B(DOCS.toString('latin1').replace('# BEGIN hbgen docs\n', '# BEGIN hbgen docs  \n')), says: [/^line 1 looks like .* but has extra spaces or tabs/] },
  { name: 'an indented marker', table: B(DOCS.toString('latin1').replace('# END hbgen docs\n', '\t# END hbgen docs\n')), says: [/^line 5 looks like hbgen's marker "# END hbgen docs" but has extra spaces/, /^line 1 is "# BEGIN hbgen docs" but no/] },
  {
    name: 'another block interleaved',
    table: B('# BEGIN hbgen docs\n# BEGIN hbgen other\n# END hbgen docs\n# END hbgen other\n'),
    says: [/^line 2, inside hbgen's block "docs" opened on line 1, is another block's marker "# BEGIN hbgen other"$/],
  },
];

for (const c of REFUSED) {
  test(`refused, table untouched: ${c.name}`, () => {
    const original = Buffer.from(c.table);
    const scan = findBlocks(c.table, 'docs');
    assert.ok(scan.problems.length > 0, 'findBlocks reports a problem');
    for (const [what, f] of [
      ['merge', () => mergeBlock(c.table, DOCS, 'docs')],
      ['remove', () => removeBlock(c.table, 'docs')],
    ] as const) {
      const e = refusal(f);
      assert.is(e.exitCode, 1);
      for (const re of c.says) assert.ok(e.lines.some((l) => re.test(l)), `${what}: no line matches ${re}:\n${e.lines.join('\n')}`);
      assert.is(e.lines[e.lines.length - 1], 'hbgen changed nothing; fix your crontab with `crontab -e` and run the command again');
      for (const l of e.lines) assert.not.match(l, /\n/, 'one sentence per line');
      same(c.table, original, `${what}: input untouched`);
    }
  });
}

test('an edited block (differs from the one hbgen installed) is refused when the caller passes previous', () => {
  const edited = B(DOCS.toString('latin1').replace('/bin/sh', '/bin/bash'));
  const t = Buffer.concat([B('# x\n'), edited]);
  for (const f of [() => mergeBlock(t, DOCS2, 'docs', { previous: DOCS }), () => removeBlock(t, 'docs', { previous: DOCS })]) {
    const e = refusal(f);
    assert.match(e.lines[0]!, /^lines 2–6 of your crontab, hbgen's block "docs", differ from what hbgen installed/);
  }
  // without `previous` the caller takes responsibility: replaced / removed
  assert.is(mergeBlock(t, DOCS2, 'docs').action, 'replaced');
  same(removeBlock(t, 'docs').table, B('# x\n'), 'removed');
  // identical content is fine whatever previous says
  assert.is(mergeBlock(Buffer.concat([DOCS2]), DOCS2, 'docs', { previous: DOCS }).action, 'unchanged');
});

test('a user table crontab(1) would refuse is refused before any write, naming the line', () => {
  for (const [table, re] of [
    [B('0 5 * * * backup'), /^line 6, the last line, has no newline at its end, so crontab\(1\) would refuse the whole table/],
    [B('# a\nMAILTO=me'), /^line 7, the last line, has no newline/],
    [B(`* * * * * ${'x'.repeat(999)}\n`), /^line 6 has a 999-byte command, over cron's 998-byte limit/],
  ] as const) {
    const e = refusal(() => mergeBlock(table, DOCS, 'docs'));
    assert.match(e.lines[0]!, re);
    const e2 = refusal(() => removeBlock(Buffer.concat([DOCS, table]), 'docs'));
    assert.match(e2.lines[0]!.replace(/line \d+/, 'line N'), new RegExp(re.source.replace(/line \d+/, 'line N')));
  }
});

test('an unchanged table is not refused for problems crontab(1) would raise: nothing will be written', () => {
  const t = Buffer.concat([DOCS, B('0 5 * * * backup')]);
  assert.is(mergeBlock(t, DOCS, 'docs').action, 'unchanged');
  assert.ok(refusal(() => mergeBlock(t, DOCS2, 'docs')).lines[0]!.startsWith('line 6, the last line'));
});

test('a block whose command is over 998 bytes is refused (UserError, not a crash)', () => {
  const long = block('docs', '7 8 * * *', `/home/${'a'.repeat(990)}/heartbeat.sh`);
  const e = refusal(() => mergeBlock(B('# mine\n'), long, 'docs'));
  assert.match(e.lines[0]!, /^line 4 has a 1\d{3}-byte command, over cron's 998-byte limit/);
});

test('malformed blocks and names are programming errors (Error, not UserError)', () => {
  const bad: [string, Buffer, string][] = [
    ['no END', B('# BEGIN hbgen docs\n* * * * * x\n'), 'docs'],
    ['no final newline', DOCS.subarray(0, DOCS.length - 1), 'docs'],
    ['CRLF', CRLF_DOCS, 'docs'],
    ['text before BEGIN', Buffer.concat([B('# x\n'), DOCS]), 'docs'],
    ['text after END', Buffer.concat([DOCS, B('# x\n')]), 'docs'],
    ['two blocks', Buffer.concat([DOCS, DOCS]), 'docs'],
    ['another marker inside', B('# BEGIN hbgen docs\n# END hbgen other\n# END hbgen docs\n'), 'docs'],
    ['wrong name', DOCS, 'other'],
  ];
  for (const [what, b, name] of bad) {
    try {
      mergeBlock(B(''), b, name);
      assert.unreachable(what);
    } catch (e) {
      assert.not.instance(e, UserError, what);
      assert.match((e as Error).message, /^crontab: /, what);
    }
  }
  for (const name of ['', 'Docs', 'a b', 'docs\n', '-x', 'a--b']) {
    assert.throws(() => findBlocks(B(''), name), /invalid spec name/, JSON.stringify(name));
  }
});

// ------------------------------------------------------------------ listingAmbiguities

test("listingAmbiguities: the text \\r and \\b outside hbgen blocks (what Debian's crontab -l prints for CR and BS)", () => {
  const t = Buffer.concat([
    B('# crlf\\r\n'), // line 1: a CR as Debian lists it
    B("0 1 * * * sed 's/\\r$//;s/\\bx\\b/y/' f\n"), // line 2: the text, ambiguous all the same
    B('# a raw CR byte\r\n'), // line 3: a verbatim listing (not Debian): unambiguous
    B('# \\\\ and \\n are fine\n'), // line 4
    block('docs', '7 8 * * *', '/home/a\\rb/heartbeat.sh'), // lines 5-9: hbgen wrote this text, skipped
    B('# b\\b\n'), // line 10
  ]);
  const a = listingAmbiguities(t);
  assert.is(a.length, 3, a.join('\n'));
  assert.match(a[0]!, /^line 1 of your crontab shows "\\r" \(a carriage return, as in CRLF line ends, or the text \\r\): Debian's `crontab -l` prints both the same way, so hbgen cannot write your crontab back unchanged; remove carriage returns and backspaces with `crontab -e`, or move a command that needs the text into a script$/);
  assert.match(a[1]!, /^line 2 of your crontab shows "\\r" \(.*\) and "\\b" \(a backspace or the text \\b\): /);
  assert.match(a[2]!, /^line 10 of your crontab shows "\\b"/);
  assert.equal(listingAmbiguities(Buffer.concat([DOCS, B('# plain\n')])), []);
  // an unclosed block does not hide the rest of the table
  assert.is(listingAmbiguities(B('# BEGIN hbgen docs\n# x\\r\n')).length, 1);
});

// ------------------------------------------------------------------ warnings

test('warnings: env lines above the block apply to it (CRON_TZ, SHELL, others); below, CRON_TZ/TZ/SHELL do not', () => {
  const t = Buffer.concat([B('CRON_TZ=UTC\nSHELL=/bin/bash\nMAILTO=me\n'), DOCS, B('TZ=Asia/Tokyo\nCRON_TZ=UTC\nSHELL=/bin/zsh\nPATH=/x\n# SHELL=/no\n')]);
  const w = mergeBlock(t, DOCS2, 'docs').warnings;
  assert.equal(w, [
    `line 1 of your crontab sets CRON_TZ above hbgen's block "docs": cronie reads the block's times in that zone instead of the host clock they were written for (Debian's cron only passes it to the job); move the block to the top with \`crontab -e\``,
    `line 2 of your crontab sets SHELL above hbgen's block "docs": cron starts the block's command with that shell, which then runs /bin/sh`,
    `line 3 of your crontab sets MAILTO above hbgen's block "docs", so it applies to the block's job too`,
    `line 9 of your crontab sets TZ below hbgen's block "docs": it applies only to the lines below it; the block's times follow the host clock`,
    `line 10 of your crontab sets CRON_TZ below hbgen's block "docs": it applies only to the lines below it; the block's times follow the host clock`,
    `line 11 of your crontab sets SHELL below hbgen's block "docs": it applies only to the lines below it; cron starts the block's command with /bin/sh`,
  ]);
  // a fresh install puts the block first: nothing can be above it
  const fresh = mergeBlock(B('CRON_TZ=UTC\nSHELL=/bin/bash\n'), DOCS, 'docs').warnings;
  assert.equal(fresh.map((l) => /below/.test(l)), [true, true]);
  // quoted and spaced env syntax is still an env line
  assert.equal(mergeBlock(B(' "CRON_TZ" = UTC\n'), DOCS, 'docs').warnings.length, 1);
  assert.equal(mergeBlock(B('# CRON_TZ=UTC\n0 1 * * * CRON_TZ=UTC date\n'), DOCS, 'docs').warnings, [], 'comments and job lines are not env lines');
});

// ------------------------------------------------------------------ tableProblems

for (const c of ACCEPT_CASES) {
  test(`tableProblems: ${c.name} → ${c.ok ? 'accepted' : `refused at line ${c.line}`}`, () => {
    const p = tableProblems(c.table);
    if (c.ok) assert.equal(p, []);
    else {
      assert.is(p.length, 1, p.join('\n'));
      assert.match(p[0]!, new RegExp(`^line ${c.line}[ ,]`));
    }
  });
}

// ------------------------------------------------------------------ round trip, randomized

test('round trip over 2000 random tables: add then remove gives back every byte; replace keeps the rest', () => {
  const pool = [
    '# c', 'SHELL=/bin/bash', 'CRON_TZ=UTC', 'MAILTO=""', 'PATH=/usr/bin:/bin', '0 5 * * * backup', '@reboot x',
    '', '   ', '\t', '  # indented', 'caf\xe9', '# caf\xe9 \xff\xfe', '* * * * * true\r', '# crlf\r', '\r',
    '#BEGIN hbgen docs', '# BEGIN hbgen docsy', '# END hbgen other', '%%%', '\\', "0 1 * * * printf '\\%s'",
  ];
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 2000; i++) {
    const lines = Array.from({ length: rnd(8) }, () => pool[rnd(pool.length)]!);
    let s = lines.join('\n');
    const last = lines[lines.length - 1];
    // a final newline is optional only where crontab(1) allows it (a last comment or blank line)
    if (lines.length && (rnd(2) === 0 || !/^[ \t]*(#.*)?$/.test(last!))) s += '\n';
    const t = B(s);
    const m = mergeBlock(t, DOCS, 'docs');
    same(m.table.subarray(DOCS.length), t, `user bytes after the block (${show(t)})`);
    const r = mergeBlock(m.table, DOCS2, 'docs');
    const back = removeBlock(r.table, 'docs').table;
    same(back, t.length ? t : null, `round trip of ${show(t)}`);
  }
});

// ------------------------------------------------------------------ the real rendered block

test("the block hbgen renders for the example spec is one that mergeBlock accepts", () => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'fixtures/specs/example.json'), 'utf8'));
  const v = validateSpec(raw);
  assert.ok(v.spec, 'example spec validates');
  const r = renderNow(v.spec!, { scheduler: 'cron' });
  assert.equal(r.errors, []);
  const f = r.files.find((x) => x.path === 'host/crontab');
  assert.ok(f, 'host/crontab rendered');
  const b = Buffer.from(f!.content);
  const m = mergeBlock(B('SHELL=/bin/bash\n0 5 * * * x\n'), b, v.spec!.name);
  assert.is(m.action, 'added');
  same(removeBlock(m.table, v.spec!.name).table, B('SHELL=/bin/bash\n0 5 * * * x\n'), 'round trip');
});

test.run();
