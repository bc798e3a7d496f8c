// The README's way to put `hbgen` on PATH: `npm install -g .` in the clone, after `npm ci`.
// Tried here into a temporary prefix, with the network out of reach (an unreachable
// registry, --offline and an empty npm cache: the route must need nothing from it) and
// with --ignore-scripts, since `prepare` would rebuild the clone's dist/ under the suites
// running beside this one (`npm ci` has built it already). The command found on PATH must
// be the clone's own CLI: the same bytes as bin/hbgen.cjs gives.
// `npm uninstall -g hbgen` then removes the link and nothing else.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HBGEN, ROOT } from './helpers/cli.ts';
import { tmp } from './helpers/tools.ts';

// The environment of a user's shell: none of the npm_* settings that `npm test` exports
// (they would override the flags below), and a registry nobody answers on.
const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const OFFLINE = ['--offline', '--registry', 'http://127.0.0.1:9/', '--no-audit', '--no-fund', '--loglevel', 'error'];

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw new Error(`cannot run npm (${r.error.message}); it comes with Node`);
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const distState = () =>
  readdirSync(join(ROOT, 'dist'), { recursive: true })
    .map(String)
    .sort()
    .map((f) => `${f} ${statSync(join(ROOT, 'dist', f)).mtimeMs}`)
    .join('\n');

test('npm install -g . puts the clone\'s hbgen on PATH offline, without rebuilding dist/', () => {
  const prefix = tmp('hbgen-prefix');
  const before = distState();
  const r = npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--cache', tmp('hbgen-npm-cache'), ...OFFLINE, '.'], ROOT);
  assert.is(r.code, 0, r.out);
  assert.is(realpathSync(join(prefix, 'lib/node_modules/hbgen')), realpathSync(ROOT), 'the global package is a link to the clone');
  assert.is(distState(), before, 'dist/ untouched');

  // From another folder, by name through PATH, as the README's quick start runs it.
  const spec = join(ROOT, 'fixtures/specs/example.json');
  const path = `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`;
  const viaPath = spawnSync('sh', ['-c', 'command -v hbgen && hbgen render "$1"', 'sh', spec], { cwd: tmp(), env: { ...env, PATH: path }, encoding: 'utf8' });
  const direct = spawnSync(process.execPath, [HBGEN, 'render', spec], { cwd: ROOT, encoding: 'utf8' });
  assert.is(direct.status, 0, direct.stderr);
  assert.is(viaPath.status, 0, viaPath.stderr);
  assert.is(viaPath.stdout, `${join(prefix, 'bin/hbgen')}\n${direct.stdout}`);
  assert.is(viaPath.stderr, direct.stderr);

  // The README's way back: the link goes, the clone stays.
  const u = npm(['uninstall', '-g', '--prefix', prefix, '--cache', tmp('hbgen-npm-cache'), ...OFFLINE, 'hbgen'], ROOT);
  assert.is(u.code, 0, u.out);
  assert.not.ok(existsSync(join(prefix, 'bin/hbgen')), 'hbgen is off PATH');
  assert.ok(existsSync(HBGEN), 'the clone is untouched');
  assert.is(distState(), before, 'dist/ untouched');
});

test('control: the same npm settings refuse anything that needs the registry', () => {
  // Proves that the route above would have failed had it needed a download.
  const prefix = tmp('hbgen-prefix');
  const r = npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--cache', tmp('hbgen-npm-cache'), ...OFFLINE, 'uvu'], tmp());
  assert.is.not(r.code, 0, r.out);
  assert.match(r.out, /ENOTCACHED|offline/i);
  assert.not.ok(existsSync(join(prefix, 'lib/node_modules/uvu')));
});

test.run();
