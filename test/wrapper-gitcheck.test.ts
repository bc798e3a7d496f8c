// The wrapper's check after a jailed wake (heartbeat/81-gitcheck): what the agent left git
// to run outside the jail ends the wake `error tampered git WHAT`, exit 78, in every shell of
// the matrix and on a PATH without flock, timeout and setsid. srt is a STAND-IN here (it runs
// the command after `--` as it is): these cases test the wrapper's own check, which sees what
// the agent wrote whatever the jail let through; test/jail-git.test.ts runs the real jail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS, SHELLS, type Case, makeCase, run } from './helpers/wrapper.ts';

const made = join(PATHS.bare, '..', 'gitcheck-tools');
/** PATHS.bare with stand-ins for the tools the wrapper asks srt to find (bwrap, socat, rg) and a stand-in srt. */
function tools(): { path: string; srt: string } {
  if (!existsSync(made)) {
    mkdirSync(made, { recursive: true });
    for (const t of readdirSync(PATHS.bare)) symlinkSync(join(PATHS.bare, t), join(made, t));
    for (const t of ['bwrap', 'socat', 'rg']) writeFileSync(join(made, t), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(made, 'srt'), '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n', { mode: 0o755 });
  }
  return { path: made, srt: join(made, 'srt') };
}

function jailed(): Case {
  const t = tools();
  const c = makeCase({ path: t.path, spec: { sandbox: { bin: t.srt } } });
  // The repo is a git repository (a .git folder, as git init makes it).
  mkdirSync(join(c.repo, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(c.repo, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  writeFileSync(join(c.repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return c;
}

const CASES: [string, string, RegExp | null][] = [
  ['a nested repository as git init makes it, with a user and a remote (no program)', "mkdir -p sub/.git/hooks && printf '[core]\\n\\tbare = false\\n[user]\\n\\tname = a\\n[remote \"origin\"]\\n\\turl = https://example.invalid/x.git\\n' >sub/.git/config && : >sub/.git/hooks/pre-commit.sample && echo x >sub/file\n", null],
  ['.git/commondir written (git then reads another directory\'s config and hooks)', "printf '%s\\n' /tmp/elsewhere >.git/commondir\n", /^error tampered git \.git, \.git\/commondir or \.git\/gitdir points elsewhere than before the wake$/],
  ['a nested repository made during the wake with core.fsmonitor', "mkdir -p sub/.git && printf '[core]\\n\\tfsmonitor = /tmp/x\\n' >sub/.git/config\n", /^error tampered git \.\/sub\/\.git\/config sets core\.fsmonitor$/],
  ['the same, spelt `[Core] FSMonitor = …` on one line, and its mtime set back a year', "mkdir -p a/b/c/d/.git && printf '[Core] FSMonitor = /tmp/x\\n' >a/b/c/d/.git/config && touch -t 202001010000 a/b/c/d/.git/config\n", /^error tampered git \.\/a\/b\/c\/d\/\.git\/config sets core\.fsmonitor$/],
  ['a `!` alias and core.hooksPath in a nested config', "mkdir -p sub/.git && printf '[alias]\\n\\tst = !sh -c evil\\n[core]\\n\\thooksPath = /tmp/h\\n' >sub/.git/config\n", /^error tampered git \.\/sub\/\.git\/config sets alias\.st; \.\/sub\/\.git\/config sets core\.hookspath$/],
  ['a filter driver and core.sshCommand in a nested config.worktree', "mkdir -p sub/.git && printf '[filter \"x\"]\\n\\tclean = evil\\n[core]\\n\\tsshCommand = evil\\n' >sub/.git/config.worktree\n", /^error tampered git \.\/sub\/\.git\/config\.worktree sets filter\.\*\.clean; \.\/sub\/\.git\/config\.worktree sets core\.sshcommand$/],
  ['a hook in a nested repository', "mkdir -p sub/.git/hooks && printf '#!/bin/sh\\nevil\\n' >sub/.git/hooks/post-checkout\n", /^error tampered git a hook \.\/sub\/\.git\/hooks\/post-checkout$/],
  ['a nested .git file pointing at a git directory elsewhere', "mkdir -p sub && printf 'gitdir: /tmp/evil\\n' >sub/.git\n", /^error tampered git \.\/sub\/\.git links to a git directory elsewhere$/],
];

for (const sh of SHELLS) {
  for (const [what, agent, want] of CASES) {
    test(`${sh.name}: ${what}: ${want ? 'error tampered git, exit 78' : 'ok'}`, async () => {
      const c = jailed();
      c.behave(agent);
      const r = await run(c, sh, { args: ['--now'] });
      const last = c.outcomes().at(-1) ?? '';
      if (want) {
        assert.match(last, want, c.log());
        assert.is(r.code, 78, r.stderr + c.log());
      } else {
        assert.is(last, 'ok', c.log());
        assert.is(r.code, 0, r.stderr + c.log());
      }
    });
  }
}

test.run();
