// shellcheck on the optional fields together, not only on the fixtures: a variable that one
// block sets and another reads (ping without notify, or notify without ping, was SC2034)
// shows only in some combinations. Every pair of values of every two fields below appears
// in at least one rendered tree (a pairwise covering set, built greedily and checked), and
// each field's values appear alone against the bare spec; every .sh of each tree is linted.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderSpec } from '../src/pipeline.ts';
import { validateSpec } from '../src/spec.ts';
import { shellcheckPath } from './helpers/tools.ts';

type Patch = Record<string, unknown>;
const BASE = JSON.parse(readFileSync('fixtures/specs/example.json', 'utf8')) as Patch;
// On the claim's volume, so that a cap (kept in the state folder) outlives the pod.
const K8S = { ...JSON.parse(readFileSync('fixtures/specs/kubernetes.json', 'utf8')).kubernetes, git: undefined, pvc: 'docs-repo' } as Patch;

// Each field's values, the first being "left out". A value is a patch merged into the spec.
const FIELDS: Record<string, Patch[]> = {
  // budget counts what a preset's stream reports, so it is a value of the harness here.
  harness: [
    {},
    { agent: { harness: 'claude-code', bin: '/home/ada/.local/bin/claude', prompt: 'p', model: 'sonnet', fallbackModel: 'haiku', effort: 'high' } },
    { agent: { harness: 'codex', bin: '/home/ada/.local/bin/codex', prompt: 'p', model: 'gpt-5' } },
    { agent: { harness: 'claude-code', bin: '/home/ada/.local/bin/claude', prompt: 'p' }, budget: 5000000 },
  ],
  scheduler: [{}, { schedule: { scheduler: 'cron' } }, { schedule: { scheduler: 'launchd' } }, { schedule: { scheduler: 'kubernetes' }, kubernetes: K8S, stateDir: '.hbgen' }],
  notify: [{}, { notify: ['/usr/bin/notify-send', 'hbgen'], notifyAfter: 2 }],
  ping: [{}, { ping: 'https://hc-ping.com/abc' }, { ping: { url: 'https://hc-ping.com/abc', body: false } }],
  gate: [{}, { gate: ['/usr/bin/on_ac_power'] }],
  shared: [{}, { shared: true }],
  sandbox: [{}, { sandbox: false }, { sandbox: { allowHosts: ['github.com'] } }],
  cap: [{}, { cap: 20 }],
  lock: [{}, { lock: 'flock' }, { lock: 'mkdir' }],
  catchUp: [{}, { catchUp: 'skip' }],
  limitBackoff: [{}, { limitBackoff: '2h' }],
};
const NAMES = Object.keys(FIELDS);
const at = (f: string) => NAMES.indexOf(f);

// Pairs that are no valid spec, each refused by validation with its own sentence: the jail's
// fields on Kubernetes, where the pod is the boundary.
const INVALID: [string, number, string, number][] = [['scheduler', 3, 'sandbox', 2]];
const invalid = (a: number, i: number, b: number, j: number) =>
  INVALID.some(([fa, va, fb, vb]) => (at(fa) === a && va === i && at(fb) === b && vb === j) || (at(fa) === b && va === j && at(fb) === a && vb === i));

/** Rows of value indexes such that every pair of values of every two fields is in some row. */
function pairwise(): number[][] {
  const open = new Set<string>();
  const key = (a: number, i: number, b: number, j: number) => `${a}:${i}|${b}:${j}`;
  NAMES.forEach((_, a) => NAMES.forEach((__, b) => {
    if (a < b) FIELDS[NAMES[a]!]!.forEach((_x, i) => FIELDS[NAMES[b]!]!.forEach((_y, j) => invalid(a, i, b, j) || open.add(key(a, i, b, j))));
  }));
  const rows: number[][] = [];
  while (open.size > 0) {
    // Start from one uncovered pair, then give each other field the value covering most.
    const [first] = open;
    const [pa, pb] = first!.split('|').map((x) => x.split(':').map(Number)) as [number[], number[]];
    const row: number[] = NAMES.map(() => -1);
    row[pa[0]!] = pa[1]!;
    row[pb[0]!] = pb[1]!;
    NAMES.forEach((_, f) => {
      if (row[f] !== -1) return;
      let best = 0;
      let bestGain = -1;
      FIELDS[NAMES[f]!]!.forEach((_v, v) => {
        if (row.some((w, g) => w !== -1 && invalid(g, w, f, v))) return;
        const gain = row.reduce((n, w, g) => n + (w !== -1 && open.has(g < f ? key(g, w, f, v) : key(f, v, g, w)) ? 1 : 0), 0);
        if (gain > bestGain) [best, bestGain] = [v, gain];
      });
      row[f] = best;
    });
    row.forEach((v, a) => row.forEach((w, b) => { if (a < b) open.delete(key(a, v, b, w)); }));
    rows.push(row);
  }
  return rows;
}

