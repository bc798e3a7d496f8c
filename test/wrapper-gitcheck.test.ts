// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
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

const later = join(PATHS.bare, '..', 'gitcheck-later');
/**
 * tools(), but with a find whose clock is 15 minutes ahead: a wake that runs "minutes
 * later" than the one before it. Only `-cmin -N` reads the clock (files changed less than N
 * minutes before now+15, which for files of the past is less than N-15 minutes ago, or
 * none at all); everything else goes to the real find as it is.
 */
function laterTools(): string {
  if (!existsSync(later)) {
    mkdirSync(later, { recursive: true });
    for (const t of readdirSync(tools().path)) if (t !== 'find') symlinkSync(join(made, t), join(later, t));
    writeFileSync(
      join(later, 'find'),
      `#!/bin/sh
n=$#
while [ "$n" -gt 0 ]; do
  a=$1
  shift
  n=$((n - 1))
  if [ "$a" = -cmin ]; then
    m=\${1#-}
    shift
    n=$((n - 1))
    set -- "$@" -cmin "-$((m > 15 ? m - 15 : 0))"
  else
    set -- "$@" "$a"
  fi
done
exec ${JSON.stringify(join(PATHS.bare, 'find'))} "$@"
`,
      { mode: 0o755 },
    );
  }
  return later;
}

