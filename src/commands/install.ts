// hbgen install [SPEC] [--yes] [--dry-run], and hbgen resume (the same, for an install state.json records).
// The order matters, so that a refusal never comes after the question (but one: a heartbeat
// still running after the wait below) and a failure never leaves half an install: validate →
// host facts → render → every read-only check of the scheduler → panel → one question
// (default No) → hbgen's lock → no heartbeat of this install running (waited for, bounded)
// → state-folder files → state.json intent → host files and scheduler → install check
// (smoke test, state.json, the scheduler lists the entry) → success only when every check
// was observed passing; otherwise everything is undone, except the log history (runtime.log
// is never cut, runtime.log.1 never removed: see docs/install.md). Then the first real wake,
// when asked for: a required check of it that fails leaves the platform stopped, exit 1.
import { activeFailPause, clearFailPause } from '../host/audit/failpause.ts';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import { specChanges } from '../spec-diff.ts';
import { reachesRepo, resolved } from '../host/install/reach.ts';
import { UserError } from '../errors.ts';
import { shownArgv, shownWord } from '../escape.ts';
import { DIGEST_ARGV_FILE, sleep, formatWakes } from '../formats.ts';
import { Journal, type Backend, type Ctx, type FilePlan, type Preflight, planFile, record, writePlanned } from '../host/backend.ts';
import { type Facts, hostFacts, permissionMode, offHostFacts } from '../host/install/facts.ts';
import { heartRefusal } from '../host/heart/mission.ts';
import { probeJail } from '../host/install/jail-probe.ts';
import { jailOn } from '../jail.ts';
import { type Look, lookEverywhere, lookRenamed, resumeNotes, trustedSpec } from '../host/audit/found.ts';
import { stopLocked } from './stop.ts';
import { lstatOrNull, missingDirs, mkdirs, readOrNull, sha256, writeAtomic } from '../host/fsx.ts';
import type { HostIO } from '../host/io.ts';
import { type BillingRecord, checkBilling } from '../host/install/billing.ts';
import { acquireOpLock } from '../host/proc/lock.ts';
import { panel } from '../host/install/panel.ts';
import { heartbeatRunningNow, lockInfo } from '../host/proc/proc.ts';
import { wakesDone } from '../host/audit/runtime-log.ts';
import { askConsent } from '../host/install/prompt.ts';
import { type Check, smokeTest } from '../host/install/smoke.ts';
import { scheduledSmoke, smokePanelLines } from '../host/install/sched-smoke.ts';
import { firstWake } from '../host/install/first-wake.ts';
import { type State, readState, refuseForeignState, specHash, statePath, writeState } from '../host/state.ts';
import { toolsPresent } from '../host/proc/tools.ts';
import { type SeedLook, seedLook } from '../host/install/seed-checks.ts';
import { registryCaveats } from '../host/install/agent-may.ts';
import { type ExcludePlan, applyExclude, excludeLines, excludePlan } from '../host/install/exclude.ts';
import { type WorkspacePlan, applyWorkspace, workspaceLines, workspacePlan } from '../host/install/workspace.ts';
import { workspaceOn } from '../workspace.ts';
import { type Names, names } from '../names.ts';
import { type RenderResult, renderSpec } from '../pipeline.ts';
import { FACTS, factsOf } from '../scheduler-facts.ts';
import { SCHEDULERS } from '../schedulers.ts';
import { type Spec, digestOf, validateSpec } from '../spec.ts';
import { digestArgvText } from '../host/install/digest-argv.ts';
import { VERSION, holdsRuntime } from '../version.ts';
import { checkApply, line, loadFor, specPath } from './common.ts';
import { chooseOnTerminal } from './install-menu.ts';
import { ownershipRecord, writeEntrySum } from './install-extras.ts';

export interface InstallArgs {
  spec: string;
  yes?: boolean;
  dryRun?: boolean;
  /** resume --reset-cap: zero the wake counter after the panel and consent. */
  resetCap?: boolean;
  /** The option of a backend that prints its commands (kubernetes: kubectl apply): run them after the panel and consent. */
  apply?: boolean;
  /** install's menu (install-menu.ts): an edited spec, planned in place of the file's until the file is written. */
  edited?: Spec;
  /** Run the first real wake after the check without asking (src/host/install/first-wake.ts). */
  firstWake?: boolean;
  /** Install although HEART.md is empty or its Mission section says nothing. */
  forceEmptyHeart?: boolean;
  /** hbgen upgrade's re-install: the install has run its wakes already, so no first wake is offered. */
  upgrade?: boolean;
}

