// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// `ping` sends the last output lines as the body on /fail (healthchecks.io shows a ping's
// body; its users expect the failure's output there), unless ping.body is false: that host
// is outside the jail's allowlist, and the person may not want the agent's output there. A local HTTP server on
// 127.0.0.1 records each request's method, path and body; the REAL rendered wrapper runs
// under dash and bash, with curl on PATH, and with wget (no curl) on a PATH of its own.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PATHS, join, makeCase, run, shell } from './helpers/wrapper.ts';
import { otherRuns } from '../src/host/install/panel.ts';
import type { Spec } from '../src/spec.ts';

const got: { method: string; url: string; body: string }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    got.push({ method: req.method ?? '', url: req.url ?? '', body });
    res.end('OK');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const port = (server.address() as AddressInfo).port;
server.unref();

/** A PATH with wget and no curl (and the tools the wrapper needs). */
function wgetPath(): string {
  const dir = join(makeCase({ install: false }).dir, 'wget-path');
  mkdirSync(dir, { recursive: true });
  for (const t of ['env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice', 'ls', 'touch', '[', 'test', 'echo', 'readlink', 'tr', 'wc', 'grep', 'sed', 'chmod', 'ln', 'pwd', 'printf', 'kill', 'true', 'false', 'cksum', 'tail', 'wget', 'timeout', 'flock', 'setsid']) {
    const src = ['/usr/bin', '/bin'].map((d) => join(d, t)).find((p) => existsSync(p));
    if (src) symlinkSync(src, join(dir, t));
  }
  return dir;
}

const FAIL = 'echo "first line of the failure"\necho "Error: the build broke at step 3"\nexit 1\n';

for (const [client, path] of [['curl', PATHS.full], ['wget', wgetPath()]] as const) {
  for (const sh of [shell('dash'), shell('bash')]) {
    test(`${client}, ${sh.name}: /fail carries the agent's last lines (labelled, from agent.log) and hbgen's (ending with the outcome) as a POST body; start and success send none`, async () => {
      const id = `p${got.length}-${client}-${sh.name}`;
      const c = makeCase({ path, spec: { ping: `http://127.0.0.1:${port}/hc/${id}` } });
      c.behave(FAIL);
      assert.is((await run(c, sh)).code, 1, c.log());
      c.behave('exit 0\n');
      assert.is((await run(c, sh)).code, 0, c.log());
      await new Promise((r) => setTimeout(r, 200));
      const mine = got.filter((g) => g.url.startsWith(`/hc/${id}`));
      const fail = mine.find((g) => g.url === `/hc/${id}/fail`);
      assert.ok(fail, JSON.stringify(mine));
      assert.is(fail!.method, 'POST');
      // The agent's lines from agent.log, each marked as the agent's (none can pass for hbgen's), then hbgen's own.
      assert.match(fail!.body, /^--- the agent's output, its last lines \(\S+\/agent\.log\) ---\nagent\| first line of the failure\nagent\| Error: the build broke at step 3\n--- hbgen's own lines \(\S+\/runtime\.log\) ---\n/);
      assert.match(fail!.body, / hbgen \S+ fail 1\n$/, 'ends with the outcome line');
      assert.ok(fail!.body.split('\n').length <= 33, 'at most 20 lines of the agent and 10 of hbgen');
      assert.not.match(fail!.body.split("--- hbgen's own lines")[1]!, /first line of the failure/, "runtime.log holds none of the agent's output");
      for (const g of mine.filter((x) => x !== fail)) assert.is(g.body, '', `${g.url} has no body`);
      assert.ok(mine.some((g) => g.url === `/hc/${id}`), 'the success ping');
      assert.not.ok(existsSync(join(c.state, 'ping.body')), 'the body file is removed after the ping');
    });
  }
}

test("ping.body false: /fail is sent empty (GET), under dash, and the panel's row says where the body would go otherwise", async () => {
  const id = `p${got.length}-nobody`;
  const c = makeCase({ spec: { ping: { url: `http://127.0.0.1:${port}/hc/${id}`, body: false } } });
  c.behave(FAIL);
  assert.is((await run(c, shell('dash'))).code, 1, c.log());
  await new Promise((r) => setTimeout(r, 200));
  const fail = got.find((g) => g.url === `/hc/${id}/fail`);
  assert.ok(fail, JSON.stringify(got.filter((g) => g.url.startsWith(`/hc/${id}`))));
  assert.is(fail!.method, 'GET');
  assert.is(fail!.body, '');
  const row = (spec: Spec) => otherRuns(spec).find(([k]) => k === 'ping')![1];
  assert.match(row({ ...c.spec, ping: `http://127.0.0.1:${port}/hc/x` }), /POSTing the wake's last 20 lines of agent output and hbgen's last 10 log lines to 127\.0\.0\.1:\d+, a host the jail does not gate/);
  assert.match(row(c.spec), /its \/fail after a failure, empty \(ping\.body false\)/);
});

test.run();
