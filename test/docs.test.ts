// The pages a user reads (README.md and docs/*.md) against the program and each other:
// docs/spec.md's field table is what the generator prints from the schema (`npm run docs`),
// every relative link and #anchor reaches a file and a heading that exist, and every hbgen
// message quoted in a code block (a line starting `hbgen: `) is one hbgen prints: a line of a
// fixtures/invalid/*.err (written by the CLI itself, see test/golden.test.ts) or of a run of
// the built CLI below, on specs built here.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSchema } from '../src/schema.ts';
import { BEGIN, END, specTable, withSpecTable } from '../src/spec-doc.ts';
import { hbgen, ROOT } from './helpers/cli.ts';
import { makeStandIns } from './helpers/standins.ts';

/** README.md and every docs/*.md, by path from the root. */
function pages(): Record<string, string> {
  const out: Record<string, string> = { 'README.md': readFileSync(join(ROOT, 'README.md'), 'utf8') };
  for (const f of readdirSync(join(ROOT, 'docs')).sort()) if (f.endsWith('.md')) out[`docs/${f}`] = readFileSync(join(ROOT, 'docs', f), 'utf8');
  return out;
}

/** The lines of a page outside fenced code blocks, each with its line number, and the lines inside them. */
function split(text: string): { prose: [number, string][]; code: [number, string][] } {
  const prose: [number, string][] = [];
  const code: [number, string][] = [];
  let fence = false;
  text.split('\n').forEach((l, i) => {
    if (/^\s*```/.test(l)) fence = !fence;
    else (fence ? code : prose).push([i + 1, l]);
  });
  return { prose, code };
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes; a repeated one gets -1, -2, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, l] of split(text).prose) {
    const m = /^#{1,6} (.*)$/.exec(l);
    if (!m) continue;
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every relative link or #anchor of these pages that reaches no file or no heading, as "page:line: target". */
function brokenLinks(all: Record<string, string>, exists: (path: string) => boolean): string[] {
  const bad: string[] = [];
  for (const [page, text] of Object.entries(all)) {
    for (const [n, line] of split(text).prose) {
      for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const path = file ? normalize(join(dirname(page), file)) : page;
        if (!(path in all) && !exists(path)) bad.push(`${page}:${n}: ${target} (no file ${path})`);
        else if (anchor !== undefined) {
          const body = all[path] ?? (path.endsWith('.md') ? readFileSync(join(ROOT, path), 'utf8') : undefined);
          if (body === undefined || !anchors(body).has(anchor)) bad.push(`${page}:${n}: ${target} (no heading #${anchor} in ${path})`);
        }
      }
    }
  }
  return bad;
}

const onDisk = (p: string) => existsSync(join(ROOT, p));

test('docs/spec.md: the field table is what `npm run docs` prints from the schema', () => {
  const page = readFileSync(join(ROOT, 'docs', 'spec.md'), 'utf8');
  assert.ok(page.includes(BEGIN) && page.includes(END), 'the markers are there');
  assert.fixture(page, withSpecTable(page, jsonSchema()), 'docs/spec.md differs from the schema: run `npm run docs` and review the diff');
  // The same table from what `hbgen schema` prints, as a user's editor reads it.
  const cli = hbgen(['schema']);
  assert.is(cli.code, 0, cli.stderr);
  assert.is(specTable(JSON.parse(cli.stdout)), specTable(jsonSchema()));
});

test('docs/spec.md: the table holds every field, and a changed description would show (control)', () => {
  const schema = jsonSchema() as { properties: Record<string, { description?: string }> };
  const table = specTable(schema);
  for (const f of ['version', 'agent.harness', 'schedule.hours.timezone', 'sandbox.allowHosts', 'limits.memory', 'kubernetes.git.url', 'ping.body']) assert.match(table, `| \`${f}\` |`);
  const edited = structuredClone(schema);
  edited.properties.timeout!.description = 'Some other words.';
  const page = readFileSync(join(ROOT, 'docs', 'spec.md'), 'utf8');
  assert.is.not(withSpecTable(page, edited), page);
  assert.throws(() => withSpecTable('# no markers\n', schema), /markers/);
});

