// kubernetes: two manifests. host/hbgen-<name>.cronjob.yaml holds a ConfigMap with the
// spec's rendered scripts (heartbeat.sh, window.sh, claim.sh) and one CronJob per cron line
// of the plan; host/hbgen-runtime-<version>.configmap.yaml holds the runtime, once, in a
// ConfigMap of its own named by version (hbgen-runtime-<version>), which every spec of the
// namespace rendered by this hbgen shares. The pod mounts both as one projected volume at
// /hbgen, so the runtime lies beside heartbeat.sh, where heartbeat.sh looks for it. The
// per-spec manifest carries the runtime only as its pins (in heartbeat.sh and window.sh) and
// the ConfigMap's name: an upgrade that changes only the runtime changes the pin lines. The CronJob carries the
// working zone (spec.timeZone, stable since Kubernetes 1.27), so its lines are the plan's
// zone entries, exact like systemd's: no widening, no gate-side grid.
//
// What the cluster guarantees instead of the wrapper (the wrapper still runs, unchanged):
// concurrencyPolicy Forbid (no overlap; the wrapper's lock is redundant but harmless),
// startingDeadlineSeconds (a missed run starts late only within it, else is skipped),
// activeDeadlineSeconds on the Job (a hard end of the pod), backoffLimit 0 (one attempt).
//
// Built as data and written by generators/manifest-yaml.ts (never by template): every
// map's keys are in the order written here and the writer's output depends on nothing
// else, so the render stays byte-deterministic.
import { LOG_MAX_BYTES } from '../src/formats.ts';
import { type Names, within } from '../src/names.ts';
import { durations, type Spec } from '../src/spec.ts';
import { runtimeManifestName } from '../src/version.ts';
import { presetOf, type HarnessPreset } from '../src/harness/registry.ts';
import { cronTimes } from './cron.ts';
import { runtime } from './runtime.ts';
import type { Generator, RenderedFile, SchedulerContext } from './types.ts';
import { yamlDocument } from './manifest-yaml.ts';

/** Where the pod mounts the ConfigMap's scripts (read-only); it runs /bin/sh /hbgen/heartbeat.sh. */
export const SCRIPTS_MOUNT = '/hbgen';
/** Where the pod mounts the Secret's files, for codex's auth.json (copied into HOME by an init container). */
export const LOGIN_MOUNT = '/hbgen-login';
/** The user and group the pod runs as: not root, and the owner (fsGroup) of its volumes. */
export const POD_UID = 1000;

/**
 * Every emptyDir's sizeLimit unless kubernetes.sizeLimits says otherwise: a pod that writes
 * past it is evicted instead of filling the node's disk. The clone gets room for a working
 * tree with its build products; HOME for the clients' settings, sessions and caches; /tmp
 * for scratch. The state folder, when it has a volume of its own, holds runtime.log,
 * agent.log and their rotated generations (4 × logMaxBytes) and a few small files
 * (stateSizeLimit).
 */
export const EMPTYDIR_SIZE = { repo: '4Gi', home: '1Gi', tmp: '1Gi' } as const;

/**
 * The init containers' requests and limits when kubernetes.resources names none: a clone
 * and a copy need little, and a limit keeps a huge or hostile repo from taking the node.
 * With kubernetes.resources they get the main container's (the pod's request is the larger
 * of the init containers' and the main one's, so that costs no extra room).
 */
export const INIT_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } } as const;

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const NAME_LABEL = 'hbgen.dev/name';

export function manifestPath(name: string): string {
  return `host/hbgen-${name}.cronjob.yaml`;
}

/** The runtime's own ConfigMap: the label on it says its version, the annotation its SHA-256. */
export const RUNTIME_LABEL = 'hbgen.dev/runtime';
export const RUNTIME_SHA256 = 'hbgen.dev/runtime-sha256';

/**
 * The runtime's ConfigMap, one per hbgen version in a namespace (hbgen-runtime-0.2.0):
 * every install of that version mounts it. Named by version and not by SHA-256, so that
 * each CronJob names it in a line a runtime-only change leaves alone; heartbeat.sh's pin
 * still refuses any other bytes under that name.
 */
