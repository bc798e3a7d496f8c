// kubernetes: the heartbeat runs in a cluster, not on this host. hbgen never talks to a
// cluster by itself: install writes the manifest (and the rendered tree) into the state
// folder's path on this machine, records it in state.json and prints the exact
// `kubectl apply -f`; with --apply it runs `kubectl` from PATH after the panel and the one
// question, and records what it applied. stop prints (or with --apply runs) the
// `kubectl delete` of this name's objects, found by their labels; status asks
// `kubectl get cronjob,jobs -l hbgen.dev/name=<name> -o json`.
//
// The host-wide looks of the other schedulers (list, stop of an earlier scheduler) find
// nothing here: kubernetesHost answers them so, and never runs kubectl.
import { rmSync } from 'node:fs';
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { MANAGED_BY, NAME_LABEL, cronJobName, manifestPath } from '../../../generators/kubernetes.ts';
import { UserError } from '../../errors.ts';
import { shownArgv, shownWord } from '../../escape.ts';
import { names, type Names } from '../../names.ts';
import { renderSpec, type RenderResult } from '../../pipeline.ts';
import type { OffHost } from '../../schedulers.ts';
import type { Spec } from '../../spec.ts';
import { VERSION } from '../../version.ts';
import { line, loadFor } from '../../commands/common.ts';
import { type Backend, type FilePlan, Journal, nothingToStop, planFile, record, writePlanned } from '../backend.ts';
import { permissionMode } from '../install/facts.ts';
import { jailOn } from '../../jail.ts';
import { lstatOrNull, mkdirs, mode4, readOrNull, sha256, writeAtomic } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { acquireOpLock } from '../proc/lock.ts';
import { argsRow, otherRuns } from '../install/panel.ts';
import { resumeNotes } from '../audit/found.ts';
import { askConsent } from '../install/prompt.ts';
import { type State, readState, specHash, statePath, writeState } from '../state.ts';
import { type ToolResult, findOnPath, firstLine, runTool } from '../proc/tools.ts';

/** What state.json records for kubernetes: where the objects live and what was applied. */
export interface KubernetesRecord {
  namespace: string;
  manifest: string;
  /** The objects of the manifest, as kind/name. */
  objects: string[];
  /** The last `kubectl apply` hbgen ran (install --apply), or null when the user applies it. */
  applied: { time: string; argv: string[]; manifestSha256: string; said: string } | null;
}

declare module '../state.ts' {
  interface State {
    kubernetes?: KubernetesRecord;
  }
}

const NOTHING = 'nothing was changed on this host or in the cluster';

function namespaceOf(spec: Spec): string {
  return spec.kubernetes?.namespace ?? 'default';
}

/** kubectl's label selector for this name's objects (from the spec name alone). */
export function selector(spec: Spec): string {
  return `${NAME_LABEL}=${spec.name},${MANAGED_BY}=hbgen`;
}

export function applyArgv(spec: Spec, n: Names): string[] {
  return ['kubectl', 'apply', '-f', posix.join(n.stateDir, manifestPath(spec.name))];
}

export function deleteArgv(spec: Spec): string[] {
  return ['kubectl', 'delete', 'cronjob,configmap', '--namespace', namespaceOf(spec), '--selector', selector(spec), '--ignore-not-found'];
}

export function getArgv(spec: Spec): string[] {
  return ['kubectl', 'get', 'cronjob,jobs', '--namespace', namespaceOf(spec), '--selector', `${NAME_LABEL}=${spec.name}`, '--output', 'json'];
}

/** The rendered manifest's objects, read back by the YAML parser. */
function manifestObjects(spec: Spec, r: RenderResult): K8sItem[] {
  const yaml = r.files.find((f) => f.path === manifestPath(spec.name))!.content;
  return parseAllDocuments(yaml).map((d) => d.toJS() as K8sItem);
}

/** The objects a render holds, as kind/name: the ConfigMap and every CronJob. */
function objectsOf(spec: Spec, r: RenderResult): string[] {
  return manifestObjects(spec, r).map((o) => `${(o.kind ?? '').toLowerCase()}/${o.metadata?.name}`);
}

function kubectlMissing(io: HostIO, what: string): string | null {
  return findOnPath('kubectl', io.env.PATH) ? null : `kubectl is not on PATH, so hbgen cannot ${what}; install kubectl (1.27 or later: the CronJob uses spec.timeZone) or run the command it prints yourself`;
}

