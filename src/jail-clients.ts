// What each agent client must be allowed inside the jail to run at all: the
// folders it writes under HOME, the files there it must never write (its settings, which
// would switch billing or widen its own permissions), and the hosts it talks to. Every entry
// was seen with the real clients, Claude Code 2.1.197 and codex-cli 0.171.0 (npm), logged
// out, offline, HOME a scratch folder, run as an unprivileged user, both bare under
// `strace -f -e trace=file,network` and inside srt 0.0.83 (@anthropic-ai/sandbox-runtime);
// the evidence is next to each entry. test/jail-clients.test.ts starts both real clients
// inside srt with a settings file built from these lists.
import { join } from 'node:path';

export type Harness = 'claude-code' | 'codex' | 'command';

export interface ClientNeeds {
  /**
   * Folders (absolute) the client writes to run: sessions, caches, logs. They must EXIST
   * before the jail starts (create them, mode 700): srt skips an allowWrite path that does
   * not exist ("Skipping non-existent write path", srt -d), and the client then fails on a
   * read-only file system.
   */
  write: string[];
  /** Files (absolute) it rewrites in place that must stay writable, where they exist (srt binds them; nothing creates them). */
  writeFiles: string[];
  /** Files inside (or beside) `write` it must never write: settings that bill or widen permissions, its configuration, hooks and instructions. */
  denyWrite: string[];
  /**
   * Folders of `denyWrite` the jail makes (mode 700, empty) where they are missing, before it
   * starts, as it makes `write`: srt covers a missing denied path inside a writable folder
   * with a /dev/null placeholder, where the client expects a folder.
   */
  denyDirs: string[];
  /**
   * Files of `denyWrite` the jail must create (empty content given here, mode 600) when they
   * are missing, before it starts. srt binds a deny rule for a missing file inside a writable
   * folder to /dev/null, which the client cannot even read: codex 0.171 then stops at once
   * with "Error: Failed to read config file ~/.codex/config.toml: Permission denied (os
   * error 13)". An empty file is the client's own default (no settings).
   */
  seed: { path: string; content: string }[];
  /** Hosts the client talks to (its API and its login's refresh). Nothing else: no telemetry. */
  hosts: string[];
  /**
   * Variables the wrapper sets for the jailed client: they switch off the traffic to hosts
   * left out of `hosts` (telemetry, error reports, update checks), so the client does not
   * retry a refused host. Names only the client reads; no credential.
   */
  env: Record<string, string>;
}

/**
 * `env`: the agent's environment (the spec's env): CLAUDE_CONFIG_DIR and CODEX_HOME move the
 * clients' folders. With CLAUDE_CONFIG_DIR, Claude Code keeps everything there, .claude.json
 * too (seen: `CLAUDE_CONFIG_DIR=$HOME/cfg claude -p hi` made cfg/{.claude.json, projects,
 * sessions, telemetry, backups}); codex refuses a CODEX_HOME that does not exist.
 */
export function clientNeeds(harness: Harness, home: string, env: Readonly<Record<string, string>> = {}): ClientNeeds {
  switch (harness) {
    case 'claude-code':
      return claudeNeeds(home, env.CLAUDE_CONFIG_DIR);
    case 'codex':
      return codexNeeds(env.CODEX_HOME || join(home, '.codex'));
    default:
      return { write: [], writeFiles: [], denyWrite: [], denyDirs: [], seed: [], hosts: [], env: {} };
  }
}

