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

