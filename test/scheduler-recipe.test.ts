// docs/ARCHITECTURE.md "Adding a scheduler", followed once: a copy of the source gets a fifth
// scheduler, "dummy" (its entry is a file in ~/.dummy/ that nothing runs), made of its own
// folder (src/host/dummy/: facts.ts and backend.ts), its renderer (generators/dummy.ts), its
// template (templates/dummy.hbs) and one registry line (src/scheduler-facts.ts). Nothing
// else is edited; then the copy must type-check, build (the bundle and its code cache,
// which renders for every scheduler), keep its import graph free of circles, and install,
// audit, list and stop the dummy scheduler through the real CLI, as a user runs it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeHost } from './helpers/lifecycle.ts';
import { copySource, runner, snapshot } from './helpers/recipe.ts';

const ROOT = join(import.meta.dirname, '..');
const COPY = mkdtempSync(join(tmpdir(), 'hbgen-recipe-'));
process.on('exit', () => rmSync(COPY, { recursive: true, force: true }));

// ---------------------------------------------------------------- the fifth scheduler

const FACTS = `// dummy's facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'dummy',
  tools: [],
  hostClock: false,
  entry: 'dummy entry',
  missedCause: 'nothing runs a dummy entry',
} as const satisfies SchedulerFacts<'dummy'>;
`;

const TEMPLATE = `{{!-- context: DummyContext from generators/dummy.ts --}}
# {{header}}
# the wrapper's SHA-256, which a real entry checks before it runs it: {{sha}}
every {{every}} run /bin/sh {{sh wrapper}}
`;

const GENERATOR = `// dummy: one line naming the wrapper, in host/dummy-<name>.entry.
import { renderDummy } from '../src/gen/templates.ts';
import type { Generator } from './types.ts';

export interface DummyContext {
  header: string;
  every: string;
  wrapper: string;
  sha: string;
}

export const generator: Generator = {
  files(ctx) {
    return [{ path: \`host/dummy-\${ctx.spec.name}.entry\`, content: renderDummy({ header: ctx.header, every: ctx.spec.schedule.every, wrapper: ctx.names.wrapper, sha: ctx.wrapperSha256 }), mode: 0o644 }];
  },
};
`;

const BACKEND = `// dummy: the rendered entry copied to ~/.dummy/<name>.entry, which nothing runs.
import { readdirSync, rmSync } from 'node:fs';
import { posix } from 'node:path';
import { sh } from '../../escape.ts';
import { type Backend, type Ctx, derivedFileState, nothingToStop, planFile, wrapperIn, writePlanned } from '../backend.ts';
import { readOrNull } from '../fsx.ts';

const dir = (home: string) => posix.join(home, '.dummy');
const entryPath = (c: Pick<Ctx, 'home' | 'names'>) => posix.join(dir(c.home), \`\${c.names.unit}.entry\`);

export const backend: Backend = {
  async preflight(c) {
    const f = c.files.find((x) => x.path === \`host/dummy-\${c.spec.name}.entry\`)!;
    const path = entryPath(c);
    const p = planFile(path, Buffer.from(f.content), 0o644, c.spec, c.names, c.prev?.hostFiles.find((x) => x.path === path));
    return { refusals: p.refusal ? [p.refusal] : [], caveats: [], hostFiles: p.plan ? [p.plan] : [], writes: [], commands: [], checks: [], unchanged: p.plan?.action === 'same', ids: { entry: path }, data: null, stateExtra: {} };
  },
  async apply(_c, p, j) {
    for (const f of p.hostFiles) writePlanned(f, j);
  },
  async listed(c) {
    const ok = readOrNull(entryPath(c)) !== null;
    return { ok, observed: \`\${entryPath(c)} \${ok ? 'is there' : 'is missing'}\` };
  },
  hostPaths(c) {
    return { files: [entryPath(c)], dirs: [dir(c.home)] };
  },
  async planStop(c, s) {
    const path = entryPath(c);
    const state = derivedFileState(path, s?.hostFiles.find((x) => x.path === path), c, sh(c.names.wrapper));
    if (state !== 'ours') return nothingToStop(\`\${path} is not there\`);
    return { refusals: [], found: [path], notes: [], absent: '', run: async (say) => (rmSync(path), say(\`removed \${path}\`)) };
  },
  async audit(c) {
    const present = readOrNull(entryPath(c)) !== null;
    return { problems: present ? [] : [\`orphan: \${entryPath(c)} is missing; run \\\`hbgen install\\\`\`], info: present ? [\`the dummy entry \${entryPath(c)} is in place\`] : [], present };
  },
  async inventory(c) {
    let names: string[] = [];
    try {
      names = readdirSync(dir(c.home)).filter((e) => e.startsWith('hbgen-') && e.endsWith('.entry'));
    } catch {
      return { place: dir(c.home), looked: false, entries: [], notes: [] };
    }
    const entries = names.map((e) => {
      const name = e.slice('hbgen-'.length, -'.entry'.length);
      const bytes = readOrNull(posix.join(dir(c.home), e))!;
      const text = bytes.toString('utf8');
      const word = /\\/bin\\/sh (.*)$/m.exec(text)?.[1] ?? null;
      const path = word && word.startsWith("'") ? word.slice(1, -1) : word;
      return { name, where: [posix.join(dir(c.home), e)], wrapper: wrapperIn(text, name, path, sh), copies: [{ copy: \`dummy-\${name}.entry\`, bytes }] };
    });
    return { place: dir(c.home), looked: true, entries, notes: [] };
  },
};
`;