async function kubectl(io: HostIO, argv: string[]): Promise<ToolResult> {
  return runTool(io, 'kubectl', argv.slice(1), { timeoutMs: 120_000 });
}

/** What kubectl said when it failed: its last line of stderr (the lines before are often client-go's log noise), else firstLine. */
function kubectlSaid(r: ToolResult): string {
  const last = r.stderr.trim().split('\n').pop()?.trim();
  return last || firstLine(r);
}

function panel(verb: string, spec: Spec, n: Names, file: string, r: RenderResult, files: FilePlan[], objects: string[], apply: boolean, notes: string[]): string {
  const k = spec.kubernetes!;
  const h = spec.schedule.hours;
  const rows: [string, string][] = [
    ['repo', `${spec.repo} in the pod: ${k.git ? `a fresh clone of ${k.git.url}${k.git.branch ? ` (${k.git.branch})` : ''} for every wake` : `the PersistentVolumeClaim ${k.pvc}`}`],
    ['agent', `${spec.agent.harness}: ${spec.agent.bin} in the image ${k.image}; ${permissionMode(spec.agent, jailOn(spec))}`],
    argsRow(spec),
    ['billing', spec.agent.harness === 'command' ? 'not checked (custom command)' : "asked of the client in the pod before every wake (not here: the login is in the cluster's Secret)"],
    ['secret', k.secretName ? `${k.secretName} (never read by hbgen)${k.secretKeys ? `; the agent gets ${k.secretKeys.join(', ')}` : ''}` : 'none'],
    ['hours', `${h.start}–${h.end} ${h.timezone}, ${h.days ? h.days.join(' ') : 'every day'}`],
    ['interval', `every ${spec.schedule.every}: ${r.summary}`],
    ['timeout', `${spec.timeout}, then TERM, and KILL ${spec.killAfter} later; the Job ends at ${spec.timeout} + ${spec.killAfter} whatever happens`],
    ...otherRuns(spec),
    ['scheduler', `kubernetes, namespace ${namespaceOf(spec)}: ${objects.join(', ')}`],
    ['state', `${n.stateDir} (in the pod; on this machine it holds the manifest and state.json)`],
  ];
  const out = [`hbgen ${verb}: "${spec.name}" from ${file}`, ...rows.map(([a, b]) => `  ${a.padEnd(10)} ${b}`)];
  const writes = files.filter((f) => f.action !== 'same');
  out.push('files it will write on this machine:');
  const w = Math.max(statePath(n.stateDir).length, ...writes.map((f) => f.path.length));
  for (const f of writes) out.push(`  ${f.path.padEnd(w)}  ${mode4(f.mode)}  ${f.action === 'create' ? 'new' : 'replaced (hbgen wrote it)'}`);
  out.push(`  ${statePath(n.stateDir).padEnd(w)}  0600  the record of this install`);
  out.push(apply ? 'commands it will run:' : 'commands it will NOT run (no --apply): run this yourself, with your cluster context');
  out.push(`  ${shownArgv(applyArgv(spec, n))}`);
  out.push(`undo it later with: hbgen stop ${shownWord(file)} --apply (or the \`kubectl delete\` that \`hbgen stop\` prints)`);
  out.push('caveats:');
  for (const c of notes) out.push(`  - ${c}`);
  out.push('  - the cluster schedules the wakes: concurrencyPolicy Forbid, startingDeadlineSeconds, activeDeadlineSeconds, backoffLimit 0 (see README "Kubernetes")');
  if (!k.pvc || spec.stateDir.startsWith('/')) out.push('  - the state folder (runtime.log, the wake counter) lasts one pod: use kubernetes.pvc and a relative stateDir to keep it');
  return `${out.join('\n')}\n`;
}

type InstallArgv = { spec: string; yes?: boolean; dryRun?: boolean; apply?: boolean; resetCap?: boolean };

/** What install decided before it asks: the spec file's spec (resume's too), its render, the files. */
interface K8sPlan {
  argv: InstallArgv;
  verb: 'install' | 'resume';
  spec: Spec;
  file: string;
  n: Names;
  prev: State | null;
  r: RenderResult;
  plans: FilePlan[];
  objects: string[];
  /** Caveats of resume itself (the spec file changed since the recorded install). */
  notes: string[];
}