/** Claude Code 2.1.197; `configDir`: the spec's CLAUDE_CONFIG_DIR, when it sets one. */
function claudeNeeds(home: string, configDir: string | undefined): ClientNeeds {
  if (configDir) {
    // .claude.json then lies inside the writable folder: denied, and seeded so that srt binds
    // the deny rule to a real file (claude rewrites it by temp file + rename: the rename onto
    // the read-only file fails, which claude survives as it does a read-only HOME).
    const json = join(configDir, '.claude.json');
    return {
      ...claudeNeeds(home, undefined),
      ...claudeState(configDir),
      denyWrite: [join(configDir, 'settings.json'), join(configDir, 'settings.local.json'), json],
      seed: [{ path: join(configDir, 'settings.json'), content: '{}\n' }, { path: json, content: '{}\n' }],
    };
  }
  return {
    ...claudeState(join(home, '.claude')),
    denyWrite: [
      // Settings: apiKeyHelper, env credentials, permissions.defaultMode, hooks (src/harness.ts
      // claudeSettingsIssues). settings.local.json is read at user level too.
      join(home, '.claude', 'settings.json'),
      join(home, '.claude', 'settings.local.json'),
      // ~/.claude.json holds `primaryApiKey`, which Claude Code 2.1.197 sends as an API key
      // (its bundle: `if(!e.primaryApiKey)return null;return{key:e.primaryApiKey,source:"/login
      // managed key"}`), and user-scope mcpServers: writable, it would switch billing. It lies
      // in HOME itself, which the jail never makes writable, and claude rewrites it by a temp
      // file + rename in HOME (strace: openat ~/.claude.json.tmp.PID.*, rename, mkdir
      // ~/.claude.json.lock). Denied, claude still runs: HOME read-only (chmod 555), `claude -p
      // hello` got its 7 EACCES on ~/.claude.json.tmp.* and still said "Not logged in" in 2 s.
      // Listed so that the panel says it; srt places nothing for it (its folder is read-only).
      join(home, '.claude.json'),
    ],
    // settings.json is read at every start; a /dev/null placeholder would be unreadable.
    // settings.local.json is optional and only created if the person has one.
    seed: [{ path: join(home, '.claude', 'settings.json'), content: '{}\n' }],
    // ~/.claude/.credentials.json stays WRITABLE: the subscription's OAuth refresh replaces
    // the access AND refresh token (the bundle: POST grant_type:"refresh_token" to TOKEN_URL
    // platform.claude.com/v1/oauth/token, then `{access_token:l,refresh_token:c=e,...}=a`:
    // the answer's refresh token replaces the old one) and writes them there; denied, the new
    // refresh token is lost and the login dies at the next expiry (not runnable offline). What it holds is an OAuth login, which the wrapper's billing check before every
    // wake reads again (`claude auth status`): a Console login written there is refused then.
    hosts: [
      // The API, and (logged out) the only host it resolved: strace -e sendto showed DNS
      // queries for api.anthropic.com only; inside srt, srt -d: "Allowed by config rule:
      // api.anthropic.com:443". Its feature flags and 1P events go there too.
      'api.anthropic.com',
      // OAuth token refresh: the bundle's TOKEN_URL:"https://platform.claude.com/v1/oauth/token".
      'platform.claude.com',
      // Left out: http-intake.logs.us5.datadoghq.com (telemetry, in the bundle), claude.ai
      // and claude.com (browser login pages, never used by -p), downloads.claude.ai (updates).
    ],
    // The bundle reads both (22 and 11 mentions); NONESSENTIAL_TRAFFIC switches off
    // telemetry, error reporting, the auto-updater and feedback.
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1' },
  };
}

/**
 * Claude Code's own folder (~/.claude, or CLAUDE_CONFIG_DIR) is split: what it keeps of its
 * runs is writable, everything else is not. The documented layout
 * (https://docs.anthropic.com/en/docs/claude-code/settings, "memory" and "slash commands")
 * puts the person's configuration there: settings.json, CLAUDE.md, agents/, commands/,
 * skills/, hooks and the statusline scripts that settings.json names (anywhere in the
 * folder), plugins/ with their own hooks; all of it runs or is read by the person's own
 * interactive Claude Code, outside the jail. The folder itself stays read-only, so a name
 * that is not listed here (a new script, a new plugin) cannot be written either.
 * CLAUDE_STATE is Claude Code 2.1.197's own list of the machine-local entries of that folder
 * (its bundle keeps it as a Set beside the config entries: ".claude.json",
 * ".credentials.json", "projects", "sessions", "todos", "shell-snapshots", "statsig",
 * "file-history", "ide", "logs", "backups", … "plans", "telemetry", "debug", "cache",
 * "session-env", "paste-cache", "image-cache"), the folders of it; strace of `claude -p`
 * showed writes only into projects/, sessions/, backups/, telemetry/, debug/ and
 * plugins/store/ (a built-in plugin's record: refused, and claude goes on).
 */
