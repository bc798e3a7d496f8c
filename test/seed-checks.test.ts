// install's panel rows of the seed: the repo's instruction files (do they name PROTOCOL.md
// and HEART.md, do they contradict them), the client's settings, the models checked against
// the client's own list (the REAL codex's bundled catalog; Claude Code's aliases), and the
// rows "agent budget" and "token policy". Through `install --dry-run` with stand-in tools.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientTest, realClients, subscriptionShim } from './helpers/clients.ts';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const found = realClients();
const real = 'why' in found ? null : found;
const row = (out: string, k: string) => new RegExp(`^ {2}${k.replace(/[[\]().]/g, '\\$&')} +(.*)$`, 'm').exec(out)?.[1];
const caveats = (out: string) => out.split('\ncaveats:\n')[1] ?? '';

test('instruction files: which name PROTOCOL.md and HEART.md; "never commit" against a protocol that commits, and asking a person, are caveats', async () => {
  const h = makeHost('systemd-user');
  writeFileSync(join(h.repo, 'PROTOCOL.md'), '# PROTOCOL\nAfter each chunk, git commit the change with a short message.\n');
  writeFileSync(join(h.repo, 'CLAUDE.md'), '# Rules\nNever commit on main. Always ask me before deleting files.\n');
  writeFileSync(join(h.repo, 'AGENTS.md'), 'Read HEART.md, then PROTOCOL.md.\n');
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.is(row(r.out, 'instructions'), 'CLAUDE.md names neither PROTOCOL.md nor HEART.md (the wake prompt does); AGENTS.md names PROTOCOL.md and HEART.md');
  const cav = caveats(r.out);
  assert.match(cav, new RegExp(`- ${join(h.repo, 'CLAUDE.md')} says not to commit, while PROTOCOL.md or HEART.md asks for commits \\("Never commit"\\); change one of them`));
  assert.match(cav, /CLAUDE\.md asks the agent to ask a person first, and nobody answers an unattended wake: it would stop there every time \("Always ask me"\)/);
  // The same "never commit" against a protocol that does not commit is no contradiction.
  writeFileSync(join(h.repo, 'PROTOCOL.md'), '# PROTOCOL\nRecord in STATE.md.\n');
  const r2 = await hb(h, 'install', { dryRun: true });
  assert.not.match(caveats(r2.out), /says not to commit/);
  // None at all.
  const h3 = makeHost('systemd-user');
  assert.match(row((await hb(h3, 'install', { dryRun: true })).out, 'none')!, /\binstructions\b/);
});

test('claude-code: the model against Claude Code\'s aliases (listed, unverified full name, NOT listed with a caveat); settings that deny Edit are a caveat', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.', model: 'opus', fallbackModel: 'claude-sonnet-4-5', models: { fast: 'haiku', odd: 'sonet' } } });
  mkdirSync(join(h.repo, '.claude'));
  writeFileSync(join(h.repo, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Edit', 'Bash(rm:*)'] } }));
  writeFileSync(join(h.repo, 'CLAUDE.md'), 'See PROTOCOL.md.\n');
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.is(row(r.out, 'models'), "opus listed, claude-sonnet-4-5 unverified (a full model name: Claude Code lists none; the first wake's output says), haiku listed, sonet NOT listed (by Claude Code's aliases)");
  assert.is(row(r.out, 'instructions'), 'CLAUDE.md names PROTOCOL.md only');
  const cav = caveats(r.out);
  assert.match(cav, /the model "sonet" is not in Claude Code's aliases \(default, best, sonnet, opus, haiku, .*opusplan\); the client will likely refuse it: check the name/);
  assert.match(cav, new RegExp(`${join(h.repo, '.claude', 'settings.json')} denies Edit, so the agent cannot write STATE\\.md, LOG\\.md or journal/ as PROTOCOL\\.md says; narrow the rule`));
  assert.not.match(cav, /denies Bash/);
});

clientTest(found)('codex: the model against the REAL codex\'s `codex debug models --bundled` (offline, no paid probe)', async () => {
  const h = makeHost('systemd-user');
  const bin = subscriptionShim(join(h.root, 'shim'), real!.codex, 'codex');
  for (const [model, want] of [
    ['gpt-5.5', 'gpt-5.5 listed (by `codex debug models --bundled`)'],
    ['gpt-nonesuch', 'gpt-nonesuch NOT listed (by `codex debug models --bundled`)'],
  ] as const) {
    rewriteSpec(h, { agent: { harness: 'codex', bin, prompt: 'Do one chunk.', model } });
    const r = await hb(h, 'install', { dryRun: true });
    assert.is(r.code, 0, r.err);
    assert.is(row(r.out, 'models'), want, r.out);
    if (model === 'gpt-nonesuch') assert.match(caveats(r.out), /the model "gpt-nonesuch" is not in `codex debug models --bundled` \([^)]*gpt-5\.5[^)]*\)/);
  }
  // The effort against the model's own levels in that catalog: gpt-5.5 has no "ultra" (nor "max").
  for (const effort of ['ultra', 'max'] as const) {
    rewriteSpec(h, { agent: { harness: 'codex', bin, prompt: 'Do one chunk.', model: 'gpt-5.5', effort } });
    const r = await hb(h, 'install', { dryRun: true });
    assert.is(row(r.out, 'models'), `gpt-5.5 listed, effort ${effort} NOT a level of gpt-5.5 (by \`codex debug models --bundled\`)`, r.out);
    assert.ok(caveats(r.out).replace(/\s+/g, ' ').includes(`agent.effort: "${effort}" is not a reasoning level of gpt-5.5 in \`codex debug models --bundled\` (it has low, medium, high, xhigh), so Codex will not send it; set agent.effort to one of those`), r.out);
  }
  rewriteSpec(h, { agent: { harness: 'codex', bin, prompt: 'Do one chunk.', model: 'gpt-5.5', effort: 'xhigh' } });
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(row(r.out, 'models'), 'gpt-5.5 listed (by `codex debug models --bundled`)', r.out);
  assert.not.match(caveats(r.out), /agent\.effort/);
});

test('status: the agent row is the model map (model, effort, tiers, fallback), the permission mode and the token policy; for harness command, what the args decide', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'x', model: 'sonnet', effort: 'high', models: { fast: 'haiku', strong: 'opus' }, fallbackModel: 'haiku' } as never, budget: 5000000 } as never);
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  assert.is(row((await hb(h, 'status')).out, 'agent'), 'claude-code: model sonnet, effort high; tiers fast=haiku, strong=opus, fallback haiku; permission mode acceptEdits; a budget of 5,000,000 tokens a day');
  const c = makeHost('systemd-user');
  assert.is((await hb(c, 'install', { yes: true })).code, 0);
  assert.is(row((await hb(c, 'status')).out, 'agent'), `command: ${c.spec.agent.bin}; model and permissions: your args decide`);
});

test('harness command: no models row (no list to check against), no agent budget row without a budget, the token policy with the tiers', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'command', bin: h.bin, prompt: 'Do one chunk.', models: { fast: 'haiku', strong: 'opus' } } });
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.is(row(r.out, 'models'), undefined, r.out);
  assert.is(row(r.out, 'agent budget'), undefined, r.out);
  assert.match(row(r.out, 'none')!, /(^|, )budget, /);
  assert.is(row(r.out, 'token policy'), 'plan only; fan-out when it helps, never recursive; subagents on the cheapest fitting tier (fast, strong) (PROTOCOL.md)');
});

test.run();