/** Every check before the panel; a refusal changes nothing. */
async function planK8s(argv: InstallArgv, io: HostIO, verb: 'install' | 'resume'): Promise<K8sPlan> {
  const { spec: fileSpec, file } = loadFor(io, argv.spec);
  if (argv.resetCap) {
    throw new UserError([`--reset-cap: the wake counter of "${fileSpec.name}" is in the pod's state folder (${names(fileSpec).wakes}, on the PersistentVolumeClaim), which hbgen does not reach; write 0 there from a pod that mounts the claim, then \`hbgen resume --apply\``], 2);
  }
  // resume applies the spec file too: state.json only says there is an install to resume.
  const spec = fileSpec;
  const n = names(fileSpec);
  const prev = readState(n.stateDir);
  const notes = verb === 'resume' ? resumeNotes(prev, fileSpec, file, argv.spec) : [];
  const r = await renderSpec(spec);
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${file}: ${l}`));
  const refusals: string[] = [];
  if (argv.apply) {
    const m = kubectlMissing(io, 'apply the manifest');
    if (m) refusals.push(m);
  }
  const plans: FilePlan[] = [];
  for (const f of r.files) {
    const path = posix.join(n.stateDir, f.path);
    const pf = planFile(path, Buffer.from(f.content), f.mode, spec, n, prev?.files.find((x) => x.path === path));
    if (pf.refusal) refusals.push(pf.refusal);
    else plans.push(pf.plan!);
  }
  if (refusals.length) throw new UserError([...refusals, NOTHING]);
  return { argv, verb, spec, file, n, prev, r, plans, objects: objectsOf(spec, r), notes };
}

/** install and resume: write the rendered tree and state.json here, print (or with --apply run) kubectl apply. */
async function install(argv: InstallArgv, io: HostIO, verb: 'install' | 'resume'): Promise<number> {
  const p = await planK8s(argv, io, verb);
  io.out(panel(verb, p.spec, p.n, p.file, p.r, p.plans, p.objects, argv.apply === true, p.notes));
  if (argv.dryRun) {
    line(io, `--dry-run: ${NOTHING}`);
    return 0;
  }
  if (!argv.yes) {
    const a = await askConsent(io, `${verb === 'install' ? 'Install' : 'Resume'} "${p.spec.name}" with these settings?`);
    if (a === 'no-tty') throw new UserError([`there is no terminal to ask for consent, so ${NOTHING}; read the panel above, then run \`hbgen ${verb} ${shownWord(argv.spec)}${argv.apply ? ' --apply' : ''} --yes\``]);
    if (a === 'no') throw new UserError([`you did not confirm, so ${NOTHING}`]);
  }
  const lock = await acquireOpLock(io);
  try {
    const j = new Journal();
    const state = writeFiles(p, io, j);
    if (!argv.apply) {
      line(io, `hbgen: wrote ${state.kubernetes!.manifest}; apply it to your cluster with:`);
      line(io, `  ${shownArgv(applyArgv(p.spec, p.n))}`);
      line(io, `\`hbgen status ${shownWord(argv.spec)}\` then asks the cluster (kubectl get) how the CronJob runs`);
      return 0;
    }
    await applyK8s(p, state, io, j);
    line(io, `hbgen: applied "${p.spec.name}" to namespace ${namespaceOf(p.spec)}; \`hbgen status ${shownWord(argv.spec)}\` audits it, \`hbgen stop ${shownWord(argv.spec)} --apply\` removes it`);
    return 0;
  } finally {
    lock.release();
  }
}

/** The state folder's files and state.json, each step journalled (state.json's undo last in, first out). */
function writeFiles(p: K8sPlan, io: HostIO, j: Journal): State {
  const { spec, n } = p;
  if (!lstatOrNull(n.stateDir)) {
    const made = mkdirs(n.stateDir, 0o700);
    j.push(`removed ${made[0]}`, () => rmSync(made[0]!, { recursive: true, force: true }));
  }
  for (const f of p.plans) writePlanned(f, j, 0o700);
  const now = io.now().toISOString();
  const state: State = {
    format: 1,
    name: spec.name,
    status: 'installed',
    time: now,
    installedAt: now,
    hbgenVersion: VERSION,
    specFile: p.file,
    specHash: specHash(spec),
    spec,
    scheduler: 'kubernetes',
    ids: Object.fromEntries(p.objects.map((o) => [o, o.slice(o.indexOf('/') + 1)])),
    stateDir: n.stateDir,
    files: p.plans.map(record),
    hostFiles: [],
    createdDirs: [],
    bin: { path: spec.agent.bin, realpath: spec.agent.bin },
    harness: spec.agent.harness,
    permissionMode: permissionMode(spec.agent, jailOn(spec)),
    billing: { result: 'not checked', checkedKeys: [], envFileWarnings: [] },
    kubernetes: { namespace: namespaceOf(spec), manifest: posix.join(n.stateDir, manifestPath(spec.name)), objects: p.objects, applied: p.prev?.kubernetes?.applied ?? null },
  };
  const prevBytes = readOrNull(statePath(n.stateDir));
  writeState(n.stateDir, state);
  j.push(prevBytes ? 'restored state.json' : 'removed state.json', () => (prevBytes ? writeAtomic(statePath(n.stateDir), prevBytes, 0o600) : rmSync(statePath(n.stateDir), { force: true })));
  return state;
}