type Verb = 'install' | 'resume';

const NOTHING = 'nothing was changed on this host';

/** Everything install decided before it asks: what it will write and run, and why. */
interface InstallPlan {
  verb: Verb;
  argv: InstallArgs;
  spec: Spec;
  specFile: string;
  names: Names;
  prev: State | null;
  facts: Facts;
  render: RenderResult;
  ctx: Ctx;
  backend: Backend;
  pre: Preflight;
  stateFiles: FilePlan[];
  /** This spec's entries on the other schedulers: removed after the check passes (one scheduler at a time). */
  others: Look[];
  /** Diffs of hbgen's files edited since install, which install puts back. */
  edits: string[];
  /** Caveats of resume itself (the spec file changed since the recorded install). */
  notes: string[];
  /** What the agent's client said of its login (or "not checked" for `command`). */
  billing: BillingRecord;
  /** The srt the wakes run, found and run for real by the jail's probe; null when the jail is off. */
  jailBin: string | null;
  /** The seed's rows: budget, token policy, instruction files, models (src/host/install/seed-checks.ts). */
  seeds: SeedLook;
  /** hbgen's block in the repo's .git/info/exclude (null: controlFiles "commit", or no git repository here). */
  exclude: ExcludePlan | null;
  /** The agent's own clone and branch ("workspace": "clone"), or null. */
  workspace: WorkspacePlan | null;
}

export async function install(argv: InstallArgs, io: HostIO, verb: Verb = 'install'): Promise<number> {
  await refuseOptions(argv, io, verb);
  let p = await planInstall(argv, io, verb);
  const reset = verb === 'resume' && argv.resetCap === true;
  let same = alreadyInstalled(p);
  if (same && !reset) {
    line(io, `hbgen: "${p.spec.name}" is already installed as ${p.specFile} says; nothing changed${stillPaused(p)}`);
    return 0;
  }
  io.out(showPanel(p));
  if (reset) line(io, `and it sets the wake counter ${p.names.wakes} to 0 (${counterText(p)})${same ? '; the install itself is already as recorded' : ''}`);
  if (argv.dryRun) {
    line(io, `--dry-run: ${NOTHING}`);
    return 0;
  }
  if (!argv.yes && !io.stdin.isTTY) await askOnce(p, io);
  if (!argv.yes) {
    p = await chooseOnTerminal(p, io, { verb, specFile: p.specFile, specOf: (x) => x.spec, show: showPanel, replan: (spec) => planInstall({ ...argv, edited: spec }, io, verb) });
    same = alreadyInstalled(p);
    if (same && !reset) {
      line(io, `hbgen: "${p.spec.name}" is already installed as ${p.specFile} says; nothing changed${stillPaused(p)}`);
      return 0;
    }
  }
  const lock = await acquireOpLock(io);
  try {
    await waitForHeartbeat(p, io);
    const code = same ? 0 : await applyAndCheck(p, io);
    if (reset && code === 0) {
      writeAtomic(p.names.wakes, formatWakes(0), 0o600);
      line(io, `hbgen: the wake counter of "${p.spec.name}" is 0 again: up to ${p.spec.cap || 'any number of'} wakes from now`);
    }
    return code;
  } finally {
    lock.release();
  }
}

/** The usage errors (exit 2) of the options, before anything is read: --apply, and what the backend cannot honour. */
async function refuseOptions(argv: InstallArgs, io: HostIO, verb: Verb): Promise<void> {
  const { spec } = loadFor(io, argv.spec);
  checkApply(spec, argv.apply);
  (await SCHEDULERS[spec.schedule.scheduler].backend()).refuseOptions?.({ spec, names: names(spec) }, { resetCap: verb === 'resume' && argv.resetCap === true });
}

/** What install undoes in each edited file, as a unified diff (now → hbgen's). */
async function editDiffs(files: FilePlan[]): Promise<string[]> {
  const edited = files.filter((f) => f.edited && f.prior);
  if (edited.length === 0) return [];
  const { createTwoFilesPatch } = await import('diff');
  return edited.map((f) => createTwoFilesPatch(f.path, f.path, f.prior!.toString('utf8'), f.content.toString('utf8'), 'now', 'as hbgen installs it').replace(/^=+\n/m, ''));
}

/** "12 of 12 wakes done", from the wrapper's counter file. */
function counterText(p: InstallPlan): string {
  const done = wakesDone(p.names.wakes) ?? 'no readable count';
  return p.spec.cap ? `${done} of ${p.spec.cap} wakes done` : `${done} wakes done, no cap`;
}