test('the link checker finds a missing file and a missing heading (control)', () => {
  const all = { 'README.md': '# Top\n\n## Set-up\n\n[a](#set-up) [b](docs/x.md#there) [c](#nowhere) [d](docs/gone.md) `[e](#in-code)`\n\n```\n[f](#in-a-block)\n```\n', 'docs/x.md': '# X\n\n## There\n\n[back](../README.md#top) [bad](../README.md#set-up-1)\n' };
  assert.equal(brokenLinks(all, () => false), [
    'README.md:5: #nowhere (no heading #nowhere in README.md)',
    'README.md:5: docs/gone.md (no file docs/gone.md)',
    'docs/x.md:5: ../README.md#set-up-1 (no heading #set-up-1 in README.md)',
  ]);
  assert.equal([...anchors('# A b\n## hbgen status --json\n## A fire missed while asleep (`catchUp`)\n## A b\n')], ['a-b', 'hbgen-status---json', 'a-fire-missed-while-asleep-catchup', 'a-b-1']);
});

test('every relative link and #anchor in README.md and docs/*.md reaches a file and a heading', () => {
  const all = pages();
  assert.ok(Object.keys(all).length >= 8, Object.keys(all).join(' '));
  assert.equal(brokenLinks(all, onDisk), []);
});