/** kubectl apply, then the delete of CronJobs the new plan no longer has; a failed apply undoes the files written here. */
async function applyK8s(p: K8sPlan, state: State, io: HostIO, j: Journal): Promise<void> {
  const { spec, n, prev } = p;
  const run = applyArgv(spec, n);
  line(io, `running: ${shownArgv(run)}`);
  const res = await kubectl(io, run);
  if (res.code !== 0) {
    const { undone } = await j.rollback();
    for (const u of undone) line(io, `  undone: ${u}`);
    throw new UserError([`kubectl apply failed (${kubectlSaid(res)}); the files hbgen wrote here are undone, and what kubectl applied before it failed, if anything, is in the cluster: check with \`${shownArgv(getArgv(spec))}\``]);
  }
  for (const l of res.stdout.trim().split('\n').filter(Boolean)) line(io, `  ${l}`);
  // Objects of the earlier install that this one no longer has (fewer cron lines, or all of
  // them when the namespace changed): apply does not remove them. Only names derived from the spec name.
  const oldNs = prev?.kubernetes?.namespace ?? namespaceOf(spec);
  const moved = oldNs !== namespaceOf(spec);
  const gone = (prev?.kubernetes?.objects ?? []).filter((o) => (moved || !p.objects.includes(o)) && (isOurCronJobName(spec.name, o) || o === `configmap/hbgen-${spec.name}`));
  if (gone.length) {
    const del = ['kubectl', 'delete', '--namespace', oldNs, '--ignore-not-found', ...gone];
    line(io, `running: ${shownArgv(del)}`);
    const d = await kubectl(io, del);
    if (d.code !== 0) line(io, `  warning: ${kubectlSaid(d)}; delete ${gone.join(', ')} by hand`);
  }
  state.kubernetes!.applied = { time: io.now().toISOString(), argv: run, manifestSha256: sha256(readOrNull(state.kubernetes!.manifest)!), said: res.stdout.trim() };
  writeState(n.stateDir, state);
}

/** A CronJob name derived from the spec name (hbgen-<name> or hbgen-<name>-<n>): the only kind stop and install ever delete by name. */
function isOurCronJobName(name: string, o: string): boolean {
  return new RegExp(`^cronjob/hbgen-${name}(-[0-9]+)?$`).test(o);
}

async function stop(argv: { spec: string; apply?: boolean }, io: HostIO): Promise<number> {
  const { spec } = loadFor(io, argv.spec);
  const n = names(spec);
  const s = readState(n.stateDir);
  const del = deleteArgv(spec);
  if (!argv.apply) {
    line(io, `hbgen: "${spec.name}" runs in the cluster; hbgen does not talk to it without --apply. Remove its CronJobs and ConfigMap (running Jobs go with their CronJob) with:`);
    line(io, `  ${shownArgv(del)}`);
    line(io, `or run \`hbgen stop ${shownWord(argv.spec)} --apply\`, which runs it and marks the install stopped`);
    return 0;
  }
  const m = kubectlMissing(io, 'delete the objects');
  if (m) throw new UserError([m, NOTHING]);
  const lock = await acquireOpLock(io);
  try {
    line(io, `running: ${shownArgv(del)}`);
    const r = await kubectl(io, del);
    if (r.code !== 0) throw new UserError([`kubectl delete failed (${kubectlSaid(r)}); check your cluster context, then run \`hbgen stop ${shownWord(argv.spec)} --apply\` again`]);
    const said = r.stdout.trim();
    for (const l of said.split('\n').filter(Boolean)) line(io, `  ${l}`);
    if (!said || /^No resources found/.test(said)) line(io, `  the cluster held no object of "${spec.name}" in namespace ${namespaceOf(spec)} (already removed)`);
    if (s && s.status !== 'stopped') writeState(n.stateDir, { ...s, status: 'stopped', time: io.now().toISOString(), stoppedAt: io.now().toISOString() });
    line(io, `hbgen: stopped "${spec.name}"; state.json and the manifest are kept (\`hbgen resume ${shownWord(argv.spec)} --apply\` applies it again)`);
    return 0;
  } finally {
    lock.release();
  }
}

