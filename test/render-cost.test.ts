// What a render loads (every scheduler's render ≤ 2.5× `node -e ''` in
// CPU time; docs/SPEED.md). Loading is most of a render's cost: the kubernetes render
// loads no `yaml` library (generators/manifest-yaml.ts writes the manifest), which the
// bench shows to cost about half of Node's own start. Times are the bench's business (npm run bench);
// these are the facts behind them, checked on the built CLI as a user runs it and on the
// source.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/cli.ts';

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

test('the built CLI\'s render --out loads neither child_process, crypto nor a stream module; nor does a render to stdout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-render-cost-'));
  try {
    // A preload that writes, at exit, the built-in modules loaded after it.
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `const before = new Set(process.moduleLoadList);
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'loaded'))}, process.moduleLoadList.filter((m) => !before.has(m)).join('\\n')));`);
    const loaded = (args: string[]) => {
      const r = spawnSync(process.execPath, ['--require', probe, join(ROOT, 'bin/hbgen.cjs'), 'render', ...args], { encoding: 'utf8' });
      assert.is(r.status, 0, r.stderr);
      return { names: readFileSync(join(dir, 'loaded'), 'utf8').split('\n'), stderr: r.stderr };
    };
    for (const spec of ['example', 'claude-code', 'kubernetes']) {
      const out = loaded([join(ROOT, `fixtures/specs/${spec}.json`), '--out', join(dir, spec)]);
      assert.match(out.stderr, /^hbgen: wrote \d+ files to /, `${spec}: its lines are still said`);
      const bad = out.names.filter((m) => /^NativeModule (child_process|crypto|stream|internal\/streams\/|internal\/fs\/sync_write_stream|net)/.test(m));
      assert.equal(bad, [], `${spec} --out`);
    }
    const bad = loaded([join(ROOT, 'fixtures/specs/launchd.json')]).names.filter((m) => /^NativeModule (child_process|crypto|stream|internal\/streams\/|internal\/fs\/sync_write_stream|net)/.test(m));
    assert.equal(bad, [], 'launchd to stdout');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
