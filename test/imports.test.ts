// The floors of docs/ARCHITECTURE.md, checked on the import graph that dpdm (a maintained
// dependency analyser) reads from the source: no import circle at all, the scheduler facts
// import nothing at run time, the spec, the schedule and the state record never reach the
// registry or a backend, and src/host never imports src/commands.
//
// The registry (src/schedulers.ts) loads each scheduler's renderer and backend by a path
// built from its id, which no analyser can follow; the graph checked here gets those edges
// added, one per scheduler, so that a circle through them is found too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEDULER_IDS } from '../src/scheduler-facts.ts';
import { PRESET_IDS } from '../src/harness/registry.ts';

const ROOT = join(import.meta.dirname, '..');
const DPDM = join(ROOT, 'node_modules/.bin/dpdm');
const GLOBS = ['src/**/*.ts', 'generators/**/*.ts'];

/** dpdm as the house's brief runs it (-T: type-only imports are no run-time edge). */
function dpdm(cwd: string, args: string[]) {
  return spawnSync(DPDM, ['--no-warning', '--no-tree', '-T', '--exit-code', 'circular:1', ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
}

type Graph = Map<string, string[]>;

/** The run-time import graph of src/ and generators/ (paths relative to the root), with the registry's edges by id added. */
let cached: Graph | undefined;
function graph(): Graph {
  cached ??= readGraph();
  return new Map([...cached].map(([k, v]) => [k, [...v]]));
}

function readGraph(): Graph {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-imports-'));
  try {
    const out = join(dir, 'tree.json');
    const r = spawnSync(DPDM, ['--no-warning', '--no-tree', '--no-circular', '-T', '-o', out, ...GLOBS], { cwd: ROOT, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    const tree = JSON.parse(readFileSync(out, 'utf8')).tree as Record<string, { id: string | null }[] | null>;
    const ours = (p: string | null): p is string => p !== null && /^(src|generators)\//.test(p);
    const g: Graph = new Map(Object.entries(tree).filter(([k]) => ours(k)).map(([k, deps]) => [k, [...new Set((deps ?? []).map((d) => d.id).filter(ours))]]));
    const reg = g.get('src/schedulers.ts');
    assert.ok(reg, 'dpdm read the registry');
    for (const id of SCHEDULER_IDS) reg.push(`generators/${id}.ts`, `src/host/${id}/backend.ts`);
    for (const to of reg) assert.ok(g.has(to), `${to} exists and was read`);
    return g;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every circle of `g`, each as the path that closes it (depth-first search, grey nodes). */
function circles(g: Graph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of g.get(n) ?? []) {
      if (state.get(m) === 'open') found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of [...g.keys()].sort()) if (!state.has(n)) visit(n);
  return found;
}

/** Every module `from` reaches at run time. */
function reach(g: Graph, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    for (const m of g.get(todo.pop()!) ?? []) if (!seen.has(m)) seen.add(m), todo.push(m);
  }
  return seen;
}

test('dpdm finds a circle where there is one (control)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-imports-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.ts';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'b.ts'), "import { a } from './a.ts';\nexport const b = () => a;\n");
    const r = dpdm(dir, ['*.ts']);
    assert.is(r.status, 1, r.stdout);
    assert.match(r.stdout, /\b[ab]\.ts -> [ab]\.ts\b/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // And the search below, on a graph with one circle through a registry-like edge.
  const c = circles(new Map([['r', ['b']], ['b', ['s']], ['s', ['r']], ['x', ['r']]]));
  assert.is(c.length, 1);
  assert.equal([...c[0]!.slice(1)].sort(), ['b', 'r', 's']);
});

test('no import circle in src/ and generators/ (dpdm --exit-code circular:1)', () => {
  const r = dpdm(ROOT, GLOBS);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /no circular dependency was found/);
});

test("no import circle either with the registry's edges to every generators/<id>.ts and src/host/<id>/backend.ts", () => {
  assert.equal(circles(graph()), []);
});

test('the floors point down: facts (the schedulers\' and the presets\') import nothing, spec/schedule/state never reach the registry, src/host never imports src/commands', () => {
  const g = graph();
  const facts = ['src/scheduler-facts.ts', ...SCHEDULER_IDS.map((id) => `src/host/${id}/facts.ts`)];
  assert.equal([...reach(g, 'src/scheduler-facts.ts')].sort(), facts.slice(1).sort(), 'the facts leaf imports only the facts of each scheduler');
  for (const f of facts.slice(1)) assert.equal(g.get(f), [], `${f} imports nothing at run time`);
  const upper = (p: string) => p === 'src/schedulers.ts' || /^src\/host\/[^/]+\/backend\.ts$/.test(p) || p.startsWith('src/commands/');
  for (const low of ['src/spec.ts', 'src/schedule.ts', 'src/host/state.ts', 'src/jail.ts']) {
    assert.equal([...reach(g, low)].filter(upper), [], `${low} reaches only lower floors`);
  }
  // The harness presets' registry is a facts leaf too: it reaches only the descriptors and
  // the one helper they share (src/harness/argv.ts), so every floor may ask it.
  const descriptors = PRESET_IDS.map((id) => `src/harness/${id}/index.ts`);
  assert.equal([...reach(g, 'src/harness/registry.ts')].sort(), [...descriptors, 'src/harness/argv.ts'].sort(), 'the presets registry imports only the descriptors, which import only argv.ts');
  const hostToCommands = [...g].filter(([k]) => k.startsWith('src/host/')).flatMap(([k, deps]) => deps.filter((d) => d.startsWith('src/commands/')).map((d) => `${k} -> ${d}`));
  assert.equal(hostToCommands, []);
  // Rendering never reaches a backend or the host: generators/ sit beside src/host, not on it.
  // A scheduler's facts and its block of the spec (src/host/<id>/spec.ts) are pure leaves kept
  // in its folder: they reach nothing of src/host.
  const leaf = (d: string) => /^src\/host\/[^/]+\/(facts|spec)\.ts$/.test(d);
  const genToHost = [...g].filter(([k]) => k.startsWith('generators/')).flatMap(([k]) => [...reach(g, k)].filter((d) => d.startsWith('src/host/') && !leaf(d)).map((d) => `${k} -> ${d}`));
  assert.equal(genToHost, []);
  const specBlocks = [...g.keys()].filter((k) => /^src\/host\/[^/]+\/spec\.ts$/.test(k));
  assert.ok(specBlocks.includes('src/host/kubernetes/spec.ts'), specBlocks.join(' '));
  for (const k of specBlocks) assert.equal([...reach(g, k)].filter((d) => d.startsWith('src/host/')), [], `${k} reaches nothing of src/host`);
});

test.run();