export function runtimeConfigMapName(version: string): string {
  return `hbgen-runtime-${labelValue(version)}`;
}

/** The runtime's manifest in the rendered tree (host/hbgen-runtime-<version>.configmap.yaml). */
export function runtimeManifestPath(version: string): string {
  return `host/${runtimeManifestName(version)}`;
}

/** A version as a label value and a name part: lower case, [a-z0-9.-] (a release's version already is). */
function labelValue(version: string): string {
  return version.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
}

/** The CronJobs' names: hbgen-<name>, then hbgen-<name>-2, … (a CronJob name may have 52 characters; a spec name has at most 40). */
export function cronJobName(name: string, i: number): string {
  return i === 0 ? `hbgen-${name}` : `hbgen-${name}-${i + 1}`;
}

type Obj = Record<string, unknown>;

function labels(spec: Spec): Obj {
  return { [MANAGED_BY]: 'hbgen', [NAME_LABEL]: spec.name };
}

/** The preset's login file the pod copies from the Secret (its descriptor's podLogin), when the spec names a Secret. */
function podLogin(spec: Spec): HarnessPreset['podLogin'] {
  return spec.kubernetes?.secretName ? presetOf(spec.agent.harness)?.podLogin : undefined;
}

/**
 * The pod's writable folders. The root file system is read-only, so everything the wrapper
 * and the agent write is a volume: the repo (a fresh clone in an emptyDir, or the PVC),
 * HOME (the clients keep their settings there), /tmp, and the state folder where it is in
 * neither the repo nor HOME. Only the PVC outlives the pod.
 */
function volumes(spec: Spec, n: Names): { volumes: Obj[]; mounts: Obj[]; initMounts: Obj[] } {
  const k = spec.kubernetes!;
  const home = spec.env.HOME!;
  const size = { ...EMPTYDIR_SIZE, ...k.sizeLimits };
  // The spec's scripts and the runtime, side by side at /hbgen: heartbeat.sh finds the runtime
  // beside itself. The runtime's source is optional, so that a pod whose runtime ConfigMap is
  // missing still starts and heartbeat.sh says so (exit 78, `error runtime changed`) instead
  // of a pod stuck in ContainerCreating until the Job's deadline; the pin decides either way.
  const sources: Obj[] = [{ configMap: { name: `hbgen-${spec.name}` } }, { configMap: { name: runtimeConfigMapName(runtime().version), optional: true } }];
  const vols: Obj[] = [{ name: 'hbgen', projected: { defaultMode: 0o555, sources } }];
  const mounts: Obj[] = [{ name: 'hbgen', mountPath: SCRIPTS_MOUNT, readOnly: true }];
  vols.push(k.pvc ? { name: 'repo', persistentVolumeClaim: { claimName: k.pvc } } : { name: 'repo', emptyDir: { sizeLimit: size.repo } });
  mounts.push({ name: 'repo', mountPath: spec.repo });
  if (!within(spec.repo, home)) {
    vols.push({ name: 'home', emptyDir: { sizeLimit: size.home } });
    mounts.push({ name: 'home', mountPath: home });
  }
  if (spec.repo !== '/tmp' && home !== '/tmp') {
    vols.push({ name: 'tmp', emptyDir: { sizeLimit: size.tmp } });
    mounts.push({ name: 'tmp', mountPath: '/tmp' });
  }
  if (!within(spec.repo, n.stateDir) && !within(home, n.stateDir) && !within('/tmp', n.stateDir)) {
    vols.push({ name: 'state', emptyDir: { sizeLimit: stateSizeLimit(spec) } });
    mounts.push({ name: 'state', mountPath: n.stateDir });
  }
  // claim.sh where the wake prompt says it is (the state folder), from the ConfigMap.
  if (spec.shared) mounts.push({ name: 'hbgen', mountPath: n.claim, subPath: 'claim.sh', readOnly: true });
  const initMounts = mounts.filter((m) => m.name !== 'hbgen');
  const login = podLogin(spec);
  if (login && k.secretName) {
    vols.push({ name: 'login', secret: { secretName: k.secretName, items: [{ key: login.key, path: login.key }], defaultMode: 0o400 } });
    initMounts.push({ name: 'login', mountPath: LOGIN_MOUNT, readOnly: true });
  }
  return { volumes: vols, mounts, initMounts };
}

