// needs root: it switches to other users (setpriv)
// The suite's own runner (test/run.mjs) as another user than root: it runs the suites that need
// no root and names the others with their reason; under CI=true it refuses at once, since CI
// must run every suite.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/cli.ts';

const asNobody = (argv: string[], env: NodeJS.ProcessEnv, timeout: number) =>
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv], { cwd: ROOT, encoding: 'utf8', timeout, env });

test('run as a normal user, the runner runs the suites that need no root, names each one it left out with its reason, and counts it skipped', () => {
  const r = asNobody([process.execPath, join(ROOT, 'test', 'run.mjs'), 'sha256', 'wrapper-rotate'], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' }, 120_000);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^start sha256\.test\.ts$/m);
  assert.not.match(r.stdout, /^start wrapper-rotate/m, 'a suite that needs root did not start');
  assert.match(r.stdout, /^left out as [^:]+: 1 suite that needs root \(run `sudo npm test` for every suite\):\n {2}wrapper-rotate\.test\.ts: it makes each shell \/bin\/sh by a bind mount \(unshare -m\)$/m);
  const ran = /^done {2}sha256\.test\.ts: (\d+) passed, 0 failed/m.exec(r.stdout);
  assert.ok(ran, r.stdout);
  assert.is(r.stdout.trim().split('\n').at(-1), `${ran[1]} passed, 0 failed, 1 skipped`);
});

test('under CI=true a normal user is refused at once: CI runs every suite', () => {
  const r = asNobody([process.execPath, join(ROOT, 'test', 'run.mjs')], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', CI: 'true' }, 30_000);
  assert.is(r.status, 1, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0]!, /^npm test: CI runs every suite, and about half of them need root \(.+\): run it as root, or without CI=true/);
  assert.is(lines.at(-1), '0 passed, 1 failed');
  assert.not.match(r.stdout, /^start /m, 'no suite started');
});

test('`npm test` as a normal user under CI=true is refused before it builds (no build, no type-check)', () => {
  const r = asNobody(['npm', 'test', '--silent'], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', CI: 'true', npm_config_cache: '/tmp/hbtest-npm-cache-nobody', npm_config_update_notifier: 'false' }, 60_000);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stdout, /^npm test: CI runs every suite/m);
  assert.not.match(r.stdout + r.stderr, /build\.mjs|tsc -p/, 'neither the build nor the type-check ran');
});

// Every suite says whether it needs root, and one that runs as root only by its helpers says so:
// a suite with no mark must not reach for what only root may do.
test('a suite without a `// needs root:` line uses no scratch user, mount, runuser, setpriv or chown', () => {
  const dir = join(ROOT, 'test');
  const marked = /^\/\/ needs root: .+$/m;
  const rootOnly = /\bscratchUser\(|useradd|helpers\/(lifecycle-driver|crontab-driver|cronuser|crond|cron-daemon|systemd-user)|\brunuser\b|\bsetpriv\b|\bchownSync\(|\bunshare\b|mount --bind|'mount'/;
  const wrapperRun = /import \{[^}]*\brun\b[^}]*\} from '\.\/helpers\/wrapper\.ts'/;
  const bad = readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => {
      const s = readFileSync(join(dir, f), 'utf8');
      return !marked.test(s) && (rootOnly.test(s) || wrapperRun.test(s));
    });
  assert.equal(bad, [], 'add a `// needs root: WHY` line at the top of each');
});

test.run();
