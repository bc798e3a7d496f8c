// The spec's kubernetes block and its rules against the rest of the spec, kept with the
// scheduler they belong to; src/spec.ts puts them in the schema.
import * as z from 'zod/mini';
import { credential, whyItBills } from '../../credentials.ts';
import { CONTROL, SHELL_KEYS, describe, text } from '../../spec-text.ts';

// The kubernetes block (schedule.scheduler "kubernetes"): the pod that runs the same
// wrapper in a cluster. Object names follow Kubernetes' own rules (RFC 1123 labels and
// subdomains); hbgen never reads the Secret, it only names it and the keys that reach the agent.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const k8sName = (what: string, label: boolean) =>
  text(what).check((ctx) => {
    const v = ctx.value;
    const max = label ? 63 : 253;
    if (CONTROL.test(v)) return;
    if (v.length > max || !(label ? DNS_LABEL : DNS_SUBDOMAIN).test(v)) {
      ctx.issues.push({ code: 'custom', input: v, message: `must be a Kubernetes ${label ? 'label name' : 'object name'}: lowercase letters, digits${label ? ' and dashes' : ', dashes and dots'}, starting and ending with a letter or digit, at most ${max} characters; got ${JSON.stringify(v)}` });
    }
  });
// A resource quantity as Kubernetes writes one: "500m", "1", "2Gi", "1.5".
const QUANTITY = /^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;
const quantity = (what: string) =>
  text(what).check(z.regex(QUANTITY, { error: (i) => `must be a Kubernetes quantity such as ${what === 'cpu' ? '"1" or "500m"' : '"2Gi" or "512Mi"'}, got ${JSON.stringify(i.input)}` }));
const secretKey = z.string().check((ctx) => {
  const k = ctx.value;
  // CLAUDE_CODE_OAUTH_TOKEN is the subscription's own token (`claude setup-token`); every other credential bills per token.
  if (!/^[A-Z_][A-Z0-9_]*$/.test(k)) ctx.issues.push({ code: 'custom', input: k, message: `"${k}" is not an environment variable name hbgen passes on; name the Secret's keys with capital letters, digits and _` });
  else if (credential(k)) ctx.issues.push({ code: 'custom', input: k, message: `${whyItBills(credential(k)!)}; remove it from the Secret and from secretKeys` });
  else if (SHELL_KEYS.has(k) || k.startsWith('HBGEN_')) ctx.issues.push({ code: 'custom', input: k, message: `${k} is read or set by the wrapper itself; remove it` });
});
/**
 * What in a git URL may be a credential, or undefined. In a URL form, the userinfo before
 * "@": over http(s) and git:// a name alone is how a token is passed (https://<token>@host,
 * the way GitHub takes one), and a name without its password could only prompt, which a pod
 * cannot answer, so any userinfo is refused; over ssh:// a login name (git@) is no secret,
 * only "name:password@" is. A query string or fragment: git appends its own path and query
 * to the URL (…/info/refs?service=…), so one never works and may carry ?access_token=….
 */
