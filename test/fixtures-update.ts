// npm run fixtures:update — the only way golden files change. It rewrites every expected
// tree, the invalid-spec messages and the schema from the current code, and removes
// goldens whose spec is gone. Review the git diff before committing it.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from '../src/tree.ts';
import { hbgen } from './helpers/cli.ts';
import { EXPECTED, INVALID, SCHEMA, invalidNames, renderFixture, specNames } from './helpers/fixtures.ts';

mkdirSync(EXPECTED, { recursive: true });
const specs = new Set(specNames());
for (const d of readdirSync(EXPECTED)) {
  if (!specs.has(d)) {
    rmSync(join(EXPECTED, d), { recursive: true, force: true });
    console.log(`removed stale ${d}`);
  }
}
for (const name of specs) {
  const dir = join(EXPECTED, name);
  rmSync(dir, { recursive: true, force: true });
  writeTree(dir, renderFixture(name).files);
  console.log(`wrote expected/${name}`);
}
const invalid = new Set(invalidNames());
for (const f of readdirSync(INVALID)) {
  if (f.endsWith('.err') && !invalid.has(f.slice(0, -4))) {
    rmSync(join(INVALID, f));
    console.log(`removed stale invalid/${f}`);
  }
}
for (const name of invalid) {
  const r = hbgen(['render', `fixtures/invalid/${name}.json`]);
  if (r.code !== 1) throw new Error(`invalid/${name}.json: expected exit 1, got ${r.code}`);
  writeFileSync(join(INVALID, `${name}.err`), r.stderr);
  console.log(`wrote invalid/${name}.err`);
}
const schema = hbgen(['schema']);
if (schema.code !== 0) throw new Error(`hbgen schema failed: ${schema.stderr}`);
writeFileSync(SCHEMA, schema.stdout);
console.log('wrote schema.json');
if (!existsSync(EXPECTED)) throw new Error('nothing written');
