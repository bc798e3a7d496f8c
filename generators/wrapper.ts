// The host-independent scripts: heartbeat.sh (one bounded wake of the agent), window.sh
// (the working-hours check on its own) and, for shared folders, claim.sh (chunk claims).
// All user data reaches them as single-quoted sh words. Each template's context is built
// here from named steps, one per part of the script that reads it.
import { workspaceBranch, workspaceDir, workspaceOn } from '../src/workspace.ts';
import { type SeedsContext, seedsContext } from './seeds.ts';
import { posix } from 'node:path';
import { sha256Hex } from '../src/sha256.ts';
import { joinUnder } from '../src/path-join.ts';
import { renderClaimSh, renderHeartbeatSh, renderWindowSh } from '../src/gen/templates.ts';
import { runtime } from './runtime.ts';
import { logDateShell } from './formats.ts';
import { STATUS_ARGV, billingClient, billingFiles, billingKeyNames, billingTimeout, fileHitFix, hasSetupToken, notPlan, timedOut } from '../src/billing.ts';
import { harnessArgs, promptSeparator } from '../src/harness.ts';
import { presetOf } from '../src/harness/registry.ts';
import { openDays } from '../src/schedule.ts';
import { offsetAt, repeatsWallClock, transitions } from '../src/zone-offsets.ts';
import { clockMinutes, digestOf, durations, idleOf, limitsOf, memoryBytes, memoryText, pauseAfterOf, reserveOf } from '../src/spec.ts';
import { factsOf } from '../src/scheduler-facts.ts';
import { sh } from '../src/escape.ts';
import { LOCK_OWNER_PRINTF, LOG_DATE_FORMAT, LOG_MAX_BYTES, LOG_PRINTF, pad2 } from '../src/formats.ts';
import { JAIL_PLACEHOLDERS, REPO_DENY, jailOn, jailSettings } from '../src/jail.ts';
import type { RenderContext, RenderedFile } from './types.ts';
import { SHA256_TOOLS } from './entry.ts';
import { type LimitContext, limitContext } from './limit.ts';
import { type NotifyContext, notifyContext } from './notify.ts';
import { type FormatsContext, formatsContext } from './formats.ts';

/** Step 1 of heartbeat.sh: who it is, where its files are, its limits, its log format. */
export interface EnvironmentContext {
  name: string;
  repo: string;
  stateDir: string;
  bin: string;
  /** The spec's env as NAME=value words, ready for `env -i`. */
  envWords: string[];
  /**
   * kubernetes.secretKeys as sh words that pass each variable on from the wrapper's own
   * environment (the Secret, envFrom) when it is set: `${K+"K=$K"}`; empty for other schedulers.
   */
  passEnv: string[];
  logPath: string;
  /** agent.log: the agent's output, never read as the wrapper's records. */
  agentLogPath: string;
  lockPath: string;
  lockDir: string;
  wakesPath: string;
  heartPath: string;
  /** The scheduler entry's SHA-256 tools (generators/entry.ts): each one's program, tested with -x, and its command. */
  sha256Tools: { path: string; cmd: string }[];
  timeout: number;
  killAfter: number;
  cap: number;
  lock: string;
  /** The log line's printf format and date format (src/formats.ts). */
  logPrintf: string;
  logDateFormat: string;
  /** The same date format as a sh word built from hb_utc's fields (no date call). */
  logDateShell: string;
}

/** Steps 2 and 3: the spec's gate program. */
export interface GateContext {
  hasGate: boolean;
  gateBin: string;
  gateArgv: string[];
  /** env(1) reads any word with `=` before the command as an assignment: such a path is started through nice. */
  gateHasEq: boolean;
}

/** The mkdir lock (heartbeat.sh step 4, and every claim of claim.sh). */
export interface LockContext {
  /** A lock older than this (the spec's wake bound, timeout + killAfter, seconds: src/spec.ts durations) belongs to a wake that must already be over. */
  staleAfter: number;
  /** staleAfter in whole minutes, rounded up, for find -mmin (folder age without an owner record). */
  staleMinutes: number;
  /** The owner record's printf format (src/formats.ts). */
  lockOwnerPrintf: string;
}

