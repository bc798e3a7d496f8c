// hbgen init [DIR]: the control plane (HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/)
// and a spec, hbgen.json, holding what this host can tell: the repo, the agent's real
// binary found on PATH, HOME, PATH, USER, LOGNAME, the scheduler, the time zone. The
// interval, the working hours and the timeout are the user's choice: on a terminal init
// asks for them one at a time; otherwise it leaves them out, so that the spec does not
// validate until they are set, and says what to fill in. It never overwrites a file.
import { GIT_SAFE_CONFIG } from '../host/proc/git.ts';
import { CONTROL_FILES } from '../host/install/exclude.ts';
import { bundledSrt, onPath } from '../host/install/jail-probe.ts';
import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../errors.ts';
import { renderHeartMd, renderJournalTemplateMd, renderLogMd, renderProtocolMd, renderStateMd } from '../gen/templates.ts';
import { type Agent, cleanPath, detectScheduler, detectZone, findAgents } from '../host/install/detect.ts';
import { checkBin } from '../host/install/facts.ts';
import { lstatOrNull } from '../host/fsx.ts';
import { homeOf, type HostIO } from '../host/io.ts';
import { ask, Lines } from '../host/install/prompt.ts';
import { heartSetup } from '../host/heart/setup.ts';
import { runTool } from '../host/proc/tools.ts';
import { PRESET_PINS } from '../harness.ts';
import { PRESET_IDS, presetOf } from '../harness/registry.ts';
import { modelCatalog } from '../host/install/seed-checks.ts';
import type { SchedulerId } from '../schedulers.ts';
import { jsonSchema } from '../schema.ts';
import { DAYS, DURATION, EVERY, paddedClock, seconds, validateSpec } from '../spec.ts';

export interface InitArgs {
  dir?: string;
}

export const INIT_PROMPT = 'Read PROTOCOL.md and follow it: read HEART.md and STATE.md, do ONE chunk, record it, exit.';

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

// ------------------------------------------------------------------ the interview

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

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

interface Choices {
  /** The `command` harness: any other program, its bin and args filled in by the user. */
  command?: boolean;
  every?: string;
  start?: string;
  end?: string;
  days?: string[];
  timeout?: string;
  agent?: Agent;
  /** Where the agent works ("workspace"): asked in a git repository only. */
  workspace?: 'repo' | 'clone';
}

/** What one question of the interview needs; `c` collects the answers so far. */
interface Asking {
  io: HostIO;
  lines: Lines;
  zone: string | undefined;
  agents: Agent[];
  c: Choices;
  /** The repo's uncommitted changes (paths), or null outside a git repository (no workspace question then). */
  dirty: string[] | null;
}

/** One question: records its answer in `a.c`; false when the input ended (stop asking). */
type Step = (a: Asking) => Promise<boolean>;

const chooseAgent: Step = async ({ io, lines, agents, c }) => {
  // The presets found on PATH, and always `command`: any other program (hbgen.json then
  // says to fill in agent.bin and agent.args).
  const a = await ask(io, lines, {
    title: 'Which agent should the heartbeat run?',
    choices: [
      ...agents.map((x) => ({ label: `${x.label}: ${x.bin}`, value: x.harness as string })),
      { label: 'another program (harness "command": you fill in agent.bin and agent.args)', value: 'command' },
    ],
    custom: '',
    check: (v) => `"${v}" is not one of the agents listed`,
  });
  if (a === 'command') c.command = true;
  else if (a) c.agent = agents.find((x) => x.harness === a);
  return a !== null;
};

const chooseEvery: Step = async ({ io, lines, c }) => {
  const every = await ask(io, lines, {
    title: 'How often should the agent wake during the working hours?',
    choices: ['15m', '30m', '1h', '2h'].map((v) => ({ label: `every ${v}`, value: v })),
    custom: `another interval (${EVERY.join(' ')})`,
    check: (v) => ((EVERY as readonly string[]).includes(v) ? null : `"${v}" is not an interval hbgen can schedule`),
  });
  if (every) c.every = every;
  return every !== null;
};

