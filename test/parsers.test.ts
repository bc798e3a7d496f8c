// The two parsers of the command line agree. src/main.ts answers the plain forms of render
// and check through src/fastparse.ts, without loading yargs; everything else goes to yargs
// (src/cli.ts), the reference. Each command line of a generated corpus (every option of
// render and check in each of its forms, odd spellings, missing and empty values, repeats,
// extra words, a flag before the command, --, --help, --version) runs through the built CLI
// twice, as a user runs it and with HBGEN_FULL_CLI=1 (yargs alone), each in a fresh copy of
// the same folder, and both must give the same exit status, stdout, stderr and files.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fastParse } from '../src/fastparse.ts';
import { SCHEDULER_IDS } from '../src/scheduler-facts.ts';
import { HBGEN, ROOT, hbgen } from './helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'hbgen-parsers-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

// The folder every command line runs in: spec files under ordinary and odd names, a folder
// holding a spec, an invalid spec, a rendered tree to check against, and an empty HOME (so
// that a word that names no file finds no install).
const TEMPLATE = join(scratch, 'template');
const spec = readFileSync(join(ROOT, 'fixtures/specs/cron.json'));
mkdirSync(join(TEMPLATE, 'folder'), { recursive: true });
mkdirSync(join(TEMPLATE, 'home'));
for (const f of ['hbgen.json', 'spec.json', '010', '1e3', 'a=b.json', 'render', 'check', 'sp ace.json', 'folder/hbgen.json']) writeFileSync(join(TEMPLATE, f), spec);
writeFileSync(join(TEMPLATE, 'bad.json'), readFileSync(join(ROOT, 'fixtures/invalid/many.json')));
const made = hbgen(['render', 'spec.json', '--out', 'rendered'], { cwd: TEMPLATE, env: { ...process.env, HOME: join(TEMPLATE, 'home') } });
assert.is(made.code, 0, made.stderr);

const SPECS = ['spec.json', 'hbgen.json', 'bad.json', 'missing.json', 'folder', '010', '1e3', 'a=b.json', 'render', 'check', 'sp ace.json', './spec.json', 'folder/hbgen.json', 'rendered', 'home'];
const DIRS = ['rendered', 'out', 'spec.json', 'folder', '010', 'missing/deeper', './rendered/'];
const [ID0, ID1] = [SCHEDULER_IDS[0]!, SCHEDULER_IDS[SCHEDULER_IDS.length - 1]!];

/** render's options in every form: each a list of words. */
const RENDER_OPTIONS: string[][] = [
  ['--out', 'out'], ['--out=out'], ['--out', 'rendered'], ['--out=a=b'], ['--out', '010'],
  ['--scheduler', ID0], [`--scheduler=${ID1}`], ['--scheduler', 'cron'], ['--scheduler=cron'],
  // odd spellings and mistakes
  ['-o', 'out'], ['--out'], ['--out', ''], ['--out='], ['--out', '-'], ['--out', '--scheduler'], ['--Out', 'out'], ['--no-out'], ['--out-dir', 'out'], ['--ou', 'out'],
  ['--scheduler', 'anacron'], ['--scheduler', 'CRON'], ['--scheduler'], ['--scheduler='], ['--sched', 'cron'], ['--bogus'], ['-x'], ['--'], ['-'],
  ['--help'], ['-h'], ['--version'], ['-v'], ['--json'], ['--yes'], ['--dry-run'],
];

/** Every command line of the corpus. */
function corpus(): string[][] {
  const lines: string[][] = [];
  // the four shapes: --out DIR, --out=DIR, --scheduler S, --scheduler=S
  const plain = [RENDER_OPTIONS[0]!, RENDER_OPTIONS[1]!, RENDER_OPTIONS[5]!, RENDER_OPTIONS[6]!];
  // render: no spec, each spec, each option alone on either side of the spec
  lines.push(['render']);
  for (const s of SPECS) lines.push(['render', s]);
  for (const o of RENDER_OPTIONS) lines.push(['render', ...o], ['render', 'spec.json', ...o], ['render', ...o, 'spec.json']);
  // each spec with the plain options, and the plain options two at a time (repeats included)
  SPECS.forEach((s, i) => lines.push(i % 2 ? ['render', s, '--out', 'out', '--scheduler', ID0] : ['render', `--scheduler=${ID1}`, s, '--out=out']));
  for (const a of plain) for (const b of plain) lines.push(['render', 'spec.json', ...a, ...b]);
  // extra words, a flag before the command, a spelling of the command
  lines.push(['render', 'spec.json', 'extra'], ['render', 'spec.json', '--out', 'out', 'extra'], ['--out', 'out', 'render', 'spec.json'], ['--scheduler', 'cron', 'render'], ['Render', 'spec.json'], ['rendr', 'spec.json'], ['render', '', '--out', 'out'], ['render', 'spec.json', '--', '--out', 'out']);
  // check: every spec with every folder, and the mistakes
  for (const s of SPECS) lines.push(['check', s, 'rendered']);
  for (const d of DIRS) lines.push(['check', 'spec.json', d], ['check', 'folder', d]);
  lines.push(['check'], ['check', 'rendered'], ['check', 'spec.json', 'rendered', 'extra'], ['check', 'spec.json', ''], ['check', '', 'rendered'], ['check', 'spec.json', 'rendered', '--out', 'x'], ['check', '--help'], ['check', 'spec.json', 'rendered', '--version'], ['check', 'spec.json', 'rendered', '--'], ['check', '--', 'spec.json', 'rendered'], ['check', '-', 'rendered'], ['--yes', 'check', 'spec.json', 'rendered'], ['check', 'spec.json', '--scheduler', 'cron']);
  return lines;
}

