// docs/ARCHITECTURE.md "Adding a harness preset", followed once: a copy of the source gets a
// third preset, "dummy" (a client whose status command `dummy whoami` says "on the plan"),
// made of its own folder (src/harness/dummy/index.ts, one descriptor) and one registry line
// (src/harness/registry.ts: its import and its name in the list). Nothing else is edited;
// then the copy must type-check, build (the bundle, whose runtime now knows three clients),
// keep its import graph free of circles, and render, install and wake a spec of the dummy
// preset through the real CLI, with the real heartbeat.sh and the stand-in systemctl the
// other install tests use. First, what every real preset's descriptor must hold.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { credential } from '../src/credentials.ts';
import { PRESETS, PRESET_IDS } from '../src/harness/registry.ts';
import { HARNESSES } from '../src/spec.ts';
import { makeHost } from './helpers/lifecycle.ts';
import { copySource, runner, snapshot } from './helpers/recipe.ts';

const ROOT = join(import.meta.dirname, '..');
const COPY = mkdtempSync(join(tmpdir(), 'hbgen-preset-recipe-'));
process.on('exit', () => rmSync(COPY, { recursive: true, force: true }));

test('every preset folder is registered, the spec enum is the registry then "command", and every credential a preset reads is on the one list', () => {
  const folders = readdirSync(join(ROOT, 'src/harness')).filter((e) => statSync(join(ROOT, 'src/harness', e)).isDirectory()).sort();
  assert.equal([...PRESET_IDS].sort(), folders);
  assert.equal([...HARNESSES], [...PRESET_IDS, 'command']);
  for (const p of PRESETS) {
    for (const name of p.credentials) assert.ok(credential(name)?.readBy.includes(p.id), `${p.id} reads ${name}, which src/credentials.ts must name`);
    assert.ok(p.efforts.includes(p.pins.effort), `${p.id}: init pins an effort it takes`);
  }
});

// ---------------------------------------------------------------- the third preset

const PRESET = `// dummy: a client whose status command says "on the plan", which runs the prompt and says so.
import type { HarnessPreset } from '../types.ts';

export const preset = {
  id: 'dummy',
  label: 'Dummy',
  argv: (agent) => ['--dummy-quiet', ...(agent.model ? ['--model', agent.model] : [])],
  efforts: ['low'],
  pins: { model: 'dummy-1', effort: 'low' },
  permissionOptions: { '--dummy-yolo': 'bypass' },
  bypassAt: (args, i) => (args[i] === '--dummy-yolo' ? \`\${args[i]} runs the dummy with no checks; remove it\` : undefined),
  tools: (pick) => \`\${pick('--dummy-quiet')}: the dummy asks nothing\`,
  jail: {
    holds: 'the dummy has no permission rules of its own',
    off: 'jail off: the dummy runs with your full rights',
    needs: () => ({ write: [], writeFiles: [], denyWrite: [], denyDirs: [], seed: [], hosts: ['dummy.example'], env: {} }),
  },
  credentials: [],
  billing: {
    statusArgv: ['whoami'],
    plan: 'dummy plan',
    fix: 'run \`dummy login\`',
    fileFix: 'the dummy would bill another account; remove the key',
    files: (spec) => [\`\${spec.repo}/.dummy.json\`],
    verdict: {
      rule: 'which == "dummy" && $0 == "on the plan" { plan = 1 }',
      end: 'if (rc == 0 && plan) { print "ok plan dummy Dummy plan login"; exit }\\nprint "no dummy whoami says it is not on the plan (exit " rc ")"\\nexit',
    },
  },
  stream: '',
  limit: '',
  model: { refusals: ['dummy: no such model'], catalog: { list: ['dummy-1'], from: "the dummy's list" }, initModels: () => ({ notes: ['the dummy has one model'] }) },
  instructionFiles: ['DUMMY.md'],
  detect: { command: 'dummy' },
} as const satisfies HarnessPreset<'dummy'>;
`;

const run = runner(COPY);

