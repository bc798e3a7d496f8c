// What each agent client must be allowed inside the jail (issue 23) to run at all: the
// folders it writes under HOME, the files there it must never write (its settings and
// credentials, which would switch billing), and the hosts it talks to. Placeholder values:
// the jail-clients work replaces them with what the real clients were seen to need.
import { join } from 'node:path';

export type Harness = 'claude-code' | 'codex' | 'command';

export interface ClientNeeds {
  /** Folders (absolute) the client writes to run: sessions, caches, logs. */
  write: string[];
  /** Files or folders inside `write` it must never write (settings, credentials that bill). */
  denyWrite: string[];
  /** Hosts the client talks to (its API and its login's refresh). */
  hosts: string[];
}

export function clientNeeds(harness: Harness, home: string): ClientNeeds {
  switch (harness) {
    case 'claude-code':
      return { write: [join(home, '.claude')], denyWrite: [join(home, '.claude', 'settings.json')], hosts: ['api.anthropic.com'] };
    case 'codex':
      return { write: [join(home, '.codex')], denyWrite: [join(home, '.codex', 'config.toml')], hosts: ['api.openai.com', 'chatgpt.com'] };
    default:
      return { write: [], denyWrite: [], hosts: [] };
  }
}
