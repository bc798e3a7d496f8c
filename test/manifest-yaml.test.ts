// generators/manifest-yaml.ts, the kubernetes manifest's own YAML writer, judged by the
// `yaml` library (a maintained YAML 1.2 and 1.1 parser): every fixture spec rendered for
// kubernetes reads back as the objects it was written from, under YAML 1.2 and 1.1 (kubectl
// resolves plain scalars as 1.1 does), and is byte for byte what the library itself wrote
// for it before; hostile and random strings, as keys, values, list items and multi-line
// blocks, read back unchanged under both versions.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Document, parseAllDocuments } from 'yaml';
import { manifestObjects, manifestYaml, runtimeHeader, runtimeManifestPath, runtimeObject } from '../generators/kubernetes.ts';
import { runtime } from '../generators/runtime.ts';
import { yamlDocument } from '../generators/manifest-yaml.ts';
import { scriptFiles } from '../generators/wrapper.ts';
import { renderContext } from '../src/pipeline.ts';
import { validateSpec, type Spec } from '../src/spec.ts';
import { SPECS, specNames } from './helpers/fixtures.ts';
import { renderNow } from './helpers/render.ts';

type Obj = Record<string, unknown>;

/** Every document of `text` as plain data, read as YAML `version`; a parse error fails the test. */
function readBack(text: string, version: '1.1' | '1.2'): unknown[] {
  return parseAllDocuments(text, { version }).map((d) => {
    assert.equal(d.errors, [], `YAML ${version} parses:\n${text.slice(0, 2000)}`);
    assert.equal(d.warnings, [], `YAML ${version} warns nothing`);
    return d.toJS();
  });
}

/** What generators/kubernetes.ts wrote with the `yaml` library before this writer (the same options). */
function libraryYaml(header: string, objects: Obj[]): string {
  return objects
    .map((o, i) => {
      const doc = new Document(o, { aliasDuplicateObjects: false });
      if (i === 0) doc.commentBefore = ` ${header}`;
      return doc.toString({ lineWidth: 0, blockQuote: 'literal', indentSeq: true });
    })
    .join('---\n');
}

/** A fixture spec moved to kubernetes: its own block if it has one, else a small one; what kubernetes refuses removed. */
function asKubernetes(name: string): Spec {
  const raw = JSON.parse(readFileSync(join(SPECS, `${name}.json`), 'utf8'));
  raw.schedule.scheduler = 'kubernetes';
  delete raw.schedule.hostTimezone;
  delete raw.sandbox;
  raw.kubernetes ??= { image: 'registry.example/agent:1', git: { url: 'https://example.com/repo.git' } };
  const r = validateSpec(raw);
  if (r.errors) throw new Error(`fixture ${name} as kubernetes is invalid:\n${r.errors.join('\n')}`);
  return r.spec;
}

for (const name of specNames()) {
  test(`fixture ${name} for kubernetes: the manifest reads back under YAML 1.2 and 1.1, and is what the yaml library wrote`, () => {
    const spec = asKubernetes(name);
    const r = renderNow(spec);
    assert.equal(r.errors, []);
    const rendered = r.files.find((f) => f.path.endsWith('.cronjob.yaml'))!.content;
    // The scripts in the order the pipeline hands them over (src/pipeline.ts).
    const base = renderContext(spec);
    const scripts = scriptFiles(base);
    const wrapper = scripts.find((f) => f.path === 'heartbeat.sh')!.content;
    const ctx = { ...base, wrapperSha256: createHash('sha256').update(wrapper).digest('hex'), scripts };
    const objects = manifestObjects(ctx, scripts);
    assert.is(manifestYaml(ctx.header, objects), rendered, 'the pipeline writes this');
    assert.equal(readBack(rendered, '1.2'), objects);
    assert.equal(readBack(rendered, '1.1'), objects);
    assert.is(rendered, libraryYaml(ctx.header, objects));
  });
}

test('the runtime\'s own manifest reads back under YAML 1.2 and 1.1 as its ConfigMap, the runtime byte for byte', () => {
  const spec = asKubernetes('kubernetes');
  const r = renderNow(spec);
  const rt = runtime();
  const rendered = r.files.find((f) => f.path === runtimeManifestPath(rt.version))!.content;
  const objects = [runtimeObject(spec.kubernetes!.namespace ?? 'default')];
  assert.is(manifestYaml(runtimeHeader(rt.version), objects), rendered, 'the pipeline writes this');
  for (const v of ['1.2', '1.1'] as const) {
    const back = readBack(rendered, v) as { data: Record<string, string> }[];
    assert.equal(back, objects);
    assert.is(back[0]!.data[rt.name], rt.text);
  }
  // Not compared with libraryYaml: the writer quotes the label "0.2.0", which the library leaves plain (both read back the same).
  assert.match(rendered, /\n {4}hbgen\.dev\/runtime: "0\.2\.0"\n/);
});

