// hbgen init [DIR] (PRODUCT.md §7): the control plane (HEART.md, PROTOCOL.md, STATE.md,
// LOG.md, journal/) and a spec, hbgen.json, holding what this host can tell: the repo, the
// agent's real binary found on PATH, HOME, PATH, USER, LOGNAME, the scheduler, the time
// zone. The interval, the working hours and the timeout are the user's choice: on a
// terminal init asks for them one at a time; otherwise it leaves them out, so that the
// spec does not validate until they are set, and says what to fill in. It never
// overwrites a file.
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { renderHeartMd, renderJournalTemplateMd, renderLogMd, renderProtocolMd, renderStateMd } from '../gen/templates.ts';
import { checkBin } from '../host/facts.ts';
import { lstatOrNull } from '../host/fsx.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { findOnPath, runTool } from '../host/run.ts';
import { DAYS, DURATION, EVERY, seconds, validateSpec } from '../spec.ts';
import { isKnownZone } from '../zones.ts';

export interface InitArgs {
  dir?: string;
}

type Harness = 'claude-code' | 'codex';
interface Agent {
  harness: Harness;
  label: string;
  bin: string;
  /** Where PATH had it, when bin (its real path) differs. */
  via?: string;
  note?: string;
}

export const INIT_PROMPT = 'Read PROTOCOL.md and follow it: read HEART.md and STATE.md, do ONE chunk, record it, exit.';

const AGENTS: { harness: Harness; label: string; command: string }[] = [
  { harness: 'claude-code', label: 'Claude Code', command: 'claude' },
  { harness: 'codex', label: 'Codex', command: 'codex' },
];

// A path component that names a release: the real file behind a self-updating install
// (e.g. ~/.local/share/claude/versions/2.1.197) disappears at the next update.
const VERSIONED = /\/(versions?|releases?)\/|\/v?\d+\.\d+(\.\d+)?([-+][^/]*)?(\/|$)/;

/** The agent binaries on PATH, each resolved to its real file (walking PATH, no shell). */
export function findAgents(io: HostIO, home: string): Agent[] {
  const out: Agent[] = [];
  for (const a of AGENTS) {
    let onPath = findOnPath(a.command, io.env.PATH);
    let note: string | undefined;
    if (!onPath && a.command === 'claude') {
      // Claude Code's old local installer put the binary here and only an alias on PATH.
      const local = posix.join(home, '.claude/local/claude');
      if (findOnPath(local, '')) {
        onPath = local;
        note = `${local} (not on PATH; your shell may reach it through an alias, which schedulers do not have)`;
      }
    }
    if (!onPath) continue;
    let real = onPath;
    try {
      real = realpathSync(onPath);
    } catch {
      continue;
    }
    const agent: Agent = { harness: a.harness, label: a.label, bin: real };
    if (real !== onPath) {
      agent.via = onPath;
      if (VERSIONED.test(real) && !VERSIONED.test(onPath)) {
        // Keep the link the updater maintains; its target is pinned to one release.
        agent.bin = onPath;
        agent.note = `${onPath} links to ${real}, a path pinned to one release that the next update removes, so the spec keeps the link`;
      }
    }
    if (note) agent.note = note;
    out.push(agent);
  }
  return out;
}

/** launchd on macOS, systemd (user) where systemctl is on PATH, else cron. */
export function detectScheduler(io: HostIO, platform: string = process.platform): 'launchd' | 'systemd-user' | 'cron' {
  if (platform === 'darwin') return 'launchd';
  return findOnPath('systemctl', io.env.PATH) ? 'systemd-user' : 'cron';
}

/** The host's zone: TZ when it names a zone, else the one Node reads from the system. */
export function detectZone(io: HostIO): string | undefined {
  const tz = (io.env.TZ ?? '').replace(/^:/, '');
  if (tz && isKnownZone(tz)) return tz;
  const sys = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return sys && isKnownZone(sys) ? sys : undefined;
}