/**
 * The spec to install: always the spec file's. For resume, state.json must record an install
 * of this spec (the same name, repo and state folder) and is compared with the file, never
 * installed from: it sits in a folder the agent may write.
 */
function resolveSpec(argv: InstallArgs, io: HostIO, verb: Verb): { spec: Spec; specFile: string; prev: State | null; notes: string[] } {
  const { spec: fileSpec, file: specFile } = argv.edited ? { spec: argv.edited, file: specPath(io, argv.spec) } : loadFor(io, argv.spec);
  const stateDir = names(fileSpec).stateDir;
  const prev = readState(stateDir);
  if (verb === 'resume') return { spec: fileSpec, specFile, prev, notes: resumeNotes(prev, fileSpec, specFile, argv.spec) };
  // The default state folder is named after the spec: a spec of the same name in another
  // repo would land in the same folder and take over that install's entries.
  const other = prev && typeof prev.spec === 'object' && prev.spec !== null ? (prev.spec as { repo?: unknown }).repo : undefined;
  if (typeof other === 'string' && other !== fileSpec.repo) {
    throw new UserError([
      `${statePath(stateDir)} records the install of "${fileSpec.name}" for the repo ${other}, not ${fileSpec.repo}: two repos cannot share one name's state folder; give this spec another "name" (or its own "stateDir"), or first run \`hbgen stop\` with that repo's spec and delete ${stateDir}`,
      NOTHING,
    ]);
  }
  return { spec: fileSpec, specFile, prev, notes: [] };
}

/**
 * A spec file the jailed agent could write: inside the repo under another name than the
 * top folder's hbgen.json, the one the jail keeps read-only (src/jail.ts REPO_DENY). The
 * policy is rendered from the spec alone, so it cannot name a file wherever it lies.
 */
function specPlaceRefusal(spec: Spec, specFile: string): string | null {
  if (!jailOn(spec) || !reachesRepo(specFile, spec.repo)) return null;
  if (resolved(specFile) === resolved(posix.join(spec.repo, 'hbgen.json'))) return null;
  return `${specFile}: is inside the repo, where the jailed agent could rewrite it (a gate, a wider sandbox) before your next install; the jail keeps only ${posix.join(spec.repo, 'hbgen.json')} read-only, so name it that or move it outside the repo`;
}

/** The state folder's files as planned (the rendered ones, the digest's program); a file
 * that cannot be written safely adds its refusal instead. */
function planStateFiles(files: { path: string; content: string; mode: number }[], spec: Spec, n: Names, prev: InstallPlan['prev'], refusals: string[]): FilePlan[] {
  const stateFiles: FilePlan[] = [];
  for (const f of files) {
    const path = posix.join(n.stateDir, f.path);
    const pf = planFile(path, Buffer.from(f.content), f.mode, spec, n, prev?.files.find((x) => x.path === path));
    if (pf.refusal) refusals.push(pf.refusal);
    else stateFiles.push(pf.plan!);
  }
  // The daily digest's program (heartbeat/33-digest): this node and this hbgen, recorded here.
  if (digestOf(spec)) {
    const text = digestArgvText();
    const path = posix.join(n.stateDir, DIGEST_ARGV_FILE);
    const pf = text === null ? { refusal: `digest: hbgen cannot find its own bin/hbgen.cjs to record in ${path}; run hbgen from its installed package (npm install -g), or leave digest out` } : planFile(path, Buffer.from(text), 0o644, spec, n, prev?.files.find((x) => x.path === path));
    if (pf.refusal) refusals.push(pf.refusal);
    else stateFiles.push(pf.plan!);
  }
  return stateFiles;
}

