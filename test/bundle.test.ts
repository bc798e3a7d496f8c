// Only what runs ships: every module in the built bundle (dist/hbgen-<hash>.cjs) is one that
// a command can reach from src/main.ts. The registry (src/schedulers.ts) imports
// `generators/<id>.ts` and `src/host/<id>/backend.ts` by a path built from the id, which
// esbuild expands as a glob that also matches subfolders: a build-only module left where
// such a glob reaches (the runtime's renderer and its precompiled templates, ~250 kB once)
// is bundled though no command runs it. esbuild's metafile of the build (bin/build.mjs
// writes it to src/gen/bundle-meta.json) records each glob as one unresolved edge; here
// each becomes the paths the registry actually loads, one per scheduler id.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transformSync } from 'esbuild';
import { SCHEDULER_IDS } from '../src/scheduler-facts.ts';

const ROOT = join(import.meta.dirname, '..');

type Meta = {
  inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<string, { bytes: number; entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
};

/** The registry's globs, as esbuild records them from src/schedulers.ts, and what each loads. */
const LOADS: Record<string, (id: string) => string> = {
  '../generators/**/*.ts': (id) => `generators/${id}.ts`,
  './host/**/*/backend.ts': (id) => `src/host/${id}/backend.ts`,
};

/** Every module reachable from `entry`, with each glob edge replaced by what `loads` maps it to. */
function reach(meta: Meta, entry: string, loads: Record<string, (id: string) => string>, ids: readonly string[]): Set<string> {
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length) {
    const from = todo.pop()!;
    for (const i of meta.inputs[from]?.imports ?? []) {
      let to: string[];
      if (!i.path.includes('*')) to = i.external ? [] : [i.path];
      else if (loads[i.path]) to = ids.map(loads[i.path]!);
      else throw new Error(`${from} imports the glob ${i.path}, which this test does not know: add what it loads to LOADS`);
      for (const p of to) if (!seen.has(p)) seen.add(p), todo.push(p);
    }
  }
  return seen;
}

/** A module with no run-time code (only types): bundled as an empty stub, nothing to run. */
const typesOnly = (path: string) => transformSync(readFileSync(join(ROOT, path), 'utf8'), { loader: 'ts' }).code.trim() === '';

/** The modules of the bundle that no command reaches and that hold code. */
function unreached(meta: Meta, output: string, loads = LOADS, ids: readonly string[] = SCHEDULER_IDS, hasCode = (p: string) => !(p.endsWith('.ts') && typesOnly(p))): string[] {
  const out = meta.outputs[output]!;
  const seen = reach(meta, out.entryPoint!, loads, ids);
  return Object.keys(out.inputs).filter((p) => !seen.has(p) && out.inputs[p]!.bytesInOutput > 0 && hasCode(p));
}

function built(): { meta: Meta; output: string } {
  const names = readdirSync(join(ROOT, 'dist')).filter((f) => /^hbgen-\w+\.cjs$/.test(f));
  assert.is(names.length, 1, `dist/ holds one bundle (${names.join(', ')}); run npm run build`);
  const meta = JSON.parse(readFileSync(join(ROOT, 'src/gen/bundle-meta.json'), 'utf8')) as Meta;
  const output = `dist/${names[0]}`;
  assert.ok(meta.outputs[output], `src/gen/bundle-meta.json describes ${Object.keys(meta.outputs).join(', ')}, not ${output}; run npm run build`);
  assert.is(meta.outputs[output]!.bytes, readFileSync(join(ROOT, output)).length, `${output} is the bundle the metafile describes; run npm run build`);
  return { meta, output };
}

test('the bundle holds no module that no command reaches (a build-only module, one a glob pulled in)', () => {
  const { meta, output } = built();
  assert.equal(unreached(meta, output), []);
});

test("the reach follows the registry's loaders to every scheduler's renderer and backend", () => {
  const { meta, output } = built();
  const seen = reach(meta, meta.outputs[output]!.entryPoint!, LOADS, SCHEDULER_IDS);
  for (const id of SCHEDULER_IDS) {
    assert.ok(seen.has(`generators/${id}.ts`), id);
    assert.ok(seen.has(`src/host/${id}/backend.ts`), id);
  }
  // The commands and the yargs command line are reached, through main.ts's dynamic imports.
  for (const m of ['src/cli.ts', 'src/commands/render.ts', 'src/commands/install.ts']) assert.ok(seen.has(m), m);
});

test('control: a module that only a glob pulls in is found, and so is one that nothing imports', () => {
  const meta: Meta = {
    inputs: {
      'src/main.ts': { imports: [{ path: 'src/schedulers.ts', kind: 'dynamic-import' }] },
      'src/schedulers.ts': { imports: [{ path: '../generators/**/*.ts', kind: 'import-statement', external: true }, { path: './host/**/*/backend.ts', kind: 'import-statement', external: true }] },
      'generators/a.ts': { imports: [] },
      'src/host/a/backend.ts': { imports: [] },
      'src/build/runtime.ts': { imports: [] },
      'generators/build/runtime.ts': { imports: [] },
    },
    outputs: {
      'dist/x.cjs': {
        bytes: 1,
        entryPoint: 'src/main.ts',
        inputs: Object.fromEntries(['src/main.ts', 'src/schedulers.ts', 'generators/a.ts', 'src/host/a/backend.ts', 'generators/build/runtime.ts', 'src/build/runtime.ts'].map((p) => [p, { bytesInOutput: 10 }])),
      },
    },
  };
  assert.equal(unreached(meta, 'dist/x.cjs', LOADS, ['a'], () => true), ['generators/build/runtime.ts', 'src/build/runtime.ts']);
  meta.inputs['src/main.ts']!.imports.push({ path: './other/**/*.ts', kind: 'dynamic-import', external: true });
  assert.throws(() => unreached(meta, 'dist/x.cjs', LOADS, ['a'], () => true), /does not know/);
});

test('types-only modules are told from modules with code', () => {
  assert.ok(typesOnly('generators/types.ts'));
  assert.not.ok(typesOnly('generators/runtime.ts'));
});

test.run();
