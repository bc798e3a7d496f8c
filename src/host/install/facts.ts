// Host facts for install/resume (and, read-only, status): is the agent's binary a real
// executable file, can its #! interpreter be found on the spec's PATH, does the repo
// exist, are the scheduler's tools on PATH, is the state folder safe, does the invoking
// shell carry a metered credential, does the repo hold .env files with one. Each of these
// is a way a scheduled agent silently fails or bills per token: a binary that is only a
// shell alias, a #! interpreter missing from the scheduler's PATH, an inherited API key.
import { closeSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { harnessArgs } from '../../harness.ts';
import { names } from '../../names.ts';
import { FACTS } from '../../scheduler-facts.ts';
import { credential, knownCredentials, type Credential } from '../../credentials.ts';
import { COMMAND, presetOf } from '../../harness/registry.ts';
import type { Spec } from '../../spec.ts';
import { billingFilesRefusal, claudeSettingsRefusals } from './claude-settings.ts';
import { lstatOrNull } from '../fsx.ts';
import { hostZone, hostZoneProblem, plannedHostZone } from '../audit/clock.ts';
import { codeInRepoProblems, stateInRepoProblem } from './reach.ts';
import { yashPathProblem } from '../proc/shell.ts';
import { homeOf, type HostIO } from '../io.ts';
import { findOnPath, isExecutableFile, toolsPresent } from '../proc/tools.ts';

export interface BinFacts {
  path: string;
  realpath: string;
  /** The #! line's program (and for `#!/usr/bin/env X`, X as found on the spec's PATH). */
  interpreter?: string;
}

export interface Facts {
  home: string;
  bin: BinFacts;
  /** Refusals: one sentence each, naming the field or file and what to do. */
  problems: string[];
  /** Warnings for the panel. */
  caveats: string[];
  envFileWarnings: string[];
  /** The invoking environment's names that were checked for metered credentials. */
  checkedKeys: string[];
}

function readHead(path: string, n = 512): Buffer {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(n);
    const got = readSync(fd, b, 0, n, 0);
    return b.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Problems with agent.bin (or gate[0]) as a program a scheduler can exec; empty when fine. */
export function checkBin(bin: string, field: string, pathForInterp: string, io: HostIO): { facts: BinFacts; problems: string[] } {
  const facts: BinFacts = { path: bin, realpath: bin };
  const base = posix.basename(bin);
  const st = lstatOrNull(bin);
  if (!st) {
    return {
      facts,
      problems: [
        `${field}: ${bin} does not exist; if you start the agent through a shell alias or function, set ${field} to the absolute path of the real file that \`type -a ${base}\` or \`command -v ${base}\` shows (schedulers run no shell, so aliases and functions do not exist there)`,
      ],
    };
  }
  let real: string;
  try {
    real = realpathSync(bin);
  } catch {
    return { facts, problems: [`${field}: ${bin} is a symbolic link to a missing file; reinstall the program or point ${field} at the real file`] };
  }
  facts.realpath = real;
  const rst = statSync(real);
  if (rst.isDirectory()) return { facts, problems: [`${field}: ${bin} is a folder, not a program; point ${field} at the executable file`] };
  if (!rst.isFile()) return { facts, problems: [`${field}: ${bin} is not a regular file; point ${field} at the executable file`] };
  if (!isExecutableFile(real)) return { facts, problems: [`${field}: ${bin} is not executable; run \`chmod +x ${real}\`, or point ${field} at the real program`] };
  let head: Buffer;
  try {
    head = readHead(real);
  } catch {
    return { facts, problems: [`${field}: ${bin} cannot be read; check its permissions`] };
  }
  if (head[0] !== 0x23 || head[1] !== 0x21) return { facts, problems: [] };
  const nl = head.indexOf(0x0a);
  const line = head.subarray(2, nl === -1 ? head.length : nl).toString('utf8').trim();
  const words = line.split(/[ \t]+/).filter(Boolean);
  const interp = words[0] ?? '';
  if (!interp.startsWith('/') || !isExecutableFile(interp)) {
    return { facts, problems: [`${field}: ${bin} starts with "#!${line}", but ${interp || 'no interpreter'} is not an executable file; fix the first line or reinstall the program`] };
  }
  facts.interpreter = interp;
  if (posix.basename(interp) !== 'env') return { facts, problems: [] };
  // #!/usr/bin/env [-S] [-i] [NAME=VALUE…] X: X is looked up on the PATH the agent gets.
  let i = 1;
  while (i < words.length && (words[i]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
  const x = words[i];
  if (!x) return { facts, problems: [] };
  const found = findOnPath(x, pathForInterp);
  if (found) {
    facts.interpreter = found;
    return { facts, problems: [] };
  }
  const mine = findOnPath(x, io.env.PATH);
  const hint = mine ? `add ${posix.dirname(mine)} (where your shell finds ${x}) to env.PATH in the spec` : `install ${x} and add its folder to env.PATH in the spec`;
  return {
    facts,
    problems: [`${field}: ${bin} starts with "#!${line}", so it needs ${x} on the agent's PATH, but no folder of env.PATH (${pathForInterp}) holds ${x}; ${hint}`],
  };
}

/**
 * Credentials in the invoking environment that would bill this harness per token: those its
 * client reads (any credential for `command`, whose client hbgen does not know). The
 * wrapper's env -i strips them from the agent, but the user's own manual runs would not.
 */
export function meteredInShell(spec: Spec, io: HostIO): { found: Credential[]; checked: string[] } {
  const h = spec.agent.harness;
  const relevant = (c: Credential | undefined): c is Credential => !!c && (h === COMMAND || c.readBy.includes(h));
  const found = Object.keys(io.env)
    .filter((k) => (io.env[k] ?? '') !== '')
    .sort()
    .map(credential)
    .filter(relevant);
  const known = h === COMMAND ? [...knownCredentials(), '*_API_KEY'] : knownCredentials(h);
  return { found, checked: [...new Set([...known, ...found.map((c) => c.name)])].sort() };
}

/** One refusal per credential: what it is, why it bills, and what to do. */
export function billingRefusal(c: Credential): string {
  return `${c.name}, set in this shell, is ${c.what}: ${c.bills}; the wrapper strips it from the agent, but a run of the agent from this shell would not: run \`unset ${c.name}\` (and remove it from your shell profile), then install again`;
}

/** `<repo>/.env*` files that assign a metered key a value (an agent that loads .env bills per token). */
export function envFileWarnings(repo: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(repo).filter((f) => f.startsWith('.env')).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const f of entries) {
    const p = posix.join(repo, f);
    try {
      const st = statSync(p);
      if (!st.isFile() || st.size > 1 << 20) continue;
      const text = readHead(p, 1 << 20).toString('utf8');
      const keys = new Set<string>();
      for (const m of text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(\S?)/gm)) {
        if (credential(m[1]!) && m[2] !== '' && m[2] !== '#') keys.add(m[1]!);
      }
      if (keys.size) {
        out.push(
          `${p} sets ${[...keys].join(', ')}: an agent that loads the repo's .env (Claude Code has) would bill per token instead of your subscription; remove the key from that file or keep the file out of the repo`,
        );
      }
    } catch {
      // unreadable: nothing to report
    }
  }
  return out;
}

/** The agent's permission mode as its command line sets it (last flag wins); `jailed` as for harnessArgs. */
export function permissionMode(agent: Spec['agent'], jailed = false): string {
  const argv = [...harnessArgs(agent, jailed), ...agent.args];
  let mode = '';
  argv.forEach((a, i) => {
    if ((a === '--permission-mode' || a === '--sandbox' || a === '-s') && argv[i + 1]) mode = argv[i + 1]!;
    else if (a.startsWith('--permission-mode=') || a.startsWith('--sandbox=')) mode = a.slice(a.indexOf('=') + 1);
    else if (a === '--dangerously-skip-permissions') mode = 'bypassPermissions';
    else if (a === '--dangerously-bypass-approvals-and-sandbox' || a === '--yolo') mode = 'danger-full-access';
    else if (a === '--full-auto') mode = 'workspace-write (--full-auto)';
  });
  return mode || (agent.harness === 'command' ? 'not set by hbgen (harness "command": your args decide)' : 'the harness default');
}

/** Nothing hbgen runs (nor a #! interpreter of it), and not its state folder, may be where the agent writes (src/host/install/reach.ts). */
function repoReach(spec: Spec, bin: BinFacts, gate: BinFacts | undefined): string[] {
  const interpreters = [
    ...(bin.interpreter ? [{ field: 'agent.bin', path: bin.interpreter }] : []),
    ...(gate?.interpreter ? [{ field: 'gate[0]', path: gate.interpreter }] : []),
  ];
  const inRepo = stateInRepoProblem(spec);
  return [...codeInRepoProblems(spec, interpreters), ...(inRepo ? [inRepo] : [])];
}

const TCC_DIRS = ['Documents', 'Desktop', 'Downloads', 'Library/Mobile Documents'];

/**
 * The client's settings and config files: Claude's checked in full (a command may start
 * claude; codex never reads them), then the wrapper's own scan before every wake,
 * for Claude only when the fuller check found nothing (it names the same keys).
 */
function settingsRefusals(spec: Spec): string[] {
  const p = presetOf(spec.agent.harness);
  const claude = !p || p.billing.claudeSettings ? claudeSettingsRefusals(spec) : [];
  const hit = claude.length ? undefined : billingFilesRefusal(spec);
  return hit ? [...claude, hit] : claude;
}

/**
 * The facts of a scheduler that runs off this host (facts.offHost): the agent, its binary
 * and its login are in the scheduler's own place (a pod's image and Secret), so nothing here
 * is checked or refused.
 */
export function offHostFacts(spec: Spec, io: HostIO): Facts {
  return { home: homeOf(io), bin: { path: spec.agent.bin, realpath: spec.agent.bin }, problems: [], caveats: [], envFileWarnings: [], checkedKeys: [] };
}

export function hostFacts(spec: Spec, io: HostIO): Facts {
  const home = homeOf(io);
  const problems: string[] = [];
  const caveats: string[] = [];
  const n = names(spec);

  const metered = meteredInShell(spec, io);
  problems.push(...metered.found.map(billingRefusal));
  problems.push(...settingsRefusals(spec));

  const binCheck = checkBin(spec.agent.bin, 'agent.bin', spec.env.PATH!, io);
  problems.push(...binCheck.problems);
  const gateCheck = spec.gate ? checkBin(spec.gate[0]!, 'gate[0]', spec.env.PATH!, io) : null;
  if (gateCheck) problems.push(...gateCheck.problems);
  problems.push(...repoReach(spec, binCheck.facts, gateCheck?.facts));

  const repo = lstatOrNull(spec.repo) && statSync(spec.repo);
  if (!repo || !repo.isDirectory()) problems.push(`repo: ${spec.repo} does not exist or is not a folder; create or mount it, or fix "repo" in the spec`);

  const sd = lstatOrNull(n.stateDir);
  if (sd) {
    if (sd.isSymbolicLink()) problems.push(`stateDir: ${n.stateDir} is a symbolic link; hbgen writes the wrapper only into a real folder: replace the link with a folder, or change "stateDir"`);
    else if (!sd.isDirectory()) problems.push(`stateDir: ${n.stateDir} exists and is not a folder; move it away, or change "stateDir"`);
    else if (sd.mode & 0o022) problems.push(`stateDir: ${n.stateDir} is writable by other users, who could replace the wrapper; run \`chmod go-w ${n.stateDir}\``);
  }

  for (const p of ['/bin/sh', '/usr/bin/env']) if (!isExecutableFile(p)) problems.push(`${p} is missing; the wrapper needs it`);
  const yash = yashPathProblem(n.stateDir);
  if (yash) problems.push(yash);
  if (FACTS[spec.schedule.scheduler].hostClock) {
    const zone = hostZone(io.etc);
    const clash = hostZoneProblem(spec, zone);
    if (clash) problems.push(clash);
    else if (zone === null) caveats.push(`the host clock's zone cannot be read from /etc/localtime; the ${spec.schedule.scheduler} entries assume ${plannedHostZone(spec)}`);
  }
  const scheduler = spec.schedule.scheduler;
  for (const t of toolsPresent(scheduler, io.env.PATH).missing) {
    problems.push(t.missing ?? `schedule.scheduler is "${scheduler}" but ${t.name} is not on PATH; this host does not look like it runs ${scheduler}: choose another scheduler in the spec`);
  }

  const envWarnings = envFileWarnings(spec.repo);
  caveats.push(...envWarnings);
  if (process.platform === 'darwin' || FACTS[scheduler].macOS) {
    for (const p of [spec.repo, n.stateDir]) {
      const hit = TCC_DIRS.find((d) => p === posix.join(home, d) || p.startsWith(`${posix.join(home, d)}/`)) ?? (p.startsWith('/Volumes/') ? '/Volumes' : undefined);
      if (hit) {
        caveats.push(
          `${p} is under ${hit.startsWith('/') ? hit : `~/${hit}`}: macOS privacy controls (TCC) deny jobs started by launchd or cron there ("Operation not permitted"); grant /bin/sh Full Disk Access or move the repo`,
        );
        break;
      }
    }
  }
  return { home, bin: binCheck.facts, problems, caveats, envFileWarnings: envWarnings, checkedKeys: metered.checked };
}