const where = (zone: string | undefined) => (zone ? ` (${zone} time)` : '');

const chooseStart: Step = async ({ io, lines, zone, c }) => {
  const start = await ask(io, lines, {
    title: `When do the working hours start${where(zone)}?`,
    choices: ['08:00', '09:00', '10:00'].map((v) => ({ label: v, value: v })),
    custom: 'another time as HH:MM',
    check: (v) => (HHMM.test(v) || paddedClock(v) ? null : `"${v}" is not a time as HH:MM (00:00 to 23:59)`),
    normalize: (v) => paddedClock(v) ?? v,
  });
  if (start) c.start = start;
  return start !== null;
};

const chooseEnd: Step = async ({ io, lines, zone, c }) => {
  const end = await ask(io, lines, {
    title: `When do they end${where(zone)}? (before the start: the window crosses midnight)`,
    choices: ['18:00', '20:00', '23:00', '24:00'].filter((v) => v !== c.start).map((v) => ({ label: v === '24:00' ? '24:00 (midnight)' : v, value: v })),
    custom: 'another time as HH:MM',
    check: (v) => {
      const t = HHMM.test(v) || v === '24:00' ? v : paddedClock(v, true);
      return t === undefined ? `"${v}" is not a time as HH:MM (or 24:00)` : t === c.start ? 'that is the start time; the window would be empty' : null;
    },
    normalize: (v) => paddedClock(v, true) ?? v,
  });
  if (end) c.end = end;
  return end !== null;
};

const chooseDays: Step = async ({ io, lines, c }) => {
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
  if (days && days !== '*') c.days = [...new Set(days.split(/[\s,]+/).filter(Boolean))].sort((a, b) => DAYS.indexOf(a as never) - DAYS.indexOf(b as never));
  return days !== null;
};

const chooseTimeout: Step = async ({ io, lines, c }) => {
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
  return timeout !== null;
};

// The agent's own clone ("workspace": "clone"), recommended first when the person has work
// in progress in the repo: an agent's `git add -A` there would sweep it into its commit.
const chooseWorkspace: Step = async ({ io, lines, c, dirty }) => {
  if (dirty === null) return true;
  const clone = { label: `in a clone of its own, on branch hbgen/<name> that you merge when you like${dirty.length ? ` (recommended: the repo has ${dirty.length} uncommitted change${dirty.length === 1 ? '' : 's'}, e.g. ${dirty[0]})` : ''}`, value: 'clone' };
  const repo = { label: 'in the repo itself, in your working tree', value: 'repo' };
  const a = await ask(io, lines, {
    title: 'Where should the agent work?',
    choices: dirty.length ? [clone, repo] : [repo, clone],
    custom: '',
    check: (v) => `"${v}" is not one of the places listed`,
  });
  if (a === 'clone' || a === 'repo') c.workspace = a;
  return a !== null;
};

/** HEART.md to set up after the spec's questions: where it goes, init's template, how to write it. */
interface HeartToSetUp {
  path: string;
  template: string;
  write: (text: string) => void;
}

/**
 * The user's choices, asked one at a time on the terminal; the rest are left for later.
 * Then, unless the input ended, HEART.md's setup (src/host/heart/setup.ts) when init is
 * about to write it.
 */
async function interview(io: HostIO, zone: string | undefined, agents: Agent[], dirty: string[] | null, heart?: HeartToSetUp): Promise<Choices> {
  const a: Asking = { io, lines: new Lines(io.stdin), zone, agents, c: {}, dirty };
  try {
    io.err('hbgen init: a few choices for hbgen.json, one at a time (Enter leaves one for later).\n');
    let ended = false;
    for (const step of [chooseAgent, chooseEvery, chooseStart, chooseEnd, chooseDays, chooseTimeout]) {
      if (!(await step(a))) {
        ended = true;
        break;
      }
    }
    if (heart && !ended) await heartSetup(io, a.lines, heart.path, heart.template, heart.write);
    // Last, so that the answers before it keep their places.
    if (!ended) await chooseWorkspace(a);
    return a.c;
  } finally {
    a.lines.close(io.stdin);
  }
}

