// kubernetes: the heartbeat runs in a cluster, not on this host, and this backend goes
// through the same install, stop, status and resume as the others. hbgen never talks to a
// cluster by itself: install writes the manifest (in the rendered tree, into the state
// folder's path on this machine), records it in state.json and prints the exact
// `kubectl apply -f`; with --apply (Ctx.apply, this backend's option) it runs `kubectl` from
// PATH after the panel and the one question, and records what it applied. stop prints (or
// with --apply runs) the `kubectl delete` of this name's objects, found by their labels;
// status asks `kubectl get cronjob,jobs -l hbgen.dev/name=<name> -o json`.
//
// The host-wide looks (list, stop of a spec now on another scheduler) find nothing here and
// never run kubectl.
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { MANAGED_BY, NAME_LABEL, cronJobName, manifestPath } from '../../../generators/kubernetes.ts';
import { UserError } from '../../errors.ts';
import { shownArgv } from '../../escape.ts';
import { names, type Names } from '../../names.ts';
import type { Spec } from '../../spec.ts';
import { type Backend, type Ctx, type Preflight, nothingToStop } from '../backend.ts';
import { permissionMode } from '../install/facts.ts';
import { jailOn } from '../../jail.ts';
import { readOrNull, sha256 } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { argsRow, otherRuns } from '../install/panel.ts';
import type { State } from '../state.ts';
import { type ToolResult, findOnPath, firstLine, runTool } from '../proc/tools.ts';
import { facts } from './facts.ts';

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

/** A manifest's objects, read back by the YAML parser. */
function manifestObjects(yaml: string): K8sItem[] {
  return parseAllDocuments(yaml).map((d) => d.toJS() as K8sItem);
}