// Strings a spec can carry into the manifest (env values, paths, image names, prompts inside
// the scripts) that YAML treats specially: indicators, comments, other types under 1.2 or
// 1.1, quotes, blanks at the ends, line breaks of every kind, unprintable characters.
const HOSTILE = [
  '', ' ', '  lead', 'trail ', '\tab', 'a\tb', 'tab\t',
  'yes', 'No', 'ON', 'off', 'y', 'n', '~', 'null', 'Null', 'true', 'False', '<<', '=',
  '0', '1', '-1', '+1', '007', '0o17', '0x1F', '0b101', '0bea01a9', '0b12', '0o19', '1_000', '1:20', '-1:20:30', '1.5', '.5', '1.', '1e3', '1E-3', '1.2.3', '.inf', '-.Inf', '.nan', '2024-01-31', '2024-1-1 10:00', '2Gi', '500m',
  '- a', '-', '--', '-a', '? a', '?', ':', ': a', ':a', 'a:', 'a: b', 'a:b', 'a #b', 'a#b', '#a', ',a', '[a]', '{a: b}', 'a, b', '*a', '&a', '!a', '!!str a', '|', '|-', '>', "'", '"', "'a'", '"a"', 'a\'b"c', 'say "hi"', '%YAML', '@a', '`a`',
  '---', '--- a', '...', 'a\n---\nb\n', 'a\n...\n',
  '\\', '\\n', 'é', 'ü 你好 🙂', '\u00a0', '\u0085', 'a\u2028b', 'a\u2029b', '\ufeffbom', '\x00', 'a\x07b', '\x1b[31m', '\x7f', '\x9f', '\ud800', 'a\udfffb',
  '\n', '\n\n', 'a\n', 'a', 'a\nb', 'a\nb\n', 'a\nb\n\n', 'a\n\n\n', '\na', '\n\na\n', ' a\nb\n', '  \na\n', 'a\n  b\n', 'a\n \n', 'a\n\t\n', 'a \nb\n', 'a\r\nb\r\n', 'a\rb', '#!/bin/sh\n# x: y\n  - z\n',
];

test('hostile strings read back unchanged as values, list items, keys and blocks, under YAML 1.2 and 1.1', () => {
  for (const s of HOSTILE) {
    const value = { k: s, list: [s, { name: s, value: s }], nested: { [s === '' ? 'empty' : s.replace(/\n/g, ' ').slice(0, 40)]: s } };
    const text = yamlDocument(value, ' a header');
    for (const v of ['1.2', '1.1'] as const) assert.equal(readBack(text, v), [value], `${JSON.stringify(s)} as YAML ${v}:\n${text}`);
  }
});

test('random strings of YAML\'s special characters read back unchanged under YAML 1.2 and 1.1', () => {
  // A fixed seed: the same strings every run (xorshift32).
  let x = 2463534242;
  const rand = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const alphabet = [...'ab1 0.-?:,[]{}#&*!|>\'"%@`~=<+_eEoxyYnN\t\n\n\r\\', '\u0085', '\u2028', '\x00', '\x7f', 'é', '🙂', ' #', ': ', '---', '.inf', 'true', 'null'];
  for (let i = 0; i < 3000; i++) {
    let s = '';
    for (let n = rand(14); n > 0; n--) s += alphabet[rand(alphabet.length)];
    const value = { s, l: [s], m: { [s.replace(/\n/g, '') || 'e']: s } };
    const text = yamlDocument(value);
    for (const v of ['1.2', '1.1'] as const) assert.equal(readBack(text, v), [value], `${JSON.stringify(s)} as YAML ${v}:\n${text}`);
  }
});

test('numbers, booleans, null, empty collections and nested lists are written as YAML reads them', () => {
  const value = { n: 0, big: 259200, mode: 0o555, t: true, f: false, z: null, e: {}, a: [], ll: [[1, 'a'], [], {}], skipped: undefined, after: 'x' };
  const text = yamlDocument(value);
  const { skipped: _, ...expected } = value;
  assert.equal(readBack(text, '1.2'), [expected]);
  assert.equal(readBack(text, '1.1'), [expected]);
  assert.throws(() => yamlDocument({ x: 1.5 }), /not an integer/);
});

test.run();