/** PATH with only absolute, normalized entries, each once (the spec refuses the rest). */
export function cleanPath(path: string | undefined): { path: string; dropped: string[] } {
  const keep: string[] = [];
  const dropped: string[] = [];
  for (const d of (path ?? '').split(':')) {
    const norm = posix.normalize(d).replace(/(.)\/$/, '$1');
    if (!d.startsWith('/') || norm !== d) {
      dropped.push(d === '' ? '(empty)' : d);
    } else if (!keep.includes(d)) {
      keep.push(d);
    }
  }
  if (keep.length === 0) keep.push('/usr/local/bin', '/usr/bin', '/bin');
  return { path: keep.join(':'), dropped };
}

export function specName(repo: string): string {
  const n = posix
    .basename(repo)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return n || 'agent';
}

// Timeouts offered for each interval: about half, and most of it (timeout + the default
// killAfter of 30s must stay below the interval).
const TIMEOUTS: Record<string, string[]> = {
  '5m': ['2m', '4m'],
  '10m': ['5m', '8m'],
  '15m': ['10m', '12m'],
  '20m': ['10m', '15m'],
  '30m': ['15m', '25m'],
  '1h': ['30m', '50m'],
  '2h': ['1h', '100m'],
  '3h': ['1h', '2h'],
  '4h': ['2h', '3h'],
  '6h': ['2h', '4h'],
  '8h': ['2h', '6h'],
  '12h': ['4h', '8h'],
  '24h': ['4h', '12h'],
};

/** Lines from a terminal, one question at a time; null at end of input. */
class Lines {
  private buf: string[] = [];
  private waiting: ((l: string | null) => void) | null = null;
  private closed = false;
  private rl;
  constructor(stdin: NodeJS.ReadableStream) {
    this.rl = createInterface({ input: stdin, terminal: false });
    this.rl.on('line', (l) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(l);
      } else this.buf.push(l);
    });
    this.rl.on('close', () => {
      this.closed = true;
      if (this.waiting) this.waiting(null);
    });
  }
  next(): Promise<string | null> {
    if (this.buf.length) return Promise.resolve(this.buf.shift()!);
    if (this.closed) return Promise.resolve(null);
    return new Promise((r) => (this.waiting = r));
  }
  close(stdin: NodeJS.ReadableStream) {
    this.rl.close();
    (stdin as NodeJS.ReadStream).pause?.();
  }
}

interface Question {
  title: string;
  choices: { label: string; value: string }[];
  custom: string;
  /** An error sentence for a custom value, or null when it is fine. */
  check: (v: string) => string | null;
}

/** Ask one question until it gets a usable answer; '' = decide later, null = input ended. */
async function ask(io: HostIO, lines: Lines, q: Question): Promise<string | null> {
  const menu = q.choices.map((c, i) => `  ${i + 1}) ${c.label}`).join('\n');
  const or = q.custom ? `, ${q.custom},` : '';
  io.err(`\n${q.title}\n${menu}\n${q.custom ? `  or type ${q.custom}\n` : ''}  (Enter: decide later) > `);
  for (;;) {
    const l = await lines.next();
    if (l === null) {
      io.err('\n');
      return null;
    }
    const a = l.trim();
    if (a === '') return '';
    const n = /^[0-9]+$/.test(a) ? Number(a) : NaN;
    if (n >= 1 && n <= q.choices.length) return q.choices[n - 1]!.value;
    const why = q.check(a);
    if (!why) return a;
    io.err(`  ${why}; answer with a number from 1 to ${q.choices.length}${or} or Enter > `);
  }
}

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

interface Choices {
  every?: string;
  start?: string;
  end?: string;
  days?: string[];
  timeout?: string;
  agent?: Agent;
}