/**
 * HEART.md as init may set it up: none there, or init's template exactly as init wrote it
 * (nothing of the person's to lose); null for any other file, which init keeps.
 */
function heartToSetUp(repo: string, files: ReturnType<typeof fileWriter>): HeartToSetUp | null {
  const path = posix.join(repo, 'HEART.md');
  const template = renderHeartMd({ name: specName(repo) });
  const st = lstatOrNull(path);
  const untouched = st?.isFile() && st.size === Buffer.byteLength(template) && readFileSync(path, 'utf8') === template;
  if (st && !untouched) return null;
  return {
    path,
    template,
    write: (text) => {
      if (untouched && lstatOrNull(path)) rmSync(path);
      files.put('HEART.md', text);
    },
  };
}

// ------------------------------------------------------------------ the spec

/** The reserve init proposes: the morning's work keeps most of a 5-hour window and more of the week. */
export const INIT_RESERVE = { fiveHour: '30%', weekly: '40%' } as const;

/** The spec as init writes it: detected values, the user's choices, nothing invented. */
export function initSpec(d: { repo: string; agent?: Agent; git: boolean; scheduler: string; zone?: string; env: Record<string, string>; srt?: string | null; models?: InitModels }, c: Choices): Record<string, unknown> {
  const agent: Record<string, unknown> = {};
  if (c.command) agent.harness = 'command';
  else if (d.agent) {
    agent.harness = d.agent.harness;
    agent.bin = d.agent.bin;
    // A pinned model and effort (PRODUCT §8): the client's own default may change.
    agent.model = PRESET_PINS[d.agent.harness].model;
    agent.effort = PRESET_PINS[d.agent.harness].effort;
    // A client that refuses a folder outside a git repository unless told it is fine (its descriptor's outsideGit).
    const outside = presetOf(d.agent.harness)?.outsideGit;
    if (outside && !d.git) agent.args = [...outside.args];
  }
  agent.prompt = INIT_PROMPT;
  // The tiers and the fallback the client's own catalog gives (its descriptor's initModels).
  if (d.models?.fallbackModel) agent.fallbackModel = d.models.fallbackModel;
  if (d.models?.models) agent.models = d.models.models;
  const hours: Record<string, unknown> = {};
  if (c.start) hours.start = c.start;
  if (c.end) hours.end = c.end;
  if (d.zone) hours.timezone = d.zone;
  if (c.days) hours.days = c.days;
  const schedule: Record<string, unknown> = { scheduler: d.scheduler };
  if (c.every) schedule.every = c.every;
  schedule.hours = hours;
  // Editors complete and check the spec against the schema init writes next to it.
  const spec: Record<string, unknown> = { $schema: SCHEMA_REF, version: 1, name: specName(d.repo), repo: d.repo, agent, schedule };
  if (c.timeout) spec.timeout = c.timeout;
  // A share of the plan kept for the person, where the client's stream reads the plan's
  // windows (the wrapper's parser, heartbeat/37-reserve); codex's gives no reading.
  if (d.agent && !c.command && presetOf(d.agent.harness)?.stream === 'claude') spec.reserve = { ...INIT_RESERVE };
  spec.env = d.env;
  // The jail: srt on the spec's PATH needs no field; else hbgen's own copy.
  if (d.srt) spec.sandbox = { bin: d.srt };
  if (c.workspace === 'clone') spec.workspace = 'clone';
  return spec;
}

type InitModels = { models?: Record<string, string>; fallbackModel?: string; notes: string[]; from: string };

