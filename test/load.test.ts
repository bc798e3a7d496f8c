// Reading the spec file (src/load.ts): size and kind of file, UTF-8, the byte order mark,
// duplicate keys. Each refusal is checked through the built CLI as a user meets it.
import { spawnSync } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_SPEC_BYTES, MAX_SPEC_DEPTH, duplicateKeys, invalidUtf8At, tooDeepAt } from '../src/load.ts';
import { HBGEN, ROOT, hbgen } from './helpers/cli.ts';

const EXAMPLE = readFileSync(join(ROOT, 'fixtures/specs/example.json'));
let tmp = '';
test.before.each(() => {
  tmp = mkdtempSync(join(tmpdir(), 'hbgen-load-'));
});
test.after.each(() => rmSync(tmp, { recursive: true, force: true }));

/** Write `bytes` as a spec and render it; the message must be one "hbgen: FILE: " line. */
function renderBytes(bytes: Buffer | string, name = 'spec.json') {
  const file = join(tmp, name);
  writeFileSync(file, bytes);
  return hbgen(['render', file]);
}
const oneLine = (r: { code: number; stderr: string }, file: string) => {
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stderr.split('\n').length, 2, r.stderr);
  assert.ok(r.stderr.startsWith(`hbgen: ${file}: `), r.stderr);
  assert.not.match(r.stderr, /\n\s+at |internal error/);
};

test('invalid UTF-8: refused with the byte offset, never replaced', () => {
  // Today's decoder turned "d\xe9cs" into "d\ufffdcs": another folder as the repo.
  const at = EXAMPLE.indexOf('/home/ada/src/docs') + 15;
  const bytes = Buffer.concat([EXAMPLE.subarray(0, at), Buffer.from([0xe9]), EXAMPLE.subarray(at + 1)]);
  const r = renderBytes(bytes);
  oneLine(r, join(tmp, 'spec.json'));
  const line = EXAMPLE.subarray(0, at).toString('latin1').split('\n').length;
  assert.is(r.stderr, `hbgen: ${join(tmp, 'spec.json')}: not valid UTF-8 at byte offset ${at} (counting from 0, on line ${line}); save the file as UTF-8\n`);
  assert.is(r.stdout, '');
});

test('invalidUtf8At agrees with the platform validator and points at the first bad sequence', () => {
  const cases: [number[], number][] = [
    [[0x61, 0x62], -1],
    [[0xc3, 0xa9], -1], // é
    [[0xef, 0xbf, 0xbe], -1], // U+FFFE: valid UTF-8 (the spec refuses it later, by field)
    [[0xf4, 0x8f, 0xbf, 0xbf], -1], // U+10FFFF
    [[0x61, 0xc0, 0xaf], 1], // overlong "/"
    [[0xe0, 0x80, 0xaf], 0], // overlong, three bytes
    [[0xed, 0xa0, 0x80], 0], // a surrogate
    [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
    [[0x61, 0x62, 0xe2, 0x82], 2], // cut short by the end
    [[0xe2, 0x28, 0xa1], 0], // bad continuation
    [[0x80], 0],
    [[0xff], 0],
  ];
  for (const [b, at] of cases) assert.is(invalidUtf8At(Uint8Array.from(b)), at, b.map((x) => x.toString(16)).join(' '));
  // Random byte strings biased towards multi-byte sequences: the verdict must match
  // node's own isUtf8, and the prefix before the reported offset must be valid.
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const pool = [0x41, 0x80, 0x8f, 0x90, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xc0, 0xff];
  let invalid = 0;
  for (let k = 0; k < 20000; k++) {
    const b = Uint8Array.from({ length: 1 + rnd(6) }, () => pool[rnd(pool.length)]!);
    const at = invalidUtf8At(b);
    assert.is(at === -1, isUtf8(b), Array.from(b, (x) => x.toString(16)).join(' '));
    if (at >= 0) {
      invalid++;
      assert.ok(isUtf8(b.subarray(0, at)), `prefix before ${at} valid`);
    }
  }
  assert.ok(invalid > 1000 && invalid < 20000, 'both verdicts exercised');
});

test('a UTF-8 byte order mark is accepted: the same render as without it', () => {
  const plain = renderBytes(EXAMPLE, 'plain.json');
  const bom = renderBytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), EXAMPLE]), 'bom.json');
  assert.is(plain.code, 0, plain.stderr);
  assert.is(bom.code, 0, bom.stderr);
  assert.is(bom.stdout, plain.stdout);
  // With a BOM a syntax error still gets its line and column, counted as an editor shows them.
  const broken = renderBytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{\n  "version": 1,,\n}')]), 'bom-broken.json');
  oneLine(broken, join(tmp, 'bom-broken.json'));
  const same = renderBytes('{\n  "version": 1,,\n}', 'broken.json');
  assert.match(broken.stderr, / at line 2, column 16\); fix the syntax/);
  assert.is(broken.stderr.replace('bom-broken', 'broken'), same.stderr);
});

