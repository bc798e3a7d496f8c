// What a render loads (every scheduler's render ≤ 2.5× `node -e ''` in
// CPU time; docs/SPEED.md). Loading is most of a render's cost, so the render path loads
// only what it uses: no node:child_process (src/billing.ts needs it for install's checks
// only: src/lazy-builtins.ts), and no `yaml` library for the kubernetes manifest
// (generators/manifest-yaml.ts writes it). Times are the bench's business (npm run bench);
// these are the facts behind them, checked on the built CLI as a user runs it and on the
// source.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HBGEN, ROOT } from './helpers/cli.ts';

const FIXTURES = ['example', 'launchd', 'cron', 'kubernetes'];

/** Node's list of the built-in modules the built CLI loaded for `args`, read when it exits. */
function builtinsLoaded(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-render-cost-'));
  try {
    const out = join(dir, 'loaded');
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const r = spawnSync(process.execPath, ['--require', preload, HBGEN, ...args.map((a) => a.replace('$OUT', join(dir, 'tree')))], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    assert.is(r.status, 0, r.stderr);
    return readFileSync(out, 'utf8').split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const name of FIXTURES) {
  test(`hbgen render ${name}.json loads no node:child_process`, () => {
    const loaded = builtinsLoaded(['render', `fixtures/specs/${name}.json`, '--out', '$OUT']);
    assert.ok(loaded.includes('NativeModule fs'), 'the list is the process\'s own');
    assert.not.ok(loaded.includes('NativeModule child_process'), 'child_process is loaded');
  });
}

test('hbgen check loads no node:child_process either', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-render-cost-'));
  try {
    const r = spawnSync(process.execPath, [HBGEN, 'render', 'fixtures/specs/cron.json', '--out', dir], { cwd: ROOT, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    assert.not.ok(builtinsLoaded(['check', 'fixtures/specs/cron.json', dir]).includes('NativeModule child_process'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a kubernetes render loads no yaml library (the source, in a fresh process)', () => {
  // The yaml package is CommonJS for Node: once imported it is in require's cache.
  const script = `
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { validateSpec } from ${JSON.stringify(join(ROOT, 'src/spec.ts'))};
import { renderSpec } from ${JSON.stringify(join(ROOT, 'src/pipeline.ts'))};
const v = validateSpec(JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'fixtures/specs/kubernetes.json'))}, 'utf8')));
const r = await renderSpec(v.spec);
const cache = createRequire(import.meta.url).cache;
console.log(JSON.stringify({ files: r.files.map((f) => f.path), yaml: Object.keys(cache).filter((k) => k.includes('/node_modules/yaml/')).length }));
`;
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-render-cost-'));
  try {
    writeFileSync(join(dir, 'probe.mts'), script);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'probe.mts')], { cwd: ROOT, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    assert.ok(got.files.includes('host/hbgen-docs.cronjob.yaml'), 'the manifest was rendered');
    assert.is(got.yaml, 0, 'modules of the yaml package were loaded');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