/** The tiers and fallback init writes for a preset, from its client's own catalog (offline, no paid call). */
function modelsFor(agent: Agent, env: Record<string, string>, repo: string): InitModels | undefined {
  const p = presetOf(agent.harness);
  if (!p) return undefined;
  const c = modelCatalog(p.model.catalog, agent.bin, env, repo);
  if ('why' in c) return { notes: [`no model tiers or fallback written: ${c.why}`], from: p.model.catalog.from };
  return { ...p.model.initModels(c.models, PRESET_PINS[agent.harness].model), from: c.from };
}

// ------------------------------------------------------------------ the steps of init

/** DIR as a real folder, created when missing. */
function folderOf(argv: InitArgs, io: HostIO): string {
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
  return realpathSync(given);
}

/** The repo is the git work tree's top (where every wake starts), else the folder itself. */
async function repoOf(io: HostIO, dir: string): Promise<{ repo: string; inGit: boolean }> {
  // No program of the repository's choosing (src/host/proc/git.ts): init may run in any folder.
  const git = await runTool(io, 'git', [...GIT_SAFE_CONFIG.flatMap((kv) => ['-c', kv]), '-C', dir, 'rev-parse', '--show-toplevel']);
  const top = git.code === 0 ? git.stdout.trim() : '';
  const inGit = top.startsWith('/');
  return { repo: inGit ? realpathSync(top) : dir, inGit };
}

/** The repo's uncommitted changes, as paths (init's own files left out: it is about to write them). */
async function uncommitted(io: HostIO, repo: string): Promise<string[]> {
  const r = await runTool(io, 'git', [...GIT_SAFE_CONFIG.flatMap((kv) => ['-c', kv]), '--no-optional-locks', '-C', repo, 'status', '--porcelain']);
  const ours = new Set([...CONTROL_FILES, 'hbgen.json', SCHEMA_FILE]);
  return r.code === 0 ? r.stdout.split('\n').filter(Boolean).map((l) => l.slice(3)).filter((f) => !ours.has(f)) : [];
}

/** The JSON Schema init writes beside hbgen.json, and how the spec's "$schema" names it. */
export const SCHEMA_FILE = 'hbgen.schema.json';
const SCHEMA_REF = `./${SCHEMA_FILE}`;

interface HostFacts {
  agents: Agent[];
  path: string;
  env: Record<string, string>;
  scheduler: SchedulerId;
  /** What decided the scheduler. */
  schedulerWhy: string;
  zone: string | undefined;
}

/** What the spec can take from this host; what had to be left out goes to `notes`. */
async function hostFacts(io: HostIO, home: string, notes: string[]): Promise<HostFacts> {
  const agents = findAgents(io, home);
  const { path, dropped } = cleanPath(io.env.PATH);
  if (dropped.length) notes.push(`left out of env.PATH: ${dropped.join(', ')} (only absolute folders are safe: a relative or empty entry lets the repo shadow tools)`);
  const user = io.env.USER || io.user;
  const env: Record<string, string> = { HOME: home, PATH: path };
  if (user) env.USER = user;
  if (io.env.LOGNAME || user) env.LOGNAME = io.env.LOGNAME || user;
  const { scheduler, why } = await detectScheduler(io);
  return { agents, path, env, scheduler, schedulerWhy: why, zone: detectZone(io) };
}