const run = runner(COPY);

test('the recipe: its folder, its renderer, its template and one registry line, nothing else', () => {
  copySource(ROOT, COPY);
  const before = snapshot(COPY);
  mkdirSync(join(COPY, 'src/host/dummy'));
  writeFileSync(join(COPY, 'src/host/dummy/facts.ts'), FACTS);
  writeFileSync(join(COPY, 'src/host/dummy/backend.ts'), BACKEND);
  writeFileSync(join(COPY, 'generators/dummy.ts'), GENERATOR);
  writeFileSync(join(COPY, 'templates/dummy.hbs'), TEMPLATE);
  // The registry line: the facts imported, and named in the list beside the others.
  const reg = join(COPY, 'src/scheduler-facts.ts');
  const text = readFileSync(reg, 'utf8');
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('const ALL = ['));
  assert.ok(at > 0, 'src/scheduler-facts.ts lists the schedulers in `const ALL = [...]`');
  lines.splice(at, 1, `import { facts as dummy } from './host/dummy/facts.ts';`, lines[at]!.replace(/\] as const;$/, ', dummy] as const;'));
  writeFileSync(reg, lines.join('\n'));
  const after = snapshot(COPY);
  const changed = [...after.keys()].filter((k) => before.get(k) !== after.get(k)).sort();
  assert.equal(changed, ['generators/dummy.ts', 'src/host/dummy/backend.ts', 'src/host/dummy/facts.ts', 'src/scheduler-facts.ts', 'templates/dummy.hbs']);
  const added = after.get('src/scheduler-facts.ts')!.split('\n').filter((l) => !before.get('src/scheduler-facts.ts')!.split('\n').includes(l));
  assert.is(added.length, 2, `the registry gains its import and its name in the list: ${added.join(' | ')}`);
});

test('the copy builds (bundle and code cache, which render for the dummy too) and type-checks', () => {
  const b = run(process.execPath, ['bin/build.mjs']);
  assert.is(b.code, 0, b.out);
  assert.ok(readdirSync(join(COPY, 'dist')).some((f) => f.endsWith('.cjs')), 'a bundle');
  const t = run(process.execPath, [join(COPY, 'node_modules/typescript/bin/tsc'), '-p', '.']);
  assert.is(t.code, 0, t.out);
});

test('the copy has no import circle (dpdm)', () => {
  const r = run(join(COPY, 'node_modules/.bin/dpdm'), ['--no-warning', '--no-tree', '-T', '--exit-code', 'circular:1', 'src/**/*.ts', 'generators/**/*.ts']);
  assert.is(r.code, 0, r.out);
});

test('the dummy scheduler through the real CLI of the copy: render, install, status, list, stop', () => {
  const h = makeHost('cron', { name: 'recipe-dummy' });
  const raw = JSON.parse(readFileSync(h.specFile, 'utf8'));
  raw.schedule = { ...raw.schedule, scheduler: 'dummy' };
  delete raw.schedule.hostTimezone;
  writeFileSync(h.specFile, JSON.stringify(raw, null, 2));
  const env = { ...h.env, LC_ALL: 'C' };
  const cli = (...args: string[]) => run(process.execPath, [join(COPY, 'bin/hbgen.cjs'), ...args], { cwd: h.root, env });
  const out = join(h.root, 'render');
  const r = cli('render', h.specFile, '--out', out);
  assert.is(r.code, 0, r.out);
  assert.match(readFileSync(join(out, 'host/dummy-recipe-dummy.entry'), 'utf8'), /^# Generated by hbgen from spec "recipe-dummy"/);
  const i = cli('install', h.specFile, '--yes');
  assert.is(i.code, 0, i.out);
  const entry = join(h.home, '.dummy/hbgen-recipe-dummy.entry');
  assert.ok(existsSync(entry), i.out);
  assert.match(i.out, /ok {4}scheduler: \S+recipe-dummy\.entry is there/);
  const s = cli('status', h.specFile);
  assert.match(s.out, /ok {7}the dummy entry \S+ is in place/, s.out);
  assert.is(s.code, 0, s.out);
  const l = cli('list');
  assert.match(l.out, /^recipe-dummy +dummy +active/m, l.out);
  const st = cli('stop', h.specFile);
  assert.is(st.code, 0, st.out);
  assert.not.ok(existsSync(entry), st.out);
  assert.is(JSON.parse(readFileSync(join(h.root, 'state/state.json'), 'utf8')).status, 'stopped');
});

test.run();
