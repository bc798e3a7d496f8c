// The settings panel install and resume show before the one question: what runs, how it
// bills, when, for how long, which scheduler, every file written and every command run,
// how to undo it, and the caveats.
import type { Names } from '../../names.ts';
import { type Spec, digestOf, pauseAfterOf, reserveOf } from '../../spec.ts';
import { digestWhen } from '../../schedule.ts';
import { presetOf } from '../../harness/registry.ts';
import type { FilePlan, Preflight } from '../backend.ts';
import type { BillingRecord } from './billing.ts';
import type { BinFacts } from './facts.ts';
import { posix } from 'node:path';
import { shownArgv, shownWord } from '../../escape.ts';
import { mode4 } from '../fsx.ts';
import { SMOKE_ARGV } from './smoke.ts';
import { pingOf } from '../../notify.ts';
import { grouped, jailLines, jailOn, tildeOf } from '../../jail.ts';
import { capRow, toolsRow } from './agent-may.ts';
import { limitsLine } from '../../limits.ts';
import { FACTS } from '../../scheduler-facts.ts';
import { type SpecChange, changeLines } from '../../spec-diff.ts';

export interface PanelInput {
  verb: 'install' | 'resume';
  spec: Spec;
  names: Names;
  specFile: string;
  summary: string;
  bin: BinFacts;
  permissionMode: string;
  /** The srt the jail's probe ran (null: the jail is off). */
  jailBin?: string | null;
  billing: BillingRecord;
  stateFiles: FilePlan[];
  statePath: string;
  pre: Preflight;
  caveats: string[];
  /** Unified diffs (now → what install writes) of hbgen's files that were edited since install. */
  edits?: string[];
  /** The install check's runs (src/host/install/sched-smoke.ts), when not the terminal's two. */
  smokeLines?: string[];
  /** Entries of this spec on another scheduler, removed once the new install passed its check. */
  removes?: string[];
  /** hbgen's block in the repo's .git/info/exclude, as lines of the files it writes. */
  exclude?: string[];
  /** The earlier install's runtimes that the new wrapper no longer pins (an upgrade), removed once the check passed. */
  oldRuntimes?: string[];
  /** The earlier install's copies of another scheduler's entries under host/, removed once the check passed. */
  oldHostCopies?: string[];
  /** Rows of the seed: agent budget, token policy, instruction files, models. */
  seeds?: [string, string][];
  /** The spec's fields changed since the last install (src/spec-diff.ts), and when that was. */
  changes?: { list: SpecChange[]; since: string };
}

/**
 * The files install writes, by folder (the state folder's own subfolders included) and by
 * what happens to them, so that a dozen files take a few lines; a file edited since the
 * install has a line of its own (its diff follows). `record`: the install's record, named
 * as such in the state folder's first group.
 */
function fileLines(files: FilePlan[], stateDir: string, record: string): string[] {
  const edited = files.filter((f) => f.edited);
  const out = edited.map((f) => `  ${f.path}  ${mode4(f.mode)}  replaced: changed since install, the edit below is undone`);
  const groups = new Map<string, string[]>();
  for (const f of files) {
    if (f.edited || f.path === record) continue;
    const dir = f.path.startsWith(`${stateDir}/`) ? stateDir : posix.dirname(f.path);
    const key = `${f.action === 'create' ? 'new' : 'replaced'} in ${dir}/`;
    groups.set(key, [...(groups.get(key) ?? []), f.path.slice(dir.length + 1)]);
  }
  const own = [...groups.keys()].find((k) => k.endsWith(` ${stateDir}/`)) ?? `new in ${stateDir}/`;
  groups.set(own, [...(groups.get(own) ?? []), `${record.slice(stateDir.length + 1)} (this install's record)`]);
  for (const [key, list] of groups) out.push(`  ${key}: ${grouped(list).join(', ')}`);
  return out;
}

/** The agent's own arguments, as the spec file gives them (the preset's flags come first). */
export function argsRow(spec: Spec): [string, string] {
  return ['args', spec.agent.args.length ? shownArgv(spec.agent.args) : 'none'];
}

/**
 * Every program the wakes run besides the agent, and the URL they call: the person consents
 * to what the panel names, so nothing the scheduler runs may be missing from it.
 */