interface K8sItem {
  kind?: string;
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: { schedule?: string; timeZone?: string; suspend?: boolean };
  status?: {
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
    active?: unknown[];
    startTime?: string;
    completionTime?: string;
    succeeded?: number;
    failed?: number;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
  };
}

/** A Job's outcome from its conditions: complete, failed (and why: DeadlineExceeded is the timeout), or running. */
function jobOutcome(j: K8sItem): { done: boolean; ok: boolean; text: string } {
  const c = (j.status?.conditions ?? []).filter((x) => x.status === 'True');
  const failed = c.find((x) => x.type === 'Failed');
  if (failed) return { done: true, ok: false, text: failed.reason === 'DeadlineExceeded' ? 'failed: it ran past activeDeadlineSeconds (the timeout)' : `failed (${failed.reason ?? 'no reason given'})` };
  if (c.some((x) => x.type === 'Complete')) return { done: true, ok: true, text: 'succeeded' };
  return { done: false, ok: true, text: 'running' };
}

async function status(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec: fileSpec } = loadFor(io, argv.spec);
  const n = names(fileSpec);
  const s = readState(n.stateDir);
  const problems: string[] = [];
  const info: string[] = [];
  if (!s) {
    line(io, `hbgen status: "${fileSpec.name}" (kubernetes): no install recorded in ${statePath(n.stateDir)}; run \`hbgen install ${shownWord(argv.spec)}\``);
    return 1;
  }
  line(io, `hbgen status: "${s.name}" (kubernetes, namespace ${namespaceOf(fileSpec)}), ${s.status} at ${s.time}, by hbgen ${s.hbgenVersion}`);
  if (s.status === 'stopped') {
    line(io, '  stopped: `hbgen resume --apply` applies it again');
    return 1;
  }
  // The manifest here against state.json and a fresh render of the spec file.
  const r = await renderSpec(fileSpec);
  const manifest = posix.join(n.stateDir, manifestPath(fileSpec.name));
  const cur = readOrNull(manifest);
  const rec = s.files.find((f) => f.path === manifest);
  const fresh = r.files.find((f) => f.path === manifestPath(fileSpec.name))?.content;
  if (!cur) problems.push(`${manifest} is missing; run \`hbgen install\` to write it again`);
  else if (!rec || sha256(cur) !== rec.sha256) problems.push(`drift: ${manifest} changed since install; run \`hbgen install\``);
  else if (fresh !== undefined && cur.toString('utf8') !== fresh) problems.push(`drift: the spec file renders another manifest than the installed one; run \`hbgen install\` (and apply it)`);
  if (s.kubernetes?.applied) info.push(`hbgen applied the manifest at ${s.kubernetes.applied.time}`);
  const m = kubectlMissing(io, 'ask the cluster how the CronJob runs');
  if (m) {
    problems.push(m);
  } else {
    const get = getArgv(fileSpec);
    const res = await kubectl(io, get);
    let items: K8sItem[] | null = null;
    if (res.code === 0) {
      try {
        items = (JSON.parse(res.stdout) as { items?: K8sItem[] }).items ?? [];
      } catch {
        items = null;
      }
    }
    if (!items) problems.push(`\`${shownArgv(get)}\` failed (${kubectlSaid(res)}); check your cluster context (kubectl config current-context)`);
    else clusterFindings(fileSpec, r, items, io, problems, info);
  }
  for (const i of info) line(io, `  ok       ${i}`);
  for (const p of problems) line(io, `  problem  ${p}`);
  line(io, problems.length === 0 ? 'healthy' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  return problems.length === 0 ? 0 : 1;
}