/** The state folder's own emptyDir: both generations of runtime.log and of agent.log (4 × logMaxBytes) and 32 MiB for the rest, in whole MiB. */
export function stateSizeLimit(spec: Spec): string {
  return `${Math.ceil((4 * spec.logMaxBytes) / 1048576) + 32}Mi`;
}

/** The main container's requests and limits (requests = limits), or undefined when the spec names none. */
function mainResources(spec: Spec): Obj | undefined {
  const r = spec.kubernetes!.resources;
  return r && (r.cpu || r.memory) ? { requests: { ...r }, limits: { ...r } } : undefined;
}

const containerSecurity: Obj = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
};

/** The spec's env as the container's env: the wrapper's own `env -i` then gives the agent exactly these. */
function containerEnv(spec: Spec): Obj[] {
  return Object.keys(spec.env)
    .sort()
    .map((name) => ({ name, value: spec.env[name]! }));
}

function initContainers(spec: Spec, initMounts: Obj[]): Obj[] {
  const k = spec.kubernetes!;
  const resources = mainResources(spec) ?? structuredClone(INIT_RESOURCES);
  const base = (command: string[], envFrom?: Obj[]) => ({ image: k.image, command, env: containerEnv(spec), ...(envFrom ? { envFrom } : {}), resources, securityContext: containerSecurity, volumeMounts: initMounts });
  const out: Obj[] = [];
  if (k.git) {
    // `git clone URL DIR` into the empty mount; `--` keeps a URL from being read as an option.
    // The URL carries no credential (spec validation): a private repo's token comes from the
    // Secret, whose keys the clone gets for a credential helper set in the image's git config.
    const argv = ['git', 'clone', '--quiet', ...(k.git.branch ? ['--branch', k.git.branch, '--single-branch'] : []), '--', k.git.url, spec.repo];
    out.push({ name: 'clone', ...base(argv, k.secretName ? [{ secretRef: { name: k.secretName } }] : undefined) });
  }
  const login = podLogin(spec);
  if (login) {
    // The client refreshes its login in that file: it needs a writable copy, not the Secret's read-only file.
    const dir = login.dir(spec.env, spec.env.HOME!);
    out.push({
      name: login.init,
      ...base(['/bin/sh', '-c', `umask 077 && mkdir -p -- "$1" && cp -- "$2" "$1/${login.key}"`, login.init, dir, `${LOGIN_MOUNT}/${login.key}`]),
    });
  }
  return out;
}

