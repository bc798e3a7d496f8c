#!/usr/bin/env node
// The installed command: everything is in the bundle that `npm run build` writes to dist/.
import('../dist/hbgen.mjs').catch((e) => {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/hbgen.mjs')) throw e;
  process.stderr.write('hbgen: the CLI is not built yet; run `npm run build` in the hbgen folder.\n');
  process.exitCode = 2;
});
