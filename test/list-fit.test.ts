// Item 6: `hbgen list` fits the terminal, one line per install, the last outcome
// cut with "…" (a billing error runs to 250 characters); `--json` keeps it whole. Through the
// built CLI (COLUMNS as a terminal's width; without one the outcome is cut at 60), the
// stand-in systemctl and a stand-in crontab first on PATH.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { table } from '../src/commands/list.ts';
import { names } from '../src/names.ts';
import { hbgen } from './helpers/cli.ts';
import { makeStub } from './helpers/crontab.ts';
import { makeHost } from './helpers/lifecycle.ts';

const stub = makeStub();
process.on('exit', () => stub.remove());
const LONG = `error billing: the client said it is logged in with an API key (ANTHROPIC_API_KEY), which bills per token, not your plan; log in with your subscription (claude, then /login) and remove the key from the environment of the wrapper and of your shell profile, then run hbgen wake`;

test('list: every line within COLUMNS, the outcome cut with …; without a width at most 60 characters of it; --json whole', () => {
  const h = makeHost('systemd-user', { stateDir: undefined });
  const env = { ...h.env, PATH: `${stub.dir}:${h.env.PATH}` };
  assert.is(hbgen(['install', h.specFile, '--yes'], { cwd: h.root, env }).code, 0);
  appendFileSync(join(names(h.spec).stateDir, 'runtime.log'), `2026-12-01T10:07:00Z hbgen docs ${LONG}\n`);
  for (const cols of [100, 140]) {
    const r = hbgen(['list'], { cwd: h.root, env: { ...env, COLUMNS: String(cols) } });
    assert.is(r.code, 0, r.stderr);
    const rows = r.stdout.split('\n').slice(0, 2);
    assert.match(rows[0]!, /^NAME +SCHEDULER +STATE +HBGEN +LAST OUTCOME +REPO +STATE FOLDER$/);
    assert.match(rows[1]!, /^docs +systemd-user +active +0\.2\.0 +error billing: .*… /, r.stdout);
    for (const l of rows) assert.ok([...l].length <= cols, `${[...l].length} > ${cols}: ${l}`);
  }
  const plain = hbgen(['list'], { cwd: h.root, env }).stdout.split('\n')[1]!;
  const outcome = /active {2}0\.2\.0 {2}(.*?…) /.exec(plain)?.[1];
  assert.is([...(outcome ?? '')].length, 60, plain);
  const js = JSON.parse(hbgen(['list', '--json'], { cwd: h.root, env }).stdout);
  assert.is(js[0].lastOutcome.detail, LONG.replace(/^error /, ''));
});

test('table(): cuts only what is over, keeps a short table as it is', () => {
  const row = { name: 'docs', scheduler: 'cron', state: 'stopped' as const, version: '0.2.0', lastOutcome: { outcome: 'ok', detail: '', time: '2026-12-01T10:07:00Z' }, repo: '/r', stateDir: '/s', entries: [] };
  const t = table([row], 200);
  assert.equal(t, table([row]));
  assert.not.match(t.join('\n'), /…/);
});

test.run();