type Outcome = { code: number | null; stdout: string; stderr: string; files: string };

/** What a command line does in a fresh copy of the folder: its output and the files it leaves (paths and hashes). */
function runIn(args: string[], fullCli: boolean, n: number): Promise<Outcome> {
  const dir = join(scratch, `${fullCli ? 'yargs' : 'fast'}-${n}`);
  cpSync(TEMPLATE, dir, { recursive: true });
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), LANG: 'C.UTF-8', NO_COLOR: '1', ...(fullCli ? { HBGEN_FULL_CLI: '1' } : {}) };
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [HBGEN, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      const files = tree(dir).join('\n');
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout: stdout.replaceAll(dir, '<dir>'), stderr: stderr.replaceAll(dir, '<dir>'), files });
    });
  });
}

function tree(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix)).sort().flatMap((e) => {
    const rel = prefix ? `${prefix}/${e}` : e;
    const full = join(dir, rel);
    return statSync(full).isDirectory() ? [`${rel}/`, ...tree(dir, rel)] : [`${rel} ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)}`];
  });
}

/** Runs `jobs` with at most two at a time (the machine has two cores). */
async function pool<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

// A command line the fast path refuses goes to yargs either way (src/main.ts); those run
// both ways here are a sample of them, as a check on the comparison itself. Every line the
// fast path takes runs both ways.
const REFUSED_SAMPLE = 20;

test('the corpus has the forms it claims, and the fast path takes some and refuses others', () => {
  const lines = corpus();
  const taken = lines.filter((a) => fastParse(a));
  assert.ok(lines.length > 180, String(lines.length));
  assert.ok(taken.length > 40 && taken.length < lines.length - 80, `${taken.length} of ${lines.length}`);
  for (const must of [['render', 'spec.json', '--out=out'], ['render', '--scheduler', ID0, 'spec.json'], ['check', 'spec.json', 'rendered']]) {
    assert.ok(taken.some((a) => a.join(' ') === must.join(' ')), must.join(' '));
  }
});

test('HBGEN_FULL_CLI=1 sends a plain render to yargs (the comparison below compares two parsers)', async () => {
  // yargs-parser refuses, when it loads, a Node older than YARGS_MIN_NODE_VERSION: set
  // impossibly high, it fails exactly the runs that load yargs.
  const env = { PATH: process.env.PATH, HOME: join(TEMPLATE, 'home'), YARGS_MIN_NODE_VERSION: '999' };
  const plain = (extra: NodeJS.ProcessEnv) => hbgen(['render', 'spec.json'], { cwd: TEMPLATE, env: { ...env, ...extra } });
  assert.is(plain({}).code, 0, 'the fast path does not load yargs');
  const full = plain({ HBGEN_FULL_CLI: '1' });
  assert.is.not(full.code, 0, 'with HBGEN_FULL_CLI=1 yargs loads');
});

test('every command line of the corpus: the fast path and yargs alone give the same status, stdout, stderr and files', async () => {
  const lines = corpus();
  const refused = lines.filter((a) => !fastParse(a));
  const step = Math.max(1, Math.floor(refused.length / REFUSED_SAMPLE));
  const chosen = [...lines.filter((a) => fastParse(a)), ...refused.filter((_, i) => i % step === 0)];
  const results = await pool(chosen.map((args, n) => async () => [await runIn(args, false, n), await runIn(args, true, n)] as const));
  const differ: string[] = [];
  chosen.forEach((args, i) => {
    const [fast, full] = results[i]!;
    const line = `hbgen ${args.map((a) => (/^[\w./=-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`;
    for (const k of ['code', 'stdout', 'stderr', 'files'] as const) {
      if (fast[k] !== full[k]) differ.push(`${line}: ${k} differs\n  fast:  ${JSON.stringify(fast[k]).slice(0, 400)}\n  yargs: ${JSON.stringify(full[k]).slice(0, 400)}`);
    }
  });
  assert.ok(differ.length === 0, `${differ.length} differences in ${chosen.length} command lines:\n${differ.join('\n')}`);
});

test.run();