async function interview(io: HostIO, zone: string | undefined, agents: Agent[]): Promise<Choices> {
  const lines = new Lines(io.stdin);
  const c: Choices = {};
  try {
    io.err('hbgen init: a few choices for hbgen.json, one at a time (Enter leaves one for later).\n');
    if (agents.length > 1) {
      const a = await ask(io, lines, {
        title: 'Which agent should the heartbeat run?',
        choices: agents.map((x) => ({ label: `${x.label}: ${x.bin}`, value: x.harness })),
        custom: '',
        check: (v) => `"${v}" is not one of the agents found`,
      });
      if (a === null) return c;
      if (a) c.agent = agents.find((x) => x.harness === a);
    }
    const every = await ask(io, lines, {
      title: 'How often should the agent wake during the working hours?',
      choices: ['15m', '30m', '1h', '2h'].map((v) => ({ label: `every ${v}`, value: v })),
      custom: `another interval (${EVERY.join(' ')})`,
      check: (v) => ((EVERY as readonly string[]).includes(v) ? null : `"${v}" is not an interval hbgen can schedule`),
    });
    if (every === null) return c;
    if (every) c.every = every;
    const where = zone ? ` (${zone} time)` : '';
    const start = await ask(io, lines, {
      title: `When do the working hours start${where}?`,
      choices: ['08:00', '09:00', '10:00'].map((v) => ({ label: v, value: v })),
      custom: 'another time as HH:MM',
      check: (v) => (HHMM.test(v) ? null : `"${v}" is not a time as HH:MM (00:00 to 23:59)`),
    });
    if (start === null) return c;
    if (start) c.start = start;
    const end = await ask(io, lines, {
      title: `When do they end${where}? (before the start: the window crosses midnight)`,
      choices: ['18:00', '20:00', '23:00', '24:00'].filter((v) => v !== start).map((v) => ({ label: v === '24:00' ? '24:00 (midnight)' : v, value: v })),
      custom: 'another time as HH:MM',
      check: (v) => (!HHMM.test(v) && v !== '24:00' ? `"${v}" is not a time as HH:MM (or 24:00)` : v === start ? 'that is the start time; the window would be empty' : null),
    });
    if (end === null) return c;
    if (end) c.end = end;
    const days = await ask(io, lines, {
      title: 'On which days?',
      choices: [
        { label: 'every day', value: '*' },
        { label: 'Monday to Friday', value: 'mon tue wed thu fri' },
      ],
      custom: `days separated by spaces (${DAYS.join(' ')})`,
      check: (v) => {
        const bad = v.split(/[\s,]+/).filter((d) => d && !(DAYS as readonly string[]).includes(d));
        return bad.length ? `"${bad[0]}" is not one of ${DAYS.join(' ')}` : null;
      },
    });
    if (days === null) return c;
    if (days && days !== '*') c.days = [...new Set(days.split(/[\s,]+/).filter(Boolean))].sort((a, b) => DAYS.indexOf(a as never) - DAYS.indexOf(b as never));
    const offered = c.every ? TIMEOUTS[c.every]! : ['10m', '25m'];
    const timeout = await ask(io, lines, {
      title: `How long may one wake run before it is stopped${c.every ? ` (less than ${c.every} minus 30s)` : ''}?`,
      choices: offered.map((v) => ({ label: v, value: v })),
      custom: 'another duration such as 20m',
      check: (v) => {
        if (!DURATION.test(v)) return `"${v}" is not a duration such as 20m`;
        if (c.every && seconds(v) + 30 >= seconds(c.every)) return `${v} plus the 30s grace is not shorter than ${c.every}`;
        return null;
      },
    });
    if (timeout) c.timeout = timeout;
    return c;
  } finally {
    lines.close(io.stdin);
  }
}

