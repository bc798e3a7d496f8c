// What hbgen knows of one harness preset (a client whose command line, login and words it
// knows), in one descriptor per preset: src/harness/<id>/index.ts exports `preset`, and
// src/harness/registry.ts lists them, one line each (docs/ARCHITECTURE.md "Adding a harness
// preset"). Types only: a descriptor imports nothing at run time but src/harness/argv.ts,
// so that every floor may read it (the spec, the credentials list, the billing rules, the
// renderers, install) with no import circle.

/** How an option in the client's --help touches its permission checks: "bypass" always, "value" for a bypassing value, "ok" never. */
export type PermissionKind = 'bypass' | 'value' | 'ok';

/** What the client must be allowed inside the jail to run at all (src/jail-clients.ts). */
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
  /**
   * The client's own folder in the jail: a folder of its own inside the private tmp, made
   * fresh by the wrapper for every wake (the private tmp is emptied first), whose path goes to
   * the client in `env` (CLAUDE_CONFIG_DIR, CODEX_HOME). Whatever the jailed client keeps of its
   * runs (shell snapshots, transcripts, file history, session scripts) lands there and dies
   * with the wake: nothing it writes is a file the person's own client later executes,
   * sources, restores or reads as instructions. The person's folder (`person`) is read-only
   * in the jail, entirely. Names are relative to the private folder.
   */
  own?: {
    /** The variable that points the client at its folder. */
    env: string;
    /** The folder's name inside the private tmp. */
    name: string;
    /** The person's own folder (the spec env's CLAUDE_CONFIG_DIR or CODEX_HOME, else the default under HOME). */
    person: string;
    /**
     * Files copied from the person's folder at every wake, before the jail starts (only a
     * regular file: never a link's target elsewhere or a FIFO); where the person has none,
     * `seed` is written instead (none: nothing). `deny`: the copy is read-only in the jail.
     * `fresh`: never the person's, always `seed`.
     */
    copies: { name: string; seed?: string; deny: boolean; fresh?: boolean }[];
    /** Entries of the person's folder shown read-only through a symbolic link, where the person has them. */
    links: string[];
    /**
     * The login file: copied in like `copies`, and after the wake, outside the jail, written
     * back into the person's file when the client changed it (an OAuth refresh rotates the
     * refresh token) and the person's own file did not change meanwhile.
     */
    login?: string;
    /** Variables set for the client on macOS only, where its login is in the Keychain, not a file. */
    keychainEnv?: Record<string, string>;
  };
  /** Hosts the client talks to (its API and its login's refresh). Nothing else: no telemetry. */
  hosts: string[];
  /**
   * Variables the wrapper sets for the jailed client: they switch off the traffic to hosts
   * left out of `hosts` (telemetry, error reports, update checks), so the client does not
   * retry a refused host. Names only the client reads; no credential.
   */
  env: Record<string, string>;
}

// The spec's fields a preset reads, written out rather than taken from src/spec.ts, whose
// schema is built from the registry (a type taken from it would be circular).
/** What a preset reads of agent to build its part of the command line. */
export interface PresetAgent {
  model?: string;
  fallbackModel?: string;
  effort?: string;
}
/** What a preset reads of the spec to find the files the client reads. */
export interface PresetSpec {
  repo: string;
  env: Readonly<Record<string, string | undefined>>;
  agent: { args: readonly string[] };
}

export interface HarnessPreset<Id extends string = string> {
  /** As the spec's agent.harness names it; also its folder, src/harness/<id>/. */
  id: Id;
  /** The client as a person names it ("Claude Code"): init's detection line, the panel. */
  label: string;

  // ---- the command line
  /**
   * The preset's flags, before the spec's own args (src/harness.ts harnessArgs). `jailed`: the
   * wrapper runs the agent inside the jail, so the preset lets the agent run shell commands.
   */
  argv(agent: PresetAgent, jailed: boolean): string[];
  /** The reasoning effort levels the client takes, as the client lists them (test/agents.test.ts compares). */
  efforts: readonly string[];
  /** The model and effort `hbgen init` pins. */
  pins: { model: string; effort: string };
  /** Every option of the client's --help that names a permission check, a bypass, the sandbox, approvals or trust. */
  permissionOptions: Readonly<Record<string, PermissionKind>>;
  /**
   * Why args[i] switches off this client's permission checks or sandbox, or undefined. Asked
   * for every harness (a `command` may start this client too).
   */
  bypassAt(args: readonly string[], i: number): string | undefined;
  /** The option whose inline JSON value is a settings object of Claude Code's form, checked as the settings files are (src/harness.ts settingsIssues). */
  settingsOption?: string;
  /** The panel's tools row, from the preset's own flags (`pick` returns a flag with its value, or ''). */
  tools(pick: (flag: string) => string): string;