export function otherRuns(spec: Spec): [string, string][] {
  return [
    ['gate', spec.gate ? `${shownArgv(spec.gate)}, before every wake` : 'none'],
    ['notify', spec.notify ? `${shownArgv(spec.notify)}, at the ${ordinal(spec.notifyAfter!)} failing wake in a row and at the success after it` : 'none'],
    ['ping', pingRow(spec.ping)],
    ...(digestOf(spec) ? ([['digest', digestRow(spec)]] as [string, string][]) : []),
  ];
}

/** The digest's row: when it actually goes (schedule.ts digestWhen) and what runs it. */
export function digestRow(spec: Spec): string {
  const d = digestOf(spec)!;
  const to = [spec.notify ? 'notify' : '', spec.ping ? "the ping's /log" : ''].filter(Boolean).join(' and ');
  return `${d.at} ${spec.schedule.hours.timezone}, ${digestWhen(spec)}: \`hbgen log --digest --send\` outside the jail, kept in the state folder${to ? `, sent through ${to}` : ''}${d.empty === 'send' ? '' : ', skipped when nothing happened'}`;
}

/** The ping's row: what it calls and, on /fail, what it sends and where (outside the jail's hosts). */
function pingRow(ping: Spec['ping']): string {
  const p = pingOf(ping);
  if (!p) return 'none';
  const host = new URL(p.url).host;
  const fail = p.body
    ? `its /fail after a failure, POSTing the wake's last 20 lines of agent output and hbgen's last 10 log lines to ${shownWord(host)}, a host the jail does not gate; "ping": {"url": …, "body": false} sends it empty`
    : 'its /fail after a failure, empty (ping.body false)';
  return `${shownWord(p.url)} (its /start before the agent, itself after a success, ${fail})`;
}

const ordinal = (k: number): string => `${k}${k % 100 >= 11 && k % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][k % 10] ?? 'th')}`;

// codex's sandbox modes; any other mode is Claude Code's permission mode.
const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'];

/** The model, the effort and the tiers as the agent gets them. */
function modelRow(agent: Spec['agent']): string {
  const tiers = agent.models ? `; tiers ${Object.entries(agent.models).map(([k, v]) => `${k}=${v}`).join(', ')} (named in the wake prompt)` : '';
  if (agent.harness === 'command') return tiers ? `not set by hbgen (harness "command": your args decide)${tiers}` : 'none (harness "command": your args decide)';
  return `${agent.model ?? "the client's default"}, effort ${agent.effort ?? "the client's default"}${tiers}`;
}

/** The day's token budget: what the wrapper counts, or that it only logs. */
function budgetRow(spec: Spec): string {
  if (spec.agent.harness === 'command') return 'none (harness "command": no usage is read)';
  const n = (x: number) => x.toLocaleString('en-US');
  if (spec.budget === undefined) return "none: every wake's usage (tokens, and the client's cost estimate) is logged, see hbgen log";
  return `${n(spec.budget)} tokens a day (in + out + cache of the usage lines, the day in ${spec.schedule.hours.timezone}): once reached, the day's further wakes are skipped (skip-budget)`;
}

/**
 * The person's reserve of the plan's windows: what the wrapper keeps, or that the client's
 * stream gives no reading to keep it by (codex: no rate-limit event in `exec --json`), named
 * with the client's version as install saw it. Never a figure hbgen did not read.
 */
export function reserveRow(spec: Spec, clientVersion: string | undefined): string {
  const r = reserveOf(spec);
  // Only Claude Code's stream reads the plan's windows (the wrapper's parser, heartbeat/37-reserve).
  if (presetOf(spec.agent.harness)?.stream !== 'claude') {
    const set = r.fiveHour || r.weekly ? `: the spec's reserve is not applied` : '';
    return `cannot be measured with ${clientVersion || `${spec.agent.harness} (its version not known)`}: its stream carries no reading of the plan's windows${set}`;
  }
  const keeps = [r.fiveHour ? `${r.fiveHour}% of the 5-hour window` : '', r.weekly ? `${r.weekly}% of the weekly window` : ''].filter(Boolean);
  if (!keeps.length) return "none: each wake's reading of the plan's windows (the stream's rate_limit_event) is logged, see hbgen status";
  return `${keeps.join(' and ')} kept for you: no wake starts while the last reading is inside it (skip-reserve), and one whose reading crosses into it is stopped (outcome reserve); the readings come with each of the client's API answers (rate_limit_event), so the first wake reads them`;
}

