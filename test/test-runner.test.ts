// The suite's own runner (test/run.mjs) as another user than root: it names what it needs in
// one line and starts no suite, instead of failing most of them minutes later.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/cli.ts';

test('run as a normal user, the runner says it needs root and how to run it, and starts no suite', () => {
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, join(ROOT, 'test', 'run.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' },
  });
  assert.is(r.status, 1, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0]!, /^npm test: the suites need root \(.+\): run `sudo npm test`\.$/);
  assert.is(lines.at(-1), '0 passed, 1 failed');
  assert.not.match(r.stdout, /^start /m, 'no suite started');
});

test('`npm test` as a normal user asks for root before it builds (no build, no type-check)', () => {
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'npm', 'test', '--silent'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', npm_config_cache: '/tmp/hbtest-npm-cache-nobody', npm_config_update_notifier: 'false' },
  });
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stdout, /^npm test: the suites need root .*`sudo npm test`\.$/m);
  assert.not.match(r.stdout + r.stderr, /build\.mjs|tsc -p/, 'neither the build nor the type-check ran');
});

test.run();
