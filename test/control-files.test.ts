// The control files kept out of the agent's commits: install adds hbgen's block to the
// repo's own .git/info/exclude, a real `git add -A` then leaves HEART.md, PROTOCOL.md,
// STATE.md, LOG.md and journal/ out, and stop takes the block away again, byte for byte.
// On the STAND-IN systemctl (test/helpers/standins.ts), with real git.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONTROL_FILES, excludeBlock } from '../src/host/install/exclude.ts';
import { hb, makeHost, rewriteSpec, type Host } from './helpers/lifecycle.ts';

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'p', GIT_AUTHOR_EMAIL: 'p@x', GIT_COMMITTER_NAME: 'p', GIT_COMMITTER_EMAIL: 'p@x' };
const git = (h: Host, ...args: string[]) => execFileSync('git', ['-C', h.repo, ...args], { env: GIT_ENV, encoding: 'utf8' });
const PERSON = '# the person\'s own patterns\n*.swp\n';

/** A host whose repo is a git repository with the control plane and some work in it. */
function gitHost(): Host {
  const h = makeHost('systemd-user');
  git(h, 'init', '-q', '-b', 'main');
  writeFileSync(join(h.repo, '.git/info/exclude'), PERSON);
  for (const f of ['PROTOCOL.md', 'STATE.md', 'LOG.md']) writeFileSync(join(h.repo, f), `${f}\n`);
  mkdirSync(join(h.repo, 'journal'));
  writeFileSync(join(h.repo, 'journal/2026-12-03.md'), 'Did: x\n');
  writeFileSync(join(h.repo, 'work.txt'), 'the work\n');
  return h;
}

test('install adds the block to .git/info/exclude (shown in the panel), git add -A leaves the control files out, stop removes only the block', async () => {
  const h = gitHost();
  const exclude = join(h.repo, '.git/info/exclude');
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.ok(r.out.includes(`  ${exclude}  hbgen's block added: /HEART.md /PROTOCOL.md /STATE.md /LOG.md /journal/ (so the agent's \`git add -A\` leaves them out;`), r.out);
  assert.is(readFileSync(exclude, 'utf8'), PERSON + excludeBlock('docs'));
  git(h, 'add', '-A');
  assert.equal(git(h, 'diff', '--cached', '--name-only').split('\n').filter(Boolean), ['README', 'work.txt'], 'only the work is staged');
  assert.equal(git(h, 'status', '--porcelain', '--ignored').split('\n').filter((l) => l.startsWith('!!')).sort(), CONTROL_FILES.map((f) => `!! ${f}`).sort());

  const again = await hb(h, 'install', { yes: true });
  assert.match(again.out, /is already installed .* nothing changed/);
  assert.is(readFileSync(exclude, 'utf8'), PERSON + excludeBlock('docs'), 'one block, not two');

  const st = await hb(h, 'stop');
  assert.is(st.code, 0, st.err);
  assert.ok(st.out.includes(`removed hbgen's block from ${exclude}`), st.out);
  assert.is(readFileSync(exclude, 'utf8'), PERSON, "the person's file as it was");
});

test('a tracked control file is named (exclusion does not apply to it); "controlFiles": "commit" leaves the exclude file alone; a linked exclude file is refused', async () => {
  const h = gitHost();
  git(h, 'add', 'LOG.md');
  git(h, 'commit', '-q', '-m', 'log');
  const dry = await hb(h, 'install', { dryRun: true });
  assert.ok(dry.out.includes('  git already tracks LOG.md: exclusion does not apply to it; `git rm --cached -r LOG.md` stops tracking (the files stay)'), dry.out);
  assert.is(readFileSync(join(h.repo, '.git/info/exclude'), 'utf8'), PERSON, '--dry-run wrote nothing');

  rewriteSpec(h, { controlFiles: 'commit' });
  const c = await hb(h, 'install', { yes: true });
  assert.is(c.code, 0, c.err + c.out);
  assert.not.match(c.out, /info\/exclude/);
  assert.is(readFileSync(join(h.repo, '.git/info/exclude'), 'utf8'), PERSON);
  assert.is((await hb(h, 'stop')).code, 0);

  const l = gitHost();
  const target = join(l.root, 'elsewhere');
  writeFileSync(target, 'x\n');
  rmSync(join(l.repo, '.git/info/exclude'));
  symlinkSync(target, join(l.repo, '.git/info/exclude'));
  const refused = await hb(l, 'install', { yes: true });
  assert.is(refused.code, 1);
  assert.match(refused.err, /\.git\/info\/exclude is not a plain file \(a link\?\), so hbgen will not write through it; replace it by a plain file, or set "controlFiles": "commit"\n/);
  assert.is(readFileSync(target, 'utf8'), 'x\n');
  assert.not.ok(existsSync(join(l.home, '.config/systemd/user/hbgen-docs.timer')), 'nothing installed');
});

test.run();