/** The first word after `hbgen ` of each row of the README's command table. */
const tableCommands = (readme: string) => {
  const at = readme.indexOf('\n## Commands\n');
  const end = readme.indexOf('\n## ', at + 1);
  return [...readme.slice(at, end).matchAll(/^\| `hbgen ([a-z]+)[^|]*\| [^|\n]+\|$/gm)].map((m) => m[1]!);
};

test('README.md: at most 400 lines, the sections a user navigates, and one table row per command of `hbgen --help`', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length - 1;
  assert.ok(lines <= 400, `README.md has ${lines} lines`);
  const heads = split(readme).prose.map(([, l]) => l).filter((l) => l.startsWith('## '));
  assert.equal(heads, ['## Set-up', '## Quick start: Claude Code or Codex', '## Upgrading hbgen', '## Commands', '## Where to read more', '## Troubleshooting']);
  const help = hbgen(['--help']);
  assert.is(help.code, 0, help.stderr);
  const known = [...help.stdout.matchAll(/^ {2}hbgen ([a-z]+)\b/gm)].map((m) => m[1]!);
  assert.ok(known.length >= 15, known.join(' '));
  assert.equal([...tableCommands(readme)].sort(), [...known].sort(), 'one row of one line for each command');
  assert.equal(tableCommands('# x\n## Commands\n\n| `hbgen a` | x |\n| `hbgen b` | y\n\n## Next\n'), ['a'], 'a row broken over two lines is not counted (control)');
});

/** What hbgen says when `claude auth status` reports an apiKeyHelper: install --dry-run with a STAND-IN claude, in a scratch HOME. */
function apiKeyHelperRefusal(root: string): string {
  const home = join(root, 'home');
  const repo = join(home, 'src', 'docs');
  mkdirSync(repo, { recursive: true });
  assert.is(spawnSync('git', ['init', '-q', repo]).status, 0);
  writeFileSync(join(repo, 'HEART.md'), '# Mission\n\nKeep the docs current.\n');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const status = JSON.stringify({ loggedIn: true, authMethod: 'api_key_helper', apiProvider: 'firstParty', apiKeySource: 'apiKeyHelper' }, null, 2);
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\ncase "$1 \${2-}" in\n  'auth status') printf '%s\\n' '${status}'; exit 0 ;;\n  'auth --help') printf '%s\\n' 'Commands:' '  status [options]  Show authentication status'; exit 0 ;;\n  '--version '*) echo '2.1.197 (Claude Code)'; exit 0 ;;\nesac\nexit 0\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  const tools = makeStandIns(join(root, 'standins'));
  const spec = {
    version: 1,
    name: 'docs',
    repo,
    agent: { harness: 'claude-code', bin: join(bin, 'claude'), model: 'sonnet', prompt: 'Read PROTOCOL.md and follow it.' },
    schedule: { scheduler: 'systemd-user', every: '30m', hours: { start: '00:00', end: '24:00', timezone: 'UTC' } },
    timeout: '25m',
    env: { HOME: home, PATH: `${bin}:/usr/bin:/bin` },
    sandbox: false,
  };
  writeFileSync(join(repo, 'hbgen.json'), JSON.stringify(spec, null, 2));
  const env = { HOME: home, PATH: `${bin}:${tools.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, LANG: 'C.UTF-8', USER: 'ada', LOGNAME: 'ada', TERM: 'dumb' };
  const r = hbgen(['install', '--dry-run', 'hbgen.json'], { cwd: repo, env });
  assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

/** Every line hbgen is seen to print here: the invalid fixtures' messages, and the runs below. */
function printed(root: string): Set<string> {
  const out: string[] = [];
  const inv = join(ROOT, 'fixtures', 'invalid');
  for (const f of readdirSync(inv)) if (f.endsWith('.err')) out.push(readFileSync(join(inv, f), 'utf8'));
  for (const argv of [['rendr'], ['status', '--jsn'], ['wake', '--now']]) {
    const r = hbgen(argv, { cwd: root });
    assert.is(r.code, 2, argv.join(' '));
    out.push(r.stderr);
  }
  // The render summary of a cron spec whose host clock is in another zone (docs/spec.md, "Working hours, per scheduler").
  const spec = { version: 1, name: 'docs', repo: '/home/ada/src/docs', agent: { harness: 'command', bin: '/usr/bin/true', prompt: 'x' }, schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '09:00', end: '18:00', timezone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'] }, hostTimezone: 'Europe/Berlin' }, timeout: '25m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' } };
  writeFileSync(join(root, 'cron.json'), JSON.stringify(spec));
  const r = hbgen(['render', 'cron.json'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  out.push(r.stderr);
  out.push(apiKeyHelperRefusal(root));
  return new Set(out.flatMap((t) => t.split('\n')).map((l) => l.trim()).filter(Boolean));
}

test('every `hbgen: ` line quoted in a code block of README.md and docs/*.md is a line hbgen prints', () => {
  const root = mkdtempSync(join(tmpdir(), 'hbgen-docs.'));
  chmodSync(root, 0o755);
  try {
    const said = printed(root);
    assert.not.ok(said.has('hbgen: unknown command "rendr"'), 'a shortened line is not a line hbgen prints (control)');
    const quoted = Object.entries(pages()).flatMap(([page, text]) => split(text).code.filter(([, l]) => l.trim().startsWith('hbgen: ')).map(([n, l]) => [`${page}:${n}`, l.trim()] as const));
    assert.ok(quoted.length >= 10, `quoted lines: ${quoted.length}`);
    assert.equal(quoted.filter(([, l]) => !said.has(l)).map(([at, l]) => `${at}: ${l}`), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// docs/ARCHITECTURE.md's claims a test can keep: every command module is in its list of
// src/commands/, and "Adding a wrapper step" names every group number of the runtime's
// partials, each of which templates/runtime.sh.hbs includes exactly once.
test('ARCHITECTURE.md: the command modules, and the wrapper steps against the runtime\'s includes', () => {
  const arch = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const list = /^src\/commands\/ {2,}one module per command: ([\s\S]*?); common\.ts/m.exec(arch)?.[1] ?? '';
  const named = new Set(list.replace(/\([^)]*\)/g, '').split(/[,;\s]+/).map((w) => w.replace(/\.ts$/, '')).filter(Boolean));
  const modules = readdirSync(join(ROOT, 'src', 'commands')).filter((f) => f.endsWith('.ts') && f !== 'common.ts').map((f) => f.slice(0, -3));
  assert.equal(modules.filter((m) => !named.has(m)), [], 'command modules missing from the list of src/commands/');

  const partials = readdirSync(join(ROOT, 'templates', 'partials', 'heartbeat')).filter((f) => f.endsWith('.hbs')).map((f) => f.slice(0, -4));
  // The runtime includes each partial once, itself or through another partial (the digest's, in the gates').
  const runtime = [join(ROOT, 'templates', 'runtime.sh.hbs'), ...partials.map((p) => join(ROOT, 'templates', 'partials', 'heartbeat', `${p}.hbs`))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const p of partials.filter((x) => /^\d/.test(x))) {
    const n = runtime.split(`{{> heartbeat/${p}}}`).length - 1;
    assert.is(n, 1, `the runtime's templates include heartbeat/${p} ${n} times`);
  }
  const step = arch.slice(arch.indexOf('## Adding a wrapper step'), arch.indexOf('## Where else to look'));
  const groups = new Set<number>();
  for (const m of step.matchAll(/\b(\d\d)(?:–(\d\d))?\b/g)) {
    const a = Number(m[1]);
    for (let i = a; i <= Number(m[2] ?? a); i++) groups.add(i);
  }
  const numbers = [...new Set(partials.map((x) => Number(/^(\d+)/.exec(x)?.[1] ?? NaN)).filter((x) => !Number.isNaN(x)))];
  assert.equal(numbers.filter((x) => !groups.has(x)), [], 'partial numbers missing from "Adding a wrapper step"');
});

test.run();
