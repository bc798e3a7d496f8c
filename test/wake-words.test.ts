// Item 8: `hbgen wake` says one clear sentence per cause: a spec edited since
// install is not told as a wrapper that "differs … SHA-256" (which reads like tampering),
// a wrapper edited by hand is told as such, and a billing refusal is printed once: wake's
// summary, with the whole detail (`wake: error billing claude auth status says …`; it once
// printed only the detail's first word, "error the before the agent ran"), the wrapper's own
// line held back. Through the built CLI, the REAL
// rendered wrapper, the stand-in systemctl and a stand-in crontab first on PATH.
import { appendFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { ROOT, hbgen } from './helpers/cli.ts';
import { wakeLine } from '../src/commands/wake.ts';
import { parseLog } from '../src/formats.ts';
import { makeStub } from './helpers/crontab.ts';
import { type Host, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const stub = makeStub();
process.on('exit', () => stub.remove());
const cli = (h: Host, args: string[]) => hbgen(args, { cwd: h.root, env: { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` } });

function installed(claude = false): Host {
  const h = makeHost('systemd-user');
  if (claude) rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.' } });
  const r = cli(h, ['install', '--yes']);
  assert.is(r.code, 0, r.stderr + r.stdout);
  return h;
}

test('wake after the spec was edited: one sentence saying so and what to run; no SHA-256 talk', () => {
  const h = installed();
  rewriteSpec(h, { agent: { harness: 'command', bin: h.bin, prompt: 'Do another chunk.' } });
  const r = cli(h, ['wake']);
  assert.is(r.code, 78);
  assert.is(r.stderr, 'hbgen: ./hbgen.json was edited since install, so the installed wrapper is not the one it renders now and hbgen will not run it; run `hbgen install` to apply the edit, then `hbgen wake`\n');
});

test('wake after the wrapper itself was edited: said as an edit of the wrapper, with status and install', () => {
  const h = installed();
  appendFileSync(join(names(h.spec).stateDir, 'heartbeat.sh'), '# edited\n');
  const r = cli(h, ['wake']);
  assert.is(r.code, 78);
  assert.match(r.stderr, /^hbgen: \S+\/heartbeat\.sh was edited since install \(it is not the file state\.json records\), so hbgen will not run it; `hbgen status` shows what changed, and `hbgen install` writes hbgen's wrapper back\n$/);
});

test('a billing refusal at wake is printed once: wake\'s summary with the whole detail', () => {
  const h = installed(true);
  // Logged out since install: `auth status` now says so.
  writeFileSync(h.bin, `#!/bin/sh\ncase "$1 \${2-}" in 'auth status') echo '{"loggedIn": false}'; exit 1 ;; esac\n${subscriptionAnswers()}echo agent ran\n`);
  const r = cli(h, ['wake']);
  assert.is(r.code, 78, r.stderr + r.stdout);
  const all = r.stderr + r.stdout;
  const reason = /^wake: error billing (.*) \(see \S+runtime\.log\)$/m.exec(r.stdout)?.[1];
  assert.ok(reason, r.stdout);
  assert.match(reason!, /^claude auth status .*not a subscription login, so the agent is not run on it; run `claude`/);
  assert.is(all.split(reason!).length - 1, 1, `the reason once:\n${all}`);
  assert.is(r.stderr, '', 'the wrapper\'s own line is not said again');
});

/** Every detail the wrapper's faults log (`hb_fault "…"` in the partials), with sample words for its variables. */
function faultDetails(): string[] {
  const dir = join(ROOT, 'templates/partials/heartbeat');
  const out = new Set<string>(['wrapper changed']);
  for (const f of readdirSync(dir)) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/hb_fault "((?:[^"\\]|\\.)*)"/g)) {
      out.add(m[1]!.replace(/\\"/g, '"').replace(/\$\{?[a-z_]+(?:#[^}]*)?\}?/g, '/x/y').replace(/\{\{[^}]*\}\}/g, 'z'));
    }
  }
  return [...out];
}

test('wake\'s line says every error detail the wrapper can log, whole: with a wake number after its start, without one before', () => {
  const details = faultDetails();
  assert.ok(details.length >= 35, `found ${details.length} details`);
  for (const d of details) {
    const before = wakeLine(parseLog(`2026-12-02T08:00:00Z hbgen docs error ${d}\n`, 'docs'), '/s/runtime.log', 78);
    assert.is(before, `wake: error ${d} (see /s/runtime.log)`);
    const after = wakeLine(parseLog(`2026-12-02T08:00:00Z hbgen docs start wake 4 by hand\n2026-12-02T08:00:01Z hbgen docs error ${d}\n`, 'docs'), '/s/runtime.log', 78);
    assert.is(after, `wake 4: error ${d} (see /s/runtime.log)`);
  }
});

test('a fault at wake through the CLI: the agent binary gone, said once in full, exit 78', () => {
  const h = installed();
  rmSync(h.bin);
  const r = cli(h, ['wake']);
  assert.is(r.code, 78, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`^wake: error agent binary ${h.bin} is missing or not executable; install it or fix agent\\.bin \\(see \\S+runtime\\.log\\)\n$`));
  assert.is(r.stderr, '');
});

test.run();