test('the recipe: its folder and one registry line, nothing else', () => {
  copySource(ROOT, COPY);
  const before = snapshot(COPY);
  mkdirSync(join(COPY, 'src/harness/dummy'));
  writeFileSync(join(COPY, 'src/harness/dummy/index.ts'), PRESET);
  const reg = join(COPY, 'src/harness/registry.ts');
  const lines = readFileSync(reg, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('const ALL = ['));
  assert.ok(at > 0, 'src/harness/registry.ts lists the presets in `const ALL = [...]`');
  lines.splice(at, 1, `import { preset as dummy } from './dummy/index.ts';`, lines[at]!.replace(/\] as const;$/, ', dummy] as const;'));
  writeFileSync(reg, lines.join('\n'));
  const after = snapshot(COPY);
  const changed = [...after.keys()].filter((k) => before.get(k) !== after.get(k)).sort();
  assert.equal(changed, ['src/harness/dummy/index.ts', 'src/harness/registry.ts']);
  const added = after.get('src/harness/registry.ts')!.split('\n').filter((l) => !before.get('src/harness/registry.ts')!.split('\n').includes(l));
  assert.is(added.length, 2, `the registry gains its import and its name in the list: ${added.join(' | ')}`);
});

test('the copy builds and type-checks', () => {
  const b = run(process.execPath, ['bin/build.mjs']);
  assert.is(b.code, 0, b.out);
  const t = run(process.execPath, [join(COPY, 'node_modules/typescript/bin/tsc'), '-p', '.']);
  assert.is(t.code, 0, t.out);
});

test('the copy has no import circle (dpdm)', () => {
  const r = run(join(COPY, 'node_modules/.bin/dpdm'), ['--no-warning', '--no-tree', '-T', '--exit-code', 'circular:1', 'src/**/*.ts', 'generators/**/*.ts']);
  assert.is(r.code, 0, r.out);
});

// A stand-in dummy client: `whoami` answers as a login on the plan, `--version` its version,
// anything else is a wake, whose argv it keeps in $HOME/dummy.argv.
const CLIENT = `#!/bin/sh
case "$1" in
  whoami) echo 'on the plan'; exit 0 ;;
  --version) echo 'dummy 1.0'; exit 0 ;;
esac
printf '%s\\n' "$@" >"$HOME/dummy.argv"
echo 'dummy ran'
`;

test('the dummy preset through the real CLI of the copy: render, install, wake', () => {
  const h = makeHost('systemd-user', { name: 'recipe-preset', schedule: { scheduler: 'systemd-user', every: '1h', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  const bin = join(h.root, 'dummy');
  writeFileSync(bin, CLIENT);
  chmodSync(bin, 0o755);
  const raw = JSON.parse(readFileSync(h.specFile, 'utf8'));
  raw.agent = { harness: 'dummy', bin, prompt: 'Do one chunk.', model: 'dummy-1' };
  writeFileSync(h.specFile, JSON.stringify(raw, null, 2));
  const env = { ...h.env, LC_ALL: 'C' };
  const cli = (...args: string[]) => run(process.execPath, [join(COPY, 'bin/hbgen.cjs'), ...args], { cwd: h.root, env });
  // A bypass form of the dummy is refused in agent.args, as every preset's is.
  writeFileSync(join(h.root, 'yolo.json'), JSON.stringify({ ...raw, agent: { ...raw.agent, args: ['--dummy-yolo'] } }));
  const refused = cli('render', 'yolo.json', '--out', join(h.root, 'yolo'));
  assert.is(refused.code, 1, refused.out);
  assert.match(refused.out, /agent\.args\[0\]: --dummy-yolo runs the dummy with no checks; remove it/, refused.out);
  const out = join(h.root, 'render');
  const r = cli('render', h.specFile, '--out', out);
  assert.is(r.code, 0, r.out);
  const hb = readFileSync(join(out, 'heartbeat.sh'), 'utf8');
  assert.match(hb, /--dummy-quiet/);
  const runtimes = readdirSync(out).filter((f) => f.startsWith('runtime-'));
  assert.match(readFileSync(join(out, runtimes[0]!), 'utf8'), /dummy\) hb_stream= ;;/);
  const i = cli('install', h.specFile, '--yes');
  assert.is(i.code, 0, i.out);
  assert.match(i.out, /Dummy plan login/);
  const w = cli('wake', h.specFile);
  assert.is(w.code, 0, w.out);
  const argv = join(h.home, 'dummy.argv');
  assert.ok(existsSync(argv), `the dummy ran: ${w.out}`);
  assert.equal(readFileSync(argv, 'utf8').split('\n').slice(0, 4), ['--dummy-quiet', '--model', 'dummy-1', '--']);
  const st = cli('stop', h.specFile);
  assert.is(st.code, 0, st.out);
});

test.run();