/** The objects a manifest holds, as kind/name: the ConfigMap and every CronJob. */
function objectsOf(yaml: string): string[] {
  return manifestObjects(yaml).map((o) => `${(o.kind ?? '').toLowerCase()}/${o.metadata?.name}`);
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

/** The panel rows that differ on a cluster: the repo and the agent are in the pod, the login in its Secret. */
function rows(spec: Spec, n: Names, objects: string[]): [string, string][] {
  const k = spec.kubernetes!;
  return [
    ['repo', `${spec.repo} in the pod: ${k.git ? `a fresh clone of ${k.git.url}${k.git.branch ? ` (${k.git.branch})` : ''} for every wake` : `the PersistentVolumeClaim ${k.pvc}`}`],
    ['agent', `${spec.agent.harness}: ${spec.agent.bin} in the image ${k.image}; ${permissionMode(spec.agent, jailOn(spec))}`],
    argsRow(spec),
    ['billing', spec.agent.harness === 'command' ? 'not checked (custom command)' : "asked of the client in the pod before every wake (not here: the login is in the cluster's Secret)"],
    ['secret', k.secretName ? `${k.secretName} (never read by hbgen)${k.secretKeys ? `; the agent gets ${k.secretKeys.join(', ')}` : ''}` : 'none'],
    ['timeout', `${spec.timeout}, then TERM, and KILL ${spec.killAfter} later; the Job ends at ${spec.timeout} + ${spec.killAfter} whatever happens`],
    ...otherRuns(spec),
    ['scheduler', `kubernetes, namespace ${namespaceOf(spec)}: ${objects.join(', ')}`],
    ['state', `${n.stateDir} (in the pod; on this machine it holds the manifest and state.json)`],
  ];
}

interface K8sData {
  /** The manifest's path on this machine, its bytes as rendered, and its objects. */
  manifest: string;
  content: string;
  objects: string[];
}

/** Every check before the panel: the rendered manifest, kubectl for --apply, what apply would change. */
async function preflight(c: Ctx): Promise<Preflight<K8sData>> {
  const { spec, names: n } = c;
  const content = c.files.find((f) => f.path === manifestPath(spec.name))!.content;
  const objects = objectsOf(content);
  const manifest = posix.join(n.stateDir, manifestPath(spec.name));
  const missing = c.apply ? kubectlMissing(c.io, 'apply the manifest') : null;
  const prev = c.prev?.kubernetes;
  const run = { argv: applyArgv(spec, n) };
  const caveats = ['the cluster schedules the wakes: concurrencyPolicy Forbid, startingDeadlineSeconds, activeDeadlineSeconds, backoffLimit 0 (see docs/kubernetes.md)'];
  if (!spec.kubernetes!.pvc || spec.stateDir.startsWith('/')) caveats.push('the state folder (runtime.log, the wake counter) lasts one pod: use kubernetes.pvc and a relative stateDir to keep it');
  return {
    refusals: missing ? [missing] : [],
    caveats,
    hostFiles: [],
    writes: [],
    commands: c.apply ? [run] : [],
    printed: c.apply ? [] : [run],
    checks: [],
    // Without --apply the cluster is the person's to change; with it, the same manifest applied last time is in place.
    unchanged: !c.apply || (c.prev?.status === 'installed' && prev?.applied?.manifestSha256 === sha256(Buffer.from(content)) && prev.namespace === namespaceOf(spec)),
    ids: Object.fromEntries(objects.map((o) => [o, o.slice(o.indexOf('/') + 1)])),
    rows: rows(spec, n, objects),
    data: { manifest, content, objects },
    stateExtra: { kubernetes: { namespace: namespaceOf(spec), manifest, objects, applied: prev?.applied ?? null } },
  };
}

/** With --apply: kubectl apply, then the delete of CronJobs the new plan no longer has. A failed apply ends the install (its files are undone). */
async function apply(c: Ctx, p: Preflight<K8sData>): Promise<void> {
  if (!c.apply) return;
  const { spec, names: n, io } = c;
  const say = (l: string) => io.out(`${l}\n`);
  const run = applyArgv(spec, n);
  say(`running: ${shownArgv(run)}`);
  const res = await kubectl(io, run);
  if (res.code !== 0) {
    throw new UserError([`kubectl apply failed (${kubectlSaid(res)}); what kubectl applied before it failed, if anything, is in the cluster: check with \`${shownArgv(getArgv(spec))}\``]);
  }
  for (const l of res.stdout.trim().split('\n').filter(Boolean)) say(`  ${l}`);
  // Objects of the earlier install that this one no longer has (fewer cron lines, or all of
  // them when the namespace changed): apply does not remove them. Only names derived from the spec name.
  const prev = c.prev?.kubernetes;
  const oldNs = prev?.namespace ?? namespaceOf(spec);
  const moved = oldNs !== namespaceOf(spec);
  const gone = (prev?.objects ?? []).filter((o) => (moved || !p.data.objects.includes(o)) && (isOurCronJobName(spec.name, o) || o === `configmap/hbgen-${spec.name}`));
  if (gone.length) {
    const del = ['kubectl', 'delete', '--namespace', oldNs, '--ignore-not-found', ...gone];
    say(`running: ${shownArgv(del)}`);
    const d = await kubectl(io, del);
    if (d.code !== 0) say(`  warning: ${kubectlSaid(d)}; delete ${gone.join(', ')} by hand`);
  }
  // The record install writes as state.json is this very object (the state spreads stateExtra).
  p.stateExtra.kubernetes!.applied = { time: io.now().toISOString(), argv: run, manifestSha256: sha256(Buffer.from(p.data.content)), said: res.stdout.trim() };
}

/** A CronJob name derived from the spec name (hbgen-<name> or hbgen-<name>-<n>): the only kind stop and install ever delete by name. */
function isOurCronJobName(name: string, o: string): boolean {
  return new RegExp(`^cronjob/hbgen-${name}(-[0-9]+)?$`).test(o);
}

/** stop: prints the kubectl delete of this name's objects, or with --apply runs it (found by their labels). */
async function planStop(c: Ctx, s: State | null) {
  const { spec } = c;
  // A spec now on another scheduler: its CronJobs stay in the cluster, said, never deleted unasked.
  if (spec.schedule.scheduler !== facts.id) {
    const note = s?.scheduler === facts.id ? [`"${spec.name}" was installed on ${facts.id}: its CronJobs stay in the cluster until you run \`${shownArgv(deleteArgv(spec))}\``] : [];
    return nothingToStop(`no host entry: "${spec.name}" on ${facts.id} runs in the cluster`, note);
  }
  const del = deleteArgv(spec);
  if (!c.apply) {
    return {
      ...nothingToStop(''),
      printed: [
        `hbgen: "${spec.name}" runs in the cluster; hbgen does not talk to it without --apply. Remove its CronJobs and ConfigMap (running Jobs go with their CronJob) with:`,
        `  ${shownArgv(del)}`,
        'or run `hbgen stop` with this spec and --apply, which runs it and marks the install stopped',
      ],
    };
  }
  const m = kubectlMissing(c.io, 'delete the objects');
  if (m) return nothingToStop('', [], [m]);
  return {
    refusals: [],
    found: [`the CronJobs and ConfigMap labelled "${spec.name}" in namespace ${namespaceOf(spec)} (running Jobs go with their CronJob)`],
    notes: [],
    absent: '',
    async run(say: (l: string) => void) {
      say(`running: ${shownArgv(del)}`);
      const r = await kubectl(c.io, del);
      if (r.code !== 0) throw new UserError([`kubectl delete failed (${kubectlSaid(r)}); check your cluster context, then run \`hbgen stop --apply\` with this spec again`]);
      const said = r.stdout.trim();
      for (const l of said.split('\n').filter(Boolean)) say(`  ${l}`);
      if (!said || /^No resources found/.test(said)) say(`the cluster held no object of "${spec.name}" in namespace ${namespaceOf(spec)} (already removed)`);
    },
  };
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

/** status: the installed manifest against what the cluster holds (kubectl get), the last Job's outcome. */
async function audit(c: Ctx, s: State) {
  const { spec, io } = c;
  const problems: string[] = [];
  const info: string[] = [];
  if (s.kubernetes?.applied) info.push(`hbgen applied the manifest at ${s.kubernetes.applied.time}`);
  const m = kubectlMissing(io, 'ask the cluster how the CronJob runs');
  if (m) return { problems: [m], info, present: false };
  // The manifest as installed (status reports its drift from state.json and from the spec file).
  const manifest = posix.join(c.names.stateDir, manifestPath(spec.name));
  const put = c.planned?.get(manifest);
  const installed = put !== undefined ? Buffer.from(put) : readOrNull(manifest);
  const get = getArgv(spec);
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
  else if (installed) clusterFindings(spec, installed.toString('utf8'), items, problems, info);
  return { problems, info, present: (items ?? []).some((i) => i.kind === 'CronJob') };
}

/** What the cluster's CronJobs and Jobs say: present and as rendered, not suspended, the last schedule, active jobs, the last job's outcome. */
function clusterFindings(spec: Spec, yaml: string, items: K8sItem[], problems: string[], info: string[]): void {
  const rendered = manifestObjects(yaml).filter((o) => o.kind === 'CronJob');
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
}

export const backend: Backend<K8sData> = {
  refuseOptions({ spec, names: n }, o) {
    if (o.resetCap) {
      throw new UserError([`--reset-cap: the wake counter of "${spec.name}" is in the pod's state folder (${n.wakes}, on the PersistentVolumeClaim), which hbgen does not reach; write 0 there from a pod that mounts the claim, then \`hbgen resume --apply\``], 2);
    }
  },
  preflight,
  apply,
  async listed(c) {
    const manifest = posix.join(c.names.stateDir, manifestPath(c.spec.name));
    if (!c.apply) return { ok: true, observed: `${manifest} is written; the cluster runs it once you apply it (hbgen ran no kubectl)` };
    return { ok: true, observed: `kubectl apply took ${manifest} (namespace ${namespaceOf(c.spec)})` };
  },
  hostPaths() {
    return { files: [], dirs: [] };
  },
  planStop,
  audit,
  async inventory() {
    return { place: 'a Kubernetes cluster', looked: false, why: 'hbgen list asks no cluster; `hbgen status SPEC` does', entries: [], notes: [] };
  },
  async wake(c) {
    const { spec } = c;
    throw new UserError([
      `"${spec.name}" runs in the cluster, not on this host; start one wake there with \`kubectl create job --namespace ${namespaceOf(spec)} --from=cronjob/${cronJobName(spec.name, 0)} ${cronJobName(spec.name, 0)}-now\` (the working-hours check still applies in the pod)`,
    ]);
  },
};
