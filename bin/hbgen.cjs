#!/usr/bin/env node
// The installed command: everything is in the one bundle that `npm run build` writes to
// dist/ (hbgen-<hash>.cjs), compiled here with V8's code cache made for it at build time
// (hbgen-<hash>.cache), which saves most of the compiling a start would otherwise do. A
// cache V8 rejects (another Node, other V8 flags) or a missing one only costs that time
// back. `--version` (or -v, wherever it stands, as yargs took it) is answered here, from
// package.json, before any of it loads: the one place hbgen answers it.

/** Compile dist/hbgen-<hash>.cjs with its code cache and run it; undefined when not built. */
function runBundle() {
  const { readFileSync, readdirSync } = require('node:fs');
  const { createRequire } = require('node:module');
  const { join } = require('node:path');
  const { Script } = require('node:vm');
  const dist = join(__dirname, '..', 'dist');
  let name;
  try {
    name = readdirSync(dist).find((f) => /^hbgen-\w+\.cjs$/.test(f));
  } catch {}
  if (!name) return undefined;
  const file = join(dist, name);
  const cacheFile = file.replace(/\.cjs$/, '.cache');
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  // The bundle is one function with the parameters of Node's own CommonJS wrapper (written
  // so by bin/build.mjs), so it runs as a module would; it is ASCII, which latin1 reads fastest.
  const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(file), mod, file, dist);
  return { script, cacheFile };
}

/** Why this Node cannot run hbgen (older than the floor in package.json's engines), or undefined. */
function nodeTooOld(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 12)) return undefined;
  return `hbgen: needs Node 22.12 or newer, and this is Node ${version}; install a current Node (the README's Set-up says how) and run hbgen with it.\n`;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const old = nodeTooOld(process.version);
  if (old) {
    process.stderr.write(old);
    process.exitCode = 1;
  } else if (args.includes('--version') || args.includes('-v')) {
    process.stdout.write(`${require('../package.json').version}\n`);
  } else if (!runBundle()) {
    process.stderr.write('hbgen: the CLI is not built yet; run `npm run build` in the hbgen folder.\n');
    process.exitCode = 2;
  }
} else {
  // bin/build.mjs runs the bundle through this to write the code cache.
  module.exports = { runBundle, nodeTooOld };
}
