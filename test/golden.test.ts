// Golden files: every fixture spec's whole rendered tree, every invalid spec's exact error
// text and the JSON Schema must equal what is committed under fixtures/. Any drift, and
// any stale golden without its spec, fails; `npm run fixtures:update` rewrites them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareTree } from '../src/tree.ts';
import { hbgen } from './helpers/cli.ts';
import { EXPECTED, INVALID, SCHEMA, SPECS, invalidNames, renderFixture, specNames } from './helpers/fixtures.ts';
import { shellcheckPath } from './helpers/tools.ts';

const UPDATE = 'run `npm run fixtures:update` if the change is intended';

test('fixtures cover every scheduler', () => {
  // The schedulers as the committed JSON Schema (a golden itself) names them, not as the code lists them.
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8'));
  const ids: string[] = schema.properties.schedule.properties.scheduler.enum;
  assert.ok(ids.length >= 4, `the schema names the schedulers (${ids.join(', ')})`);
  const used = new Set(specNames().map((n) => JSON.parse(readFileSync(join(SPECS, `${n}.json`), 'utf8')).schedule.scheduler));
  assert.equal(ids.filter((id) => !used.has(id)), [], 'a fixture spec for every scheduler');
  // And each renders its own entry.
  const files = specNames().flatMap((n) => renderFixture(n).files.map((f) => f.path));
  assert.ok(files.some((p) => p.endsWith('.plist')), 'a launchd fixture');
  assert.ok(files.some((p) => p.endsWith('.timer')), 'a systemd fixture');
  assert.ok(files.includes('host/crontab'), 'a cron fixture');
  assert.ok(files.some((p) => p.endsWith('.cronjob.yaml')), 'a kubernetes fixture');
});

for (const name of specNames()) {
  test(`golden tree: ${name}`, async () => {
    const r = renderFixture(name);
    const dir = join(EXPECTED, name);
    assert.ok(existsSync(dir), `fixtures/expected/${name} is missing; ${UPDATE}`);
    // Git keeps only the executable bit, and a checkout's umask decides the rest, so
    // compare modes as "executable or not" here; `hbgen check` compares them exactly.
    const drift = (await compareTree(dir, r.files)).filter(
      (d) => d.kind !== 'mode' || ((statSync(join(dir, d.path)).mode & 0o100) !== 0) !== ((r.files.find((f) => f.path === d.path)!.mode & 0o100) !== 0),
    );
    assert.is(drift.map((d) => d.diff).join(''), '', `drift in fixtures/expected/${name}; ${UPDATE}`);
  });
}

test('shellcheck -s sh is clean on every rendered script of every fixture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-lint-'));
  try {
    for (const name of specNames()) {
      for (const f of renderFixture(name).files.filter((x) => x.path.endsWith('.sh'))) {
        const file = join(dir, `${name}-${f.path}`);
        writeFileSync(file, f.content);
        const r = spawnSync(shellcheckPath(), ['-s', 'sh', file], { encoding: 'utf8' });
        assert.is(r.status, 0, `${name}/${f.path}:\n${r.stdout}${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no stale expected tree without its spec', () => {
  const specs = new Set(specNames());
  const stale = readdirSync(EXPECTED).filter((d) => !specs.has(d));
  assert.equal(stale, [], `stale goldens; ${UPDATE}`);
});

for (const name of invalidNames()) {
  test(`invalid spec: ${name} → exit 1, exact message, nothing written`, () => {
    const out = mkdtempSync(join(tmpdir(), 'hbgen-invalid-'));
    try {
      const r = hbgen(['render', `fixtures/invalid/${name}.json`, '--out', join(out, 'tree')]);
      assert.is(r.code, 1);
      assert.is(r.stdout, '');
      const expected = join(INVALID, `${name}.err`);
      assert.ok(existsSync(expected), `fixtures/invalid/${name}.err is missing; ${UPDATE}`);
      assert.fixture(r.stderr, readFileSync(expected, 'utf8'));
      assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
      for (const line of r.stderr.trimEnd().split('\n')) assert.match(line, /^hbgen: fixtures\/invalid\/[a-z-]+\.json: \S/);
      assert.not.ok(existsSync(join(out, 'tree')), 'nothing written');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
}

test('no stale .err without its invalid spec', () => {
  const specs = new Set(invalidNames());
  const stale = readdirSync(INVALID).filter((f) => f.endsWith('.err') && !specs.has(f.slice(0, -4)));
  assert.equal(stale, [], `stale goldens; ${UPDATE}`);
  const unexpected = readdirSync(INVALID).filter((f) => !f.endsWith('.err') && !f.endsWith('.json'));
  assert.equal(unexpected, []);
});

test('hbgen schema equals fixtures/schema.json, and every fixture spec points at it', () => {
  const r = hbgen(['schema']);
  assert.is(r.code, 0);
  assert.fixture(r.stdout, readFileSync(SCHEMA, 'utf8'));
  for (const name of specNames()) {
    const spec = JSON.parse(readFileSync(join(EXPECTED, '..', 'specs', `${name}.json`), 'utf8'));
    assert.is(spec.$schema, '../schema.json', `${name}.json $schema`);
  }
});

test.run();
