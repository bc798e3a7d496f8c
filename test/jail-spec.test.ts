// The jail's spec fields and policy: loopback and link-local hosts are refused in
// sandbox.allowHosts (the jail's proxy runs on the host), the credential files of
// src/jail-secrets.ts are hidden unless sandbox.allowRead names one, and the person's files
// in the repo (HEART.md, hbgen.json) and git's pointers are not writable.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateSpec } from '../src/spec.ts';
import { jailPolicy } from '../src/jail.ts';
import { SECRET_PATHS } from '../src/jail-secrets.ts';
import { jsonSchema } from '../src/schema.ts';
import { ROOT } from './helpers/cli.ts';

const base = () => JSON.parse(readFileSync(join(ROOT, 'fixtures/specs/example.json'), 'utf8'));
const withSandbox = (sandbox: object) => validateSpec({ ...base(), sandbox });

test('sandbox.allowHosts: every spelling of a loopback or link-local host is refused, in one sentence naming the field', () => {
  const loop = ['127.0.0.1', '127.1', '127.255.0.9', '2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', 'localhost', 'LOCALHOST', 'a.localhost', '*.localhost', 'localhost.', '169.254.169.254', '0.0.0.0', '::1', '[::1]', '::', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', 'ip6-localhost'];
  for (const h of loop) {
    const v = withSandbox({ allowHosts: [h] });
    assert.is(v.errors!.length, 1, `${h}: ${v.errors!.join(' | ')}`);
    assert.match(v.errors![0]!, /^sandbox\.allowHosts\[0\]: .* is this host's own loopback or a link-local address, which would let the agent reach every service listening on this machine through the jail's proxy; remove it/, h);
  }
  // Controls: routable names and addresses pass.
  for (const h of ['github.com', '*.npmjs.org', '192.0.2.2', '10.0.0.1', '128.0.0.1', 'localhost-proxy.example.com']) {
    assert.ok(withSandbox({ allowHosts: [h] }).spec, `${h}: ${withSandbox({ allowHosts: [h] }).errors?.join(' | ')}`);
  }
});

test('the credential files are hidden by default; sandbox.allowRead opens exactly the one it names (~/ or absolute); anything else is refused', () => {
  const home = base().env.HOME as string;
  const p = jailPolicy(withSandbox({}).spec!)!;
  for (const f of ['.git-credentials', '.config/git/credentials', '.npmrc', '.kube', '.config/gcloud', '.azure', '.cargo/credentials', '.cargo/credentials.toml', '.vault-token', '.pypirc', '.local/share/keyrings', '.password-store', '.ssh']) {
    assert.ok(p.denyRead.includes(join(home, f)), `${f} is readable in the jail`);
  }
  assert.is(SECRET_PATHS.length, new Set(SECRET_PATHS).size);
  const open = jailPolicy(withSandbox({ allowRead: ['~/.npmrc', join(home, '.kube')] }).spec!)!;
  assert.not.ok(open.denyRead.includes(join(home, '.npmrc')));
  assert.not.ok(open.denyRead.includes(join(home, '.kube')));
  assert.ok(open.denyRead.includes(join(home, '.pypirc')));
  assert.match(withSandbox({ allowRead: ['~/notes'] }).errors!.join('\n'), /^sandbox\.allowRead\[0\]: "~\/notes" is not one of the credential paths the jail hides by default \(~\/\.ssh, .*\); name one of them exactly, or remove it$/m);
  assert.match(withSandbox({ allowRead: ['npmrc'] }).errors!.join('\n'), /^sandbox\.allowRead\[0\]: must be an absolute path \(starting with "\/"\) or a path under HOME starting with "~\/", got "npmrc"$/m);
  assert.match(withSandbox({ allowRead: ['~/.kube/'] }).errors!.join('\n'), /^sandbox\.allowRead\[0\]: must be a normalized path; write "~\/\.kube"$/m);
  const schema = JSON.stringify(jsonSchema());
  assert.match(schema, /Credential paths of that default list the agent may read after all/);
});

test('the jail denies writes to HEART.md, hbgen.json and git\'s pointers in the repo', () => {
  const s = withSandbox({}).spec!;
  const p = jailPolicy(s)!;
  for (const f of ['HEART.md', 'hbgen.json', '.git/gitdir', '.git/info', '.git/config.worktree', '.git/worktrees', '.git/modules']) assert.ok(p.denyWrite.includes(join(s.repo, f)), f);
  // Not .git/commondir: srt would place an empty file there, and git cannot run with one.
  assert.not.ok(p.denyWrite.includes(join(s.repo, '.git/commondir')));
});

test.run();
