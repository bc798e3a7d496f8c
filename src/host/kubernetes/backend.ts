// kubernetes: the heartbeat runs in a cluster, not on this host, and this backend goes
// through the same install, stop, status and resume as the others. hbgen never talks to a
// cluster by itself: install writes the manifests (in the rendered tree, into the state
// folder's path on this machine: the spec's, and the runtime's ConfigMap of its own),
// records them in state.json and prints the exact `kubectl apply -f`; with --apply
// (Ctx.apply, this backend's option) it runs `kubectl` from PATH after the panel and the one
// question, and records what it applied. stop prints (or with --apply runs) the `kubectl
// delete` of this name's objects, found by their labels; status asks `kubectl get
// cronjob,jobs -l hbgen.dev/name=<name> -o json`, and for the runtime's ConfigMap by name.
//
// The runtime's ConfigMap (hbgen-runtime-<version>) is shared by every install of that hbgen
// version in the namespace and carries no spec's name label, so stop's delete by label never
// takes it. With --apply, stop (and an install that moved to another runtime or namespace)
// deletes it only when no CronJob of the namespace that hbgen manages mounts it any more.
//
// The host-wide looks (list, stop of a spec now on another scheduler) find nothing here and
// never run kubectl.
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { MANAGED_BY, NAME_LABEL, cronJobName, manifestPath, runtimeConfigMapName, runtimeManifestPath } from '../../../generators/kubernetes.ts';
import { runtime } from '../../../generators/runtime.ts';
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
  /** The runtime's ConfigMap the CronJobs mount, its manifest here and the SHA-256 heartbeat.sh pins (absent: an install from before the runtime had a ConfigMap of its own). */
  runtime?: { configMap: string; manifest: string; sha256: string };
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

/** The runtime's manifest first: the CronJobs mount its ConfigMap. */
export function applyArgv(spec: Spec, n: Names): string[] {
  return ['kubectl', 'apply', '-f', posix.join(n.stateDir, runtimeManifestPath(runtime().version)), '-f', posix.join(n.stateDir, manifestPath(spec.name))];
}

/** The CronJobs of a namespace that hbgen manages (any spec's): who still mounts a runtime's ConfigMap. */
export function managedCronJobsArgv(namespace: string): string[] {
  return ['kubectl', 'get', 'cronjob', '--namespace', namespace, '--selector', `${MANAGED_BY}=hbgen`, '--output', 'json'];
}

export function runtimeGetArgv(namespace: string, configMap: string): string[] {
  return ['kubectl', 'get', 'configmap', configMap, '--namespace', namespace, '--ignore-not-found', '--output', 'json'];
}