test('a spec nested 50 000 levels (100 KB): one sentence naming the depth, exit 1, in well under a second of work (it once ran 25 s and died out of memory)', () => {
  const file = join(tmp, 'spec.json');
  for (const deep of ['['.repeat(50_000) + ']'.repeat(50_000), '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)]) {
    const t0 = Date.now();
    const r = renderBytes(deep);
    oneLine(r, file);
    assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
    assert.match(r.stderr, new RegExp(`^hbgen: ${file}: nested more than ${MAX_SPEC_DEPTH} levels deep at line 1, column \\d+, where a spec is at most 4 deep; write the spec's own fields \\(see \`hbgen schema\`\\)\n$`));
  }
});

test('the depth bound: 64 levels go on to validation, 65 are refused; brackets inside strings (escaped quotes too) do not count', () => {
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  assert.is(tooDeepAt(nest(MAX_SPEC_DEPTH)), -1);
  assert.is(tooDeepAt(nest(MAX_SPEC_DEPTH + 1)), MAX_SPEC_DEPTH);
  assert.is(tooDeepAt(`["${'['.repeat(500)}\\", "\\"${'{'.repeat(500)}"]`), -1);
  assert.is(tooDeepAt('["unterminated [[['), -1);
  const spec = JSON.parse(EXAMPLE.toString('utf8'));
  spec.agent.prompt = `Read HEART.md ${'[{'.repeat(300)} \" ${'['.repeat(100)}`;
  const ok = renderBytes(JSON.stringify(spec));
  assert.is(ok.code, 0, ok.stderr);
  spec.extra = JSON.parse(nest(70));
  const r = renderBytes(JSON.stringify(spec));
  oneLine(r, join(tmp, 'spec.json'));
  assert.match(r.stderr, /nested more than 64 levels deep at line 1, column \d+/);
});

test('duplicate keys: refused, naming the key path and both positions', () => {
  const text = EXAMPLE.toString('utf8')
    .replace('"timeout": "25m",', '"timeout": "25m", "timeout": "1s",')
    .replace('"every": "30m",', '"every": "30m",\n    "ev\\u0065ry": "1h",');
  const file = join(tmp, 'spec.json');
  const r = renderBytes(text);
  assert.is(r.code, 1);
  const lines = text.split('\n');
  const where = (needle: string, nth = 0) => {
    const i = lines.findIndex((l) => l.includes(needle));
    let col = -1;
    for (let k = 0; k <= nth; k++) col = lines[i]!.indexOf(needle, col + 1);
    return `line ${i + 1}, column ${col + 1}`;
  };
  assert.is(
    r.stderr,
    `hbgen: ${file}: schedule.every: the key appears twice, at ${where('"every"')} and at ${where('"ev\\u0065ry"')}; JSON keeps only the last, so remove one\n` +
      `hbgen: ${file}: timeout: the key appears twice, at ${where('"timeout"')} and at ${where('"timeout"', 1)}; JSON keeps only the last, so remove one\n`,
  );
});

test('duplicateKeys: the first repeat of each object, at any depth, keys inside strings ignored', () => {
  const text = '{"a": {"x": 1, "y": [ {"k": "\\"k\\"", "k": 2, "k": 3} ], "x": 2}, "s": "{\\"a\\": 1}", "b": [1, {"a": 1}], "a": 0}';
  JSON.parse(text);
  const found = duplicateKeys(text).map((d) => [d.path, text.slice(d.first, d.first + 3), d.again]);
  assert.equal(found, [
    [['a', 'y', 0, 'k'], '"k"', text.indexOf('"k": 2')],
    [['a', 'x'], '"x"', text.indexOf('"x": 2')],
    [['a'], '"a"', text.lastIndexOf('"a": 0')],
  ]);
  assert.equal(duplicateKeys(EXAMPLE.toString('utf8')), []);
  // A JSON syntax error keeps its own message: the scanner runs only on parsed text.
  const r = renderBytes('{"version": 1, "version": 1');
  assert.match(r.stderr, /not valid JSON/);
});

test('size: 1 MiB is read, one byte more is refused before reading', () => {
  const at = EXAMPLE.lastIndexOf('}');
  const pad = (n: number) => Buffer.concat([EXAMPLE.subarray(0, at), Buffer.alloc(n - EXAMPLE.length, ' '), EXAMPLE.subarray(at)]);
  const ok = renderBytes(pad(MAX_SPEC_BYTES), 'max.json');
  assert.is(statSync(join(tmp, 'max.json')).size, MAX_SPEC_BYTES);
  assert.is(ok.code, 0, ok.stderr);
  const over = renderBytes(pad(MAX_SPEC_BYTES + 1), 'over.json');
  oneLine(over, join(tmp, 'over.json'));
  assert.match(over.stderr, /is over 1 MiB \(1048576 bytes\), the most a spec may be; pass the spec file itself\n$/);
});

test('a device, a pipe, or a file that grows while read: one sentence, never an abort', () => {
  const zero = hbgen(['render', '/dev/zero']); // today: heap exhausted, exit 134
  oneLine(zero, '/dev/zero');
  assert.match(zero.stderr, /is not a regular file \(a device, pipe or socket\); save the spec in a file and pass its path\n$/);
  // A FIFO with no writer: open(2) would wait forever without O_NONBLOCK.
  const fifo = join(tmp, 'fifo');
  assert.is(spawnSync('mkfifo', [fifo]).status, 0);
  const r = spawnSync(process.execPath, [HBGEN, 'render', fifo], { encoding: 'utf8', timeout: 20000 });
  assert.is(r.status, 1, `${r.error ?? ''} ${r.stderr}`);
  assert.match(r.stderr, /is not a regular file/);
  // /proc/kallsyms reports size 0 and yields megabytes: the bounded read stops at 1 MiB + 1.
  assert.ok(existsSync('/proc/kallsyms'), 'this test needs Linux /proc');
  const grow = hbgen(['render', '/proc/kallsyms']);
  oneLine(grow, '/proc/kallsyms');
  assert.match(grow.stderr, /grew while it was read and is over 1 MiB/);
});

test.run();
