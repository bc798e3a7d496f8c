// init's model map from the client's own catalog, without a paid call: the REAL pinned codex
// prints the catalog shipped with its binary (`codex debug models --bundled`, offline), the
// real Claude Code none (its aliases name its tiers). src/host/install/model-map.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_PATH, clientTest, realClients } from './helpers/clients.ts';
import { catalogModels, codexMap, modelMap } from '../src/host/install/model-map.ts';
import { validateSpec } from '../src/spec.ts';

const found = realClients();
const rt = clientTest(found);

const specWith = (harness: string, bin: string, m: ReturnType<typeof modelMap>) =>
  validateSpec({ version: 1, name: 'm', repo: '/tmp/m', agent: { harness, bin, prompt: 'x', model: m.model, ...(m.models ? { models: m.models } : {}), ...(m.fallbackModel ? { fallbackModel: m.fallbackModel } : {}) }, schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '18:00', timezone: 'UTC' } }, env: { HOME: '/tmp', PATH: '/usr/bin:/bin' }, timeout: '20m' });

rt('codex: the real pinned catalog gives the model (its first current recommendation), the fallback (its second), and only the tiers its descriptions name; the spec validates', () => {
  const real = found as { codex: string };
  const home = mkdtempSync(join(tmpdir(), 'hbgen-models-'));
  try {
    const printed = spawnSync(real.codex, ['debug', 'models', '--bundled'], { encoding: 'utf8', env: { HOME: home, PATH: CLIENT_PATH }, maxBuffer: 64 * 1024 * 1024 });
    assert.is(printed.status, 0, printed.stderr);
    const current = catalogModels(printed.stdout);
    assert.ok(current.length > 1, printed.stdout.slice(0, 500));
    const m = modelMap('codex', real.codex, { HOME: home, PATH: CLIENT_PATH });
    // The client's own first recommendation, listed and superseded by none.
    assert.is(m.model, current[0]!.slug);
    assert.is(m.fallbackModel, current[1]!.slug);
    assert.is(m.models?.general, m.model);
    // Each tier the map names is a current model whose own description says so.
    const desc = (slug: string) => current.find((c) => c.slug === slug)!.description;
    if (m.models?.strong) assert.match(desc(m.models.strong), /most capable/i);
    if (m.models?.fast) assert.match(desc(m.models.fast), /\bfast\b/i);
    // A superseded model (one the catalog gives an `upgrade`) is never written.
    const all = (JSON.parse(printed.stdout) as { models: { slug: string; upgrade: unknown }[] }).models;
    for (const slug of [m.model, m.fallbackModel, ...Object.values(m.models ?? {})]) assert.ok(all.some((x) => x.slug === slug && x.upgrade == null), String(slug));
    assert.match(m.from, /^`codex debug models --bundled`/);
    assert.equal(specWith('codex', real.codex, m).errors, undefined);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

rt('claude-code: the real client prints no model list; its aliases give fast haiku, general sonnet, strong opus and the fallback haiku; the spec validates', () => {
  const real = found as { claude: string };
  const m = modelMap('claude-code', real.claude, { HOME: '/tmp', PATH: CLIENT_PATH });
  assert.equal(m.models, { fast: 'haiku', general: 'sonnet', strong: 'opus' });
  assert.is(m.model, 'sonnet');
  assert.is(m.fallbackModel, 'haiku');
  // The real client takes them: its --help names --model and --fallback-model with aliases.
  const help = spawnSync(real.claude, ['--help'], { encoding: 'utf8', env: { HOME: '/tmp', PATH: CLIENT_PATH } }).stdout.replace(/\s+/g, ' ');
  assert.match(help, /--fallback-model <model> Models to fall back to when the main model is busy or unavailable/, help);
  assert.match(help, /--model <model> Model for the current session\. Use an alias for the latest model \(e\.g\. [^)]*'opus'[^)]*'sonnet'\)/, help);
  assert.equal(specWith('claude-code', real.claude, m).errors, undefined);
});

test('a catalog that is no JSON, or lists no current model, gives no map: init keeps the pin and says why', () => {
  assert.is(codexMap('not json', 'x'), null);
  assert.is(codexMap(JSON.stringify({ models: [{ slug: 'old', priority: 1, visibility: 'list', upgrade: { model: 'new' } }, { slug: 'hidden', priority: 2, visibility: 'hide', upgrade: null }] }), 'x'), null);
  const m = modelMap('codex', '/bin/false', { HOME: '/tmp', PATH: '/usr/bin:/bin' });
  assert.is(m.model, 'gpt-5.5');
  assert.is(m.models, undefined);
  assert.match(m.from, /^the preset's pin: `codex debug models --bundled` gave no catalog \(exit 1\), so no tiers$/);
});

test.run();