function merge(into: Patch, patch: Patch): Patch {
  const out: Patch = { ...into };
  for (const [k, v] of Object.entries(patch)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && typeof into[k] === 'object' ? merge(into[k] as Patch, v as Patch) : v;
  }
  return out;
}

const specOf = (row: number[]): Patch => row.reduce<Patch>((s, v, f) => merge(s, FIELDS[NAMES[f]!]![v]!), BASE);

test('the covering set holds every pair of values of every two fields', () => {
  const rows = pairwise();
  for (let a = 0; a < NAMES.length; a++) {
    for (let b = a + 1; b < NAMES.length; b++) {
      for (let i = 0; i < FIELDS[NAMES[a]!]!.length; i++) {
        for (let j = 0; j < FIELDS[NAMES[b]!]!.length; j++) {
          const has = rows.some((r) => r[a] === i && r[b] === j);
          assert.is(has, !invalid(a, i, b, j), `${NAMES[a]}=${i} with ${NAMES[b]}=${j}`);
        }
      }
    }
  }
  // Far fewer trees than all combinations, which would take minutes of shellcheck.
  assert.ok(rows.length < 40, `${rows.length} rows`);
});

test('shellcheck -s sh is clean on every script of every combination, and of each field alone', async () => {
  const singles = NAMES.flatMap((_, f) => FIELDS[NAMES[f]!]!.map((_v, v) => NAMES.map((__, g) => (g === f ? v : 0))));
  // Each invalid pair is refused, so that the list above cannot hide a combination that works.
  for (const [fa, va, fb, vb] of INVALID) {
    const row = NAMES.map((f) => (f === fa ? va : f === fb ? vb : 0));
    assert.ok(validateSpec(specOf(row)).errors, `${fa}=${va} with ${fb}=${vb} is refused`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-combos-'));
  try {
    const files: string[] = [];
    const what = new Map<string, string>();
    for (const [n, row] of [...pairwise(), ...singles].entries()) {
      const label = NAMES.map((f, i) => `${f}=${row[i]}`).join(' ');
      const v = validateSpec(specOf(row));
      assert.ok(v.spec, `${label}: ${JSON.stringify(v)}`);
      for (const f of (await renderSpec(v.spec!)).files.filter((x) => x.path.endsWith('.sh'))) {
        const file = join(dir, `${n}-${f.path}`);
        writeFileSync(file, f.content);
        files.push(file);
        what.set(file, label);
      }
    }
    // Two shellcheck calls side by side, one per core, each over half of the files.
    const halves = [files.filter((_, i) => i % 2 === 0), files.filter((_, i) => i % 2 === 1)];
    const runs = await Promise.all(halves.map((h) => execa(shellcheckPath(), ['-s', 'sh', '-f', 'gcc', ...h], { reject: false })));
    const out = runs.map((r) => r.stdout).join('\n');
    const bad = [...new Set(out.split('\n').filter(Boolean).map((l) => l.split(':')[0]!))];
    assert.equal(runs.map((r) => r.exitCode), [0, 0], bad.map((f) => `${what.get(f)}:\n${out.split('\n').filter((l) => l.startsWith(f)).join('\n')}`).join('\n') + runs.map((r) => r.stderr).join(''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