/** Every read-only check, then the plan; any refusal is thrown before anything changes. */
async function planInstall(argv: InstallArgs, io: HostIO, verb: Verb): Promise<InstallPlan> {
  const { spec, specFile, prev, notes } = resolveSpec(argv, io, verb);
  const n = names(spec);
  // Before any look that runs a program (the backend's, billing, the jail probe): the state folder is written only by its owner.
  refuseForeignState(n.stateDir, io.uid, `hbgen ${verb} ${shownWord(argv.spec)}`);
  const scheduler = spec.schedule.scheduler;
  // A scheduler off this host runs the agent in its own place (a pod): nothing of it is here to check.
  const here = !FACTS[scheduler].offHost;
  const facts = here ? hostFacts(spec, io) : offHostFacts(spec, io);
  const render = await renderSpec(spec);
  if (render.errors.length) throw new UserError(render.errors.map((l) => `${specFile}: ${l}`));
  const ctx: Ctx = { io, spec, names: n, home: facts.home, files: render.files, prev, apply: argv.apply };
  const backend = await SCHEDULERS[scheduler].backend();
  // Without its tools a backend on this host cannot look; hostFacts has already refused that.
  // A backend off this host refuses for itself (its tools are needed only with --apply).
  const pre = !here || toolsPresent(scheduler, io.env.PATH).ok ? await backend.preflight(ctx) : null;
  const refusals = [...facts.problems];
  // An off-host scheduler's repo is the pod's (cloned or mounted there), not a folder here.
  const heart = factsOf(spec.schedule.scheduler)?.offHost ? null : heartRefusal(spec.repo, argv.forceEmptyHeart === true);
  if (heart) refusals.push(heart);
  const place = specPlaceRefusal(spec, specFile);
  if (place) refusals.push(place);
  // The repo is the pod's for an off-host scheduler: nothing of it is here to exclude in.
  // A jailed wake running now shows srt's placeholders in the repo (or the agent's clone):
  // told apart from a pointer of the agent's only while it holds the lock.
  const jailRunning = here && jailOn(spec) && (await lockInfo(io, spec, n)).held;
  const ex = here ? excludePlan(spec, jailRunning) : null;
  if (typeof ex === 'string') refusals.push(ex);
  const exclude = typeof ex === 'string' ? null : ex;
  const ws = here && workspaceOn(spec) ? workspacePlan(spec, jailRunning) : null;
  if (typeof ws === 'string') refusals.push(ws);
  const workspace = typeof ws === 'string' ? null : ws;
  // The client's own word on how it bills, asked only once the binary itself passed.
  const bill = refusals.length || !here ? null : await checkBilling(spec, io.now().toISOString());
  if (bill && 'refusal' in bill) refusals.push(bill.refusal);
  const stateFiles = planStateFiles(render.files, spec, n, prev, refusals);
  refusals.push(...(pre?.refusals ?? []));
  // The jail must start here, for real: never a wake that would run unjailed.
  const jailFile = render.files.find((f) => f.path === 'jail.json');
  const probe = jailFile && !refusals.length ? probeJail(spec, jailFile.content) : null;
  if (probe?.refusal) refusals.push(probe.refusal);
  const jailBin = probe?.bin ?? null;
  if (refusals.length || !pre) throw new UserError([...refusals, NOTHING]);
  // The host scheduler is the sole scheduler: entries of this spec that another scheduler
  // still runs (an install before the spec's scheduler changed, or under the spec's earlier
  // name) go, or install refuses. Looked for only once everything else can go ahead.
  const others = [...(await lookEverywhere(ctx, prev, spec, scheduler)), ...(await lookRenamed(ctx, spec, specFile))].filter((l) => l.plan.found.length || l.plan.refusals.length);
  for (const l of others) refusals.push(...l.plan.refusals.map((r) => `${r} (an earlier install of "${spec.name}" on ${l.id} must be removed before it moves to ${scheduler})`));
  if (refusals.length) throw new UserError([...refusals, NOTHING]);
  const billing = bill && 'record' in bill ? bill.record : { result: 'not checked' as const };
  return { exclude, workspace, seeds: seedLook(spec, facts.bin.realpath), jailBin, verb, argv, spec, specFile, names: n, prev, facts, render, ctx, backend, pre, stateFiles, others, notes, billing, edits: await editDiffs([...stateFiles, ...pre.hostFiles]) };
}

function sameRecords(a: { path: string; sha256: string; mode: number }[], b: { path: string; sha256: string; mode: number }[]): boolean {
  const k = (r: { path: string; sha256: string; mode: number }) => `${r.path}\0${r.sha256}\0${r.mode}`;
  return a.length === b.length && a.map(k).sort().join('\n') === b.map(k).sort().join('\n');
}

/** The same spec is installed, every file and the scheduler entry exactly as planned. */
function alreadyInstalled(p: InstallPlan): boolean {
  const { pre, prev } = p;
  return (
    p.others.length === 0 &&
    pre.unchanged &&
    p.stateFiles.every((f) => f.action === 'same') &&
    (!p.exclude || p.exclude.before?.equals(p.exclude.after) === true) &&
    (!p.workspace || (!p.workspace.create && !p.workspace.branchInRepo)) &&
    prev?.status === 'installed' &&
    // A repaired (so edited) file is cleared by an install that writes state.json afresh.
    !prev.repairs?.length &&
    prev.specHash === specHash(p.spec) &&
    sameRecords(prev.files, p.stateFiles.map(record)) &&
    sameRecords(prev.hostFiles, pre.hostFiles.map(record))
  );
}

