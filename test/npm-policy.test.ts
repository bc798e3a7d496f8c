// issue 27 item 10: `npm ci` on the Node versions the README supports prints no warning:
// every package in package-lock.json declares a Node range that takes them (npm's
// EBADENGINE), and every dependency with an install script is in package.json's
// allowScripts (npm 11's install-scripts advisory). Read from the lockfile itself, offline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/cli.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));

type V = [number, number, number];
const parse = (s: string): V => {
  const [a = 0, b = 0, c = 0] = s.replace(/^v/, '').split('.').map((x) => (x === '*' || x === 'x' ? 0 : Number(x)));
  return [a, b, c];
};
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `v` satisfies an engines range of the forms the lockfile holds (">=X", "^X.Y.Z", "X", "X.*", alternatives with ||). */
export function satisfies(range: string, v: V): boolean {
  return range.split('||').some((alt) => {
    const words = alt.trim().replace(/(>=|<=|>|<|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return words.every((w) => {
      const m = /^(>=|<=|>|<|\^|~)?(.*)$/.exec(w)!;
      const r = parse(m[2]!);
      const parts = m[2]!.split('.').filter((x) => x !== '*' && x !== 'x').length;
      if (m[1] === '>=') return cmp(v, r) >= 0;
      if (m[1] === '>') return cmp(v, r) > 0;
      if (m[1] === '<') return cmp(v, r) < 0;
      if (m[1] === '<=') return cmp(v, r) <= 0;
      if (m[1] === '^') return v[0] === r[0] && cmp(v, r) >= 0;
      if (m[1] === '~') return v[0] === r[0] && v[1] === r[1] && cmp(v, r) >= 0;
      // A bare "20" or "6.*": that major (and minor, when given).
      return v[0] === r[0] && (parts < 2 || v[1] === r[1]);
    });
  });
}

/**
 * The one exception, decided (issue 27, README "Set-up"): srt 0.0.79 and later declare
 * Node ≥ 22.12; 0.0.78, the last declaring ≥ 20.11, lets the jailed agent make a nested user
 * namespace and fails open on an unreadable folder in its protected-file scan, so hbgen keeps
 * 0.0.83 (it runs on Node 20) and its one EBADENGINE line until the floor becomes Node 22.12.
 */
const PENDING: Record<string, string> = { 'node_modules/@anthropic-ai/sandbox-runtime': '>=22.12.0' };

test('the engines ranges of the lockfile take this Node and the newer lines (no EBADENGINE)', () => {
  assert.is(pkg.engines.node, '>=20');
  const versions: V[] = [parse(process.version), [22, 12, 0], [24, 0, 0]];
  const bad: string[] = [];
  for (const [path, p] of Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)) {
    const range = p.engines?.node;
    if (!range || PENDING[path] === range) continue;
    for (const v of versions) if (!satisfies(range, v)) bad.push(`${path} wants node ${range}, not ${v.join('.')}`);
  }
  assert.equal(bad, []);
});

test('every dependency with an install script is allowed by name in package.json allowScripts', () => {
  const scripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>).filter(([k, p]) => k && p.hasInstallScript).map(([k]) => k.replace(/^.*node_modules\//, ''));
  assert.ok(scripts.includes('esbuild'), 'esbuild has its postinstall');
  for (const s of scripts) assert.is(pkg.allowScripts?.[s], true, s);
});

test('satisfies(): the forms npm writes', () => {
  assert.ok(satisfies('^20.17.0 || >=22.9.0', [20, 20, 2]));
  assert.not.ok(satisfies('>=22', [20, 20, 2]));
  assert.ok(satisfies('18 || 20 || >=22', [20, 1, 0]));
  assert.ok(satisfies('6.* || 8.* || >= 10.*', [20, 0, 0]));
  assert.ok(satisfies('>=16 || 14 >=14.17', [20, 0, 0]));
  assert.not.ok(satisfies('^20.19.0 || ^22.12.0 || >=23', [20, 18, 0]));
});

test.run();
