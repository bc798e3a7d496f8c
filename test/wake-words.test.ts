// issue 27 item 8: `hbgen wake` says one clear sentence per cause: a spec edited since
// install is not told as a wrapper that "differs … SHA-256" (which reads like tampering),
// a wrapper edited by hand is told as such, and a billing refusal is printed once (the
// wrapper's own line), not again by wake's summary. Through the built CLI, the REAL
// rendered wrapper, the stand-in systemctl and a stand-in crontab first on PATH.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { names } from '../src/names.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { hbgen } from './helpers/cli.ts';
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

test('a billing refusal at wake is printed once: the wrapper\'s line, then wake\'s summary naming only its kind', () => {
  const h = installed(true);
  // Logged out since install: `auth status` now says so.
  writeFileSync(h.bin, `#!/bin/sh\ncase "$1 \${2-}" in 'auth status') echo '{"loggedIn": false}'; exit 1 ;; esac\n${subscriptionAnswers()}echo agent ran\n`);
  const r = cli(h, ['wake']);
  assert.is(r.code, 78, r.stderr + r.stdout);
  const all = r.stderr + r.stdout;
  const reason = /^hbgen docs: billing (.*)$/m.exec(r.stderr)?.[1];
  assert.ok(reason, r.stderr);
  assert.is(all.split(reason!).length - 1, 1, `the reason once:\n${all}`);
  assert.match(r.stdout, /^wake: error billing before the agent ran; the wrapper's line above says why \(see \S+runtime\.log\)\n$/);
});

test.run();