  // ---- the jail
  jail: {
    /** The panel's clause, jail on: what the client's own permissions do inside the jail. */
    holds: string;
    /** The panel's line, jail off: what the agent cannot do unattended and how to allow it. */
    off: string;
    /** What the client needs inside the jail; `env` the agent's environment (the spec's env). */
    needs(home: string, env: Readonly<Record<string, string>>): ClientNeeds;
  };

  // ---- billing
  /** The metered credentials (src/credentials.ts names each) the client reads on its own. */
  credentials: readonly string[];
  billing: {
    /** The status command the client answers, after its binary. */
    statusArgv: readonly string[];
    /** The plan's name in a refusal: "not a <plan> login". */
    plan: string;
    /** How the user gets onto the plan, said after a refusal. */
    fix: string;
    /** What to do about a hit in a settings file, after "FILE: KEY is set, and ". */
    fileFix: string;
    /** The settings and config files checked before every wake (existing or not; order = report order). */
    files(spec: PresetSpec): string[];
    /** A folder of drop-in settings (every *.json in it) the wrapper and install scan too. */
    filesDir?: string;
    /**
     * The client's rules in VERDICT_AWK (src/billing-rules.ts): `rule`, its awk rules read per
     * line (each pattern tests `which == "<id>"`); `end`, the END statements that print the
     * verdict and exit (the first preset's run unguarded, after the others', each under
     * `if (which == "<id>")`). Unindented: the rules indent them.
     */
    verdict: { rule: string; end: string };
    /**
     * Its own scan of the files in FILES_AWK, per line (`l`), where the client's files are not
     * JSON: `begin` is added to BEGIN, `line` runs under `if (which == "<id>")` and the
     * rules go on to the next line after it. Absent: the JSON scan of Claude Code's settings.
     */
    filesScan?: { begin: string; line: string };
    /** install asks this first and refuses unless its stdout matches (a client too old for the status command). */
    precheck?: { argv: readonly string[]; stdout: RegExp; refusal: string };
    /** The verdict's method that needs the setup-token check (`claude auth status --text`, TOKEN_AWK) too. */
    tokenMethod?: string;
    /** Its client reads Claude Code's settings files, which install checks in full (src/host/install/claude-settings.ts). */
    claudeSettings?: boolean;
  };

  // ---- the wake's stream and messages (the runtime switches on these values)
  /** The runtime's stream parser (templates/partials/heartbeat/63-stream-awk.hbs, hb_stream). */
  stream: string;
  /** Which of the runtime's limit-message grammars reads a failed wake's output (86-limit-scan.hbs). */
  limit: string;
  model: {
    /** What the client prints when the model is refused, as fixed strings (grep -F). */
    refusals: readonly string[];
    /** Where install finds the client's list of models: a list of its own, or a command that prints its catalog as JSON ({models: [{slug}]}). */
    catalog: { list: readonly string[]; from: string; fullName?: RegExp } | { argv: readonly string[]; from: string };
    /**
     * What `hbgen init` writes from that catalog beside the pinned model: the tiers (fast,
     * general, strong) where the catalog ranks its models, and the pinned model's fallback;
     * `notes` say what it left out and why. Nothing is guessed from a model's name or prose.
     */
    initModels(catalog: readonly CatalogModel[], pinned: string): { models?: Record<string, string>; fallbackModel?: string; notes: string[] };
    /** The tier value that runs a subagent on the lead's own model, where the client has one. */
    inherit?: string;
  };

  // ---- init, install's seed checks, the spec
  /** The instruction files the client reads from the repo. */
  instructionFiles: readonly string[];
  /** Settings files whose permissions.deny rules install reads for rules that stop the protocol. */
  denyRuleFiles?(repo: string, home: string): string[];
  /** The least limits.memory its client starts with. */
  memoryMin?: string;
  detect: {
    /** Its command on PATH. */
    command: string;
    /** Where an old installer put it off PATH, below HOME. */
    offPath?: string;
  };
  /** What init adds outside a git work tree: the args and the note that says why. */
  outsideGit?: { args: string[]; note: string };
  /** On Kubernetes, with a Secret: the login file the pod copies into the client's folder, writable. */
  podLogin?: { key: string; init: string; dir(env: Readonly<Record<string, string>>, home: string): string };
}

/** One model of a client's catalog: its id, and the model the client names as its successor. */
export interface CatalogModel {
  slug: string;
  upgrade?: string;
  /** The reasoning levels the catalog gives the model (codex: supported_reasoning_levels), where it gives them. */
  efforts?: string[];
}