function podSpec(spec: Spec, n: Names): Obj {
  const k = spec.kubernetes!;
  const v = volumes(spec, n);
  const resources = mainResources(spec);
  const container: Obj = {
    name: 'heartbeat',
    image: k.image,
    command: ['/bin/sh', `${SCRIPTS_MOUNT}/heartbeat.sh`],
    env: containerEnv(spec),
    ...(k.secretName ? { envFrom: [{ secretRef: { name: k.secretName } }] } : {}),
    ...(resources ? { resources } : {}),
    securityContext: containerSecurity,
    volumeMounts: v.mounts,
  };
  const init = initContainers(spec, v.initMounts);
  return {
    restartPolicy: 'Never',
    // A deleted pod or the Job's deadline sends TERM: the wrapper then needs killAfter to end
    // the agent's group and log the outcome before the kubelet's KILL.
    terminationGracePeriodSeconds: durations(spec).killAfter + 15,
    ...(k.serviceAccountName ? { serviceAccountName: k.serviceAccountName } : { automountServiceAccountToken: false }),
    // fsGroup makes the volumes writable; OnRootMismatch skips the recursive chown of a PVC that already has it.
    securityContext: { runAsNonRoot: true, runAsUser: POD_UID, runAsGroup: POD_UID, fsGroup: POD_UID, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
    ...(init.length ? { initContainers: init } : {}),
    containers: [container],
    volumes: v.volumes,
  };
}

function metadata(spec: Spec, name: string): Obj {
  return { name, namespace: spec.kubernetes!.namespace ?? 'default', labels: labels(spec) };
}

/** The manifest's objects, in order: the ConfigMap of the spec's scripts (not the runtime: it has a ConfigMap of its own), then the CronJobs. */
export function manifestObjects(ctx: SchedulerContext, scripts: RenderedFile[]): Obj[] {
  const { spec, names: n, plan } = ctx;
  const every = durations(spec).every;
  const data: Obj = {};
  for (const f of scripts) if (f.path !== runtime().name) data[f.path] = f.content;
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(spec, `hbgen-${spec.name}`), data };
  const jobs = plan.zoneEntries.map((e, i) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: metadata(spec, cronJobName(spec.name, i)),
    spec: {
      schedule: cronTimes(e),
      timeZone: spec.schedule.hours.timezone,
      concurrencyPolicy: 'Forbid',
      // A run the controller missed (it was down, the cluster was full) still starts if it
      // can within half an interval (at most 10 min); later it is skipped, not caught up.
      startingDeadlineSeconds: Math.min(600, every / 2),
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels: labels(spec) },
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: durations(spec).wake,
          ttlSecondsAfterFinished: 3 * 86400,
          template: {
            // No checksum of the scripts here: a pod reads them from the ConfigMaps when it
            // starts, so a changed script is a changed ConfigMap (what `kubectl diff` shows),
            // and a runtime-only upgrade leaves every CronJob as it was.
            metadata: { labels: labels(spec) },
            spec: podSpec(spec, n),
          },
        },
      },
    },
  }));
  return [configMap, ...jobs];
}

/**
 * The runtime's ConfigMap: the runtime's text under its file name, the same bytes for every
 * spec of the namespace. It carries no spec's name label, so that stopping one spec (which
 * deletes by that label) never takes it from the others.
 */
export function runtimeObject(namespace: string): Obj {
  const rt = runtime();
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: runtimeConfigMapName(rt.version), namespace, labels: { [MANAGED_BY]: 'hbgen', [RUNTIME_LABEL]: labelValue(rt.version) }, annotations: { [RUNTIME_SHA256]: rt.sha256 } },
    data: { [rt.name]: rt.text },
  };
}

/** The runtime manifest's first comment: no spec's name, since every spec of the namespace renders the same file. */
export function runtimeHeader(version: string): string {
  // manifestYaml puts a blank after the first line's `#`; the second line brings its own.
  return `Generated by hbgen ${version}: its runtime, the same bytes for every spec, as a ConfigMap of its own\n that the CronJobs of every spec hbgen ${version} renders in this namespace mount. Do not edit.`;
}

/** The objects as one multi-document YAML file, the generated-by line first. */
export function manifestYaml(header: string, objects: Obj[]): string {
  // Each object written out in full (no anchors), as kubectl shows it back; each script one literal block, byte for byte.
  return objects.map((o, i) => yamlDocument(o as Parameters<typeof yamlDocument>[0], i === 0 ? ` ${header}` : undefined)).join('---\n');
}

export const generator: Generator = {
  check(ctx) {
    const s = ctx.spec;
    // `render --scheduler kubernetes` of a spec written for another scheduler.
    if (!s.kubernetes) return ['kubernetes: required for schedule.scheduler "kubernetes": at least {image, git or pvc}; see docs/kubernetes.md'];
    if (s.schedule.hostTimezone !== undefined) return ['schedule.hostTimezone: does not apply to kubernetes: the CronJob fires in hours.timezone itself (spec.timeZone); remove it'];
    return [];
  },
  files(ctx) {
    const version = runtime().version;
    return [
      { path: manifestPath(ctx.spec.name), content: manifestYaml(ctx.header, manifestObjects(ctx, ctx.scripts)), mode: 0o644 },
      { path: runtimeManifestPath(version), content: manifestYaml(runtimeHeader(version), [runtimeObject(ctx.spec.kubernetes!.namespace ?? 'default')]), mode: 0o644 },
    ];
  },
};