/** Writes files under `repo`, never over an existing one; remembers what it wrote and kept. */
function fileWriter(repo: string) {
  const wrote: string[] = [];
  const kept: string[] = [];
  const put = (rel: string, content: string) => {
    // Written already this run (HEART.md by its setup): not "kept".
    if (wrote.includes(rel)) return;
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
  return { put, wrote, kept };
}

/** HEART.md, PROTOCOL.md, STATE.md, LOG.md and journal/TEMPLATE.md, where missing. */
function writeControlPlane(repo: string, files: ReturnType<typeof fileWriter>, notes: string[]): void {
  const ctx = { name: specName(repo) };
  for (const [f, render] of [['HEART.md', renderHeartMd], ['PROTOCOL.md', renderProtocolMd], ['STATE.md', renderStateMd], ['LOG.md', renderLogMd]] as const) files.put(f, render(ctx));
  const journal = posix.join(repo, 'journal');
  const jst = lstatOrNull(journal);
  if (jst && !jst.isDirectory()) {
    files.kept.push('journal');
    notes.push(`${journal} exists and is not a folder, so journal/TEMPLATE.md was not written`);
  } else {
    if (!jst) mkdirSync(journal, { mode: 0o755 });
    files.put('journal/TEMPLATE.md', renderJournalTemplateMd(ctx));
  }
}

export async function init(argv: InitArgs, io: HostIO): Promise<number> {
  const home = homeOf(io);
  const dir = folderOf(argv, io);
  const { repo, inGit } = await repoOf(io, dir);
  const notes: string[] = [];
  if (repo !== dir) notes.push(`${dir} is inside the git repository ${repo}: the control plane and hbgen.json go to its top, where every wake starts`);
  const host = await hostFacts(io, home, notes);

  const specFile = posix.join(repo, 'hbgen.json');
  const specExists = lstatOrNull(specFile) !== null;
  const files = fileWriter(repo);
  const heart = !specExists && io.stdin.isTTY ? heartToSetUp(repo, files) : null;
  const choices = !specExists && io.stdin.isTTY ? await interview(io, host.zone, host.agents, inGit ? await uncommitted(io, repo) : null, heart ?? undefined) : {};
  const agent = choices.command ? undefined : (choices.agent ?? host.agents[0]);

  writeControlPlane(repo, files, notes);
  // The existing hbgen.json is kept, so its sandbox.bin is whatever it says: no note about a
  // path init did not write.
  const srt = specExists || (typeof host.env.PATH === 'string' && onPath('srt', host.env.PATH)) ? null : bundledSrt();
  if (srt) notes.push(`the jail's srt is not on PATH: hbgen.json's sandbox.bin names hbgen's own copy (${srt})`);
  const models = agent ? modelsFor(agent, host.env, repo) : undefined;
  const spec = initSpec({ repo, agent, git: inGit, scheduler: host.scheduler, zone: host.zone, env: host.env, srt, models }, choices);
  if (!specExists) files.put(SCHEMA_FILE, `${JSON.stringify(jsonSchema(), null, 2)}\n`);
  files.put('hbgen.json', `${JSON.stringify(spec, null, 2)}\n`);

  const out: string[] = [];
  if (files.wrote.length) out.push(`hbgen init: wrote ${files.wrote.join(', ')} in ${repo}`);
  if (files.kept.length) out.push(`hbgen init: kept the existing ${files.kept.join(', ')} (init never overwrites a file)`);
  if (specExists) {
    for (const n of notes) out.push(`note: ${n}`);
    out.push(`hbgen init: ${specFile} already exists, so nothing was detected or asked; check it with \`hbgen render\``);
  } else {
    out.push(...detected({ repo, inGit, agent, host, notes, io, command: !!choices.command, models }), ...nextSteps(specFile, spec, agent, !!choices.command));
  }
  io.out(`${out.join('\n')}\n`);
  return 0;
}

// ------------------------------------------------------------------ the report

/** The "detected:" lines, then every note (the agent's own notes added to `notes`). */
function detected(d: { repo: string; inGit: boolean; agent: Agent | undefined; host: HostFacts; notes: string[]; io: HostIO; command: boolean; models?: InitModels }): string[] {
  const { repo, inGit, agent, host, notes } = d;
  const out = ['detected:', `  repo       ${repo}${inGit ? ' (git work tree)' : ' (not a git repository)'}`];
  if (agent) {
    out.push(`  agent      ${agent.label} (harness "${agent.harness}"): ${agent.bin}${agent.via && agent.via !== agent.bin ? ` (found as ${agent.via})` : ''}`);
    out.push(`  model      ${PRESET_PINS[agent.harness].model}, effort ${PRESET_PINS[agent.harness].effort}: pinned in agent.model and agent.effort (change them there)`);
    const m = d.models;
    if (m?.models) out.push(`  tiers      ${Object.entries(m.models).map(([t, id]) => `${t} ${id}`).join(', ')} (agent.models, from ${m.from})`);
    if (m?.fallbackModel) out.push(`  fallback   ${m.fallbackModel} when ${PRESET_PINS[agent.harness].model} is refused (agent.fallbackModel, from ${m.from})`);
    for (const n of m?.notes ?? []) notes.push(n);
    out.push(presetOf(agent.harness)?.stream === 'claude'
      ? `  reserve    ${INIT_RESERVE.fiveHour} of the plan's 5-hour window and ${INIT_RESERVE.weekly} of the weekly one kept for you: no wake starts inside it (change or remove reserve)`
      : `  reserve    none: ${agent.label}'s stream gives no reading of the plan's windows, so no reserve can be kept`);
    if (agent.note) notes.push(agent.note);
    for (const o of host.agents.filter((a) => a !== agent)) notes.push(`${o.label} is installed too (${o.bin}); to run it instead, set agent.harness to "${o.harness}" and agent.bin to that path`);
    const outside = presetOf(agent.harness)?.outsideGit;
    if (outside && !inGit) notes.push(outside.note);
    notes.push(...checkBin(agent.bin, 'agent.bin', host.path, d.io).problems);
  } else if (d.command) {
    out.push('  agent      another program (harness "command"), as you chose');
  } else {
    out.push('  agent      none: neither claude nor codex is on PATH');
  }
  out.push(`  scheduler  ${host.scheduler} (${host.schedulerWhy})`);
  out.push(`  time zone  ${host.zone ?? 'unknown'}`);
  out.push(`  env        ${Object.keys(host.env).join(', ')} from this shell (the agent sees only these)`);
  for (const n of notes) out.push(`note: ${n}`);
  return out;
}

/** Complete, or what is left to fill in (the choices left to the user, then anything else as is). */
function nextSteps(specFile: string, spec: Record<string, unknown>, agent: Agent | undefined, command: boolean): string[] {
  const v = validateSpec(spec);
  if (!v.errors) return ['hbgen.json is complete. Next: write your mission and priorities in HEART.md, preview with `hbgen render`, then `hbgen install`.'];
  const other = v.errors.filter((e) => !/^(schedule\.every|schedule\.hours(\.start|\.end|\.timezone)?|timeout|agent\.(harness|bin)): required/.test(e));
  return [
    `${specFile} does not validate until you fill in (hbgen never guesses the interval, the working hours or the timeout):`,
    todo(spec, agent, command),
    ...other.map((e) => `  - ${e}`),
    'Then preview with `hbgen render` and install with `hbgen install`.',
  ];
}

function todo(spec: Record<string, unknown>, agent: Agent | undefined, command: boolean): string {
  const sch = spec.schedule as Record<string, unknown>;
  const hrs = sch.hours as Record<string, unknown>;
  const want: string[] = [];
  if (command) want.push('"agent.bin", the absolute path of the program to run, and "agent.args", its arguments before the prompt (harness "command" adds none of its own)');
  else if (!agent) want.push(`"agent.harness" (${PRESET_IDS.map((id) => `"${id}"`).join(', ')}, or "command" for any other program) and "agent.bin", the absolute path of the real executable (\`command -v claude\`, then \`realpath\` of it)`);
  if (!sch.every) want.push(`"schedule.every": how often the agent wakes, one of ${EVERY.join(' ')}`);
  if (!hrs.start || !hrs.end) want.push('"schedule.hours": "start" and "end" as "HH:MM" (end "24:00" for midnight; an end before the start crosses midnight), optionally "days": ["mon", …]');
  if (!hrs.timezone) want.push('"schedule.hours.timezone": your IANA time zone, e.g. "Europe/Berlin"');
  if (!spec.timeout) want.push('"timeout": how long one wake may run, e.g. "25m" (plus killAfter, 30s by default, it must stay below every)');
  return want.map((w) => `  - ${w}`).join('\n');
}