/** A preset with no pinned model (PRODUCT §8): the client's default may change under it. */
export function modelCaveats(agent: Spec['agent']): string[] {
  if (agent.harness === 'command' || agent.model) return [];
  return [`no model pinned: agent.model is not set, so ${agent.harness} runs whatever its own default is today, which a client update may change (and with it what a wake costs); set agent.model${agent.effort ? '' : ' and agent.effort'} (hbgen init writes both)`];
}

/** How the agent bills, as its client said at this install, and that the wrapper asks again. */
function billingRow(b: BillingRecord): string {
  if (b.result !== 'subscription') return 'custom command: not checked, no API key reaches it; check your plan';
  return `${b.identity}, as \`${shownArgv(b.command ?? [])}\` says in the agent's environment${b.clientVersion ? ` (${b.clientVersion})` : ''}; asked again before every wake`;
}

/** The panel's rows with a backend's own in place of the same label (a new label goes before "scheduler"). */
function withRows(rows: [string, string][], own: [string, string][]): [string, string][] {
  const out = rows.map(([k, v]): [string, string] => [k, own.find(([o]) => o === k)?.[1] ?? v]);
  const extra = own.filter(([o]) => !rows.some(([k]) => k === o));
  out.splice(out.findIndex(([k]) => k === 'scheduler'), 0, ...extra);
  return out;
}

/** The panel's rows, label and text, in the order they are read. */
function panelRows(p: PanelInput): [string, string][] {
  const { spec, names: n, pre } = p;
  const h = spec.schedule.hours;
  const days = h.days ? h.days.join(' ') : 'every day';
  const bin = p.bin.realpath !== spec.agent.bin ? `${spec.agent.bin} → ${p.bin.realpath}` : spec.agent.bin;
  const ids = Object.values(pre.ids).join(', ');
  const tilde = tildeOf(spec);
  return [
    ['repo', spec.repo],
    // A command's permission mode is its args' (the args row shows them).
    ['agent', `${spec.agent.harness}: ${tilde(bin)}${p.bin.interpreter ? ` (run by ${p.bin.interpreter})` : ''}${spec.agent.harness === 'command' ? '' : `; ${SANDBOX_MODES.includes(p.permissionMode) ? 'sandbox' : 'permission mode'} ${p.permissionMode}`}`],
    argsRow(spec),
    ['model', modelRow(spec.agent)],
    ['billing', billingRow(p.billing)],
    ...(p.seeds ?? []),
    // The interval's summary names the window when it bounds the fires: the hours row would repeat it.
    ...(p.summary.includes(`${h.start}–${h.end} ${h.timezone}`) ? [] : ([['hours', `${h.start}–${h.end} ${h.timezone}, ${days}`]] as [string, string][])),
    ['interval', `every ${spec.schedule.every}: ${p.summary}`],
    ['timeout', `${spec.timeout}, then TERM, and KILL ${spec.killAfter} later`],
    ['budget', budgetRow(spec)],
    ['pause', pauseAfterOf(spec) ? `after ${pauseAfterOf(spec)} failing wakes in a row: no agent until \`hbgen resume --now\`` : 'never after failures (pauseAfter false)'],
    // A reserve is a preset's (the spec refuses one for harness "command"): no row to fold into "none" there.
    ...(presetOf(spec.agent.harness) ? ([['reserve', reserveRow(spec, p.billing.clientVersion)]] as [string, string][]) : []),
    capRow(spec),
    ...((t) => (t ? [t] : []))(toolsRow(spec, jailOn(spec))),
    ...(spec.until ? ([['until', `${spec.until.replace('T', ' ')} ${h.timezone}: the job ends then; later fires log skip-ended, run no agent and count no wake`]] as [string, string][]) : []),
    ...otherRuns(spec),
    ['scheduler', `${spec.schedule.scheduler} (${ids})`],
    // The file list names the state folder: the install's record is written there.
    ...(p.statePath.startsWith(`${n.stateDir}/`) ? [] : ([['state', n.stateDir]] as [string, string][])),
  ];
}

/**
 * The rows that say nothing (a field left out: "none …") folded into one, after the rows
 * that say something, so that what the person chose is what they read.
 */
export function foldedRows(rows: [string, string][]): [string, string][] {
  const quiet = rows.filter(([, v]) => /^none\b/.test(v));
  if (quiet.length < 2) return rows;
  const out = rows.filter((r) => !quiet.includes(r));
  out.splice(out.findIndex(([k]) => k === 'scheduler'), 0, ['none', `${quiet.map(([k]) => k).join(', ')} (docs/spec.md)`]);
  return out;
}