export function gitUrlSecret(url: string): string | undefined {
  const m = /^([a-z]+):\/\/([^/?#]*)@/.exec(url);
  if (m && (m[1] !== 'ssh' || m[2]!.includes(':'))) return m[1] === 'ssh' ? 'carries a password before "@" (ssh://user:password@…)' : `carries a user name, token or password before "@" (${m[1]}://<token>@…)`;
  if (/^[a-z]+:\/\/[^?#]*[?#]/.test(url)) return 'carries a query string or fragment (?… or #…), which git cannot clone from and which may hold a token';
  return undefined;
}

/** The spec's kubernetes block. */
export const kubernetesBlock = z.strictObject({
  image: text('the container image that holds the agent CLI, git and a POSIX sh, e.g. "ghcr.io/acme/agent:1.2"').check((ctx) => {
    if (!CONTROL.test(ctx.value) && !/^[^\s]+$/.test(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be an image reference without spaces, such as "ghcr.io/acme/agent:1.2", got ${JSON.stringify(ctx.value)}` });
  }).apply(describe, 'Container image holding the agent CLI (agent.bin), git and a POSIX sh with env and date.'),
  namespace: k8sName('a namespace', true).apply(z.optional).apply(describe, 'Namespace of the ConfigMap and CronJobs (default "default").'),
  secretName: k8sName('a Secret name', false).apply(z.optional).apply(describe, 'A Secret whose keys become the container\'s env (envFrom); hbgen never reads it. For codex, its key auth.json is copied into CODEX_HOME.'),
  secretKeys: z
    .array(secretKey, { error: 'must be an array of variable names, e.g. ["CLAUDE_CODE_OAUTH_TOKEN"]' })
    .check(z.minLength(1, { error: 'must name at least one key; leave the field out for none' }))
    .check(z.refine((k) => new Set(k).size === k.length, { error: 'names a key twice; list each once' }))
    .apply(z.optional).apply(describe, 'Names of the Secret\'s keys the agent gets (the wrapper passes only these on), e.g. ["CLAUDE_CODE_OAUTH_TOKEN"]; metered credentials are refused.'),
  git: z
    .strictObject(
      {
        url: text('the repository URL the init container clones').check((ctx) => {
          const v = ctx.value;
          if (CONTROL.test(v)) return;
          if (!/^(https?|ssh|git):\/\/[^\s]+$|^[A-Za-z0-9._-]+@[^\s:]+:[^\s]+$/.test(v)) ctx.issues.push({ code: 'custom', input: v, message: `must be a git URL such as "https://github.com/acme/docs.git" or "git@github.com:acme/docs.git", got ${JSON.stringify(v)}` });
          else {
            const why = gitUrlSecret(v);
            if (why) ctx.issues.push({ code: 'custom', input: v, message: `${why}, which would be stored in the manifest and shown in the clone container's command line; remove it, and give the clone its credentials from the Secret (kubernetes.secretName: the clone container gets its keys, for a credential helper in the image such as \`gh auth git-credential\`) or clone over ssh` });
          }
        }).apply(describe, 'The repository\'s https URL, without a token, user name or query string.'),
        branch: text('a branch name').check(z.regex(/^[A-Za-z0-9._/-]+$/, { error: 'must be a branch name such as "main"' })).check(z.refine((b) => !b.startsWith('-'), { error: 'must not start with "-"' })).apply(z.optional).apply(describe, 'The branch the init container clones (default: the remote\'s default branch).'),
      },
      { error: 'must be an object {url, branch?}' },
    )
    .apply(z.optional).apply(describe, 'The repo, cloned for every wake by an init container into an emptyDir mounted at repo (exactly one of git, pvc); a URL with a token, user name or query string is refused (the clone gets the Secret\'s keys for a credential helper).'),
  pvc: k8sName('a PersistentVolumeClaim name', false).apply(z.optional).apply(describe, 'An existing PersistentVolumeClaim holding the repo, mounted at repo (exactly one of git, pvc); with a relative stateDir the state outlives the pod.'),
  serviceAccountName: k8sName('a ServiceAccount name', false).apply(z.optional).apply(describe, 'ServiceAccount of the pod (default: none mounted).'),
  resources: z
    .strictObject({ cpu: quantity('cpu').apply(z.optional).apply(describe, 'CPU of the agent\'s container, requested and the limit, e.g. "1" or "500m".'), memory: quantity('memory').apply(z.optional).apply(describe, 'Memory of the agent\'s container, requested and the limit, e.g. "2Gi".') }, { error: 'must be an object {cpu?, memory?}' })
    .apply(z.optional).apply(describe, 'CPU and memory, as requests = limits, e.g. {"cpu": "1", "memory": "2Gi"}; the init containers get the same (without it: 100m/128Mi requested, 1 CPU/1Gi at most).'),
  // The emptyDirs' sizeLimit (defaults in generators/kubernetes.ts EMPTYDIR_SIZE): a pod past it is evicted, not the node's disk filled.
  sizeLimits: z
    .strictObject({ repo: quantity('size').apply(z.optional).apply(describe, 'sizeLimit of the clone\'s emptyDir (default "4Gi").'), home: quantity('size').apply(z.optional).apply(describe, 'sizeLimit of HOME\'s emptyDir (default "1Gi").'), tmp: quantity('size').apply(z.optional).apply(describe, 'sizeLimit of /tmp\'s emptyDir (default "1Gi").') }, { error: 'must be an object {repo?, home?, tmp?}, each a size such as "4Gi"' })
    .apply(z.optional).apply(describe, 'sizeLimit of the emptyDirs (a pod past it is evicted): repo (the clone, default "4Gi"), home (default "1Gi"), tmp (default "1Gi").'),
});

/** The kubernetes block against the rest of the spec: present for this scheduler only, and what a pod can mount. */
export function kubernetesIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  const sch = typeof s.schedule === 'object' && s.schedule !== null ? s.schedule : {};
  const k = s.kubernetes;
  if (sch.scheduler === 'kubernetes' && s.sandbox !== undefined && s.sandbox !== false) {
    ctx.addIssue({ code: 'custom', path: ['sandbox'], message: 'does not apply to schedule.scheduler "kubernetes": the pod is the agent\'s boundary there (see docs/kubernetes.md); remove it' });
  }
  if (sch.scheduler === 'kubernetes' && s.limits !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['limits'], message: 'does not apply to schedule.scheduler "kubernetes": the pod is bounded by kubernetes.resources (see docs/kubernetes.md); remove it and set kubernetes.resources.memory instead' });
  }
  if (sch.scheduler !== 'kubernetes') {
    if (k !== undefined) ctx.addIssue({ code: 'custom', path: ['kubernetes'], message: `applies to schedule.scheduler "kubernetes" only; remove it, or set the scheduler to "kubernetes"` });
    return;
  }
  if (k === undefined) {
    ctx.addIssue({ code: 'custom', path: ['kubernetes'], message: 'required for schedule.scheduler "kubernetes": at least {image, git or pvc}; see docs/kubernetes.md' });
    return;
  }
  if (typeof k !== 'object' || k === null) return;
  if ((k.git === undefined) === (k.pvc === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['kubernetes'], message: 'needs exactly one of git (a fresh clone for every wake) and pvc (an existing PersistentVolumeClaim holding the repo); name one' });
  }
  if (sch.hostTimezone !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['schedule', 'hostTimezone'], message: 'does not apply to kubernetes: the CronJob fires in hours.timezone itself (spec.timeZone); remove it' });
  }
  if (k.secretKeys !== undefined && k.secretName === undefined) {
    ctx.addIssue({ code: 'custom', path: ['kubernetes', 'secretKeys'], message: 'names keys of a Secret, but kubernetes.secretName names none; add secretName' });
  }
  const env = typeof s.env === 'object' && s.env !== null ? s.env : {};
  for (const [i, key] of (Array.isArray(k.secretKeys) ? k.secretKeys : []).entries()) {
    if (typeof key === 'string' && Object.hasOwn(env, key)) ctx.addIssue({ code: 'custom', path: ['kubernetes', 'secretKeys', i], message: `${key} is also in env; keep it in one place (the Secret, for a token)` });
  }
  // The pod mounts the repo, HOME and an outside state folder as volumes: none may be "/", or where the scripts are mounted.
  for (const [path, v] of [[['repo'], s.repo], [['env', 'HOME'], env.HOME]] as const) {
    if (typeof v === 'string' && (v === '/' || v === '/hbgen' || v.startsWith('/hbgen/'))) {
      ctx.addIssue({ code: 'custom', path: [...path], message: `is where the pod mounts a volume, so it cannot be "/" or under /hbgen (the scripts' mount); choose another folder such as ${path[0] === 'repo' ? '"/work/repo"' : '"/home/agent"'}` });
    }
  }
  // A cap counts wakes in the state folder: it must outlive the pod.
  const st = typeof s.stateDir === 'string' ? s.stateDir : undefined;
  if (s.cap !== undefined && !(k.pvc !== undefined && st !== undefined && !st.startsWith('/'))) {
    ctx.addIssue({ code: 'custom', path: ['cap'], message: 'counts wakes in the state folder, which on kubernetes lasts only one pod unless it is on the PersistentVolumeClaim: set kubernetes.pvc and a stateDir relative to repo (e.g. ".hbgen"), or remove cap' });
  }
}
