// What each agent client must be allowed inside the jail to run at all: the
// folders it writes under HOME, the files there it must never write (its settings, which
// would switch billing or widen its own permissions), and the hosts it talks to. Every entry
// was seen with the real clients, Claude Code 2.1.197 and codex-cli 0.171.0 (npm), logged
// out, offline, HOME a scratch folder, run as an unprivileged user, both bare under
// `strace -f -e trace=file,network` and inside srt 0.0.83 (@anthropic-ai/sandbox-runtime);
// the evidence is next to each entry. test/jail-clients.test.ts starts both real clients
// inside srt with a settings file built from these lists.
// Each preset's needs are in its descriptor (src/harness/<id>/index.ts, jail.needs), with the
// evidence next to each entry; this module asks the registry.
import { presetOf, type ClientNeeds } from './harness/registry.ts';
import type { Spec } from './spec.ts';

export type { ClientNeeds };
export type Harness = Spec['agent']['harness'];

/**
 * `env`: the agent's environment (the spec's env): CLAUDE_CONFIG_DIR and CODEX_HOME move the
 * clients' folders. `command` needs nothing of the jail.
 */
export function clientNeeds(harness: Harness, home: string, env: Readonly<Record<string, string>> = {}): ClientNeeds {
  return presetOf(harness)?.jail.needs(home, env) ?? { write: [], writeFiles: [], denyWrite: [], denyDirs: [], seed: [], hosts: [], env: {} };
}