/** Steps 5 and 6: the prompt with its context block, and the agent's argv. */
export interface WakeContext {
  prompt: string;
  timeoutText: string;
  roundTheClock: boolean;
  shared: boolean;
  claimPath: string;
  /** The model tiers line of the context block, '' without agent.models. */
  modelsLine: string;
  /** Everything between the binary and the prompt: harness preset, the spec's args, `--` for presets. */
  agentArgs: string[];
  binHasEq: boolean;
}

/** Steps 2 and 6: the OS jail around the agent (src/jail.ts), when it is on. */
export interface JailContext {
  jail: boolean;
  /** sandbox.bin, or '' for `srt` on the spec's PATH at wake time. */
  jailBin: string;
  /** Linux: srt needs bwrap, socat and rg on PATH (macOS: sandbox-exec, always there). */
  jailLinux: boolean;
  jailSettingsPath: string;
  /** The private tmp, made fresh by every wake. */
  jailTmp: string;
  /** What srt shows in the repo's top folder where nothing is (git ignores them in the jail). */
  jailPlaceholders: string[];
  /** jail.json as rendered, without its last newline: the wrapper compares the installed file with it. */
  jailSettingsText: string;
  /** The client's folders, made before srt starts (src/jail-clients.ts). */
  jailDirs: string[];
  /** The client's files created where nothing is: a copy of `from` where that is a regular file, else `content`. */
  jailSeeds: { path: string; content?: string; from?: string }[];
  /** Links in the client's own folder to the person's entries (src/jail.ts JailPolicy.links). */
  jailLinks: { path: string; target: string }[];
  /** The client's login file in its own folder and the person's, written back after the wake. */
  jailLogins: { path: string; person: string }[];
  /** KEY=VALUE words the client needs inside the jail, added to the agent's environment. */
  jailEnvWords: string[];
}

/** Step 5b: the client's own billing check (claude-code and codex presets only). */
export interface BillingContext {
  billingCheck: boolean;
  billingClientName: string;
  /** The status command after the binary: auth status, login status. */
  billingArgv: string[];
  billingTimeout: number;
  /** src/billing.ts's words: what a check that did not end in time saw, and the refusal's tail. */
  billingTimedOut: string;
  billingNotPlan: string;
  /** The spec's env sets CLAUDE_CODE_OAUTH_TOKEN: authMethod oauth_token is the plan (src/billing.ts). */
  billingSetupToken: boolean;
  /** The settings/config files read before every wake, the credential names as " A B ", what to do about a hit, and the managed drop-in folder (claude). */
  billingFiles: string[];
  billingKeys: string;
  billingFileFix: string;
  billingManagedDir: boolean;
  /** The rules, once (src/billing-rules.ts): install runs the same awk text. */
  billingVerdictAwk: string;
  billingFilesAwk: string;
  billingTokenAwk: string;
  billingTokenRefusal: string;
}

/** Steps 3c and 6c: the client's JSON stream (claude-code and codex presets) and the day's token budget. */
export interface StreamContext {
  stream: boolean;
  /** Which client's events the parser reads: claude or codex ('' without a preset). */
  streamKind: string;
  /** The spec's budget (tokens a day), 0 without one. */
  budget: number;
  /** The spec's reserve of the plan's 5-hour and weekly windows, whole percents; 0 for none or where the stream carries no reading (codex). */
  reserve5: number;
  reserve7: number;
}

/** Step 4b: log rotation. */
export interface RotateContext {
  /** runtime.log is rotated once larger than this (the spec's logMaxBytes, else LOG_MAX_BYTES). */
  logMaxBytes: number;
  /** Its number of digits (the wrapper compares sizes by length first). */
  logMaxDigits: number;
}

/** Step 8: change detection. */
export interface OutcomeContext {
  /** Folders inside the repo that change detection skips, as find(1) -path patterns. */
  prunes: string[];
}

