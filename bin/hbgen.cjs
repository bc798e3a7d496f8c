#!/usr/bin/env node
// The installed command: everything is in the bundle that `npm run build` writes to dist/.
// `--version` is answered here, from package.json, before any of it loads (a CommonJS
// entry starts faster than an ES module one).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/hbgen.mjs').catch((e) => {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/hbgen.mjs')) throw e;
    process.stderr.write('hbgen: the CLI is not built yet; run `npm run build` in the hbgen folder.\n');
    process.exitCode = 2;
  });
}
