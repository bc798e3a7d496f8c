// `npm ci` on the Node versions the README supports prints no warning:
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

test('the engines ranges of the lockfile take the floor, this Node and the newer lines (no EBADENGINE)', () => {
  // The floor is the oldest Node line still supported, and the one the jail's srt declares.
  assert.is(pkg.engines.node, '>=22.12');
  const versions: V[] = [parse(process.version), [22, 12, 0], [24, 0, 0], [26, 0, 0]];
  const bad: string[] = [];
  for (const [path, p] of Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)) {
    const range = p.engines?.node;
    if (!range) continue;
    for (const v of versions) if (!satisfies(range, v)) bad.push(`${path} wants node ${range}, not ${v.join('.')}`);
  }
  assert.equal(bad, []);
});

test('every dependency with an install script is allowed by name in package.json allowScripts', () => {
  const scripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>).filter(([k, p]) => k && p.hasInstallScript).map(([k]) => k.replace(/^.*node_modules\//, ''));
  assert.ok(scripts.includes('esbuild'), 'esbuild has its postinstall');
  for (const s of scripts) assert.is(pkg.allowScripts?.[s], true, s);
});

test('an older Node gets one sentence naming the floor, and the floor itself runs', async () => {
  const { nodeTooOld } = (await import(join(ROOT, 'bin', 'hbgen.cjs'))).default as { nodeTooOld: (v: string) => string | undefined };
  for (const v of ['v20.20.2', 'v22.11.0', 'v18.0.0']) assert.match(nodeTooOld(v) ?? '', /^hbgen: needs Node 22\.12 or newer, and this is Node v\d+\.\d+\.\d+; .*Set-up.*\n$/, v);
  for (const v of ['v22.12.0', 'v22.23.5', 'v24.0.0', 'v26.12.1', process.version]) assert.is(nodeTooOld(v), undefined, v);
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