/** Step 5d: the wake's bounds (spec limits), applied by the wrapper where the scheduler's entry does not (src/scheduler-facts.ts bounds). */
export interface BoundsContext {
  bounds: boolean;
  /** cron: the wrapper asks the user manager for a transient scope at run time. */
  boundsScope: boolean;
  boundsTasks: number;
  /** As systemd writes it: "8G", "512M" or "50%". */
  boundsMemory: string;
  /** The memory in KiB (ulimit -d), '' for a share of the RAM. */
  boundsKib: string;
  /** The most KiB the default share of the RAM comes to, '' for a memory the spec sets. */
  boundsCapKib: string;
  /** The memory as the outcome names it (memoryText). */
  boundsMemoryText: string;
}

/** The working-hours check (window.sh, and heartbeat.sh's step 3). */
export interface WindowContext {
  header: string;
  timezone: string;
  zoneGlob: string;
  /** The same glob as a plain value (heartbeat.sh's wn_glob, expanded unquoted). */
  zoneGlobRaw: string;
  /** Minutes of the day where the window opens and ends. */
  start: number;
  end: number;
  startText: string;
  endText: string;
  crossesMidnight: boolean;
  /** Working days, 1 = Monday … 7 = Sunday. */
  dayList: number[];
  allDays: boolean;
  /** The host's scheduler fires off the wake grid (host clock in another zone): check the grid. */
  grid: boolean;
  /** catchUp "skip": a scheduled wake off the grid (a fire made late) is skip-late. */
  lateSkip: boolean;
  hostTimezone: string;
  gridHourly: boolean;
  everyMinutes: number;
  minute: number;
  gridFirst: number;
  gridText: string;
  /** The zone's clocks go back: count a repeated wall-clock minute once. */
  firstPass: boolean;
}

/** Step 3's window end (no spill into protected time): when the window a scheduled wake started in ends. */
export interface WindowEndContext {
  /** minRun in seconds, and as the spec says it (for the skip-window line). */
  minRun: number;
  minRunText: string;
  /** The window is open all day (00:00-24:00): it ends only at a midnight before a day off. */
  wholeDay: boolean;
  /** Open all day on every day: the window never ends, and no deadline is clamped. */
  neverEnds: boolean;
  /** The largest change of the zone's UTC offset, in seconds (0: its clocks never change). */
  clockShift: number;
}

/** The wrapper runs a short trusted command (notify, ping, the billing check): step 1c's hb_bounded is rendered. */
export interface BoundedContext {
  boundedOn: boolean;
}

export interface ClaimContext extends LockContext {
  header: string;
  claimsDir: string;
}


function environmentContext(ctx: RenderContext): EnvironmentContext {
  const { spec, names } = ctx;
  return {
    name: spec.name,
    repo: spec.repo,
    stateDir: names.stateDir,
    bin: spec.agent.bin,
    envWords: Object.keys(spec.env)
      .sort()
      .map((key) => `${key}=${spec.env[key]!}`),
    passEnv: passEnvWords(spec),
    logPath: names.log,
    agentLogPath: names.agentLog,
    lockPath: names.lock,
    lockDir: names.lockDir,
    wakesPath: names.wakes,
    heartPath: joinUnder(names.stateDir, 'heart.sum'),
    sha256Tools: SHA256_TOOLS.map((cmd) => ({ path: cmd.split(' ').find((w) => w.startsWith('/') && !w.endsWith('/env'))!, cmd })),
    timeout: durations(spec).timeout,
    killAfter: durations(spec).killAfter,
    cap: spec.cap ?? 0,
    lock: spec.lock,
    logPrintf: LOG_PRINTF,
    logDateFormat: LOG_DATE_FORMAT,
    logDateShell: logDateShell(LOG_DATE_FORMAT),
  };
}

/** The Secret's keys the agent gets by name (names only: the spec never holds their values). */
function passEnvWords(spec: RenderContext['spec']): string[] {
  return (spec.kubernetes?.secretKeys ?? []).map((k) => `\${${k}+"${k}=$${k}"}`);
}

