// hbgen's own git calls outside the jail (install's first wake, init): the repository's
// programs never run (src/host/proc/git.ts). Each case has its control: plain git on the same
// repository runs the planted program.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitLayoutProblem, safeGit } from '../src/host/proc/git.ts';

const dir = mkdtempSync(join(tmpdir(), 'hbgen-gitsafe-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function repo(name: string): { repo: string; pwned: string; prog: string } {
  const r = join(dir, name);
  mkdirSync(r);
  spawnSync('git', ['init', '-q', r]);
  writeFileSync(join(r, 'a'), 'a\n');
  const pwned = join(dir, `${name}.pwned`);
  const prog = join(dir, `${name}.prog`);
  writeFileSync(prog, `#!/bin/sh\ntouch ${pwned}\nexit 1\n`, { mode: 0o755 });
  return { repo: r, pwned, prog };
}

test('core.fsmonitor in the repo config: plain git status runs it, safeGit does not', () => {
  const r = repo('fsm');
  spawnSync('git', ['-C', r.repo, 'config', 'core.fsmonitor', r.prog]);
  spawnSync('git', ['-C', r.repo, 'status', '--porcelain']);
  assert.ok(existsSync(r.pwned), 'control: plain git status did not run core.fsmonitor');
  rmSync(r.pwned);
  assert.match(safeGit(r.repo, ['status', '--porcelain', '--untracked-files=all']), /\?\? a/);
  assert.not.ok(existsSync(r.pwned), 'safeGit ran core.fsmonitor');
});

test('.git/commondir pointing at a config of the agent\'s: plain git status runs its fsmonitor; gitLayoutProblem refuses, safeGit pins the common dir', () => {
  const r = repo('cd');
  const evil = join(dir, 'evilgit');
  spawnSync('git', ['init', '-q', '--bare', evil]);
  writeFileSync(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${r.prog}\n`);
  writeFileSync(join(r.repo, '.git', 'commondir'), `${evil}\n`);
  const ctl = spawnSync('git', ['-C', r.repo, 'status', '--porcelain'], { encoding: 'utf8' });
  assert.ok(existsSync(r.pwned), `control: plain git did not follow commondir: ${ctl.stderr}`);
  rmSync(r.pwned);
  assert.match(gitLayoutProblem(r.repo), /commondir exists: it points git at another directory/);
  try {
    safeGit(r.repo, ['status', '--porcelain']);
  } catch {}
  assert.not.ok(existsSync(r.pwned), 'safeGit followed commondir');
});

test('a .git file (a link to a git directory elsewhere) is refused', () => {
  const r = join(dir, 'gf');
  mkdirSync(r);
  writeFileSync(join(r, '.git'), 'gitdir: /tmp/elsewhere\n');
  assert.match(gitLayoutProblem(r), /is not a folder/);
  assert.is(gitLayoutProblem(repo('plain').repo), '');
});

test.run();