function showPanel(p: InstallPlan): string {
  return panel({
    verb: p.verb,
    spec: p.spec,
    names: p.names,
    specFile: p.specFile,
    summary: p.render.summary,
    bin: p.facts.bin,
    permissionMode: permissionMode(p.spec.agent, jailOn(p.spec)),
    jailBin: p.jailBin,
    billing: p.billing,
    stateFiles: p.stateFiles,
    statePath: statePath(p.names.stateDir),
    pre: p.pre,
    caveats: [...p.notes, ...p.facts.caveats, ...p.pre.caveats, ...p.render.warnings, ...p.seeds.caveats, ...registryCaveats(p.spec), ...(p.argv.forceEmptyHeart && heartRefusal(p.spec.repo) ? [`HEART.md holds no mission (installed with --force-empty-heart): every wake works from the prompt alone`] : [])],
    seeds: p.seeds.rows,
    removes: p.others.flatMap((l) => l.plan.found.map((f) => `${l.id}: ${f}`)),
    oldRuntimes: oldRuntimes(p),
    oldHostCopies: oldHostCopies(p),
    exclude: [...(p.exclude ? excludeLines(p.exclude) : []), ...(p.workspace ? workspaceLines(p.spec, p.workspace) : [])],
    edits: p.edits,
    smokeLines: smokePanelLines(p.spec.schedule.scheduler, p.names, p.ctx.io.uid),
    // The installed spec completed again by this hbgen: a default an upgrade added is no change of the person's.
    changes: p.prev && typeof p.prev.spec === 'object' ? { list: specChanges(validateSpec(p.prev.spec).spec ?? p.prev.spec, p.spec), since: p.prev.installedAt ?? p.prev.time } : undefined,
  });
}

/** The one question; anything but yes ends the command with nothing changed. */
async function askOnce(p: InstallPlan, io: HostIO): Promise<void> {
  const a = await askConsent(io, `${p.verb === 'install' ? 'Install' : 'Resume'} "${p.spec.name}" on this host with these settings?`);
  if (a === 'no-tty') {
    throw new UserError([`there is no terminal to ask for consent, so ${NOTHING}; read the panel above, then run \`hbgen ${p.verb} ${shownWord(p.argv.spec)} --yes\` to go ahead (or --dry-run to only show it)`]);
  }
  if (a === 'no') throw new UserError([`you did not confirm, so ${NOTHING}`]);
}

/** How long install waits for a heartbeat running now before it refuses. */
const WAIT_S = 30;

/**
 * A heartbeat of this install running now holds the lock and writes runtime.log: the
 * install check would meet its lock and fail. So install waits for it (bounded, on the
 * host clock) and refuses, changing nothing, if it still runs. It looks here, under hbgen's
 * lock and after the question, because a wake may start at any time: only the look just
 * before the first write counts.
 */
async function waitForHeartbeat(p: InstallPlan, io: HostIO): Promise<void> {
  const running = await heartbeatEnded(p, io, 'before changing anything');
  if (running) {
    throw new UserError([`a heartbeat is running now (${running}); retry after it ends, or \`hbgen stop ${shownWord(p.argv.spec)}\` ends it`, NOTHING]);
  }
}

/** Waits (up to WAIT_S, saying so) for a heartbeat of this install to end; what still runs then, or null. */
async function heartbeatEnded(p: InstallPlan, io: HostIO, why: string): Promise<string | null> {
  let running = await heartbeatRunningNow(io, p.spec, p.names);
  if (!running) return null;
  line(io, `hbgen: a heartbeat of "${p.spec.name}" is running now (${running}); waiting up to ${WAIT_S} s for it to end ${why}`);
  // The host clock decides; a monotonic bound backs it, so a clock stepped back cannot stretch the wait.
  const until = io.now().getTime() + WAIT_S * 1000;
  const backstop = performance.now() + WAIT_S * 1000;
  while (running && io.now().getTime() < until && performance.now() < backstop) {
    await sleep(250);
    running = await heartbeatRunningNow(io, p.spec, p.names);
  }
  return running;
}