export const CLAUDE_STATE = ['projects', 'sessions', 'todos', 'shell-snapshots', 'statsig', 'file-history', 'ide', 'logs', 'backups', 'plans', 'telemetry', 'debug', 'cache', 'session-env', 'paste-cache', 'image-cache', 'tasks', 'traces', 'usage-data'];

function claudeState(dir: string): Pick<ClientNeeds, 'write' | 'writeFiles' | 'denyDirs'> {
  return {
    write: CLAUDE_STATE.map((d) => join(dir, d)),
    // Rewritten in place at every OAuth refresh (its writer opens the file itself, no temp
    // file and rename in the folder): see the note at `hosts`.
    writeFiles: [join(dir, '.credentials.json')],
    denyDirs: [],
  };
}

/**
 * codex's own folder is split the same way, the other way round: codex writes its state
 * databases (state_5.sqlite and the others, each with -wal and -shm made beside it as it
 * runs) in the folder itself, so the folder stays writable and its configuration is denied
 * by name (https://developers.openai.com/codex/config-reference, "AGENTS.md", "rules",
 * "custom prompts", "skills", "subagents"): config.toml, the global instructions AGENTS.md
 * and AGENTS.override.md, prompts/, rules/ (command approval rules), agents/.
 * skills/ stays writable: codex installs its built-in skills there (skills/.system) at every
 * start; a skill is instructions only, read by codex itself (NOT protected: see docs/threat-model.md).
 */
export const CODEX_CONFIG = { files: ['config.toml', 'AGENTS.md', 'AGENTS.override.md'], dirs: ['prompts', 'rules', 'agents'] };

/** codex-cli 0.171.0; `codexDir`: CODEX_HOME or ~/.codex. */
function codexNeeds(codexDir: string): ClientNeeds {
  return {
    // `codex exec --sandbox workspace-write -- hello` (HOME empty) created in ~/.codex itself
    // state_5.sqlite, logs_2.sqlite, thread_history_1.sqlite, memories_1, goals_1, queue_1
    // (each with -wal/-shm made as it runs), installation_id, .sandbox_migration, and the
    // folders sessions/, shell_snapshots/, thread-writer-locks/, skills/, tmp/arg0-linux/
    // (its sandbox helpers), .tmp/: the whole folder must be writable.
    write: [codexDir],
    writeFiles: [],
    // config.toml: model_provider, a provider's env_key / base_url, forced_login_method
    // (billing), and the rest of its configuration (CODEX_CONFIG).
    denyWrite: [...CODEX_CONFIG.files, ...CODEX_CONFIG.dirs].map((f) => join(codexDir, f)),
    denyDirs: CODEX_CONFIG.dirs.map((d) => join(codexDir, d)),
    // Empty files are codex's own default (no settings, no instructions). Not the override:
    // an AGENTS.override.md, even empty, would replace the person's AGENTS.md.
    seed: ['config.toml', 'AGENTS.md'].map((f) => ({ path: join(codexDir, f), content: '' })),
    // ~/.codex/auth.json stays WRITABLE: a ChatGPT login's tokens are refreshed at
    // auth.openai.com/oauth/token and written back; denied, the rotated refresh token is lost.
    // An API key written there is refused by the billing check before the next wake
    // (`codex login status` says "API key configured").
    hosts: [
      // The ChatGPT login's model endpoint (chatgpt.com/backend-api/codex, 7 mentions in the
      // binary); logged out, strace saw a DNS query for chatgpt.com.
      'chatgpt.com',
      // Token refresh: https://auth.openai.com/oauth/token in the binary.
      'auth.openai.com',
      // Left out on purpose: api.openai.com, the per-token API route (logged out codex asked
      // DNS for it 17 times and waited "Reconnecting... waiting for network"): with a ChatGPT
      // login the model is at chatgpt.com, and a key the agent slipped in cannot bill there.
      // Also left out: api.github.com (its release check, /repos/openai/codex/releases/latest),
      // ab.chatgpt.com (experiments).
    ],
    env: {},
  };
}
