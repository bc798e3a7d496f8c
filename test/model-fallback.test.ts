// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// agent.fallbackModel: a wake whose client says the model was refused is logged
// `error model …`; with a fallback the next wake runs it (once) and status says so. The
// claude case runs the REAL Claude Code against a local server on 127.0.0.1 that answers
// every request as the API answers an unknown model (404 not_found_error).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PATH, realClients, subscriptionAnswers, subscriptionLogin, clientTest } from './helpers/clients.ts';
import { SHELLS, agentShell, makeCase, run, shell } from './helpers/wrapper.ts';
import { fallbackInUse } from '../src/host/audit/fallback-state.ts';
import { validateSpec } from '../src/spec.ts';
import { names } from '../src/names.ts';
import { hb, lines, makeHost, rewriteSpec } from './helpers/lifecycle.ts';
import { spawnSync } from 'node:child_process';

const found = realClients();
const real = 'why' in found ? null : found;
const t = clientTest(found);
const dash = shell('dash');

/** The API's answer to a model it does not know, for every request; the models asked for are kept. */
async function unknownModels(): Promise<{ url: string; models: string[]; close: () => void }> {
  const models: string[] = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        const m = (JSON.parse(body) as { model?: string }).model;
        if (m) models.push(m);
      } catch {}
      res.writeHead(404, { 'content-type': 'application/json', 'request-id': 'req_hbgen_test' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: not found' } }));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`, models, close: () => srv.close() };
}

t('real claude: the refused model is logged `error model …`; the next wake starts on the fallback (context block, argv), its own refusal is only logged; status says so', async () => {
  const srv = await unknownModels();
  try {
    const c = makeCase({ path: CLIENT_PATH, standInEnv: { ANTHROPIC_BASE_URL: srv.url }, spec: { agent: { harness: 'claude-code', bin: real!.claude, model: 'nosuch-model', fallbackModel: 'haiku' }, timeout: '60s' } });
    subscriptionLogin(c.dir, 'claude-code');
    let r = await run(c, dash, { args: ['--now'], limitMs: 90_000 });
    assert.is(r.code, 1, c.log());
    const first = c.outcomes().at(-1)!;
    // Claude Code's own words, as its bundle has them.
    assert.match(first, /^error model nosuch-model refused: There's an issue with the selected model \([^)]+\)\. It may not exist or you may not have access to it\./);
    assert.match(first, /; the next wake uses haiku$/);
    assert.is(srv.models[0], 'nosuch-model', 'the first request asked for the model');
    assert.ok(fallbackInUse(c.state, c.spec)?.startsWith('the wakes run the fallback model haiku: the client refused nosuch-model at '));
    srv.models.length = 0;
    r = await run(c, dash, { args: ['--now'], limitMs: 90_000 });
    assert.is(r.code, 1, c.log());
    assert.not.ok(srv.models.includes('nosuch-model'), `the second wake never asked for the refused model: ${srv.models.join(' ')}`);
    assert.match(srv.models[0]!, /haiku/, 'it asked for the fallback first');
    // Fallen back once: the fallback's refusal is logged, nothing more is switched.
    assert.match(c.outcomes().at(-1)!, /^error model haiku refused: There's an issue with the selected model/);
    assert.not.match(c.outcomes().at(-1)!, /the next wake uses/);
  } finally {
    srv.close();
  }
});

for (const sh of SHELLS) {
  for (const harness of ['codex', 'claude-code'] as const) {
    test(`${sh.name} / stand-in ${harness}: the refusal text is an error model line; the next argv carries the fallback (claude: without --fallback-model), the context block says so; a changed model drops the record`, async () => {
      const c = makeCase({ spec: { agent: { harness, model: 'gpt-retired', fallbackModel: 'gpt-5.5' }, timeout: '4s', killAfter: '1s' } });
      // codex 0.171 prints the server's answer as it comes (openai/codex issue 17642); Claude Code its own sentence.
      const said =
        harness === 'codex'
          ? `ERROR: {"type":"error","status":400,"error":{"type":"invalid_request_error","message":"The 'gpt-retired' model is not supported when using Codex with a ChatGPT account."}}`
          : "There's an issue with the selected model (gpt-retired). It may not exist or you may not have access to it. Run --model to pick a different model.";
      writeFileSync(
        c.bin,
        `#!${agentShell}\n${subscriptionAnswers()}i=0; for a; do i=$((i + 1)); printf '%s\\n' "$a" >"$HBTEST_DIR/arg.$i"; done; printf '%s\\n' "$i" >"$HBTEST_DIR/argc"\n` +
          `printf '%s\\n' '${said.replace(/'/g, "'\\''")}'\nexit 1\n`,
      );
      const argvOf = () => Array.from({ length: Number(readFileSync(join(c.rec, 'argc'), 'utf8')) }, (_, i) => readFileSync(join(c.rec, `arg.${i + 1}`), 'utf8').replace(/\n$/, ''));
      let r = await run(c, sh, { args: ['--now'] });
      assert.is(r.code, 1, c.log());
      assert.is(c.outcomes().at(-1), `error model gpt-retired refused: ${said.slice(0, 160)}; the next wake uses gpt-5.5`);
      let a = argvOf();
      assert.is(a[a.indexOf('--model') + 1], 'gpt-retired');
      if (harness === 'claude-code') assert.is(a[a.indexOf('--fallback-model') + 1], 'gpt-5.5');
      r = await run(c, sh, { args: ['--now'] });
      a = argvOf();
      assert.is(a[a.indexOf('--model') + 1], 'gpt-5.5');
      assert.not.ok(a.includes('--fallback-model'), a.join(' '));
      assert.ok(a.includes('--'), 'the prompt separator is still there');
      assert.match(a.at(-1)!, /\nModel: gpt-5\.5, the fallback \(gpt-retired was refused\)(\n|$)/);
      // Fallen back once: the same words again are logged, nothing more is switched.
      assert.is(c.outcomes().at(-1), `error model gpt-5.5 refused: ${said.slice(0, 160)}`);
      // The record names the refused model; for another model it means nothing.
      const v = validateSpec({ ...JSON.parse(JSON.stringify(c.spec)), agent: { ...c.spec.agent, model: 'gpt-5.4' } });
      assert.is(fallbackInUse(c.state, v.spec!), null, 'status: not in use for another model');
      assert.ok(fallbackInUse(c.state, c.spec)?.startsWith('the wakes run the fallback model gpt-5.5: the client refused gpt-retired at '));
    });
  }
}

// The model check reads only this wake's output (the wrapper's hb_wakeout, shared with the
// limit scan): an earlier wake's refusal, even on a torn last line that this wake's start
// line completes, is not this wake's.
for (const sh of SHELLS) {
  test(`${sh.name}: a refusal an earlier wake printed (its last line torn) is not this wake's: fail 1, no model line`, async () => {
    const c = makeCase({ spec: { agent: { harness: 'codex', model: 'gpt-retired', fallbackModel: 'gpt-5.5' }, timeout: '4s', killAfter: '1s' } });
    const said = "The 'gpt-retired' model is not supported when using Codex with a ChatGPT account.";
    // The first run prints the refusal on stderr with no final newline and succeeds; the next fails with other words.
    writeFileSync(c.bin, `#!${agentShell}\n${subscriptionAnswers()}if [ -f "$HBTEST_DIR/ran" ]; then echo 'something else broke'; exit 1; fi\n: >"$HBTEST_DIR/ran"\nprintf '%s' '${said.replace(/'/g, "'\\''")}' >&2\nexit 0\n`);
    let r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 0, c.log());
    r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 1, c.log());
    assert.is(c.outcomes().at(-1), 'fail 1');
    assert.ok(c.agentLog().includes(`${said}`), `the refusal is in agent.log, before this wake:\n${c.agentLog()}`);
    assert.not.ok(c.log().includes(said), "runtime.log holds none of the agent's output");
    // Torn: the refusal went to stderr (straight to agent.log, past the stream's parser), and
    // this wake's start line, copied there, completes its line.
    assert.match(c.agentLog(), new RegExp(`${said.replace(/[.()]/g, '\\$&')}\\d{4}-\\d\\d-\\d\\dT\\S+Z hbgen tst start wake 2 `), c.agentLog());
  });
}

test('hbgen status says the wakes run the fallback, after a wake the scheduler started was refused the model (stand-in systemctl and claude)', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } } });
  writeFileSync(h.bin, `#!/bin/sh\n${subscriptionAnswers()}echo "There's an issue with the selected model (opus). It may not exist or you may not have access to it. Run --model to pick a different model."\nexit 1\n`);
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.', model: 'opus', fallbackModel: 'sonnet' } });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  let s = await hb(h, 'status');
  // The agent row names the fallback the spec sets; no line says the wakes run it.
  assert.match(s.out, /\n {2}agent +claude-code: model opus, [^\n]*, fallback sonnet; /);
  assert.not.match(s.out, /run the fallback/);
  const n = names(h.spec);
  const w = spawnSync('/bin/sh', [n.wrapper], { env: {}, cwd: '/', encoding: 'utf8', timeout: 60_000 });
  assert.is(w.status, 1, w.stderr);
  assert.match(lines(n.log).at(-1)!, /^hbgen docs error model opus refused: There's an issue with the selected model \(opus\)\. .*; the next wake uses sonnet$/);
  s = await hb(h, 'status');
  assert.match(s.out, /ok {7}the wakes run the fallback model sonnet: the client refused opus at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(choose another agent\.model and run hbgen install to go back\)/);
});

test('spec: fallbackModel needs a preset and agent.model, and differs from it', () => {
  const base = { version: 1, name: 'x', repo: '/r', schedule: { scheduler: 'cron', every: '1h', hours: { start: '08:00', end: '18:00', timezone: 'UTC' } }, timeout: '10m', env: { HOME: '/h', PATH: '/usr/bin:/bin' } };
  const errs = (agent: Record<string, unknown>) => validateSpec({ ...base, agent: { bin: '/b', prompt: 'p', ...agent } }).errors ?? [];
  assert.equal(errs({ harness: 'claude-code', model: 'opus', fallbackModel: 'sonnet' }), []);
  assert.match(errs({ harness: 'command', model: 'opus', fallbackModel: 'sonnet' }).join('\n'), /agent\.fallbackModel: applies to the claude-code and codex presets only/);
  assert.match(errs({ harness: 'codex', fallbackModel: 'gpt-5.5' }).join('\n'), /agent\.fallbackModel: needs agent\.model/);
  assert.match(errs({ harness: 'claude-code', model: 'opus', fallbackModel: 'opus' }).join('\n'), /agent\.fallbackModel: is the same as agent\.model \("opus"\)/);
});

test.run();