function gateContext(ctx: RenderContext): GateContext {
  const gateArgv = ctx.spec.gate ?? [];
  return { hasGate: gateArgv.length > 0, gateBin: gateArgv[0] ?? '', gateArgv, gateHasEq: (gateArgv[0] ?? '').includes('=') };
}

function lockContext(ctx: RenderContext): LockContext {
  const staleAfter = durations(ctx.spec).wake;
  return { staleAfter, staleMinutes: Math.ceil(staleAfter / 60), lockOwnerPrintf: LOCK_OWNER_PRINTF };
}

function wakeContext(ctx: RenderContext): WakeContext {
  const { spec, names } = ctx;
  const h = spec.schedule.hours;
  return {
    prompt: spec.agent.prompt,
    timeoutText: spec.timeout,
    roundTheClock: clockMinutes(h.start) === 0 && clockMinutes(h.end) === 1440 && openDays(spec).length === 7,
    shared: spec.shared,
    claimPath: names.claim,
    modelsLine: modelsLine(spec.agent.models),
    agentArgs: [...harnessArgs(spec.agent, jailOn(spec)), ...spec.agent.args, ...promptSeparator(spec.agent)],
    binHasEq: spec.agent.bin.includes('='),
  };
}

function billingContext(ctx: RenderContext): BillingContext {
  const client = billingClient(ctx.spec.agent);
  const t = billingTimeout(durations(ctx.spec).timeout);
  const none = { billingFiles: [], billingKeys: '', billingFileFix: '', billingManagedDir: false, billingVerdictAwk: '', billingFilesAwk: '', billingTokenAwk: '', billingTokenRefusal: '' };
  if (!client) return { billingCheck: false, billingClientName: '', billingArgv: [], billingTimeout: t, billingTimedOut: '', billingNotPlan: '', billingSetupToken: false, ...none };
  return {
    billingCheck: true,
    billingClientName: client,
    billingArgv: [...STATUS_ARGV[client]],
    billingTimeout: t,
    billingTimedOut: timedOut(client, t),
    billingNotPlan: notPlan(client),
    billingSetupToken: hasSetupToken(ctx.spec.env) || (ctx.spec.kubernetes?.secretKeys ?? []).includes('CLAUDE_CODE_OAUTH_TOKEN'),
    billingFiles: billingFiles(ctx.spec),
    billingKeys: ` ${billingKeyNames().join(' ')} `,
    billingFileFix: fileHitFix(client),
    billingManagedDir: presetOf(client)?.billing.filesDir !== undefined,
    billingVerdictAwk: '',
    billingFilesAwk: '',
    billingTokenAwk: '',
    billingTokenRefusal: '',
  };
}

