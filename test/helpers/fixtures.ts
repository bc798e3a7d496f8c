// The golden fixtures: which specs exist and where their expected output lives.
// test/golden.test.ts compares against them; test/fixtures-update.ts (npm run
// fixtures:update) is the only thing that writes them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { renderNow } from './render.ts';
import { validateSpec, type Spec } from '../../src/spec.ts';
import { ROOT } from './cli.ts';

export const FIXTURES = join(ROOT, 'fixtures');
export const SPECS = join(FIXTURES, 'specs');
export const EXPECTED = join(FIXTURES, 'expected');
export const INVALID = join(FIXTURES, 'invalid');
export const SCHEMA = join(FIXTURES, 'schema.json');

export const specNames = () =>
  readdirSync(SPECS)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();

export const invalidNames = () =>
  readdirSync(INVALID)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();

export function loadFixtureSpec(name: string): Spec {
  const r = validateSpec(JSON.parse(readFileSync(join(SPECS, `${name}.json`), 'utf8')));
  if (r.errors) throw new Error(`fixture ${name} is invalid:\n${r.errors.join('\n')}`);
  return r.spec;
}

export function renderFixture(name: string) {
  const r = renderNow(loadFixtureSpec(name));
  if (r.errors.length) throw new Error(`fixture ${name} does not render:\n${r.errors.join('\n')}`);
  return r;
}