export function runtimeDeleteArgv(namespace: string, configMap: string): string[] {
  return ['kubectl', 'delete', 'configmap', configMap, '--namespace', namespace, '--ignore-not-found'];
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
function rows(spec: Spec, n: Names, objects: string[], rt: string): [string, string][] {
  const k = spec.kubernetes!;
  return [
    ['repo', `${spec.repo} in the pod: ${k.git ? `a fresh clone of ${k.git.url}${k.git.branch ? ` (${k.git.branch})` : ''} for every wake` : `the PersistentVolumeClaim ${k.pvc}`}`],
    ['agent', `${spec.agent.harness}: ${spec.agent.bin} in the image ${k.image}; ${permissionMode(spec.agent, jailOn(spec))}`],
    argsRow(spec),
    ['billing', spec.agent.harness === 'command' ? 'not checked (custom command)' : "asked of the client in the pod before every wake (not here: the login is in the cluster's Secret)"],
    ['secret', k.secretName ? `${k.secretName} (never read by hbgen)${k.secretKeys ? `; the agent gets ${k.secretKeys.join(', ')}` : ''}` : 'none'],
    ['timeout', `${spec.timeout}, then TERM, and KILL ${spec.killAfter} later; the Job ends at ${spec.timeout} + ${spec.killAfter} whatever happens`],
    ...otherRuns(spec),
    ['scheduler', `kubernetes, namespace ${namespaceOf(spec)}: ${objects.join(', ')}; and configmap/${rt}, the runtime, shared with every install of hbgen ${runtime().version} in the namespace`],
    ['state', `${n.stateDir} (in the pod; on this machine it holds the manifest and state.json)`],
  ];
}

interface K8sData {
  /** The manifest's path on this machine, its bytes as rendered, and its objects. */
  manifest: string;
  content: string;
  objects: string[];
  /** The runtime's ConfigMap this install mounts. */
  runtimeConfigMap: string;
}

/** Every check before the panel: the rendered manifest, kubectl for --apply, what apply would change. */
async function preflight(c: Ctx): Promise<Preflight<K8sData>> {
  const { spec, names: n } = c;
  const content = c.files.find((f) => f.path === manifestPath(spec.name))!.content;
  const objects = objectsOf(content);
  const manifest = posix.join(n.stateDir, manifestPath(spec.name));
  const rt = runtime();
  const runtimeConfigMap = runtimeConfigMapName(rt.version);
  const missing = c.apply ? kubectlMissing(c.io, 'apply the manifest') : null;
  const prev = c.prev?.kubernetes;
  const run = { argv: applyArgv(spec, n) };
  const caveats = ['the cluster schedules the wakes: concurrencyPolicy Forbid, startingDeadlineSeconds, activeDeadlineSeconds, backoffLimit 0 (see docs/kubernetes.md)'];
  if (!spec.kubernetes!.pvc || spec.stateDir.startsWith('/')) caveats.push('the state folder (runtime.log, the wake counter) lasts one pod: use kubernetes.pvc and a relative stateDir to keep it');
  const was = prev?.runtime && (prev.runtime.configMap !== runtimeConfigMap || prev.namespace !== namespaceOf(spec)) ? prev.runtime.configMap : null;
  if (was && !c.apply) caveats.push(`the earlier install's runtime, configmap/${was} in namespace ${prev!.namespace}, stays in the cluster: \`hbgen install --apply\` deletes it once no CronJob there mounts it`);
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
    rows: rows(spec, n, objects, runtimeConfigMap),
    data: { manifest, content, objects, runtimeConfigMap },
    stateExtra: {
      kubernetes: { namespace: namespaceOf(spec), manifest, objects, applied: prev?.applied ?? null, runtime: { configMap: runtimeConfigMap, manifest: posix.join(n.stateDir, runtimeManifestPath(rt.version)), sha256: rt.sha256 } },
    },
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
  // The runtime's ConfigMap held other bytes under this version's name: another build of the
  // same version applied its own (or someone edited it). Installs that pin those now stop at
  // their pin check (exit 78) until they are installed again with this hbgen.
  if (new RegExp(`^configmap/${p.data.runtimeConfigMap.replace(/\./g, '\\.')} configured$`, 'm').test(res.stdout)) {
    say(`  warning: configmap/${p.data.runtimeConfigMap} held another runtime than this hbgen's (another build of hbgen ${runtime().version}, or an edit); any other install in namespace ${namespaceOf(spec)} that pins that one refuses its wakes (exit 78, runtime changed) until \`hbgen install --apply\` installs it again with this hbgen`);
  }
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
  // The earlier install's runtime, when this one mounts another (an upgrade) or moved: gone once nothing mounts it.
  const was = prev?.runtime?.configMap;
  if (was && (moved || was !== p.data.runtimeConfigMap)) await pruneRuntime(io, oldNs, was, say);
  // The record install writes as state.json is this very object (the state spreads stateExtra).
  p.stateExtra.kubernetes!.applied = { time: io.now().toISOString(), argv: run, manifestSha256: sha256(Buffer.from(p.data.content)), said: res.stdout.trim() };
}

/** Whether a CronJob's pods mount the ConfigMap `name` (as a volume of its own or a projected volume's source). */
function mountsConfigMap(cj: K8sItem, name: string): boolean {
  const vols = cj.spec?.jobTemplate?.spec?.template?.spec?.volumes ?? [];
  return vols.some((v) => v.configMap?.name === name || (v.projected?.sources ?? []).some((x) => x.configMap?.name === name));
}

/**
 * Deletes the runtime's ConfigMap `name` of `namespace` when no CronJob there that hbgen
 * manages mounts it; else keeps it and says which do. Said, never fatal: a runtime left over
 * costs its bytes, not a wake. (A CronJob applied between the look and the delete finds its
 * runtime missing: its wakes stop at the pin check until its install is applied again.)
 */
async function pruneRuntime(io: HostIO, namespace: string, name: string, say: (l: string) => void): Promise<void> {
  const get = managedCronJobsArgv(namespace);
  say(`running: ${shownArgv(get)}`);
  const r = await kubectl(io, get);
  let items: K8sItem[] | null = null;
  try {
    items = r.code === 0 ? ((JSON.parse(r.stdout) as { items?: K8sItem[] }).items ?? []) : null;
  } catch {
    items = null;
  }
  if (!items) return say(`  warning: ${r.code === 0 ? 'kubectl answered no JSON' : kubectlSaid(r)}, so hbgen cannot tell whether a CronJob still mounts configmap/${name}; kept (delete it by hand once none does: \`${shownArgv(runtimeDeleteArgv(namespace, name))}\`)`);
  const users = items.filter((cj) => mountsConfigMap(cj, name)).map((cj) => cj.metadata?.name ?? '?');
  if (users.length) return say(`  kept configmap/${name}: ${users.join(', ')} in namespace ${namespace} still mount${users.length === 1 ? 's' : ''} it`);
  const del = runtimeDeleteArgv(namespace, name);
  say(`running: ${shownArgv(del)}`);
  const d = await kubectl(io, del);
  if (d.code !== 0) return say(`  warning: ${kubectlSaid(d)}; delete configmap/${name} by hand`);
  for (const l of d.stdout.trim().split('\n').filter(Boolean)) say(`  ${l}`);
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
  const ns = namespaceOf(spec);
  // The runtime this install mounts: as recorded; none for an install whose ConfigMap carried it; without state.json, this hbgen's.
  const rt = s?.kubernetes ? s.kubernetes.runtime?.configMap : runtimeConfigMapName(runtime().version);
  if (!c.apply) {
    return {
      ...nothingToStop(''),
      printed: [
        `hbgen: "${spec.name}" runs in the cluster; hbgen does not talk to it without --apply. Remove its CronJobs and ConfigMap (running Jobs go with their CronJob) with:`,
        `  ${shownArgv(del)}`,
        ...(rt
          ? [
              `The runtime's ConfigMap ${rt} is shared by every install of its hbgen version in namespace ${ns}: once no CronJob there mounts it, remove it with:`,
              `  ${shownArgv(runtimeDeleteArgv(ns, rt))}`,
            ]
          : []),
        `or run \`hbgen stop\` with this spec and --apply, which runs ${rt ? 'these (the second only if no other CronJob mounts it)' : 'it'} and marks the install stopped`,
      ],
    };
  }
  const m = kubectlMissing(c.io, 'delete the objects');
  if (m) return nothingToStop('', [], [m]);
  return {
    refusals: [],
    found: [
      `the CronJobs and ConfigMap labelled "${spec.name}" in namespace ${ns} (running Jobs go with their CronJob)`,
      ...(rt ? [`then the runtime's configmap/${rt}, unless another CronJob of namespace ${ns} still mounts it`] : []),
    ],
    notes: [],
    absent: '',
    async run(say: (l: string) => void) {
      say(`running: ${shownArgv(del)}`);
      const r = await kubectl(c.io, del);
      if (r.code !== 0) throw new UserError([`kubectl delete failed (${kubectlSaid(r)}); check your cluster context, then run \`hbgen stop --apply\` with this spec again`]);
      const said = r.stdout.trim();
      for (const l of said.split('\n').filter(Boolean)) say(`  ${l}`);
      if (!said || /^No resources found/.test(said)) say(`the cluster held no object of "${spec.name}" in namespace ${ns} (already removed)`);
      if (rt) await pruneRuntime(c.io, ns, rt, say);
    },
  };
}

interface K8sVolume {
  configMap?: { name?: string };
  projected?: { sources?: { configMap?: { name?: string } }[] };
}

interface K8sItem {
  kind?: string;
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: { schedule?: string; timeZone?: string; suspend?: boolean; jobTemplate?: { spec?: { template?: { spec?: { volumes?: K8sVolume[] } } } } };
  data?: Record<string, string>;
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
  else {
    if (installed) clusterFindings(spec, installed.toString('utf8'), items, problems, info);
    // With no CronJob there (an orphan), applying the manifests is the one fix: the runtime is not asked after.
    if (s.kubernetes?.runtime && items.some((i) => i.kind === 'CronJob')) await runtimeFindings(io, s.kubernetes.namespace ?? namespaceOf(spec), s.kubernetes.runtime, problems, info);
  }
  return { problems, info, present: (items ?? []).some((i) => i.kind === 'CronJob') };
}

/** The runtime's ConfigMap as the cluster holds it: there, and the runtime heartbeat.sh pins (its data's SHA-256, not its annotation). */
async function runtimeFindings(io: HostIO, namespace: string, rt: NonNullable<KubernetesRecord['runtime']>, problems: string[], info: string[]): Promise<void> {
  const get = runtimeGetArgv(namespace, rt.configMap);
  const res = await kubectl(io, get);
  let cm: K8sItem | null | undefined;
  try {
    cm = res.code !== 0 ? undefined : res.stdout.trim() === '' ? null : (JSON.parse(res.stdout) as K8sItem);
  } catch {
    cm = undefined;
  }
  if (cm === undefined) return void problems.push(`\`${shownArgv(get)}\` failed (${kubectlSaid(res)}); check your cluster context (kubectl config current-context)`);
  const fix = 'apply the manifests again (`hbgen install --apply`, or the `kubectl apply` install printed)';
  if (cm === null || cm.kind !== 'ConfigMap') return void problems.push(`missing: the cluster lacks the runtime's configmap/${rt.configMap} in namespace ${namespace}, so every wake stops at its pin check (exit 78, runtime changed); ${fix}`);
  const text = Object.entries(cm.data ?? {}).find(([k]) => /^runtime-.*\.sh$/.test(k))?.[1];
  const got = text === undefined ? null : sha256(Buffer.from(text, 'utf8'));
  if (got !== rt.sha256) {
    return void problems.push(
      `drift: configmap/${rt.configMap} holds ${got ? `another runtime (sha256 ${got.slice(0, 12)}…)` : 'no runtime'} than heartbeat.sh pins (sha256 ${rt.sha256.slice(0, 12)}…): another build of the same hbgen version applied its own, or it was edited; every wake stops at its pin check (exit 78) until you ${fix}`,
    );
  }
  info.push(`the runtime's configmap/${rt.configMap} holds the runtime heartbeat.sh pins (sha256 ${rt.sha256.slice(0, 12)}…)`);
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
    const rt = posix.join(c.names.stateDir, runtimeManifestPath(runtime().version));
    if (!c.apply) return { ok: true, observed: `${manifest} and ${rt} are written; the cluster runs them once you apply them (hbgen ran no kubectl)` };
    return { ok: true, observed: `kubectl apply took ${rt} and ${manifest} (namespace ${namespaceOf(c.spec)})` };
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
