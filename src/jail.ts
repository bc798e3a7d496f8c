// The OS jail around the agent's whole process tree: what it lets the agent
// write, read and reach, computed from the spec alone (pure: install, status and the
// panel show exactly what render wrote into jail.json). The jail itself is
// @anthropic-ai/sandbox-runtime (`srt`): bubblewrap and a seccomp filter on Linux,
// sandbox-exec on macOS, and a proxy that lets through only the listed hosts.
import { posix } from 'node:path';
import { joinUnder } from './path-join.ts';
import { jailHoldsLine, jailOffLine } from './harness.ts';
import { clientNeeds } from './jail-clients.ts';
import { SECRET_PATHS, homePath } from './jail-secrets.ts';
import { type Names, names } from './names.ts';
import { WORKSPACE_COPIES, workspaceDir, workspaceOn } from './workspace.ts';
import { FACTS } from './scheduler-facts.ts';
import type { Spec } from './spec.ts';

/**
 * In the repo's own .git, what the jail keeps the agent from writing besides srt's own
 * .git/config and .git/hooks: files that point git at another directory's config and hooks
 * (gitdir, and commondir where it exists: a missing one cannot be denied, see below), the
 * info folder (attributes, excludes), the per-worktree config, and the folders holding
 * linked worktrees' and submodules' own git directories with their config and hooks. srt
 * 0.0.83 places a read-only empty file where a denied path is missing, which git reads as
 * empty: harmless for these, and fatal for a missing commondir ("fatal: failed to read
 * .git/commondir"), so that one is left to the wrapper's check after every wake
 * (heartbeat/81-gitcheck) and to hbgen's own git calls, which pin GIT_COMMON_DIR.
 */
export const GIT_DENY = ['.git/gitdir', '.git/info', '.git/config.worktree', '.git/worktrees', '.git/modules'];

/** The person's own files in the repo the agent must not rewrite: its mission, and the spec hbgen init writes there. */
export const REPO_DENY = ['HEART.md', 'hbgen.json'];

export interface JailPolicy {
  /** The srt executable: sandbox.bin, or '' for `srt` on the spec's PATH at wake time. */
  bin: string;
  /** Linux (bubblewrap) or macOS (sandbox-exec), from the scheduler: launchd runs on macOS. */
  platform: 'linux' | 'macos';
  /** The private tmp: emptied and made again by every wake; TMPDIR points there. */
  tmp: string;
  write: string[];
  denyWrite: string[];
  /** Secrets under HOME (SECRET_PATHS but sandbox.allowRead), root's home, and sandbox.denyRead. */
  denyRead: string[];
  /** The hosts the proxy lets through: the client's own and sandbox.allowHosts. */
  hosts: string[];
  /** The client's own folders the wrapper makes (mode 700) before srt starts: srt skips an allowWrite path that does not exist. */
  dirs: string[];
  /**
   * Files the wrapper creates only where nothing is (src/jail-clients.ts: a denied file that is
   * missing is one the client cannot read): a copy of `from` where that is a regular file,
   * else `content`, else nothing.
   */
  seed: { path: string; content?: string; from?: string }[];
  /** Symbolic links the wrapper makes in the client's own folder (path) to the person's entries (target), where the target exists. */
  links: { path: string; target: string }[];
  /** The client's login file in its own folder (path), written back after the wake into the person's (person) when it changed there and not in the person's folder. */
  logins: { path: string; person: string }[];
  /** Variables the client needs inside the jail (no telemetry or update traffic the proxy would refuse). */
  env: Record<string, string>;
}

/** Is the jail on for this spec? Off with `"sandbox": false`, and for a scheduler that runs off this host (a pod is the boundary there). */
export function jailOn(spec: Pick<Spec, 'sandbox' | 'schedule'>): boolean {
  return spec.sandbox !== false && !FACTS[spec.schedule.scheduler].offHost;
}

/**
 * The names srt 0.0.83 protects in the working folder (its DANGEROUS_FILES and
 * directories): where the repo has none, the jail shows a character device there.
 */
export const JAIL_PLACEHOLDERS = ['.bash_profile', '.bashrc', '.gitconfig', '.gitmodules', '.idea', '.mcp.json', '.profile', '.ripgreprc', '.vscode', '.zprofile', '.zshrc'];

const uniq = (xs: string[]): string[] => [...new Set(xs)];

/** The credential paths under `home` the jail hides: SECRET_PATHS, but those sandbox.allowRead opens. */
export function secretsHidden(home: string, allowRead: readonly string[]): string[] {
  const open = new Set(allowRead.map((p) => homePath(p, home)));
  return SECRET_PATHS.map((d) => joinUnder(home, d)).filter((p) => !open.has(p));
}

/**
 * The jail's private tmp, <cache>/hbgen/NAME/tmp: XDG's cache folder
 * (https://specifications.freedesktop.org/basedir-spec/latest/#variables) when the spec's env
 * sets it, else ~/.cache (~/Library/Caches for launchd). From the spec alone, jail on or off.
 */
