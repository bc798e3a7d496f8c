// npm run docs — writes the generated part of docs/spec.md (the field table) from the spec's
// JSON Schema, the one `hbgen schema` prints. test/docs.test.ts fails when the page differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchema } from '../src/schema.ts';
import { withSpecTable } from '../src/spec-doc.ts';

const page = join(import.meta.dirname, '..', 'docs', 'spec.md');
const before = readFileSync(page, 'utf8');
const after = withSpecTable(before, jsonSchema());
writeFileSync(page, after);
console.log(before === after ? 'docs/spec.md: unchanged' : 'wrote docs/spec.md');