/** What the cluster's CronJobs and Jobs say: present and as rendered, not suspended, the last schedule, active jobs, the last job's outcome. */
function clusterFindings(spec: Spec, r: RenderResult, items: K8sItem[], io: HostIO, problems: string[], info: string[]): void {
  const rendered = manifestObjects(spec, r).filter((o) => o.kind === 'CronJob');
  const expected = rendered.map((o) => o.metadata!.name!);
  const schedules = rendered.map((o) => o.spec!.schedule!);
  const cronjobs = items.filter((i) => i.kind === 'CronJob');
  const jobs = items.filter((i) => i.kind === 'Job');
  if (cronjobs.length === 0) {
    problems.push(`orphan: the cluster holds no CronJob of "${spec.name}" in namespace ${namespaceOf(spec)}; apply the manifest (\`${shownArgv(applyArgv(spec, names(spec)))}\`)`);
    return;
  }
  expected.forEach((name, i) => {
    const c = cronjobs.find((x) => x.metadata?.name === name);
    if (!c) return problems.push(`missing: the cluster lacks the CronJob ${name}; apply the manifest again`);
    if (c.spec?.schedule !== schedules[i] || c.spec?.timeZone !== spec.schedule.hours.timezone) {
      problems.push(`drift: the CronJob ${name} fires "${c.spec?.schedule}" in ${c.spec?.timeZone ?? 'the controller\'s zone'}, not "${schedules[i]}" in ${spec.schedule.hours.timezone}; apply the manifest again`);
    }
    if (c.spec?.suspend) problems.push(`suspended: the CronJob ${name} has suspend: true, so it never fires; apply the manifest again (it says suspend: false)`);
    const last = c.status?.lastScheduleTime;
    info.push(`the CronJob ${name} fires "${c.spec?.schedule}" ${c.spec?.timeZone}; last scheduled ${last ?? 'never yet'}; ${(c.status?.active ?? []).length} active job${(c.status?.active ?? []).length === 1 ? '' : 's'}`);
  });
  for (const c of cronjobs) {
    const name = c.metadata?.name ?? '';
    if (!expected.includes(name)) problems.push(`duplicate: the cluster also holds the CronJob ${name} labelled "${spec.name}", which this spec does not render; \`hbgen stop --apply\` then \`hbgen install --apply\` leaves only this spec's`);
  }
  const done = jobs.filter((j) => jobOutcome(j).done).sort((a, b) => (a.status?.startTime ?? a.metadata?.creationTimestamp ?? '').localeCompare(b.status?.startTime ?? b.metadata?.creationTimestamp ?? ''));
  const running = jobs.filter((j) => !jobOutcome(j).done);
  if (running.length) info.push(`running now: ${running.map((j) => j.metadata?.name).join(', ')}`);
  const lastJob = done[done.length - 1];
  if (!lastJob) info.push('no finished Job yet');
  else {
    const o = jobOutcome(lastJob);
    const text = `last Job ${lastJob.metadata?.name} (started ${lastJob.status?.startTime ?? '?'}) ${o.text}`;
    if (o.ok) info.push(text);
    else problems.push(`${text}; see \`kubectl logs --namespace ${namespaceOf(spec)} job/${lastJob.metadata?.name}\` (the wrapper's faults)`);
  }
  void io;
}

async function wake(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec } = loadFor(io, argv.spec);
  void io;
  throw new UserError([
    `"${spec.name}" runs in the cluster, not on this host; start one wake there with \`kubectl create job --namespace ${namespaceOf(spec)} --from=cronjob/${cronJobName(spec.name, 0)} ${cronJobName(spec.name, 0)}-now\` (the working-hours check still applies in the pod)`,
  ]);
}

export const kubernetesCommands: OffHost = { install, stop, status, wake };

/** The host side of the other schedulers' looks: nothing of kubernetes lives on this host. */
export const kubernetesHost: Backend = {
  async preflight() {
    throw new Error('kubernetes installs through kubernetesCommands');
  },
  async apply() {
    throw new Error('kubernetes installs through kubernetesCommands');
  },
  async listed() {
    return { ok: false, observed: 'kubernetes: the cluster, not this host, lists the CronJob' };
  },
  hostPaths() {
    return { files: [], dirs: [] };
  },
  async planStop(c) {
    return nothingToStop(`no host entry: "${c.spec.name}" on kubernetes runs in the cluster`);
  },
  async audit() {
    return { problems: [], info: [], present: false };
  },
  async inventory() {
    return { place: 'a Kubernetes cluster', looked: false, why: 'hbgen list asks no cluster; `hbgen status SPEC` does', entries: [], notes: [] };
  },
};
