// src/sha256.ts, the render's own SHA-256, gives node:crypto's digest for every length
// around the block and padding edges, for multi-byte UTF-8 and for lone surrogates (which
// both encode as U+FFFD), and for a text as long as a runtime.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from '../src/sha256.ts';

const node = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

test('the FIPS 180-4 examples', () => {
  assert.is(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.is(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.is(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
});

test('every length from 0 to 300 bytes, and 200 KB, as node:crypto', () => {
  for (let n = 0; n <= 300; n++) {
    const t = randomBytes(n).toString('latin1');
    assert.is(sha256Hex(t), node(t), `length ${n}`);
  }
  const big = randomBytes(200_000).toString('base64');
  assert.is(sha256Hex(big), node(big));
});

test('multi-byte UTF-8 and lone surrogates, as node:crypto', () => {
  for (const t of ['é', '€', '😀', 'a\u{10FFFF}b', '\ud800', 'x\udfffy', 'Zürich – 東京 🌍'.repeat(37)]) assert.is(sha256Hex(t), node(t), JSON.stringify(t));
});

test.run();
