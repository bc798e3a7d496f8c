// src/path-join.ts's joinUnder is a shortcut for posix.join; it must give join's result for
// every input, the plain ones it takes the short way and the odd ones (empty parts, `.`,
// `..`, doubled or trailing slashes, a relative or empty folder) it hands to join.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { posix } from 'node:path';
import { joinUnder } from '../src/path-join.ts';

const PARTS = ['', '/', '//', '.', '..', '...', '.a', 'a.', 'a', 'bé c', '東京', '$HOME', "it's", 'x\ny', '-n'];

test('the plain case: an absolute folder and a constant name', () => {
  assert.is(joinUnder('/home/zoë', '.gitconfig'), '/home/zoë/.gitconfig');
  assert.is(joinUnder('/', 'etc/passwd'), '/etc/passwd');
  assert.is(joinUnder('/srv/repo', '.git/hooks'), '/srv/repo/.git/hooks');
});

test('every pairing of odd and plain pieces, as posix.join', () => {
  const pieces: string[] = [];
  for (const a of PARTS) for (const b of PARTS) pieces.push(a + '/' + b, a + b);
  for (const p of PARTS) pieces.push(p, '/' + p, p + '/');
  let n = 0;
  for (const dir of pieces) for (const rel of pieces) {
    assert.is(joinUnder(dir, rel), posix.join(dir, rel), `${JSON.stringify(dir)} + ${JSON.stringify(rel)}`);
    n++;
  }
  assert.ok(n > 100_000, `${n} pairs`);
});

test('random paths of slashes, dots and letters, as posix.join', () => {
  const alphabet = ['/', '/', '.', '.', 'a', 'é', ' '];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const path = () => Array.from({ length: Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  for (let i = 0; i < 50_000; i++) {
    const dir = path(), rel = path();
    assert.is(joinUnder(dir, rel), posix.join(dir, rel), `${JSON.stringify(dir)} + ${JSON.stringify(rel)}`);
  }
});

test.run();
