// The `-c` settings with which hbgen's own git calls (src/host/proc/git.ts) and the
// wrapper's fetch from the agent's clone (heartbeat/48-workspace) run: pure data, so that the
// generators may render them without reaching the host layer.

/** The `-c` settings that neutralise repository-chosen programs. */
export const GIT_SAFE_CONFIG = ['core.fsmonitor=', 'core.hooksPath=/dev/null', 'core.pager=cat', 'core.sshCommand=', 'diff.external=', 'credential.helper=', 'core.untrackedCache=false', 'protocol.allow=never', 'submodule.recurse=false', 'status.submoduleSummary=false'];

/**
 * The wrapper's fetch of the agent's branch from its clone into the person's repo (and its
 * reads there): the same, but the local transport allowed (a path is the "file" protocol,
 * https://git-scm.com/docs/git-config#Documentation/git-config.txt-protocolallow), objects
 * checked as they arrive, no submodule fetched, no gc or maintenance started.
 */
export const WORKSPACE_GIT_CONFIG = [...GIT_SAFE_CONFIG, 'protocol.file.allow=always', 'fetch.fsckObjects=true', 'fetch.recurseSubmodules=false', 'gc.auto=0', 'maintenance.auto=false'];


/**
 * The one list of repository config settings that choose no program git runs: the
 * wrapper's check after a jailed wake (heartbeat/81-gitcheck) names every other setting an
 * agent leaves in a git directory of the work tree. A list of what is harmless, not of what
 * is dangerous: git keeps adding settings that name a program (core.fsmonitor,
 * core.pager, core.editor, core.sshCommand, core.hooksPath, gpg.program and gpg.*.program,
 * diff, merge and filter drivers, credential.helper, sequence.editor, `!` aliases,
 * include.path and includeIf.*.path, ...: https://git-scm.com/docs/git-config#_variables),
 * so one it does not know stays named. `*` stands for a subsection (`[remote "origin"]`).
 */
export const GIT_HARMLESS_KEYS = [
  'core.repositoryformatversion', 'core.filemode', 'core.bare', 'core.logallrefupdates', 'core.ignorecase', 'core.precomposeunicode', 'core.symlinks', 'core.autocrlf', 'core.safecrlf', 'core.eol', 'core.quotepath', 'core.sharedrepository', 'core.checkstat', 'core.trustctime',
  'init.defaultbranch', 'extensions.objectformat', 'extensions.refstorage', 'extensions.worktreeconfig',
  'remote.*.url', 'remote.*.pushurl', 'remote.*.fetch', 'remote.*.push', 'remote.*.tagopt', 'remote.*.prune', 'remote.*.mirror',
  'branch.*.remote', 'branch.*.merge', 'branch.*.rebase', 'branch.*.pushremote', 'branch.*.description',
  'pull.rebase', 'pull.ff', 'push.default', 'push.autosetupremote', 'fetch.prune', 'commit.gpgsign', 'tag.gpgsign', 'gc.auto', 'merge.ff', 'merge.conflictstyle', 'status.showuntrackedfiles',
  'submodule.*.url', 'submodule.*.active', 'submodule.*.branch',
];

/** Sections none of whose settings chooses a program (names, colours, hints, encodings). */
export const GIT_HARMLESS_SECTIONS = ['user', 'author', 'committer', 'color', 'advice', 'i18n'];