/** The spec as init writes it: detected values, the user's choices, nothing invented. */
export function initSpec(d: { repo: string; agent?: Agent; git: boolean; scheduler: string; zone?: string; env: Record<string, string> }, c: Choices): Record<string, unknown> {
  const agent: Record<string, unknown> = {};
  if (d.agent) {
    agent.harness = d.agent.harness;
    agent.bin = d.agent.bin;
    // codex exec refuses a folder outside a git repository unless told it is fine.
    if (d.agent.harness === 'codex' && !d.git) agent.args = ['--skip-git-repo-check'];
  }
  agent.prompt = INIT_PROMPT;
  const hours: Record<string, unknown> = {};
  if (c.start) hours.start = c.start;
  if (c.end) hours.end = c.end;
  if (d.zone) hours.timezone = d.zone;
  if (c.days) hours.days = c.days;
  const schedule: Record<string, unknown> = { scheduler: d.scheduler };
  if (c.every) schedule.every = c.every;
  schedule.hours = hours;
  const spec: Record<string, unknown> = { version: 1, name: specName(d.repo), repo: d.repo, agent, schedule };
  if (c.timeout) spec.timeout = c.timeout;
  spec.env = d.env;
  return spec;
}

export async function init(argv: InitArgs, io: HostIO): Promise<number> {
  const home = homeOf(io);
  const given = posix.resolve(io.cwd, argv.dir ?? '.');
  const st = lstatOrNull(given);
  if (st && !statSync(given).isDirectory()) throw new UserError([`${given} exists and is not a folder; give hbgen init the folder of the repository`]);
  if (!st) {
    try {
      mkdirSync(given, { recursive: true, mode: 0o755 });
    } catch (e) {
      throw new UserError([`cannot create ${given} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); create the folder first or choose another`]);
    }
  }
  // The repo is the git work tree's top (where every wake starts), else the folder itself.
  const dir = realpathSync(given);
  const git = await runTool(io, 'git', ['-C', dir, 'rev-parse', '--show-toplevel']);
  const top = git.code === 0 ? git.stdout.trim() : '';
  const inGit = top.startsWith('/');
  const repo = inGit ? realpathSync(top) : dir;
  const notes: string[] = [];
  if (repo !== dir) notes.push(`${dir} is inside the git repository ${repo}: the control plane and hbgen.json go to its top, where every wake starts`);

  const agents = findAgents(io, home);
  const { path, dropped } = cleanPath(io.env.PATH);
  if (dropped.length) notes.push(`left out of env.PATH: ${dropped.join(', ')} (only absolute folders are safe: a relative or empty entry lets the repo shadow tools)`);
  const user = io.env.USER || io.user;
  const env: Record<string, string> = { HOME: home, PATH: path };
  if (user) env.USER = user;
  if (io.env.LOGNAME || user) env.LOGNAME = io.env.LOGNAME || user;
  const scheduler = detectScheduler(io);
  const zone = detectZone(io);

  const specFile = posix.join(repo, 'hbgen.json');
  const specExists = lstatOrNull(specFile) !== null;
  let choices: Choices = {};
  if (!specExists && io.stdin.isTTY) choices = await interview(io, zone, agents);
  const agent = choices.agent ?? agents[0];

  // Files: never overwrite; report what was kept.
  const ctx = { name: specName(repo) };
  const wrote: string[] = [];
  const kept: string[] = [];
  const put = (rel: string, content: string) => {
    const p = posix.join(repo, rel);
    if (lstatOrNull(p)) {
      kept.push(rel);
      return;
    }
    try {
      writeFileSync(p, content, { flag: 'wx', mode: 0o644 });
      wrote.push(rel);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') kept.push(rel);
      else throw new UserError([`cannot write ${p} (${code ?? (e as Error).message}); check the folder's permissions`]);
    }
  };
  for (const [f, render] of [['HEART.md', renderHeartMd], ['PROTOCOL.md', renderProtocolMd], ['STATE.md', renderStateMd], ['LOG.md', renderLogMd]] as const) put(f, render(ctx));
  const journal = posix.join(repo, 'journal');
  const jst = lstatOrNull(journal);
  if (jst && !jst.isDirectory()) {
    kept.push('journal');
    notes.push(`${journal} exists and is not a folder, so journal/TEMPLATE.md was not written`);
  } else {
    if (!jst) mkdirSync(journal, { mode: 0o755 });
    put('journal/TEMPLATE.md', renderJournalTemplateMd(ctx));
  }
  const spec = initSpec({ repo, agent, git: inGit, scheduler, zone, env }, choices);
  put('hbgen.json', `${JSON.stringify(spec, null, 2)}\n`);

  // The report.
  const out: string[] = [];
  if (wrote.length) out.push(`hbgen init: wrote ${wrote.join(', ')} in ${repo}`);
  if (kept.length) out.push(`hbgen init: kept the existing ${kept.join(', ')} (init never overwrites a file)`);
  if (!specExists) {
    out.push('detected:');
    out.push(`  repo       ${repo}${inGit ? ' (git work tree)' : ' (not a git repository)'}`);
    if (agent) {
      out.push(`  agent      ${agent.label} (harness "${agent.harness}"): ${agent.bin}${agent.via && agent.via !== agent.bin ? ` (found as ${agent.via})` : ''}`);
      if (agent.note) notes.push(agent.note);
      const other = agents.filter((a) => a !== agent);
      for (const o of other) notes.push(`${o.label} is installed too (${o.bin}); to run it instead, set agent.harness to "${o.harness}" and agent.bin to that path`);
      if (agent.harness === 'codex' && !inGit) notes.push('codex exec refuses a folder outside a git repository, so agent.args holds --skip-git-repo-check; run `git init` and remove it if you prefer');
      const bin = checkBin(agent.bin, 'agent.bin', path, io);
      notes.push(...bin.problems);
    } else {
      out.push('  agent      none: neither claude nor codex is on PATH');
    }
    out.push(`  scheduler  ${scheduler}`);
    out.push(`  time zone  ${zone ?? 'unknown'}`);
    out.push(`  env        ${Object.keys(env).join(', ')} from this shell (the agent sees only these)`);
    for (const n of notes) out.push(`note: ${n}`);
    const v = validateSpec(spec);
    if (v.errors) {
      // The choices left to the user are explained below; anything else is printed as is.
      const other = v.errors.filter((e) => !/^(schedule\.every|schedule\.hours(\.start|\.end|\.timezone)?|timeout|agent\.(harness|bin)): required/.test(e));
      out.push(`${specFile} does not validate until you fill in (hbgen never guesses the interval, the working hours or the timeout):`);
      out.push(todo(spec, agent));
      for (const e of other) out.push(`  - ${e}`);
      out.push('Then preview with `hbgen render` and install with `hbgen install`.');
    } else {
      out.push(`hbgen.json is complete. Next: write your mission and priorities in HEART.md, preview with \`hbgen render\`, then \`hbgen install\`.`);
    }
  } else {
    for (const n of notes) out.push(`note: ${n}`);
    out.push(`hbgen init: ${specFile} already exists, so nothing was detected or asked; check it with \`hbgen render\``);
  }
  io.out(`${out.join('\n')}\n`);
  return 0;
}

function todo(spec: Record<string, unknown>, agent: Agent | undefined): string {
  const sch = spec.schedule as Record<string, unknown>;
  const hrs = sch.hours as Record<string, unknown>;
  const want: string[] = [];
  if (!agent) want.push('"agent.harness" ("claude-code" or "codex") and "agent.bin", the absolute path of the real executable (`command -v claude`, then `realpath` of it)');
  if (!sch.every) want.push(`"schedule.every": how often the agent wakes, one of ${EVERY.join(' ')}`);
  if (!hrs.start || !hrs.end) want.push('"schedule.hours": "start" and "end" as "HH:MM" (end "24:00" for midnight; an end before the start crosses midnight), optionally "days": ["mon", …]');
  if (!hrs.timezone) want.push('"schedule.hours.timezone": your IANA time zone, e.g. "Europe/Berlin"');
  if (!spec.timeout) want.push('"timeout": how long one wake may run, e.g. "25m" (plus killAfter, 30s by default, it must stay below every)');
  return want.map((w) => `  - ${w}`).join('\n');
}

