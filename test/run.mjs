#!/usr/bin/env node
// Runs every test/*.test.ts file as its own uvu process (two at a time: the suites spend
// most of their time waiting on shells, cron and systemd-analyze), shows their output,
// and ends with the line CI reads: "N passed, N failed" summed from uvu's own totals.
// Usage: node test/run.mjs [substring …]   (only files whose name contains one of them)
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
const jobs = Math.max(2, Math.min(4, cpus().length));

let passed = 0;
let failed = 0;
let skipped = 0;
const broken = [];

function runOne(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, file)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const num = (label) => Number((out.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm')) ?? [])[1] ?? NaN);
      const total = num('Total');
      const ok = num('Passed');
      const skip = num('Skipped');
      process.stdout.write(`\n### ${file} (${((Date.now() - started) / 1000).toFixed(1)}s, exit ${code})\n${out}`);
      if (Number.isNaN(total) || Number.isNaN(ok)) {
        // The file crashed before uvu could count: count it as one failure, never as zero.
        failed += 1;
        broken.push(`${file}: no uvu summary (exit ${code})`);
      } else {
        // uvu's Total counts the tests that ran; skipped ones are only in Skipped.
        passed += ok;
        skipped += Number.isNaN(skip) ? 0 : skip;
        failed += total - ok;
        if (code !== 0 && total - ok === 0) {
          failed += 1;
          broken.push(`${file}: exit ${code} with every test passed`);
        }
      }
      resolve();
    });
  });
}

const queue = [...files];
await Promise.all(
  Array.from({ length: jobs }, async () => {
    while (queue.length) await runOne(queue.shift());
  }),
);
for (const b of broken) process.stdout.write(`broken: ${b}\n`);
if (files.length === 0) {
  process.stdout.write('no test files matched\n');
  failed += 1;
}
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed === 0 ? 0 : 1);