/** state.json as written before the scheduler is touched: status "installing". */
function intendedState(p: InstallPlan, io: HostIO): State {
  const { spec, pre, prev, facts } = p;
  const hostDirs = [...new Set(pre.hostFiles.filter((f) => f.action !== 'same').flatMap((f) => missingDirs(dirname(f.path))))];
  return {
    format: 1,
    name: spec.name,
    status: 'installing',
    time: io.now().toISOString(),
    hbgenVersion: VERSION,
    specFile: p.specFile,
    specHash: specHash(spec),
    spec,
    scheduler: spec.schedule.scheduler,
    ids: pre.ids,
    ...ownershipRecord(spec.schedule.scheduler, pre.ids, p.render.summary, pre.caveats),
    stateDir: p.names.stateDir,
    files: p.stateFiles.map(record),
    hostFiles: pre.hostFiles.map(record),
    // Only folders hbgen creates for this name are carried over: state.json may name any.
    createdDirs: [...new Set([...(prev?.createdDirs ?? []).filter((d) => lstatOrNull(d) && p.backend.hostPaths(p.ctx).dirs.includes(d)), ...hostDirs])],
    bin: facts.bin,
    harness: spec.agent.harness,
    permissionMode: permissionMode(spec.agent, jailOn(spec)),
    billing: { ...p.billing, checkedKeys: facts.checkedKeys, envFileWarnings: facts.envFileWarnings },
    heart: { sha256: ((h) => (h ? sha256(h) : null))(readOrNull(posix.join(spec.repo, 'HEART.md'))) },
    ...(p.exclude ? { exclude: { path: p.exclude.path } } : {}),
    ...pre.stateExtra,
  };
}

/** An earlier install was active: a complete rollback restores it, so it stays active. */
const earlierActive = (p: InstallPlan): boolean => p.prev?.status === 'installed';

/** Undo every journalled step, say what was undone, and end the command with `why`. */
async function undoAll(p: InstallPlan, j: Journal, io: HostIO, why: string): Promise<never> {
  const { undone, failed } = await j.rollback();
  for (const u of undone.reverse()) line(io, `  undone: ${u}`);
  const restored = earlierActive(p)
    ? `hbgen undid everything it did: the earlier install of "${p.spec.name}" is unchanged and still active`
    : 'hbgen undid everything it did: the host is as it was before';
  throw new UserError(failed.length ? [why, ...failed.map((f) => `could not undo: ${f}`), 'fix what is named above by hand; `hbgen status` shows what is left'] : [why, restored]);
}

/** Under hbgen's lock: write, check, and undo everything unless every check passed. */
async function applyAndCheck(p: InstallPlan, io: HostIO): Promise<number> {
  const state = intendedState(p, io);
  const j = new Journal();
  try {
    await applyAll(p, state, j);
  } catch (e) {
    if (e instanceof UserError) return await undoAll(p, j, io, `installing failed: ${e.lines.join('; ')}`);
    await j.rollback();
    throw e;
  }
  line(io, 'checking the install:');
  const checks = await installChecks(p, state, io);
  for (const c of checks) line(io, `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.what}: ${c.observed}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length) {
    const what = earlierActive(p) ? `these settings of "${p.spec.name}" are not installed` : `"${p.spec.name}" is not installed`;
    // A wake that started after the look before the first write holds the lock the check needs.
    const during = await heartbeatRunningNow(io, p.spec, p.names);
    const why = `the install check failed (${failed.map((c) => c.what).join(', ')}), so ${what}${during ? `; a heartbeat started during the install (${during}): retry after it ends` : ''}`;
    return await undoAll(p, j, io, why);
  }
  await removeOthers(p, io);
  removeOldRuntimes(p);
  // A new install is the person's answer to the failures that paused the job.
  if (clearFailPause(p.names.stateDir)) line(io, `hbgen: the pause after failing wakes is ended by this install; the next fire runs the agent`);
  const spec = shownWord(p.argv.spec);
  if (p.pre.printed?.length) {
    line(io, `hbgen: wrote "${p.spec.name}" on this machine; to put it in place, run this yourself (or install again with --apply):`);
    for (const c of p.pre.printed) line(io, `  ${shownArgv(c.argv)}`);
  }
  line(io, `hbgen: installed "${p.spec.name}"; \`hbgen status ${spec}\` audits it, \`hbgen wake ${spec}\` runs one heartbeat now, \`hbgen stop ${spec}\` removes it`);
  for (const l of [
    'HEART.md is live: edit it any time, the next heartbeat reads it.',
    'LOG.md is the human timeline (one line per heartbeat, written by the agent).',
    `${p.names.stateDir} holds machine state and raw logs (runtime.log).`,
    `\`hbgen status\` audits without doing work; \`hbgen stop\` keeps that state for \`hbgen resume\`.`,
  ])
    line(io, `  ${l}`);
  if (p.verb === 'install' && !p.argv.upgrade) {
    const w = await firstWake(p.spec, p.names, io, p.ctx.home, p.argv.firstWake, (l) => line(io, l), () => p.backend.listed({ ...p.ctx, prev: readState(p.names.stateDir) }));
    if (w.ran && w.failed.length) await stopAfterFirstWake(p, io, w.failed);
  }
  return 0;
}

