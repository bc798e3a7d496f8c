#!/usr/bin/env node
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/hbgen.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('hbgen: the CLI is not built yet; run `npm run build` in the hbgen folder.\n');
  process.exit(2);
}
await import(bundle.href);