function jailContext(ctx: RenderContext): JailContext {
  const p = ctx.jail;
  return {
    jail: p !== null,
    jailBin: p?.bin ?? '',
    jailLinux: p?.platform === 'linux',
    jailSettingsPath: joinUnder(ctx.names.stateDir, 'jail.json'),
    jailTmp: p?.tmp ?? '',
    // The person's files the jail denies in the repo's top folder show as placeholders too where they are missing.
    jailPlaceholders: [...JAIL_PLACEHOLDERS, ...REPO_DENY],
    jailSettingsText: p ? jailSettings(p).replace(/\n$/, '') : '',
    jailDirs: p?.dirs ?? [],
    jailSeeds: p?.seed ?? [],
    jailLinks: p?.links ?? [],
    jailLogins: p?.logins ?? [],
    jailEnvWords: Object.entries(p?.env ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`),
  };
}

function rotateContext(ctx: RenderContext): RotateContext {
  const max = ctx.spec.logMaxBytes;
  return { logMaxBytes: max, logMaxDigits: String(max).length };
}

function outcomeContext(ctx: RenderContext): OutcomeContext {
  // What change detection skips besides .git, as find(1) -path patterns (glob characters
  // escaped): the state folder where it sits inside the repo, and the shared folder's
  // claims (taking a claim is coordination, not work done).
  const prunes = [...new Set([ctx.names.stateDir, ...(ctx.spec.shared ? [ctx.names.claimsDir] : [])])]
    .map((p) => posix.relative(ctx.spec.repo, p))
    .filter((rel) => rel !== '' && rel !== '..' && !rel.startsWith('../') && !posix.isAbsolute(rel))
    .map((rel) => `./${rel.replace(/[*?[\\\]]/g, (c) => `\\${c}`)}`);
  return { prunes };
}

function boundsContext(ctx: RenderContext): BoundsContext {
  const l = limitsOf(ctx.spec);
  const how = factsOf(ctx.spec.schedule.scheduler)?.bounds?.wrapper;
  if (!l || !how || how === 'entry') return { bounds: false, boundsScope: false, boundsTasks: 0, boundsMemory: '', boundsKib: '', boundsCapKib: '', boundsMemoryText: '' };
  const bytes = memoryBytes(l.memory);
  const cap = l.cap === null ? null : memoryBytes(l.cap);
  return { bounds: true, boundsScope: how === 'scope', boundsTasks: l.tasks, boundsMemory: l.memory, boundsKib: bytes === null ? '' : String(bytes / 1024), boundsCapKib: cap === null ? '' : String(cap / 1024), boundsMemoryText: memoryText(l) };
}
function streamContext(ctx: RenderContext): StreamContext {
  const h = ctx.spec.agent.harness;
  // The runtime's parser of the client's event stream (its descriptor's `stream`); none for a command.
  const kind = presetOf(h)?.stream ?? '';
  // Only Claude Code's stream reads the plan's windows (rate_limit_event); codex's carries none.
  const r = kind === 'claude' ? reserveOf(ctx.spec) : { fiveHour: 0, weekly: 0 };
  return { stream: kind !== '', streamKind: kind, budget: kind ? (ctx.spec.budget ?? 0) : 0, reserve5: r.fiveHour, reserve7: r.weekly };
}

function windowEndContext(ctx: RenderContext): WindowEndContext {
  const h = ctx.spec.schedule.hours;
  // Over the span the zone table covers (the years an install can live), from its data.
  let clockShift = 0;
  for (const t of transitions(h.timezone)) {
    clockShift = Math.max(clockShift, Math.abs(offsetAt(h.timezone, t) - offsetAt(h.timezone, t - 60_000)) * 60);
  }
  const wholeDay = clockMinutes(h.start) === 0 && clockMinutes(h.end) === 1440;
  return {
    minRun: durations(ctx.spec).minRun,
    minRunText: ctx.spec.minRun,
    wholeDay,
    neverEnds: wholeDay && openDays(ctx.spec).length === 7,
    clockShift,
  };
}

export function claimContext(ctx: RenderContext): ClaimContext {
  return { header: ctx.header, claimsDir: ctx.names.claimsDir, ...lockContext(ctx) };
}

function modelsLine(models: Record<string, string> | undefined): string {
  const tiers = Object.entries(models ?? {});
  if (tiers.length === 0) return '';
  return `Model tiers: ${tiers.map(([k, v]) => `${k}=${v}`).join(', ')} (route each subagent to the cheapest tier that can do its job)`;
}

// The zone file as a glob whose first letter in each component is a bracket expression:
// the shell then reads each folder and matches the name case-sensitively, so the check
// is exact even on a case-insensitive file system (macOS), where `[ -f ]` is not.
function zoneGlob(zone: string): string {
  return zone
    .split('/')
    .map((part) => (/^[A-Za-z0-9_+-]/.test(part) ? `[${part[0]}]${part.length > 1 ? sh(part.slice(1)) : ''}` : sh(part)))
    .join('/');
}

// The zone's glob as a value: zone names hold only letters, digits, _ + - and /.
function zoneGlobRaw(zone: string): string {
  return zone.split('/').map((part) => (/^[A-Za-z0-9_+-]/.test(part) ? `[${part[0]}]${part.slice(1)}` : part)).join('/');
}

export function windowContext(ctx: RenderContext): WindowContext {
  const h = ctx.spec.schedule.hours;
  const plan = ctx.plan;
  const start = clockMinutes(h.start);
  const end = clockMinutes(h.end);
  // date +%u numbers the days 1 = Monday … 7 = Sunday.
  const dayList = openDays(ctx.spec)
    .map((d) => (d === 0 ? 7 : d))
    .sort((a, b) => a - b);
  const gridHourly = plan.everyMinutes <= 60;
  return {
    header: ctx.header,
    timezone: h.timezone,
    zoneGlob: zoneGlob(h.timezone),
    zoneGlobRaw: zoneGlobRaw(h.timezone),
    start,
    end,
    startText: h.start,
    endText: h.end,
    crossesMidnight: end <= start,
    dayList,
    allDays: dayList.length === 7,
    // Only where the host clock is in another zone does the scheduler fire off the grid.
    grid: plan.widened,
    // catchUp "skip": the wrapper checks a scheduled wake against the grid (heartbeat/32-late).
    lateSkip: ctx.spec.catchUp === 'skip',
    hostTimezone: plan.hostTimezone,
    gridHourly,
    everyMinutes: plan.everyMinutes,
    minute: plan.minute,
    // every k hours: minutes from the window's opening to its first :minute
    gridFirst: (plan.minute - (start % 60) + 60) % 60,
    gridText: gridHourly
      ? `every ${plan.everyMinutes} minutes from :${pad2(plan.minute)}`
      : `every ${plan.everyMinutes / 60} hours from the first :${pad2(plan.minute)} of the window`,
    // Only zones whose clocks go back need the second-pass check (one more date call).
    firstPass: repeatsWallClock(h.timezone),
  };
}

/** templates/heartbeat.sh.hbs: the header, the spec's values, the runtime's pin. */
export interface HeartbeatContext {
  header: string;
  values: string[];
  version: string;
  sha256: string;
  logPrintf: string;
  logDateFormat: string;
  changed: string;
}

/** templates/window.sh.hbs: the working hours' values and the runtime's pin. */
export interface WindowShContext {
  header: string;
  startText: string;
  endText: string;
  timezone: string;
  values: string[];
  version: string;
  sha256: string;
}

/** The runtime.log detail heartbeat.sh writes after `error` for a runtime that is not the pinned one. */
export const RUNTIME_CHANGED = 'runtime changed';

/** `NAME=VALUE` as heartbeat.sh assigns it: the value single-quoted (src/escape.ts). */
const assign = (name: string, value: string | number) => `${name}=${typeof value === 'number' ? String(value) : sh(value)}`;

/** A list as numbered variables NAME_1, NAME_2, ... (the runtime's hb_words reads them). */
const list = (name: string, items: readonly string[]) => items.map((v, i) => assign(`${name}_${i + 1}`, v));

/** The working-hours check's values (wn_), the same in heartbeat.sh and window.sh. */
function windowValues(ctx: RenderContext): string[] {
  const w = windowContext(ctx);
  return [
    assign('wn_zone', w.timezone),
    assign('wn_glob', w.zoneGlobRaw),
    assign('wn_start', w.start),
    assign('wn_end', w.end),
    assign('wn_days', w.dayList.join('|')),
    ...(w.grid ? [assign('wn_grid', '1')] : []),
    assign('wn_every', w.everyMinutes),
    assign('wn_minute', w.minute),
    assign('wn_gridfirst', w.gridFirst),
    ...(w.firstPass ? [assign('wn_twice', '1')] : []),
  ];
}

function heartbeatValues(ctx: RenderContext): string[] {
  const { spec } = ctx;
  const env = environmentContext(ctx);
  const wake = wakeContext(ctx);
  const billing = billingContext(ctx);
  const jail = jailContext(ctx);
  const notify = notifyContext(ctx);
  const limit = limitContext(ctx);
  const end = windowEndContext(ctx);
  const stream = streamContext(ctx);
  const presetLength = harnessArgs(spec.agent, jailOn(spec)).length;
  const seeds = seedsContext(ctx, wake.agentArgs, presetLength);
  const opt = (name: string, v: string | boolean) => (v ? [assign(name, v === true ? '1' : v)] : []);
  return [
    assign('hb_name', env.name),
    assign('hb_repo', env.repo),
    // The agent's own clone and branch ("workspace": "clone"): its working folder.
    ...(workspaceOn(spec) ? [assign('hb_ws', workspaceDir(spec)), assign('hb_wsbranch', workspaceBranch(spec.name))] : []),
    assign('hb_state', env.stateDir),
    assign('hb_bin', env.bin),
    ...opt('hb_client', billing.billingClientName),
    assign('hb_prompt_text', wake.prompt),
    assign('hb_timeout', env.timeout),
    assign('hb_timeout_text', wake.timeoutText),
    assign('hb_kill', env.killAfter),
    assign('hb_cap', env.cap),
    assign('hb_lockmode', env.lock),
    assign('hb_logmax', rotateContext(ctx).logMaxBytes),
    // The gate counts the budget only where the client's stream says what a wake spent; the
    // allowance line tells the agent the spec's budget either way.
    assign('hb_budget', stream.budget),
    assign('hb_daybudget', seeds.budget),
    assign('hb_rsv5', stream.reserve5),
    assign('hb_rsv7', stream.reserve7),
    ...opt('hb_until', spec.until ? spec.until.replace('T', ' ') : ''),
    // The daily digest's time (step 8c), HH:MM in the working zone.
    ...opt('hb_digest_at', digestOf(spec)?.at ?? ''),
    assign('hb_minrun', end.minRun),
    assign('hb_minrun_text', end.minRunText),
    assign('hb_clockshift', end.clockShift),
    assign('hb_endtext', windowContext(ctx).endText),
    ...limitValues(limit),
    assign('hb_notify_after', notify.notifyAfter),
    assign('hb_pause_after', pauseAfterOf(spec)),
    assign('hb_idle_after', idleOf(spec).after),
    assign('hb_idle_every', idleOf(spec).every),
    ...opt('hb_ping_url', notify.pingUrl),
    ...opt('hb_pingbody', notify.pingOn && notify.pingBody),
    ...opt('hb_shared', wake.shared),
    ...opt('hb_lateskip', windowContext(ctx).lateSkip),
    ...modelValues(wake, seeds, presetLength),
    ...(billing.billingCheck ? [assign('hb_billing_s', billing.billingTimeout)] : []),
    ...opt('hb_billing_token', billing.billingSetupToken),
    ...jailValues(jail),
    ...boundsValues(ctx),
    ...windowValues(ctx),
    ...listValues(ctx, env, wake, jail, billing, notify),
  ];
}

/** The model's values: the tiers' line, the pinned model and its fallback, and where the preset's --model and --fallback-model stand. */
function modelValues(wake: ReturnType<typeof wakeContext>, seeds: ReturnType<typeof seedsContext>, presetLength: number): string[] {
  const preset = wake.agentArgs.slice(0, presetLength);
  const m = preset.indexOf('--model');
  const f = preset.indexOf('--fallback-model');
  const opt = (name: string, v: string | boolean) => (v ? [assign(name, v === true ? '1' : v)] : []);
  return [
    ...opt('hb_models_line', wake.modelsLine),
    ...opt('hb_model_spec', seeds.model),
    ...opt('hb_fallback', seeds.fallbackModel),
    ...(seeds.fallbackModel && m >= 0 ? [assign('hb_model_at', m + 2)] : []),
    ...(seeds.fallbackModel && f >= 0 ? [assign('hb_alt_at', f + 1)] : []),
  ];
}

/** The jail's switches, its srt and private tmp, and the SHA-256 of the settings it must find. */
function jailValues(jail: JailContext): string[] {
  const opt = (name: string, v: string | boolean) => (v ? [assign(name, v === true ? '1' : v)] : []);
  return [
    ...opt('hb_jail', jail.jail),
    ...opt('hb_srt', jail.jailBin),
    ...opt('hb_jailtmp', jail.jailTmp),
    ...opt('hb_jaillinux', jail.jailLinux),
    ...(jail.jail ? [assign('hb_jailsha', sha256Hex(`${jail.jailSettingsText}\n`))] : []),
  ];
}

/** The pause at the plan's limit: how long without a reset time, and how far a reset time is believed. */
function limitValues(limit: LimitContext): string[] {
  return [
    assign('hb_limit_backoff', limit.limitBackoff),
    assign('hb_limit_backoff_text', limit.limitBackoffText),
    assign('hb_limit_distrust', limit.limitDistrust),
    assign('hb_limit_distrust_text', limit.limitDistrustText),
  ];
}

/** The wake's bounds where the wrapper applies them (hb_tasks set switches them on; hb_bndscope: cron's transient scope). */
function boundsValues(ctx: RenderContext): string[] {
  const b = boundsContext(ctx);
  if (!b.bounds) return [];
  return [
    assign('hb_tasks', b.boundsTasks),
    assign('hb_mem', b.boundsMemory),
    assign('hb_memkib', b.boundsKib),
    assign('hb_memcap', b.boundsCapKib),
    assign('hb_memtext', b.boundsMemoryText),
    ...(b.boundsScope ? [assign('hb_bndscope', '1')] : []),
  ];
}

/** heartbeat.sh's lists, each as numbered variables (hb_words in the runtime reads them). */
function listValues(ctx: RenderContext, env: EnvironmentContext, wake: WakeContext, jail: JailContext, billing: BillingContext, notify: NotifyContext): string[] {
  return [
    ...list('hb_env', env.envWords),
    ...list('hb_secret', ctx.spec.kubernetes?.secretKeys ?? []),
    ...list('hb_arg', wake.agentArgs),
    ...list('hb_gate', gateContext(ctx).gateArgv),
    ...list('hb_notify', notify.notifyArgv),
    ...list('hb_jailenv', jail.jailEnvWords),
    ...list('hb_jaildir', jail.jailDirs),
    // One list for the files the wrapper makes for the client (step 22, hb_jailprep): seeds
    // and copies, links to the person's entries, the login (written back by hb_jailback).
    ...[
      ...jail.jailSeeds.map((x) => [x.path, x.content, x.from, undefined, false] as const),
      ...jail.jailLinks.map((x) => [x.path, undefined, undefined, x.target, false] as const),
      ...jail.jailLogins.map((x) => [x.path, undefined, x.person, undefined, true] as const),
    ].flatMap(([path, text, from, link, login], i) => [
      assign(`hb_seed_${i + 1}`, path),
      ...(text === undefined ? [] : [assign(`hb_seedtext_${i + 1}`, text)]),
      ...(from === undefined ? [] : [assign(`hb_seedfrom_${i + 1}`, from)]),
      ...(link === undefined ? [] : [assign(`hb_seedlink_${i + 1}`, link)]),
      ...(login ? [assign(`hb_seedlogin_${i + 1}`, '1')] : []),
    ]),
    ...list('hb_billfile', billing.billingFiles),
    ...list('hb_prune', outcomeContext(ctx).prunes),
  ];
}

export function scriptFiles(ctx: RenderContext): RenderedFile[] {
  const rt = runtime();
  const w = windowContext(ctx);
  const files: RenderedFile[] = [
    {
      path: 'heartbeat.sh',
      content: renderHeartbeatSh({ header: ctx.header, values: heartbeatValues(ctx), version: rt.version, sha256: rt.sha256, logPrintf: LOG_PRINTF, logDateFormat: LOG_DATE_FORMAT, changed: RUNTIME_CHANGED }),
      mode: 0o755,
    },
    { path: 'window.sh', content: renderWindowSh({ header: ctx.header, startText: w.startText, endText: w.endText, timezone: w.timezone, values: windowValues(ctx), version: rt.version, sha256: rt.sha256 }), mode: 0o755 },
    // The runtime itself, named by its version: the same bytes for every spec (a reviewer
    // skips it; `hbgen runtime --sha256` prints the SHA-256 it must have).
    { path: rt.name, content: rt.text, mode: 0o444 },
  ];
  if (ctx.spec.shared) files.push({ path: 'claim.sh', content: renderClaimSh(claimContext(ctx)), mode: 0o755 });
  const jail = ctx.jail;
  if (jail) files.push({ path: 'jail.json', content: jailSettings(jail), mode: 0o644 });
  return files;
}
