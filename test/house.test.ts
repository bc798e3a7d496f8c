// The layout rules of docs/ARCHITECTURE.md, checked on the source tree
// itself: short functions, short template partials, one definition of each scheduler list
// and each cross-language format, no scheduler or harness preset named outside its folder, generators free of side effects, and no reference to
// notes that are not shipped with the project.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = join(import.meta.dirname, '..');

function walk(dir: string, keep: (p: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (e !== 'gen' && e !== 'node_modules') out.push(...walk(p, keep));
    } else if (keep(p)) out.push(p);
  }
  return out;
}

const rel = (p: string) => relative(ROOT, p);
const SOURCES = [...walk(join(ROOT, 'src'), (p) => p.endsWith('.ts')), ...walk(join(ROOT, 'generators'), (p) => p.endsWith('.ts'))];
const TEMPLATES = walk(join(ROOT, 'templates'), (p) => p.endsWith('.hbs'));

// A function opens on a line that ends with `{` after a parameter list: a declaration, a
// method, or an arrow function with a block body. The code is formatted, so its body ends
// at the first later line that closes a brace at the opening line's indentation.
const OPENER =
  /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s*[\w$]*\s*(?:<.*>)?\s*\(.*\{\s*$|(?:(?:public|private|protected|static|async|get|set)\s+)*[\w$]+\s*(?:<.*>)?\(.*\)\s*(?::\s*[^{]+)?\{\s*$|.*=>\s*\{\s*$)/;
const NOT_A_FUNCTION = /^\s*(?:if|for|while|switch|catch|return|else|do|try)\b/;

/** Every function of `text` longer than `max` lines, as "line N: M lines". */
export function longFunctions(text: string, max: number): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    const m = OPENER.exec(l);
    if (!m || NOT_A_FUNCTION.test(l)) return;
    const ind = m[1]!;
    for (let j = i + 1; j < lines.length; j++) {
      const c = lines[j]!;
      if (c.startsWith(`${ind}}`)) {
        if (j - i + 1 > max) out.push(`line ${i + 1}: ${j - i + 1} lines (${l.trim().slice(0, 50)})`);
        return;
      }
    }
  });
  return out;
}

test('the function scanner finds a long function (control)', () => {
  const body = Array.from({ length: 70 }, (_, i) => `  const x${i} = ${i};`).join('\n');
  assert.equal(longFunctions(`export function big(a: number): number {\n${body}\n  return a;\n}\n`, 60).length, 1);
  assert.equal(longFunctions(`const f = async (a: string) => {\n${body}\n};\n`, 60).length, 1);
  assert.equal(longFunctions(`  method(a: string): void {\n${body}\n  }\n`, 60).length, 1);
  assert.equal(longFunctions(`export function small(): void {\n  return;\n}\n`, 60).length, 0);
});

test('no function in src/ or generators/ is over 60 lines', () => {
  const long = SOURCES.flatMap((f) => longFunctions(readFileSync(f, 'utf8'), 60).map((l) => `${rel(f)} ${l}`));
  assert.equal(long, []);
});

test('no template partial is over 150 lines', () => {
  const partials = TEMPLATES.filter((f) => rel(f).startsWith('templates/partials/'));
  assert.ok(partials.length >= 7, `the wrapper is split into partials (found ${partials.length})`);
  const long = partials.map((f) => [rel(f), readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 150);
  assert.equal(long, []);
});

/** Files of src/ and generators/ whose text matches `re`. */
const filesMatching = (re: RegExp) => SOURCES.filter((f) => re.test(readFileSync(f, 'utf8'))).map(rel);

// The schedulers, as their folders say (src/host/<id>/facts.ts), not as the code under test lists them.
const SCHEDULERS = readdirSync(join(ROOT, 'src/host'))
  .filter((e) => statSync(join(ROOT, 'src/host', e)).isDirectory() && ['facts.ts', 'backend.ts'].every((f) => readdirSync(join(ROOT, 'src/host', e)).includes(f)))
  .sort();

/** `text` without its comments (a `//` inside a string may cut it short: it can hide a mention, never invent one). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** Where `text` names a scheduler in code: a string that is its id ('cron', "systemd-user", `kubernetes`) or an object key of its name. */
export function schedulerMentions(text: string, ids: string[]): string[] {
  const alt = ids.map((i) => i.replace(/[-]/g, '\\-')).join('|');
  const literal = new RegExp(`(['"\`])(${alt})\\1(?!\\s*:)`, 'g');
  const key = new RegExp(`^\\s*['"]?(${alt})['"]?\\s*:`, 'gm');
  // A switch's label (`case 'launchd':`): the literal's `(?!\s*:)` would pass it as an object key.
  const label = new RegExp(`\\bcase\\s+(['"\`])(${alt})\\1\\s*:`, 'g');
  return [...code(text).matchAll(literal), ...code(text).matchAll(label)].map((m) => m[0].replace(/^case\s+|\s*:$/g, '')).concat([...code(text).matchAll(key)].map((m) => m[0].trim()));
}

test('the scheduler finder sees a scheduler named in code, not in a comment (control)', () => {
  const ids = ['launchd', 'systemd-user', 'cron', 'kubernetes'];
  assert.equal(schedulerMentions("if (id === 'kubernetes') x();", ids), ["'kubernetes'"]);
  assert.equal(schedulerMentions('const a = ["cron", `launchd`];', ids), ['"cron"', '`launchd`']);
  assert.equal(schedulerMentions("const r = {\n  'systemd-user': 1,\n  launchd: 2,\n};", ids), ["'systemd-user':", 'launchd:']);
  assert.equal(schedulerMentions("say('choose schedule.scheduler \"cron\"');", ids), ['"cron"']);
  assert.equal(schedulerMentions("// the 'cron' daemon\n/* 'launchd' */ const x = 'crontab';", ids), []);
  assert.equal(schedulerMentions("switch (id) {\n  case 'launchd':\n    return 1;\n  case \"cron\" :\n}", ids), ["'launchd'", '"cron"']);
});

test('a scheduler is named only in its own folder and renderer (and the spec format names the kubernetes block)', () => {
  assert.ok(SCHEDULERS.length >= 4, `the scheduler folders (found ${SCHEDULERS.join(', ')})`);
  const own = (f: string, id: string) => f.startsWith(`src/host/${id}/`) || f === `generators/${id}.ts`;
  const bad = SOURCES.map(rel).flatMap((f) =>
    schedulerMentions(readFileSync(join(ROOT, f), 'utf8'), SCHEDULERS)
      .filter((m) => !own(f, m.replace(/^['"`]|['"`]?:?$/g, '')))
      .map((m) => `${f}: ${m}`),
  );
  // The spec's own field of that name (the block, its schema, its error paths and their
  // descriptions): the spec format names it, as the README does, not a branch on a scheduler.
  const block = (m: string) => /^src\/(spec|schema)\.ts: ['"`]?kubernetes['"`]?:?$/.test(m);
  assert.equal(bad.filter((m) => !block(m)), []);
});

// The harness presets, as their folders say (src/harness/<id>/index.ts), not as the registry lists them.
const PRESETS = readdirSync(join(ROOT, 'src/harness'))
  .filter((e) => statSync(join(ROOT, 'src/harness', e)).isDirectory() && readdirSync(join(ROOT, 'src/harness', e)).includes('index.ts'))
  .sort();

/** Where `text` names a preset in code: a string that is its id (as a value, a key or a case label), or a bare object key of its name. */
export function presetMentions(text: string, ids: string[]): string[] {
  const alt = ids.map((i) => i.replace(/[-]/g, '\\-')).join('|');
  const literal = new RegExp(`(['"\`])(${alt})\\1`, 'g');
  const key = new RegExp(`(?:^|[{,])\\s*(${alt})\\s*:(?!:)`, 'gm');
  return [...code(text).matchAll(literal)].map((m) => m[0]).concat([...code(text).matchAll(key)].map((m) => `${m[1]}:`));
}

test('the preset finder sees a preset named in code, not in a path or a comment (control)', () => {
  const ids = ['claude-code', 'codex'];
  assert.equal(presetMentions("if (a.harness === 'codex') x();", ids), ["'codex'"]);
  assert.equal(presetMentions('const r = {\n  "claude-code": 1,\n  codex: 2,\n};', ids), ['"claude-code"', 'codex:']);
  assert.equal(presetMentions("const r = { 'claude-code': 1, codex: 2 };", ids), ["'claude-code'", 'codex:']);
  assert.equal(presetMentions("switch (h) {\n  case `claude-code`:\n}", ids), ['`claude-code`']);
  assert.equal(presetMentions("import { preset } from './codex/index.ts';\n// the 'codex' preset\nconst w = 'codex exec', v = \"run codex: now\";", ids), []);
});

test('a harness preset is named only in its own folder (src/harness/<id>/): everything else asks the registry, the spec enum included', () => {
  assert.ok(PRESETS.length >= 2, `the preset folders (found ${PRESETS.join(', ')})`);
  const bad = SOURCES.map(rel).flatMap((f) =>
    presetMentions(readFileSync(join(ROOT, f), 'utf8'), PRESETS)
      .filter((m) => !f.startsWith(`src/harness/${m.replace(/^['"`]|['"`]?:?$/g, '')}/`))
      .map((m) => `${f}: ${m}`),
  );
  assert.equal(bad, []);
});

// src/host/'s root holds only what its folders share; everything else sits in the folder of
// its concern (docs/ARCHITECTURE.md, "`src/host/`, folder by folder", names each root module).
test('src/host/ keeps at its root only the modules docs/ARCHITECTURE.md names there, each imported by two of its folders or more', () => {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const map = /## `src\/host\/`, folder by folder\s*```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const named = [...map.matchAll(/^src\/host\/([\w-]+\.ts(?:, [\w-]+\.ts)*)/gm)].flatMap((m) => m[1]!.split(/,\s*/)).map((f) => f.trim()).sort();
  assert.ok(named.length > 0, 'the folder map names the root modules');
  const root = readdirSync(join(ROOT, 'src/host')).filter((f) => f.endsWith('.ts')).sort();
  assert.equal(root, named, 'the .ts files at the root of src/host/');
  const folders = readdirSync(join(ROOT, 'src/host')).filter((e) => statSync(join(ROOT, 'src/host', e)).isDirectory());
  const lonely = root.filter((f) => {
    const users = folders.filter((d) => walk(join(ROOT, 'src/host', d), (p) => p.endsWith('.ts')).some((p) => new RegExp(`from '\\.\\./${f.replace('.', '\\.')}'`).test(readFileSync(p, 'utf8'))));
    return users.length < 2;
  });
  assert.equal(lonely, [], 'root modules that fewer than two folders import');
});

test('each format that crosses the sh/TypeScript boundary is defined once, in src/formats.ts', () => {
  const only = ['src/formats.ts'];
  assert.equal(filesMatching(/\) hbgen \(/), only, 'the runtime.log line pattern');
  assert.equal(filesMatching(/# BEGIN hbgen \$\{/), only, 'the crontab markers');
  assert.equal(filesMatching(/Generated by hbgen from spec/), only, 'the generated-by sentence');
  assert.equal(filesMatching(/\[\s*'sun',\s*'mon'/), only, 'day names by number');
  assert.equal(filesMatching(/\[\s*'mon',\s*'tue'/), only, 'day names of the spec');
  assert.equal(filesMatching(/padStart\(2, '0'\)/), only, 'two-digit padding');
  assert.equal(filesMatching(/new Promise\(\(r\) => setTimeout\(r/), only, 'sleep');
  assert.equal(filesMatching(/\/\^\(\\d\+\) \(\\d\+\)\$\//), only, 'the lock owner "PID EPOCH"');
  assert.equal(filesMatching(/'scheduler entry not as installed'/), only, "a fire's note on its scheduler entry");
  assert.equal(TEMPLATES.filter((f) => readFileSync(f, 'utf8').includes('scheduler entry not as installed')).map(rel), [], 'the runtime writes the note from {{entryNote}}');
});

test("a validated spec's durations are read through durations() (src/spec.ts), parsed once; seconds() only where no validated spec exists yet", () => {
  // spec.ts validates; schedule.ts and week.ts also serve the validation of a spec still being
  // checked (its schedule alone); init.ts reads a typed answer.
  assert.equal(filesMatching(/\bseconds\(/).sort(), ['src/commands/init.ts', 'src/schedule.ts', 'src/spec.ts', 'src/week.ts']);
  // The longest a wake can take is written once: timeout plus killAfter nowhere else.
  const sum = SOURCES.filter((f) => !f.endsWith('src/spec.ts') && /\.timeout\)? \+ [\w.(]*killAfter/.test(code(readFileSync(f, 'utf8')))).map(rel);
  assert.equal(sum, []);
});

test("the wrapper finds this wake's output (the lines after its start line) in one helper, which the limit scan and the model check share", () => {
  const readers = TEMPLATES.filter((f) => readFileSync(f, 'utf8').includes('{{startLineSh}}')).map(rel);
  assert.equal(readers, ['templates/partials/heartbeat/51-wake-output.hbs']);
  for (const p of ['57-model', '86-limit-scan']) assert.match(readFileSync(join(ROOT, `templates/partials/heartbeat/${p}.hbs`), 'utf8'), /\$\(hb_wakeout \d+ \|/, p);
});

test('generators/ and the build\'s renderer (src/build/) render only: they import nothing from src/host/ or src/commands/', () => {
  const bad = walk(join(ROOT, 'generators'), (p) => p.endsWith('.ts')).filter((f) => /from '\.\.\/src\/(host|commands)\//.test(readFileSync(f, 'utf8')));
  const build = walk(join(ROOT, 'src/build'), (p) => p.endsWith('.ts'));
  assert.ok(build.length > 0, 'src/build/ holds the runtime\'s renderer');
  bad.push(...build.filter((f) => /from '\.\.\/(host|commands)\//.test(readFileSync(f, 'utf8'))));
  assert.equal(bad.map(rel), []);
});

test('no code, template or generated file points at notes that are not shipped', () => {
  const shipped = [...SOURCES, ...TEMPLATES, ...walk(join(ROOT, 'bin'), () => true), ...walk(join(ROOT, 'fixtures/expected'), () => true)];
  const bad = shipped.filter((f) => /PRODUCT\.md|research\/|pitfalls\.md/.test(readFileSync(f, 'utf8'))).map(rel);
  assert.equal(bad, []);
});

test.run();
