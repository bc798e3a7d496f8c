#!/usr/bin/env node
// Runs every test/*.test.ts file as its own uvu process (three at a time on two cores: the suites spend
// most of their time waiting on shells, cron and systemd-analyze), and ends with the line
// CI reads: "N passed, N failed" summed from uvu's own totals, always the last line.
// Progress: a line when a suite starts; its output, counts and time when it ends; and,
// while suites run, a line a minute naming them (some take minutes).
// The longest suites start first (their times from the last run in .tmp/test-times.json,
// else as measured below), so that the run ends about when its longest suite does.
// Usage: node test/run.mjs [substring …]   (only files whose name contains one of them)
// As a user other than root, only the suites without a `// needs root: WHY` line run; the
// others are named, with their reason, before the last line, and counted as skipped.
import { asRoot } from './need-root.mjs'; // first: as another user under CI, one line and no suite
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));

const TIMES = join(dir, '..', '.tmp', 'test-times.json');
const filters = process.argv.slice(2);
// One more than the cores: most suites spend their time waiting on shells, sleeps and daemons.
const jobs = Math.max(3, Math.min(4, cpus().length + 1));

function lastTimes() {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
}

// Seconds each suite took in one whole run on a 2-core machine, for the order of the first
// run on a fresh clone (later runs use their own times). Only the order depends on them.
const MEASURED = {
  'wrapper-supervise.test.ts': 227,
  'wrapper.test.ts': 78,
  'lifecycle-crond.test.ts': 74,
  // Both wait for a real cron fire at the next whole minute 30 to 40 s away.
  'lifecycle-bounds-real.test.ts': 106,
  'lifecycle-bounds-systemd-real.test.ts': 60,
  // 45-100 s: most of it the wait for a real timer fire at the next whole minute 30 s away.
  'lifecycle-systemd-real.test.ts': 70,
  'hours.test.ts': 72,
  'escape.test.ts': 60,
  // shellcheck over some forty rendered trees, on both cores.
  'shellcheck-combos.test.ts': 60,
  'lifecycle-systemd.test.ts': 38,
  'lifecycle-cron.test.ts': 33,
  'wrapper-lock.test.ts': 33,
  'agents.test.ts': 22,
  'lifecycle-cli.test.ts': 15,
  'lifecycle-launchd.test.ts': 14,
};

// Longest first: by last run's seconds when known, else as measured; other suites by size
// (bytes / 1000 as "seconds", which puts a new large suite ahead of the small ones).
const times = lastTimes();
const guess = (f) => times[f] ?? MEASURED[f] ?? statSync(join(dir, f)).size / 1000;
const chosen = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
  .sort((a, b) => guess(b) - guess(a));

/** Why a suite needs root, from its own line `// needs root: WHY` near its top; undefined when it needs none. */
function needsRoot(f) {
  const head = readFileSync(join(dir, f), 'utf8').split('\n', 40);
  return head.map((l) => /^\/\/ needs root: (.+)$/.exec(l)?.[1]).find(Boolean);
}
// As another user, the suites that need root are left out, each named with its reason
// (HBTEST_EVERY_SUITE=1 runs them anyway: how the marks are checked).
const leftOut = asRoot || process.env.HBTEST_EVERY_SUITE === '1' ? [] : chosen.map((f) => [f, needsRoot(f)]).filter(([, why]) => why);
const files = chosen.filter((f) => !leftOut.some(([g]) => g === f));

let passed = 0;
let failed = 0;
let skipped = 0;
const broken = [];
const running = new Map();
const t0 = Date.now();
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)}s`;
const say = (s) => process.stdout.write(s);

/** uvu's summary numbers: Total (tests that ran), Passed, Skipped; NaN when absent. */
function summary(out) {
  const num = (label) => Number((out.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm')) ?? [])[1] ?? NaN);
  return { total: num('Total'), ok: num('Passed'), skip: num('Skipped') };
}

/** Adds one suite's result to the totals; returns its "N passed, N failed" words. */
function count(file, code, out) {
  const { total, ok, skip } = summary(out);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    // The file crashed before uvu could count: count it as one failure, never as zero.
    failed += 1;
    broken.push(`${file}: no uvu summary (exit ${code})`);
    return `crashed (exit ${code})`;
  }
  // uvu's Total counts the tests that ran; skipped ones are only in Skipped.
  const s = Number.isNaN(skip) ? 0 : skip;
  let bad = total - ok;
  if (code !== 0 && bad === 0) {
    bad = 1;
    broken.push(`${file}: exit ${code} with every test passed`);
  }
  passed += ok;
  skipped += s;
  failed += bad;
  return `${ok} passed, ${bad} failed${s ? `, ${s} skipped` : ''}`;
}

function runOne(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    running.set(file, started);
    say(`start ${file}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, file)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      running.delete(file);
      times[file] = Math.round((Date.now() - started) / 1000);
      const result = count(file, code, out);
      say(`\n### ${file} (${secs(started)}, exit ${code})\n${out}done  ${file}: ${result} in ${secs(started)}\n`);
      resolve();
    });
  });
}

const ticker = setInterval(() => {
  const now = [...running].map(([f, s]) => `${f} (${secs(s)})`).join(', ');
  if (now) say(`... ${secs(t0)}: still running ${now}\n`);
}, 60_000);

const queue = [...files];
await Promise.all(
  Array.from({ length: jobs }, async () => {
    while (queue.length) await runOne(queue.shift());
  }),
);
clearInterval(ticker);

try {
  // Written whole and renamed: another run of the suite may be reading it.
  mkdirSync(dirname(TIMES), { recursive: true });
  writeFileSync(`${TIMES}.${process.pid}`, `${JSON.stringify(times, null, 1)}\n`);
  renameSync(`${TIMES}.${process.pid}`, TIMES);
} catch {}

for (const b of broken) say(`broken: ${b}\n`);
if (chosen.length === 0) {
  say('no test files matched\n');
  failed += 1;
}
say(`\nall suites: ${secs(t0)}\n`);
if (leftOut.length > 0) {
  say(`\nleft out as ${process.env.USER ?? `uid ${process.getuid?.()}`}: ${leftOut.length} suite${leftOut.length === 1 ? ' that needs' : 's that need'} root (run \`sudo npm test\` for every suite):\n`);
  for (const [f, why] of leftOut) say(`  ${f}: ${why}\n`);
}
// A suite left out counts as one skipped: none of its tests ran.
const skippedAll = skipped + leftOut.length;
say(`\n${passed} passed, ${failed} failed${skippedAll ? `, ${skippedAll} skipped` : ''}\n`);
process.exit(failed === 0 ? 0 : 1);