/**
 * The first wake ran and a required check failed: the proof did not hold, so the platform
 * is left stopped, as `hbgen stop` leaves it (under the lock install holds: its scheduler
 * entries removed, a heartbeat still running ended, state.json marked stopped), with the state
 * folder, runtime.log, agent.log and the repo kept for the diagnosis; `hbgen resume` brings
 * it back. Ends the command with exit 1, saying what blocks it.
 */
async function stopAfterFirstWake(p: InstallPlan, io: HostIO, failed: string[]): Promise<never> {
  const arg = shownWord(p.argv.spec);
  const what = `first wake: ${failed.length} required check${failed.length === 1 ? '' : 's'} failed (${failed.join(', ')})`;
  line(io, `${what}, so "${p.spec.name}" is left stopped; its state folder and logs stay for the diagnosis:`);
  const s = readState(p.names.stateDir);
  const { spec, notes } = trustedSpec(s, p.spec);
  try {
    await stopLocked(io, { spec: p.argv.spec }, { fileSpec: p.spec, n: p.names, s, spec, notes, ctx: { ...p.ctx, prev: s } });
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    throw new UserError([`${what}, and stopping "${p.spec.name}" did not complete: ${e.lines.join('; ')}`]);
  }
  throw new UserError([
    `${what}: "${p.spec.name}" is stopped; the wake's lines are in ${p.names.log} and the agent's output in ${p.names.agentLog}; fix what the FAIL lines above name (the agent, its prompt, PROTOCOL.md), then \`hbgen resume ${arg}\` installs it again`,
  ]);
}

/** An install that changes nothing leaves the pause after failures where it is: say how it ends. */
function stillPaused(p: InstallPlan): string {
  const f = activeFailPause(p.names.stateDir);
  return f ? `, and it stays paused after ${f.count} failing wakes in a row: \`hbgen resume --now\` ends that pause` : '';
}

/**
 * The new install passed its check: the earlier install's entries on other schedulers go.
 * Done last, so that a failed install leaves the earlier one running, as it was.
 */
async function removeOthers(p: InstallPlan, io: HostIO): Promise<void> {
  for (const l of p.others) {
    line(io, `removing the earlier install on ${l.id}:`);
    try {
      await l.plan.run((m) => line(io, `  ${m}`));
    } catch (e) {
      throw new UserError([
        `"${p.spec.name}" is installed on ${p.spec.schedule.scheduler}, but its earlier entry on ${l.id} could not be removed (${failure(e)}); remove it by hand, then check with \`hbgen status ${shownWord(p.argv.spec)}\``,
      ]);
    }
  }
}

/**
 * The runtimes the earlier install recorded that the new wrapper no longer pins (an
 * upgrade), removed once the new install passed its check. A wake of the earlier wrapper
 * that is still running has its runtime open: it reads on from that file, which lives on
 * until the wake closes it.
 */
function removeOldRuntimes(p: InstallPlan): void {
  for (const path of [...oldRuntimes(p), ...oldHostCopies(p)]) rmSync(path, { force: true });
}

/** The earlier install's runtimes (state.json) in the state folder, and a manifest under host/ that carries one, that the new wrapper does not pin. */
function oldRuntimes(p: InstallPlan): string[] {
  const kept = new Set(p.stateFiles.map((f) => f.path));
  const dirs = [p.names.stateDir, p.names.hostDir];
  return (p.prev?.files ?? []).map((r) => r.path).filter((path) => holdsRuntime(path) && dirs.includes(posix.dirname(path)) && !kept.has(path));
}

/**
 * The earlier install's copies of its scheduler entries under host/ (state.json records
 * them) that this install does not write: another scheduler's, after the spec's scheduler
 * changed. Removed with the runtimes, once the check passed; status would otherwise read a
 * copy no scheduler runs. Only files directly in host/, a real folder of the state folder.
 */
function oldHostCopies(p: InstallPlan): string[] {
  const kept = new Set(p.stateFiles.map((f) => f.path));
  const host = lstatOrNull(p.names.hostDir);
  if (host && !host.isDirectory()) return [];
  return (p.prev?.files ?? []).map((r) => r.path).filter((path) => posix.dirname(path) === p.names.hostDir && !holdsRuntime(path) && !kept.has(path));
}