export function jailTmp(spec: Spec): string {
  const home = spec.env.HOME!.replace(/(.)\/$/, '$1');
  const macos = FACTS[spec.schedule.scheduler].macOS === true;
  const cache = spec.env.XDG_CACHE_HOME?.startsWith('/') ? posix.normalize(spec.env.XDG_CACHE_HOME) : posix.join(home, macos ? 'Library/Caches' : '.cache');
  return posix.join(cache, 'hbgen', spec.name, 'tmp');
}

/** The jail's policy, or null when the jail is off. `n`: the spec's names, when the caller holds them already. */
export function jailPolicy(spec: Spec, n: Names = names(spec)): JailPolicy | null {
  if (!jailOn(spec)) return null;
  const sb = spec.sandbox === false || spec.sandbox === undefined ? {} : spec.sandbox;
  const home = spec.env.HOME!.replace(/(.)\/$/, '$1');
  const macos = FACTS[spec.schedule.scheduler].macOS === true;
  const need = clientNeeds(spec.agent.harness, home, spec.env);
  const tmp = jailTmp(spec);
  // With a workspace of its own the agent writes its clone, never the repo: the person's
  // working tree, index and .git stay read-only to it. The clone's own .git/config and hooks
  // are denied besides GIT_DENY: the wrapper fetches from the clone outside the jail.
  const ws = workspaceOn(spec) ? workspaceDir(spec) : null;
  const work = ws ?? spec.repo;
  // Other users' homes: root's is hidden. The folder holding HOME cannot be hidden with
  // HOME shown again: srt 0.0.83 binds an allowRead back read-only over the writable
  // folders below it (the private tmp, the client's folders), so the other homes under
  // it are left to their own permissions (0700 or 0750 by default); sandbox.denyRead
  // hides any of them by name.
  const others = home !== '/root' && !macos ? ['/root'] : [];
  // The client's own folder, inside the private tmp (ClientNeeds.own): made fresh by every
  // wake, its copies, links and login put there by the wrapper before srt starts.
  const own = need.own ? joinUnder(tmp, need.own.name) : null;
  const at = (name: string) => joinUnder(own!, name);
  const copies = need.own?.copies ?? [];
  return {
    bin: sb.bin ?? '',
    platform: macos ? 'macos' : 'linux',
    tmp,
    write: uniq([work, tmp, ...need.write, ...need.writeFiles]),
    denyWrite: uniq([
      ...need.denyWrite,
      ...copies.filter((c) => c.deny).map((c) => at(c.name)),
      ...(ws ? WORKSPACE_COPIES : REPO_DENY).map((f) => joinUnder(work, f)),
      ...(ws ? [...GIT_DENY, '.git/config', '.git/hooks'] : GIT_DENY).map((f) => joinUnder(work, f)),
      n.stateDir,
      joinUnder(home, '.config/systemd'),
      joinUnder(home, 'Library/LaunchAgents'),
      // Where a login shell and git read their settings: code the person's next shell runs.
      ...['.profile', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.gitconfig'].map((f) => joinUnder(home, f)),
    ]),
    denyRead: uniq([...secretsHidden(home, sb.allowRead ?? []), ...others, ...(sb.denyRead ?? [])]),
    hosts: uniq([...need.hosts, ...(sb.allowHosts ?? [])]),
    dirs: uniq([...need.write, ...need.denyDirs, ...(own ? [own] : [])]),
    seed: [
      ...need.seed,
      ...(need.own ? copies.map((c) => ({ path: at(c.name), ...(c.fresh ? {} : { from: joinUnder(need.own!.person, c.name) }), ...(c.seed === undefined ? {} : { content: c.seed }) })) : []),
    ],
    links: need.own ? need.own.links.map((l) => ({ path: at(l), target: joinUnder(need.own!.person, l) })) : [],
    logins: need.own?.login ? [{ path: at(need.own.login), person: joinUnder(need.own.person, need.own.login) }] : [],
    // The spec's own env wins (a person who sets one of these differently meant it), but for
    // the variable that points the client at its own folder: the spec's value names the
    // person's folder, which the jailed client must not write.
    env: { ...Object.fromEntries(Object.entries(need.env).filter(([k]) => !(k in spec.env))), ...(need.own ? { [need.own.env]: own!, ...(macos ? need.own.keychainEnv : {}) } : {}) },
  };
}

/**
 * srt's settings file (jail.json), rendered from the policy: the network allowlist is
 * strict (a host not listed is refused, never asked about). Byte-deterministic: keys in a fixed order, two-space JSON.
 */
export function jailSettings(p: JailPolicy): string {
  const settings = {
    network: { allowedDomains: p.hosts, deniedDomains: [], strictAllowlist: true },
    filesystem: {
      denyRead: p.denyRead,
      allowWrite: p.write,
      denyWrite: p.denyWrite,
    },
  };
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/** The policy as the panel and status print it: one line each for write, read and network. */
export function policyLines(p: JailPolicy): string[] {
  return [
    `write: ${p.write.join(', ')} (never: ${p.denyWrite.join(', ')}, your crontab)`,
    `read: everything except ${p.denyRead.join(', ')} (other users' homes: by their own permissions)`,
    `network: ${p.hosts.length ? p.hosts.join(', ') : 'none'}; nothing else`,
    'every process the agent starts (subagents, MCP servers, hooks, test runners) is in the same jail',
  ];
}

/** Paths under `base` written relative to it, the rest as given. */
function under(base: string, paths: string[]): { inside: string[]; outside: string[] } {
  const inside = paths.filter((x) => x.startsWith(`${base}/`)).map((x) => x.slice(base.length + 1));
  return { inside, outside: paths.filter((x) => !x.startsWith(`${base}/`)) };
}

/** `a/{b,c}` for paths that share a folder, so that a list reads in a line or two. */
export function grouped(paths: string[]): string[] {
  const byDir = new Map<string, string[]>();
  for (const x of paths) {
    const i = x.lastIndexOf('/');
    const dir = i > 0 ? x.slice(0, i) : '';
    byDir.set(dir, [...(byDir.get(dir) ?? []), x.slice(i + 1)]);
  }
  return [...byDir].flatMap(([dir, names]) => (dir && names.length > 1 ? [`${dir}/{${names.join(',')}}`] : names.map((n) => (dir ? `${dir}/${n}` : n))));
}

/** A path under the spec's HOME written ~/…, as the panel shows paths; any other path as it is. */
export function tildeOf(spec: Spec): (path: string) => string {
  const home = spec.env.HOME && spec.env.HOME !== '/' ? spec.env.HOME.replace(/\/$/, '') : '';
  return (x) => (home && x.startsWith(`${home}/`) ? `~${x.slice(home.length)}` : x);
}

/**
 * The policy as the settings panel shows it, in a few lines: paths of the repo relative to
 * it, paths of HOME as ~/…, what shares a folder grouped, the credential paths counted with
 * their first few named (jail.json, which the panel lists, holds every path; `hbgen status`
 * prints them all).
 */
export function policyPanelLines(spec: Spec, p: JailPolicy): string[] {
  const tilde = tildeOf(spec);
  const work = workspaceOn(spec) ? workspaceDir(spec) : spec.repo;
  const repo = under(work, p.denyWrite);
  // Only what lies in a folder it may write: the rest (your crontab, shell profiles, the
  // schedulers' folders) is outside every write path anyway; status and jail.json list all.
  const writable = (x: string) => p.write.some((w) => x === w || x.startsWith(`${w}/`));
  const never = [
    ...(repo.inside.length ? [`${grouped(repo.inside).join(', ')} of ${work === spec.repo ? 'the repo' : 'its clone'}`] : []),
    ...grouped(repo.outside.filter(writable).map((x) => (x === spec.stateDir ? 'the state folder' : tilde(x)))),
  ];
  const secrets = p.denyRead.filter((x) => tilde(x).startsWith('~/'));
  const others = p.denyRead.filter((x) => !secrets.includes(x));
  const named = secrets.slice(0, 2).map(tilde);
  const read = secrets.length ? `${secrets.length} credential paths (${named.join(', ')}${secrets.length > named.length ? ', …' : ''})` : '';
  return [
    `write: ${p.write.map((x) => (x === spec.repo ? 'the repo' : x === work ? `its clone ${tilde(x)} (not the repo)` : tilde(x))).join(', ')}${never.length ? `; never: ${never.join(', ')}` : ''}`,
    `read: all but ${[...others.map(tilde), read].filter(Boolean).join(' and ')}`,
    `network: ${p.hosts.length ? p.hosts.join(', ') : 'none'}; nothing else; all it starts is jailed too`,
  ];
}

/**
 * The jail as the panel and status show it: its first line says on or OFF (loud), the
 * next ones what it allows. `bin`: the srt found on this host, when known. `compact`: the
 * panel's few lines (policyPanelLines) instead of status's full lists.
 */
export function jailLines(spec: Spec, bin: string | null, compact = false): string[] {
  const p = jailPolicy(spec);
  if (!p) {
    if (FACTS[spec.schedule.scheduler].offHost) return ['none of hbgen\'s: the pod is the boundary (see docs/kubernetes.md)'];
    return [
      'OFF ("sandbox": false): THE AGENT RUNS WITH ALL YOUR RIGHTS: it can read ~/.ssh, write anywhere you can (your crontab, your shell profile, its own settings) and reach any host',
      jailOffLine(spec.agent.harness),
    ];
  }
  const how = p.platform === 'linux' ? (compact ? 'bubblewrap, seccomp and a proxy' : 'bubblewrap, a seccomp filter and a proxy') : 'sandbox-exec and a proxy';
  return [`on: ${bin ?? (p.bin || 'srt on env.PATH')} (${how}${compact ? '; jail.json' : '), settings in jail.json'}${compact ? ')' : ''}`, ...(compact ? policyPanelLines(spec, p) : [...policyLines(p), jailHoldsLine(spec.agent.harness)])];
}