function jailed(path?: string): Case {
  const t = tools();
  const c = makeCase({ path: path ?? t.path, spec: { sandbox: { bin: t.srt } } });
  // The repo is a git repository (a .git folder, as git init makes it).
  mkdirSync(join(c.repo, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(c.repo, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  writeFileSync(join(c.repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return c;
}

/** The agent's sh that makes DIR a git directory as `git init --bare` lays it out (git's own test: HEAD beside objects/ and refs/). */
const BARE = (dir: string) => `mkdir -p ${dir}/objects ${dir}/refs/heads ${dir}/hooks && printf 'ref: refs/heads/main\\n' >${dir}/HEAD`;

const CASES: [string, string, RegExp | null][] = [
  ['a nested repository as git init makes it, with a user and a remote (no program)', "mkdir -p sub/.git/hooks && printf '[core]\\n\\tbare = false\\n[user]\\n\\tname = a\\n[remote \"origin\"]\\n\\turl = https://example.invalid/x.git\\n' >sub/.git/config && : >sub/.git/hooks/pre-commit.sample && echo x >sub/file\n", null],
  ['.git/commondir written (git then reads another directory\'s config and hooks)', "printf '%s\\n' /tmp/elsewhere >.git/commondir\n", /^error tampered git \.git, \.git\/commondir or \.git\/gitdir points elsewhere than before the wake$/],
  ['a nested repository made during the wake with core.fsmonitor', "mkdir -p sub/.git && printf '[core]\\n\\tfsmonitor = /tmp/x\\n' >sub/.git/config\n", /^error tampered git \.\/sub\/\.git\/config sets core\.fsmonitor$/],
  ['the same, spelt `[Core] FSMonitor = …` on one line, and its mtime set back a year', "mkdir -p a/b/c/d/.git && printf '[Core] FSMonitor = /tmp/x\\n' >a/b/c/d/.git/config && touch -t 202001010000 a/b/c/d/.git/config\n", /^error tampered git \.\/a\/b\/c\/d\/\.git\/config sets core\.fsmonitor$/],
  ['a `!` alias and core.hooksPath in a nested config', "mkdir -p sub/.git && printf '[alias]\\n\\tst = !sh -c evil\\n[core]\\n\\thooksPath = /tmp/h\\n' >sub/.git/config\n", /^error tampered git \.\/sub\/\.git\/config sets alias\.st; \.\/sub\/\.git\/config sets core\.hookspath$/],
  ['a filter driver and core.sshCommand in a nested config.worktree', "mkdir -p sub/.git && printf '[filter \"x\"]\\n\\tclean = evil\\n[core]\\n\\tsshCommand = evil\\n' >sub/.git/config.worktree\n", /^error tampered git \.\/sub\/\.git\/config\.worktree sets filter\.\*\.clean; \.\/sub\/\.git\/config\.worktree sets core\.sshcommand$/],
  ['a hook in a nested repository', "mkdir -p sub/.git/hooks && printf '#!/bin/sh\\nevil\\n' >sub/.git/hooks/post-checkout\n", /^error tampered git a hook \.\/sub\/\.git\/hooks\/post-checkout$/],
  ['a nested .git file pointing at a git directory elsewhere', "mkdir -p sub && printf 'gitdir: /tmp/evil\\n' >sub/.git\n", /^error tampered git \.\/sub\/\.git links to a git directory elsewhere$/],
  // A bare repository (git init --bare: HEAD, objects/, refs/, config, no .git anywhere):
  // the person's `git log` there runs its pager.
  ['a bare repository with core.pager', `${BARE('docs-site')} && printf '[core]\\n\\tbare = true\\n\\tpager = /tmp/x\\n' >docs-site/config\n`, /^error tampered git \.\/docs-site\/config sets core\.pager$/],
  ['a bare repository with log.showSignature and gpg.program', `${BARE('site.git')} && printf '[log]\\n\\tshowSignature = true\\n[gpg]\\n\\tprogram = /tmp/x\\n' >site.git/config\n`, /^error tampered git \.\/site\.git\/config sets log\.showsignature; \.\/site\.git\/config sets gpg\.program$/],
  ['a hook in a bare repository', `${BARE('b')} && printf '#!/bin/sh\\nevil\\n' >b/hooks/post-update\n`, /^error tampered git a hook \.\/b\/hooks\/post-update$/],
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

// Across wakes, and what the person had before: each wake's check compares what the git
// directories hold after the agent with what they held before it (contents, not times).
const FSM = "printf '[core]\\n\\tfsmonitor = /tmp/x\\n'";
const STAGED: { what: string; wakes: [string, RegExp | null][]; before?: string }[] = [
  {
    what: 'a nested repository staged across two wakes: git init, .git renamed to dotgit and core.fsmonitor set; renamed back a wake later',
    wakes: [
      [`mkdir -p vendor/lib3 && ${BARE('vendor/lib3/dotgit')} && ${FSM} >vendor/lib3/dotgit/config\n`, /^error tampered git \.\/vendor\/lib3\/dotgit\/config sets core\.fsmonitor$/],
      ['mv vendor/lib3/dotgit vendor/lib3/.git\n', /^error tampered git \.\/vendor\/lib3\/\.git\/config sets core\.fsmonitor$/],
    ],
  },
  {
    what: 'the same with HEAD held back in the first wake (no git directory yet), written with the rename a wake later',
    wakes: [
      [`mkdir -p vendor/lib3/dotgit/objects vendor/lib3/dotgit/refs && ${FSM} >vendor/lib3/dotgit/config && echo x >vendor/lib3/f\n`, null],
      ["mv vendor/lib3/dotgit vendor/lib3/.git && printf 'ref: refs/heads/main\\n' >vendor/lib3/.git/HEAD\n", /^error tampered git \.\/vendor\/lib3\/\.git\/config sets core\.fsmonitor$/],
    ],
  },
  {
    what: 'a nested repository deep under a large folder (3000 files), staged across two wakes',
    before: 'node_modules',
    wakes: [
      [`d=node_modules/p1/lib/a/b/c/d/e/f && mkdir -p $d/dotgit/objects $d/dotgit/refs && ${FSM} >$d/dotgit/config && echo x >$d/g\n`, null],
      ["d=node_modules/p1/lib/a/b/c/d/e/f && mv $d/dotgit $d/.git && printf 'ref: refs/heads/main\\n' >$d/.git/HEAD\n", /^error tampered git \.\/node_modules\/p1\/lib\/a\/b\/c\/d\/e\/f\/\.git\/config sets core\.fsmonitor$/],
    ],
  },
  {
    what: "the person's own nested repositories, untouched by the agent (a submodule's .git file, core.editor in a vendored clone, a bare one with a hook)",
    before: 'own',
    wakes: [['echo x >f\n', null], ['echo y >f\n', null]],
  },
];

/** What the person's repo holds before the first wake. */
function prepare(repo: string, what: string | undefined): void {
  if (what === 'node_modules') {
    for (let p = 0; p < 30; p++) {
      for (let d = 0; d < 10; d++) {
        const dir = join(repo, 'node_modules', `p${p}`, 'lib', `d${d}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 10; f++) writeFileSync(join(dir, `f${f}.js`), 'x\n');
      }
    }
  } else if (what === 'own') {
    mkdirSync(join(repo, 'mod'), { recursive: true });
    writeFileSync(join(repo, 'mod', '.git'), 'gitdir: ../.git/modules/mod\n');
    for (const d of ['vendor/x/.git/objects', 'vendor/x/.git/refs', 'mirror/objects', 'mirror/refs', 'mirror/hooks']) mkdirSync(join(repo, d), { recursive: true });
    writeFileSync(join(repo, 'vendor/x/.git/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(repo, 'vendor/x/.git/config'), '[core]\n\teditor = vim\n');
    writeFileSync(join(repo, 'mirror/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(repo, 'mirror/config'), '[core]\n\tbare = true\n');
    writeFileSync(join(repo, 'mirror/hooks/post-receive'), '#!/bin/sh\n', { mode: 0o755 });
  }
}

for (const sh of SHELLS) {
  for (const s of STAGED) {
    test(`${sh.name}: ${s.what}`, async () => {
      const c = jailed(laterTools());
      prepare(c.repo, s.before);
      for (const [i, [agent, want]] of s.wakes.entries()) {
        c.behave(agent);
        const r = await run(c, sh, { args: ['--now'] });
        const last = c.outcomes().at(-1) ?? '';
        if (want) {
          assert.match(last, want, `wake ${i + 1}: ${c.log()}`);
          assert.is(r.code, 78, r.stderr + c.log());
        } else {
          assert.match(last, /^(ok|quiet)$/, `wake ${i + 1}: ${c.log()}`);
          assert.is(r.code, 0, r.stderr + c.log());
        }
      }
    });
  }
}

test.run();
