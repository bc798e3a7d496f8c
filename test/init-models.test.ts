// hbgen init's model map: the tiers and the fallback it writes come from the pinned real
// clients' own catalogs, read offline (Claude Code's aliases; `codex debug models --bundled`),
// and the spec it writes validates with them. "inherit" as a tier only where the client has it.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as assert from 'uvu/assert';
import { init } from '../src/commands/init.ts';
import type { HostIO } from '../src/host/io.ts';
import { validateSpec } from '../src/spec.ts';
import { clientTest, realClients } from './helpers/clients.ts';

const found = realClients();
const test = clientTest(found);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'hbgen-init-models-')));
test.after(() => rmSync(root, { recursive: true, force: true }));

/** init in a fresh git repo whose PATH has only `client` (a link to the real one), node, git and the system's tools. */
async function initWith(client: 'claude' | 'codex', real: string): Promise<{ spec: Record<string, any>; out: string }> {
  const dir = mkdtempSync(join(root, `${client}-`));
  const bin = join(dir, 'bin');
  const home = join(dir, 'home');
  const repo = join(dir, 'repo');
  for (const d of [bin, home, repo]) mkdirSync(d, { recursive: true });
  symlinkSync(real, join(bin, client));
  spawnSync('git', ['init', '-q', repo]);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = false;
  stdin.end();
  let out = '';
  const io: HostIO = {
    env: { HOME: home, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, USER: 'ada', LOGNAME: 'ada', TZ: 'UTC' },
    uid: process.getuid!(),
    user: 'ada',
    cwd: repo,
    stdin,
    out: (s) => (out += s),
    err: (s) => (out += s),
    now: () => new Date(),
  };
  assert.is(await init({ dir: repo } as Parameters<typeof init>[0], io), 0, out);
  return { spec: JSON.parse(readFileSync(join(repo, 'hbgen.json'), 'utf8')), out };
}

/** The spec init wrote, with the choices init leaves to the person filled in, validated. */
function completed(spec: Record<string, any>) {
  const s = structuredClone(spec);
  s.schedule.every = '30m';
  s.schedule.hours = { start: '08:00', end: '20:00', timezone: 'UTC' };
  s.timeout = '20m';
  return validateSpec(s);
}

test('claude-code: the tiers are Claude Code\'s aliases haiku, sonnet, opus; the fallback is the tier below the pinned sonnet; the spec validates', async () => {
  if ('why' in found) return;
  const { spec, out } = await initWith('claude', found.claude);
  assert.equal(spec.agent.models, { fast: 'haiku', general: 'sonnet', strong: 'opus' });
  assert.is(spec.agent.model, 'sonnet');
  assert.is(spec.agent.fallbackModel, 'haiku');
  assert.match(out, /^ {2}tiers {6}fast haiku, general sonnet, strong opus \(agent\.models, from Claude Code's aliases\)$/m);
  assert.match(out, /^ {2}fallback {3}haiku when sonnet is refused/m);
  const v = completed(spec);
  assert.ok(v.spec, String(v.errors));
});

test('codex: no tiers (its catalog orders models for its picker, not by strength), said in a note; the fallback is the successor the real catalog names for the pinned model', async () => {
  if ('why' in found) return;
  const printed = JSON.parse(spawnSync(found.codex, ['debug', 'models', '--bundled'], { encoding: 'utf8', env: { HOME: root, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } }).stdout) as { models: { slug: string; upgrade?: { model: string } | null }[] };
  const { spec, out } = await initWith('codex', found.codex);
  const pinned = spec.agent.model as string;
  const successor = printed.models.find((m) => m.slug === pinned)?.upgrade?.model;
  assert.ok(successor, `the pinned ${pinned} names no successor in this catalog; the test needs one`);
  assert.is(spec.agent.fallbackModel, successor);
  assert.is(spec.agent.models, undefined);
  assert.match(out, /note: no model tiers written: codex's catalog orders its models for its picker, not by strength/);
  const v = completed(spec);
  assert.ok(v.spec, String(v.errors));
});

test('"inherit" as a tier: taken for claude-code (its subagents have model: inherit), refused for codex with one sentence', () => {
  const base = (harness: string) => ({
    version: 1, name: 'x', repo: '/srv/x', timeout: '20m', env: { HOME: '/home/ada', PATH: '/usr/bin:/bin' },
    agent: { harness, bin: '/usr/bin/agent', prompt: 'Do one chunk.', model: harness === 'codex' ? 'gpt-5.5' : 'sonnet', models: { fast: 'haiku', strong: 'inherit' } },
    schedule: { scheduler: 'cron', every: '30m', hours: { start: '08:00', end: '20:00', timezone: 'UTC' } },
  });
  assert.ok(validateSpec(base('claude-code')).spec);
  assert.equal(validateSpec(base('codex')).errors, ['agent.models.strong: "inherit" runs a subagent on the lead\'s own model, which Codex has no way to say; name a model id of its catalog for this tier']);
});

test.run();