export function panel(p: PanelInput): string {
  const { spec, names: n, pre } = p;
  const tilde = tildeOf(spec);
  const rows = foldedRows(withRows(panelRows(p), pre.rows ?? []));
  // What changed comes first: on a re-install it is what the person consents to anew.
  const out: string[] = [`hbgen ${p.verb}: "${spec.name}" from ${p.specFile}`, ...(p.changes ? changeLines(p.changes.list, p.changes.since) : [])];
  for (const [k, v] of rows) out.push(`  ${k.padEnd(10)} ${k === 'repo' || k === 'state' ? tilde(v) : v}`);
  out.push(...jailLines(spec, p.jailBin ? tilde(p.jailBin) : null, true).map((l, i) => (i === 0 ? `  ${'jail'.padEnd(10)} ${l}` : `  ${''.padEnd(10)} ${l}`)));
  out.push(`  ${'limits'.padEnd(10)} ${limitsLine(spec, true)}`);
  const writes = [...p.stateFiles, ...pre.hostFiles].filter((f) => f.action !== 'same');
  const same = [...p.stateFiles, ...pre.hostFiles].length - writes.length;
  const record: FilePlan = { path: p.statePath, content: Buffer.alloc(0), mode: 0o600, prior: null, priorMode: 0, action: 'create' };
  out.push(`files it will write${same ? ` (${same} more already in place, unchanged)` : ''}:`, ...fileLines([...writes, record].map((f) => ({ ...f, path: tilde(f.path) })), tilde(n.stateDir), tilde(p.statePath)));
  for (const l of p.exclude ?? []) out.push(`  ${l}`);
  for (const r of p.oldRuntimes ?? []) out.push(`  ${r}  removed once the check passed: the earlier runtime, which the new wrapper no longer pins (a wake running now reads on from its open copy)`);
  for (const r of p.oldHostCopies ?? []) out.push(`  ${tilde(r)}  removed once the check passed: the earlier install's copy of an entry no scheduler runs now`);
  for (const d of p.edits ?? []) out.push(...d.split('\n').filter(Boolean).map((l) => `    ${l}`));
  for (const w of pre.writes) out.push(`  ${w}`);
  const facts = FACTS[spec.schedule.scheduler];
  if (pre.commands.length || !pre.printed?.length) out.push('commands it will run:');
  if (pre.commands.length === 0 && !pre.printed?.length) out.push('  none on the scheduler: its entry is already in place');
  for (const c of pre.commands) out.push(`  ${shownArgv(c.argv)}${c.note ? `   ${c.note}` : ''}`);
  if (pre.printed?.length) out.push(`commands it will NOT run (no --apply): run ${pre.printed.length === 1 ? 'this' : 'these'} yourself`);
  for (const c of pre.printed ?? []) out.push(`  ${shownArgv(c.argv)}`);
  // Off this host the wrapper runs in the scheduler's own place: it is not smoke-tested here.
  if (!facts.offHost || pre.checks.length) out.push('then it checks the install, and undoes all of it if any check fails:');
  // A path under HOME unquoted is ~/… (a quoted one stays whole: ~ does not expand in quotes).
  if (!facts.offHost) for (const l of p.smokeLines ?? [`${shownArgv(SMOKE_ARGV(n.wrapper))}   (twice at once: the second must skip on the lock)`]) out.push(`  ${l.split(' ').map(tilde).join(' ')}`);
  for (const c of pre.checks) out.push(`  ${shownArgv(c)}`);
  if (p.removes?.length) {
    // A renamed spec's old entry is on the same scheduler (its lines say "the spec's earlier name").
    const renamed = p.removes.every((r) => r.includes("the spec's earlier name"));
    out.push(`then, the check passed, it removes what the earlier install runs ${renamed ? "under the spec's earlier name (one name per spec)" : p.removes.some((r) => r.includes("the spec's earlier name")) ? "on another scheduler or under the spec's earlier name (one scheduler and one name per spec)" : 'on another scheduler (one scheduler at a time)'}:`);
    for (const r of p.removes) out.push(`  ${r}`);
  }
  out.push(`undo it later with: hbgen stop ${shownWord(p.specFile)}${facts.printsCommand ? ` --apply (or the ${facts.printsCommand} command \`hbgen stop\` prints)` : ''}`);
  const caveats = [...p.caveats, ...modelCaveats(spec.agent)];
  if (caveats.length) {
    out.push('caveats:');
    for (const c of caveats) out.push(`  - ${c}`);
  }
  return `${out.join('\n')}\n`;
}