/** The state folder, state.json as an intent, then the backend's host files and scheduler. */
async function applyAll(p: InstallPlan, state: State, j: Journal): Promise<void> {
  const n = p.names;
  applyStateDir(n, p.stateFiles, j);
  const prevStateBytes = readOrNull(statePath(n.stateDir));
  writeState(n.stateDir, state);
  j.push(prevStateBytes ? 'restored state.json' : 'removed state.json', () => {
    if (prevStateBytes) writeAtomic(statePath(n.stateDir), prevStateBytes, 0o600);
    else rmSync(statePath(n.stateDir), { force: true });
  });
  if (p.exclude) j.push(`restored ${p.exclude.path}`, applyExclude(p.exclude));
  if (p.workspace) j.push(`removed what install made of the agent's clone ${p.workspace.dir}`, applyWorkspace(p.spec, p.workspace));
  await p.backend.apply(p.ctx, p.pre, j);
  writeEntrySum(p, j);
}

/**
 * The state folder and its files; the undo also removes what the install check left there,
 * except the wrapper's own run-time files: runtime.log (and agent.log, the same) is never cut or rewritten (a wake of
 * the earlier install may be writing it, and the check's lines are true history), nor is
 * runtime.log.1 removed (a wake that rotated the log meanwhile made it of the earlier
 * history: never install's to delete), and the lock file and lock folder stay (removing a
 * lock a wake holds would let a second agent in).
 */
function applyStateDir(n: Names, files: FilePlan[], j: Journal): void {
  if (!lstatOrNull(n.stateDir)) {
    const made = mkdirs(n.stateDir, 0o700);
    j.push(`removed ${made[0]}`, () => rmSync(made[0]!, { recursive: true, force: true }));
  } else {
    const before = new Set(readdirSync(n.stateDir));
    const kept = new Set([n.log, `${n.log}.1`, n.agentLog, `${n.agentLog}.1`, n.lock, n.lockDir]);
    j.push('removed what the install check left in the state folder (runtime.log, agent.log and their .1 kept as they are)', () => {
      for (const e of readdirSync(n.stateDir)) {
        const path = posix.join(n.stateDir, e);
        if (!before.has(e) && !kept.has(path)) rmSync(path, { recursive: true, force: true });
      }
    });
  }
  for (const f of files) writePlanned(f, j, 0o700);
}

const failure = (e: unknown) => (e as UserError).lines?.join('; ') ?? (e as Error).message;

/**
 * The install check, as observed: the smoke test, state.json read back, the scheduler's
 * listing. A smoke test that met another wake's lock proved nothing either way: it runs
 * once more after that wake ended (waited for as before the first write).
 */
async function installChecks(p: InstallPlan, state: State, io: HostIO): Promise<Check[]> {
  const smoke = async (): Promise<Check[]> => {
    try {
      return await scheduledSmoke(p.spec, p.names, io, p.ctx.home, p.render.files.find((f) => f.path === 'heartbeat.sh')!.content, p.specFile);
    } catch (e) {
      return [{ ok: false, what: 'smoke test', observed: `could not run the wrapper (${(e as Error).message})` }];
    }
  };
  // Off this host the wrapper runs in the scheduler's own place (a pod), never here.
  let checks = FACTS[p.spec.schedule.scheduler].offHost ? [] : await smoke();
  if (checks.some((c) => c.busy)) {
    line(io, '  (a wake held the lock during the smoke test, so it proved nothing: it runs again once that wake ended)');
    if (!(await heartbeatEnded(p, io, 'before the smoke test runs again'))) checks = await smoke();
  }
  checks.push(stateCheck(p.names, { ...state, status: 'installed', time: io.now().toISOString(), installedAt: io.now().toISOString() }));
  let listing;
  try {
    listing = await p.backend.listed(p.ctx);
  } catch (e) {
    listing = { ok: false, observed: failure(e) };
  }
  checks.push({ ok: listing.ok, what: 'scheduler', observed: listing.observed });
  return checks;
}

/** Write state.json as installed and read it back. */
function stateCheck(n: Names, done: State): Check {
  const path = statePath(n.stateDir);
  try {
    const bytes = writeState(n.stateDir, done);
    const back = readOrNull(path);
    const parsed = back ? (JSON.parse(back.toString('utf8')) as State) : null;
    const ok = back !== null && back.equals(bytes) && parsed?.status === 'installed';
    const observed = ok
      ? `${path} read back as written (sha256 ${sha256(bytes).slice(0, 12)}…): status installed, ${done.files.length + done.hostFiles.length} files recorded with their sha256`
      : `${path} did not read back as written`;
    return { ok, what: 'state.json', observed };
  } catch (e) {
    return { ok: false, what: 'state.json', observed: failure(e) };
  }
}
