// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The kubernetes scheduler:
// - the kubernetes block's validation, each refusal naming its field;
// - every rendered manifest validated against the Kubernetes OpenAPI schema (the
//   kubernetes-models package 5.x, generated from the upstream schemas of Kubernetes
//   1.34: it knows CronJobSpec.timeZone and every field hbgen renders), and its
//   ConfigMaps read back by a YAML parser: the same scripts, byte for byte, the spec's in its
//   own and the runtime once, in a ConfigMap of its own that the pod mounts beside them;
// - the CronJobs' schedules, evaluated in their timeZone by cron-parser (the evaluator of
//   the schedule tests), fire exactly the expected wakes over whole DST months;
// - the pod's command run here: the ConfigMap's scripts in a temp folder, `/bin/sh
//   heartbeat.sh` with a stand-in agent, the Secret's key reaching it and the billing check;
//   without the runtime's ConfigMap, or with another runtime in it, nothing runs (exit 78);
// - install / install --apply / stop --apply / status against a recording kubectl STAND-IN
//   (no cluster is reachable here).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAllDocuments } from 'yaml';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { seconds, validateSpec, type Spec } from '../src/spec.ts';
import { renderNow } from './helpers/render.ts';
import { ROOT, hbgen } from './helpers/cli.ts';
import { expectedWakes, cronFires, wall, type HoursSpec } from './helpers/hours.ts';
import { PATHS, SHELLS, type Shell, agentShell, run as runWrapper, shell } from './helpers/wrapper.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hbgen-k8s-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

type Raw = Record<string, any>;
function base(over: Raw = {}): Raw {
  const s: Raw = {
    version: 1,
    name: 'docs',
    repo: '/work/docs',
    agent: { harness: 'claude-code', bin: '/usr/local/bin/claude', prompt: 'Do one chunk.' },
    schedule: { scheduler: 'kubernetes', every: '30m', minute: 7, hours: { start: '08:30', end: '18:00', timezone: 'America/Santiago', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } },
    timeout: '25m',
    env: { HOME: '/home/agent', PATH: '/usr/local/bin:/usr/bin:/bin' },
    kubernetes: { image: 'ghcr.io/acme/agent:1.2', secretName: 'claude-login', secretKeys: ['CLAUDE_CODE_OAUTH_TOKEN'], git: { url: 'https://github.com/acme/docs.git', branch: 'main' } },
  };
  return { ...s, ...over };
}
const errorsOf = (raw: Raw) => validateSpec(raw).errors ?? [];
const specOf = (raw: Raw): Spec => {
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('\n'));
  return v.spec;
};
const RUNTIME_MANIFEST = 'host/hbgen-runtime-0.2.0.configmap.yaml';
const manifestOf = (spec: Spec) => {
  const r = renderNow(spec);
  assert.equal(r.errors, []);
  return { r, yaml: r.files.find((f) => f.path === `host/hbgen-${spec.name}.cronjob.yaml`)!.content, runtimeYaml: r.files.find((f) => f.path === RUNTIME_MANIFEST)!.content };
};
const objectsOf = (yaml: string) =>
  parseAllDocuments(yaml).map((d) => {
    assert.equal(d.errors, [], 'the YAML parses');
    return d.toJS() as Raw;
  });

// ---------------------------------------------------------------- validation

test('the kubernetes block is valid as the issue writes it, and required for scheduler kubernetes only', () => {
  assert.equal(errorsOf(base()), []);
  const { kubernetes: _k, ...without } = base();
  assert.equal(errorsOf(without), ['kubernetes: required for schedule.scheduler "kubernetes": at least {image, git or pvc}; see docs/kubernetes.md']);
  const onCron = base({ schedule: { ...base().schedule, scheduler: 'cron' } });
  assert.equal(errorsOf(onCron), ['kubernetes: applies to schedule.scheduler "kubernetes" only; remove it, or set the scheduler to "kubernetes"']);
});

test('kubernetes refusals name the field: no image, both or neither of git and pvc, bad names, hostTimezone, passwords in the URL, cap on an emptyDir', () => {
  const k = base().kubernetes;
  const with_ = (kk: Raw, over: Raw = {}) => errorsOf(base({ kubernetes: kk, ...over }));
  assert.ok(with_({ ...k, image: undefined }).some((e) => e.startsWith('kubernetes.image: required: the container image')));
  assert.ok(with_({ ...k, pvc: 'docs-repo' }).some((e) => e.startsWith('kubernetes: needs exactly one of git')));
  assert.ok(with_({ ...k, git: undefined }).some((e) => e.startsWith('kubernetes: needs exactly one of git')));
  assert.ok(with_({ ...k, namespace: 'Agents' }).some((e) => e.startsWith('kubernetes.namespace: must be a Kubernetes label name')));
  assert.ok(with_({ ...k, image: 'ghcr.io/a b' }).some((e) => e.startsWith('kubernetes.image: must be an image reference without spaces')));
  assert.ok(with_({ ...k, resources: { cpu: 'lots' } }).some((e) => e.startsWith('kubernetes.resources.cpu: must be a Kubernetes quantity')));
  assert.ok(with_({ ...k, git: { url: 'https://bob:s3cret@github.com/acme/docs.git' } }).some((e) => e.startsWith('kubernetes.git.url: carries a user name, token or password')));
  assert.ok(with_({ ...k, bogus: 1 }).includes('kubernetes.bogus: unknown field; remove it or check its spelling'));
  assert.ok(with_(k, { schedule: { ...base().schedule, hostTimezone: 'UTC' } }).some((e) => e.startsWith('schedule.hostTimezone: does not apply to kubernetes')));
  assert.ok(with_(k, { cap: 10 }).some((e) => e.startsWith('cap: counts wakes in the state folder, which on kubernetes lasts only one pod')));
  // With the PVC and a state folder in the repo, the counter outlives the pod: cap is fine.
  assert.equal(with_({ ...k, git: undefined, pvc: 'docs-repo' }, { cap: 10, stateDir: '.hbgen' }), []);
  assert.ok(with_(k, { repo: '/hbgen/repo' }).some((e) => e.startsWith('repo: is where the pod mounts a volume')));
});

test('secretKeys: names only; a metered credential is refused, the subscription token is not', () => {
  const k = base().kubernetes;
  assert.equal(errorsOf(base({ kubernetes: { ...k, secretKeys: ['CLAUDE_CODE_OAUTH_TOKEN', 'GH_TOKEN'] } })), []);
  const e = errorsOf(base({ kubernetes: { ...k, secretKeys: ['ANTHROPIC_API_KEY'] } }));
  assert.ok(e.some((x) => x.startsWith('kubernetes.secretKeys[0]: ANTHROPIC_API_KEY is ') && x.endsWith('remove it from the Secret and from secretKeys')), e.join('\n'));
  assert.ok(errorsOf(base({ kubernetes: { ...k, secretKeys: ['HBGEN_WAKE'] } })).some((x) => x.startsWith('kubernetes.secretKeys[0]: HBGEN_WAKE is read or set by the wrapper')));
  assert.ok(errorsOf(base({ kubernetes: { ...k, secretKeys: ['lower'] } })).some((x) => x.startsWith('kubernetes.secretKeys[0]: "lower" is not an environment variable name')));
  assert.ok(errorsOf(base({ kubernetes: { ...k, secretName: undefined } })).some((x) => x.startsWith('kubernetes.secretKeys: names keys of a Secret, but kubernetes.secretName names none')));
});

test('render --scheduler kubernetes of a spec without the block says what is missing', () => {
  const { kubernetes: _k, ...raw } = base({ schedule: { ...base().schedule, scheduler: 'cron' } });
  const r = renderNow(specOf(raw), { scheduler: 'kubernetes' });
  assert.equal(r.errors, ['kubernetes: required for schedule.scheduler "kubernetes": at least {image, git or pvc}; see docs/kubernetes.md']);
});

// ---------------------------------------------------------------- the manifest

const variants: [string, Raw][] = [
  ['claude-code, git, Secret key, service account, resources', base({ kubernetes: { ...base().kubernetes, serviceAccountName: 'agent', resources: { cpu: '500m', memory: '2Gi' }, namespace: 'agents' } })],
  ['pvc, state in the repo, cap, shared', base({ kubernetes: { image: 'ghcr.io/acme/agent:1.2', pvc: 'docs-repo' }, stateDir: '.hbgen', cap: 40, shared: true })],
  ['codex with its auth.json from the Secret', base({ agent: { harness: 'codex', bin: '/usr/local/bin/codex', prompt: 'x' }, kubernetes: { image: 'ghcr.io/acme/codex:1', secretName: 'codex-login', git: { url: 'git@github.com:acme/docs.git' } } })],
  ['command, round the clock every 2h, absolute stateDir', base({ agent: { harness: 'command', bin: '/usr/bin/agent', prompt: 'x' }, schedule: { scheduler: 'kubernetes', every: '2h', minute: 13, hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } }, stateDir: '/var/hbgen', kubernetes: { image: 'agent', pvc: 'r' } })],
];

for (const [label, raw] of variants) {
  test(`the manifest validates against the Kubernetes OpenAPI schema (kubernetes-models): ${label}`, () => {
    const spec = specOf(raw);
    const { r, yaml } = manifestOf(spec);
    const objs = objectsOf(yaml);
    assert.is(objs[0]!.kind, 'ConfigMap');
    new ConfigMap(objs[0] as never).validate();
    const jobs = objs.slice(1);
    assert.ok(jobs.length >= 1);
    for (const o of jobs) {
      assert.is(o.kind, 'CronJob');
      new CronJob(o as never).validate();
      // What the issue asks of every CronJob, read back from the YAML.
      const s = o.spec;
      assert.is(s.timeZone, spec.schedule.hours.timezone);
      assert.is(s.concurrencyPolicy, 'Forbid');
      assert.is(s.suspend, false);
      assert.ok(s.startingDeadlineSeconds > 0 && s.successfulJobsHistoryLimit >= 1 && s.failedJobsHistoryLimit >= 1);
      const job = s.jobTemplate.spec;
      assert.is(job.backoffLimit, 0);
      assert.is(job.activeDeadlineSeconds, seconds(spec.timeout) + seconds(spec.killAfter));
      assert.ok(job.ttlSecondsAfterFinished > 0);
      const pod = job.template.spec;
      assert.is(pod.restartPolicy, 'Never');
      assert.is(pod.securityContext.runAsNonRoot, true);
      assert.ok(pod.securityContext.runAsUser > 0);
      const c = pod.containers[0];
      assert.equal(c.command, ['/bin/sh', '/hbgen/heartbeat.sh']);
      assert.is(c.securityContext.readOnlyRootFilesystem, true);
      for (const x of [o, job.template]) assert.equal(x.metadata.labels, { 'app.kubernetes.io/managed-by': 'hbgen', 'hbgen.dev/name': 'docs' });
      assert.equal(s.jobTemplate.metadata.labels, { 'app.kubernetes.io/managed-by': 'hbgen', 'hbgen.dev/name': 'docs' });
      // The wrapper's folders are volumes: the repo, and the state folder (on one of them).
      const mounts: string[] = c.volumeMounts.map((m: Raw) => m.mountPath);
      assert.ok(mounts.includes(spec.repo) && mounts.includes('/hbgen'));
      const stateDir = spec.stateDir.startsWith('/') ? spec.stateDir : `${spec.repo}/${spec.stateDir}`;
      assert.ok(mounts.some((m) => stateDir === m || stateDir.startsWith(`${m}/`)), `the state folder ${stateDir} is on a volume`);
    }
    assert.equal(objs[0]!.metadata.labels, { 'app.kubernetes.io/managed-by': 'hbgen', 'hbgen.dev/name': 'docs' });
    // The ConfigMap carries the very scripts of the render, byte for byte, and not the runtime:
    // the runtime is once in a ConfigMap of its own, which the pod mounts beside them.
    const rt = r.files.find((f) => /^runtime-.*\.sh$/.test(f.path))!;
    assert.equal(Object.keys(objs[0]!.data).sort(), r.files.filter((x) => x.path.endsWith('.sh') && x !== rt).map((x) => x.path).sort());
    for (const f of r.files.filter((x) => x.path.endsWith('.sh') && x !== rt)) assert.is(objs[0]!.data[f.path], f.content, f.path);
    const rtObjs = objectsOf(manifestOf(spec).runtimeYaml);
    assert.is(rtObjs.length, 1);
    new ConfigMap(rtObjs[0] as never).validate();
    assert.equal(rtObjs[0]!.metadata, {
      name: 'hbgen-runtime-0.2.0',
      namespace: spec.kubernetes!.namespace ?? 'default',
      labels: { 'app.kubernetes.io/managed-by': 'hbgen', 'hbgen.dev/runtime': '0.2.0' },
      annotations: { 'hbgen.dev/runtime-sha256': createHash('sha256').update(rt.content).digest('hex') },
    });
    assert.equal(rtObjs[0]!.data, { [rt.path]: rt.content });
    assert.not.ok(yaml.includes(rt.content.split('\n').slice(1, 4).join('\n')), 'the spec\'s manifest holds no runtime text');
    for (const o of jobs) {
      // /hbgen: the spec's scripts and the runtime, side by side, where heartbeat.sh looks for it.
      const v = o.spec.jobTemplate.spec.template.spec.volumes.find((x: Raw) => x.name === 'hbgen');
      assert.equal(v.projected.sources, [{ configMap: { name: 'hbgen-docs' } }, { configMap: { name: 'hbgen-runtime-0.2.0', optional: true } }]);
      assert.is(o.spec.jobTemplate.spec.template.metadata.annotations, undefined, 'no checksum in the pod template: a runtime-only upgrade leaves the CronJobs alone');
    }
    assert.is(yaml.split('\n')[0], '# Generated by hbgen from spec "docs". Do not edit: change the spec and run hbgen install.');
    // Deterministic: a second render is the same bytes.
    assert.is(manifestYamlAgain(spec), yaml);
  });
}
const manifestYamlAgain = (spec: Spec) => manifestOf(structuredClone(spec)).yaml;

// kubernetes-models validates types, formats and enums but, like the upstream OpenAPI
// schemas, lets unknown fields through (the API server would drop or refuse them). Its
// TypeScript declarations, generated from the same schemas, know every field: the objects
// as object literals of those types, type-checked by tsc, refuse any field they lack.
function strictFields(objects: Raw[]): { code: number | null; out: string } {
  const dir = mkdtempSync(join(tmp, 'tsc-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const src = [
    "import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';",
    "import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';",
    ...objects.map((o, i) => `export const o${i}: ${o.kind === 'ConfigMap' ? 'IConfigMap' : 'ICronJob'} = ${JSON.stringify(o)};`),
  ].join('\n');
  writeFileSync(join(dir, 'objects.ts'), src);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['objects.ts'] }));
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('every manifest holds only fields the Kubernetes API knows (tsc against the kubernetes-models declarations)', () => {
  const all = variants.flatMap(([, raw]) => {
    const m = manifestOf(specOf(raw));
    return [...objectsOf(m.yaml), ...objectsOf(m.runtimeYaml)];
  });
  const ok = strictFields(all);
  assert.is(ok.code, 0, ok.out);
  // The check can fail: one unknown field in a container is refused.
  const bad = structuredClone(all[1]!);
  bad.spec.jobTemplate.spec.template.spec.containers[0].bogusField = true;
  const no = strictFields([bad]);
  assert.is.not(no.code, 0);
  assert.match(no.out, /'"bogusField"' does not exist in type 'IContainer'/, no.out);
});

test('the validator refuses what the API server would (so the checks above can fail)', () => {
  const objs = objectsOf(manifestOf(specOf(base())).yaml);
  const bad = structuredClone(objs[1]!);
  bad.spec.startingDeadlineSeconds = 'soon';
  assert.throws(() => new CronJob(bad as never).validate());
});

test('the Secret: envFrom its name, and for codex its auth.json copied into a writable CODEX_HOME by an init container', () => {
  const c = objectsOf(manifestOf(specOf(variants[0]![1])).yaml)[1]!.spec.jobTemplate.spec.template.spec;
  assert.equal(c.containers[0].envFrom, [{ secretRef: { name: 'claude-login' } }]);
  assert.equal(c.initContainers.map((x: Raw) => x.name), ['clone']);
  assert.equal(c.initContainers[0].command, ['git', 'clone', '--quiet', '--branch', 'main', '--single-branch', '--', 'https://github.com/acme/docs.git', '/work/docs']);
  const x = objectsOf(manifestOf(specOf(variants[2]![1])).yaml)[1]!.spec.jobTemplate.spec.template.spec;
  const login = x.initContainers.find((i: Raw) => i.name === 'codex-login');
  assert.equal(login.command.slice(-2), ['/home/agent/.codex', '/hbgen-login/auth.json']);
  assert.ok(x.volumes.some((v: Raw) => v.secret?.secretName === 'codex-login'));
});

test('kubernetes.git.url: any user name, token or password before "@", and any query string, is refused naming the field and the Secret; ssh login names pass', () => {
  const k = base().kubernetes;
  const urlErrors = (url: string) => errorsOf(base({ kubernetes: { ...k, git: { url } } })).filter((e) => e.startsWith('kubernetes.git.url: '));
  for (const url of ['https://ghp_0123456789abcdef@github.com/acme/docs.git', 'https://x-access-token@github.com/acme/docs.git', 'http://bob:s3cret@git.example/docs.git', 'git://tok@git.example/docs.git', 'ssh://git:hunter2@github.com/acme/docs.git']) {
    const e = urlErrors(url);
    assert.is(e.length, 1, `${url}: ${e.join(' | ')}`);
    assert.match(e[0]!, /before "@"/);
    assert.match(e[0]!, /stored in the manifest/);
    assert.match(e[0]!, /kubernetes\.secretName/);
  }
  for (const url of ['https://github.com/acme/docs.git?access_token=ghp_0123', 'https://github.com/acme/docs.git#tok']) {
    const e = urlErrors(url);
    assert.is(e.length, 1, url);
    assert.match(e[0]!, /query string or fragment/);
  }
  for (const url of ['https://github.com/acme/docs.git', 'ssh://git@github.com/acme/docs.git', 'git@github.com:acme/docs.git', 'https://git.example:8443/acme/docs.git']) assert.equal(urlErrors(url), [], url);
  // What is refused never reaches a manifest; what passes lands in the clone's command line as given.
  const spec = specOf(base({ kubernetes: { ...k, git: { url: 'ssh://git@github.com/acme/docs.git' } } }));
  const clone = objectsOf(manifestOf(spec).yaml)[1]!.spec.jobTemplate.spec.template.spec.initContainers[0];
  assert.ok(clone.command.includes('ssh://git@github.com/acme/docs.git'));
});

test('env: forge and registry tokens are refused on every scheduler; on kubernetes every secret-looking name, pointing at the Secret; secretKeys takes them', () => {
  const k = base().kubernetes;
  const withEnv = (extra: Raw, over: Raw = {}) => errorsOf(base({ env: { ...base().env, ...extra }, ...over }));
  for (const key of ['GH_TOKEN', 'GITHUB_TOKEN', 'GITLAB_TOKEN', 'NPM_TOKEN']) {
    const e = withEnv({ [key]: 'secret-value' });
    assert.equal(e.length, 1, e.join('\n'));
    assert.ok(e[0]!.startsWith(`env.${key}: ${key} is a`), e[0]);
    assert.match(e[0]!, /ConfigMap/);
    assert.match(e[0]!, /kubernetes\.secretKeys/);
  }
  // Names no tool reads but that say what they hold: the Secret is the place on kubernetes.
  for (const key of ['CLAUDE_CODE_OAUTH_TOKEN', 'DEPLOY_PASSWORD', 'MY_SECRET', 'JIRA_TOKEN']) {
    const e = withEnv({ [key]: 'v' }, { kubernetes: { ...k, secretKeys: undefined } });
    assert.ok(e.some((x) => x.startsWith(`env.${key}: ${key} names a secret`) && x.includes('kubernetes.secretKeys')), `${key}: ${e.join(' | ')}`);
  }
  // On a host: the named tokens are refused with the tool's own login; other names are the user's call.
  const { kubernetes: _k, ...hostRaw } = base({ schedule: { ...base().schedule, scheduler: 'cron' } });
  const onHost = (extra: Raw) => errorsOf({ ...hostRaw, env: { ...hostRaw.env, ...extra } });
  const gh = onHost({ GH_TOKEN: 'ghp_x' });
  assert.equal(gh.length, 1, gh.join('\n'));
  assert.match(gh[0]!, /^env\.GH_TOKEN: GH_TOKEN is a GitHub token, .*heartbeat\.sh, state\.json .*`gh auth login`/);
  assert.equal(onHost({ CLAUDE_CODE_OAUTH_TOKEN: 't', JIRA_TOKEN: 't', AWS_REGION: 'eu-west-1' }), []);
  // The Secret carries them: accepted in secretKeys, and the wrapper passes them on by name only.
  const spec = specOf(base({ kubernetes: { ...k, secretKeys: ['CLAUDE_CODE_OAUTH_TOKEN', 'GH_TOKEN'] } }));
  const objs = objectsOf(manifestOf(spec).yaml);
  assert.not.match(JSON.stringify(objs), /"name":"GH_TOKEN","value"/);
  assert.match(objs[0]!.data["heartbeat.sh"], /\nhb_secret_\d+='GH_TOKEN'\n/);
});

test('every init container has requests and limits and every emptyDir a sizeLimit; sizeLimits overrides them, and the clone gets the Secret for a credential helper', () => {
  const withSizes = base({ kubernetes: { ...base().kubernetes, sizeLimits: { repo: '20Gi', tmp: '512Mi' } } });
  for (const [label, raw] of [...variants, ['sizeLimits', withSizes] as [string, Raw]]) {
    const spec = specOf(raw);
    for (const o of objectsOf(manifestOf(spec).yaml).slice(1)) {
      new CronJob(o as never).validate();
      const pod = o.spec.jobTemplate.spec.template.spec;
      for (const c of pod.initContainers ?? []) {
        assert.ok(c.resources?.requests?.cpu && c.resources?.requests?.memory && c.resources?.limits?.cpu && c.resources?.limits?.memory, `${label}: ${c.name} has resources`);
        // With kubernetes.resources, the same as the main container.
        if (spec.kubernetes!.resources) assert.equal(c.resources, pod.containers[0].resources, `${label}: ${c.name}`);
      }
      const dirs = pod.volumes.filter((v: Raw) => 'emptyDir' in v);
      assert.ok(dirs.length >= 1, label);
      for (const v of dirs) assert.match(v.emptyDir.sizeLimit ?? '', /^\d+(Mi|Gi)$/, `${label}: ${v.name}`);
    }
  }
  const pod = (raw: Raw) => objectsOf(manifestOf(specOf(raw)).yaml)[1]!.spec.jobTemplate.spec.template.spec;
  const sizes = (raw: Raw) => Object.fromEntries(pod(raw).volumes.filter((v: Raw) => v.emptyDir).map((v: Raw) => [v.name, v.emptyDir.sizeLimit]));
  assert.equal(sizes(base()), { repo: '4Gi', home: '1Gi', tmp: '1Gi' });
  assert.equal(sizes(withSizes), { repo: '20Gi', home: '1Gi', tmp: '512Mi' });
  // The state folder's own volume holds both generations of runtime.log and of agent.log.
  const outside = variants[3]![1];
  assert.equal(sizes(outside).state, '72Mi');
  assert.equal(sizes({ ...outside, logMaxBytes: 536870912 }).state, '2080Mi');
  assert.equal(pod(base()).initContainers[0].resources, { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } });
  assert.equal(pod(base()).initContainers[0].envFrom, [{ secretRef: { name: 'claude-login' } }]);
  assert.ok(errorsOf(base({ kubernetes: { ...base().kubernetes, sizeLimits: { repo: 'big' } } })).some((e) => e.startsWith('kubernetes.sizeLimits.repo: must be a Kubernetes quantity')));
});

test('the wrapper passes the Secret key on by name; other schedulers render no such words', () => {
  const hb = manifestOf(specOf(base())).r.files.find((f) => f.path === 'heartbeat.sh')!.content;
  // The key by name (the runtime passes it on as ${K+"K=$K"}), and the setup token counted.
  assert.ok(hb.includes("\nhb_secret_1='CLAUDE_CODE_OAUTH_TOKEN'\n"));
  assert.ok(hb.includes("\nhb_billing_token='1'\n"), 'the billing check counts the setup token');
  const { kubernetes: _k, ...raw } = base({ schedule: { ...base().schedule, scheduler: 'cron' } });
  const cronHb = renderNow(specOf(raw)).files.find((f) => f.path === 'heartbeat.sh')!.content;
  assert.not.ok(cronHb.includes('hb_secret_'));
  assert.not.ok(cronHb.includes('hb_billing_token'));
});

// ---------------------------------------------------------------- fire times

// The same-zone cases of the other schedulers' tests (test/hours.test.ts): the CronJob
// fires in hours.timezone, so it is the same-zone case.
const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'];
const zoneCases: { label: string; hours: HoursSpec; from: string }[] = [
  { label: 'America/Santiago, Fri 22:00–02:00 across its DST end', hours: { every: '1h', minute: 51, start: '22:00', end: '02:00', timezone: 'America/Santiago', days: weekdays }, from: '2027-03-20' },
  { label: 'Europe/Berlin, 01:00–04:00 every 15m across DST start', hours: { every: '15m', minute: 7, start: '01:00', end: '04:00', timezone: 'Europe/Berlin' }, from: '2027-03-01' },
  { label: 'Europe/Berlin, 01:00–04:00 every 15m across DST end', hours: { every: '15m', minute: 7, start: '01:00', end: '04:00', timezone: 'Europe/Berlin' }, from: '2027-10-01' },
  { label: 'Australia/Lord_Howe, 00:30–03:00 every 10m across its 30-minute DST end', hours: { every: '10m', minute: 3, start: '00:30', end: '03:00', timezone: 'Australia/Lord_Howe' }, from: '2027-04-01' },
  { label: 'America/New_York 08:00–23:00 every 30m, weekdays, March', hours: { every: '30m', minute: 7, start: '08:00', end: '23:00', timezone: 'America/New_York', days: weekdays }, from: '2027-03-01' },
  { label: 'America/Santiago every 2h from 08:30, Mon Wed Fri', hours: { every: '2h', minute: 7, start: '08:30', end: '18:00', timezone: 'America/Santiago', days: ['mon', 'wed', 'fri'] }, from: '2027-03-20' },
  { label: 'Pacific/Chatham night window 22:00–04:00 every 15m, Fri Sat', hours: { every: '15m', minute: 4, start: '22:00', end: '04:00', timezone: 'Pacific/Chatham', days: ['fri', 'sat'] }, from: '2027-03-20' },
];

for (const c of zoneCases) {
  test(`the CronJobs fire exactly the expected wakes in their timeZone (cron-parser): ${c.label}`, () => {
    const h = c.hours;
    const spec = specOf(base({ schedule: { scheduler: 'kubernetes', every: h.every, minute: h.minute, hours: { start: h.start, end: h.end, timezone: h.timezone, days: h.days } }, timeout: '1m' }));
    const jobs = objectsOf(manifestOf(spec).yaml).slice(1);
    const from = Date.parse(`${c.from}T00:00:00Z`) / 1000;
    const to = from + 31 * 86400;
    const expected = expectedWakes(h, from, to);
    assert.ok(expected.length > 10);
    const fires = new Set<number>();
    for (const j of jobs) for (const t of cronFires([j.spec.schedule], j.spec.timeZone, from, to)) fires.add(t);
    const got = [...fires].sort((a, b) => a - b);
    const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 16);
    assert.equal(expected.filter((t) => !fires.has(t)).map(iso), [], 'misses none');
    // As for cron in the same zone: the only extra fire is the second pass of a wall-clock
    // minute the clocks-back repeat, which the wrapper's own window check skips.
    const firstPass = new Set(expected.map((t) => wall(h.timezone, t * 1000).join(' ')));
    for (const t of got.filter((x) => !expected.includes(x))) assert.ok(firstPass.has(wall(h.timezone, t * 1000).join(' ')), `wastes ${iso(t)}`);
  });
}

// ---------------------------------------------------------------- the pod's command, run here

// Under a private dash (agentShell), so that no shell under test adds to its environ.
const CLAUDE = `#!${agentShell}
# STAND-IN for the claude CLI, tests only: auth status answers from CLAUDE_CODE_OAUTH_TOKEN.
if [ "$1 $2 \${3-}" = "auth status --text" ]; then
  # Claude Code 2.1.197's --text line for a setup token.
  if [ -n "\${CLAUDE_CODE_OAUTH_TOKEN:-}" ]; then echo 'Auth token: CLAUDE_CODE_OAUTH_TOKEN'; exit 0; fi
fi
if [ "$1 $2" = "auth status" ]; then
  if [ -n "\${CLAUDE_CODE_OAUTH_TOKEN:-}" ]; then echo '{"loggedIn":true,"authMethod":"oauth_token","apiProvider":"firstParty"}'; exit 0; fi
  echo '{"loggedIn":false,"authMethod":"none","apiProvider":"firstParty"}'; exit 1
fi
tr '\\000' '\\n' </proc/$$/environ >"$REC/env"
printf '%s\\n' "$@" >"$REC/argv"
exit 0
`;

function podCase(path = '/usr/local/bin:/usr/bin:/bin') {
  const dir = mkdtempSync(join(tmp, 'pod-'));
  const rec = join(dir, 'rec');
  mkdirSync(rec);
  mkdirSync(join(dir, 'repo'));
  writeFileSync(join(dir, 'repo', 'README'), 'x\n');
  const bin = join(dir, 'claude');
  writeFileSync(bin, CLAUDE, { mode: 0o755 });
  const spec = specOf(
    base({
      repo: join(dir, 'repo'),
      agent: { harness: 'claude-code', bin, prompt: 'Do one chunk.' },
      env: { HOME: join(dir, 'home'), PATH: path, REC: rec },
      kubernetes: { image: 'x', secretName: 'claude-login', secretKeys: ['CLAUDE_CODE_OAUTH_TOKEN'], pvc: 'r' },
      stateDir: '.hbgen',
      timeout: '1m',
    }),
  );
  // The projected volume as the pod gets it: the spec's ConfigMap and the runtime's, side by side.
  const m = manifestOf(spec);
  const cm = objectsOf(m.yaml)[0]!;
  const rt = objectsOf(m.runtimeYaml)[0]!;
  const mount = join(dir, 'hbgen');
  mkdirSync(mount);
  for (const [k, v] of Object.entries({ ...(cm.data as Record<string, string>), ...(rt.data as Record<string, string>) })) writeFileSync(join(mount, k), v, { mode: 0o555 });
  // As the pod starts it: `/bin/sh /hbgen/heartbeat.sh`, with the container's env (the spec's, the Secret's keys, and more).
  const run = (sh: Shell, env: Record<string, string>) =>
    runWrapper(null, sh, { script: join(mount, 'heartbeat.sh'), args: ['--now'], env: { ...spec.env, KUBERNETES_SERVICE_HOST: '10.0.0.1', HOSTNAME: 'hbgen-docs-29000000-abcde', ...env } });
  const envKeys = () => readFileSync(join(rec, 'env'), 'utf8').split('\n').filter(Boolean).map((l) => l.slice(0, l.indexOf('='))).sort();
  return { dir, rec, spec, run, envKeys, mount, log: () => readFileSync(join(dir, 'repo', '.hbgen', 'runtime.log'), 'utf8') };
}

const AGENT_ENV = ['CLAUDE_CODE_OAUTH_TOKEN', 'HBGEN_DEADLINE', 'HBGEN_NAME', 'HBGEN_REPO', 'HBGEN_WAKE', 'HOME', 'PATH', 'REC'];

for (const sh of SHELLS) {
  test(`the pod command run here under ${sh.name} (/bin/sh heartbeat.sh from the ConfigMap): the Secret key reaches the agent, nothing else of the pod's env does`, async () => {
    const p = podCase();
    const token = 'sk-ant-oat01-a b"$`\\\'x';
    const r = await p.run(sh, { CLAUDE_CODE_OAUTH_TOKEN: token, OTHER_SECRET: 'not named' });
    assert.is(r.code, 0, r.stderr);
    assert.match(p.log(), / hbgen docs quiet/);
    assert.equal(p.envKeys(), AGENT_ENV);
    assert.ok(readFileSync(join(p.rec, 'env'), 'utf8').includes(`CLAUDE_CODE_OAUTH_TOKEN=${token}\n`), 'byte for byte');
    assert.is(readFileSync(join(p.dir, 'repo', '.hbgen', 'wakes'), 'utf8').trim(), '1', 'the wake counter lives on the repo volume');
  });
}

test('the pod command run here on a PATH without timeout, flock and setsid: the billing check and the wake as on a host', async () => {
  const p = podCase(PATHS.bare);
  // The caller's PATH is the test's (its mount(8) needs one): the wrapper itself runs on the spec's.
  const r = await p.run(shell('dash'), { CLAUDE_CODE_OAUTH_TOKEN: 'tok', PATH: '/usr/bin:/bin' });
  assert.is(r.code, 0, r.stderr);
  assert.match(p.log(), / hbgen docs quiet/);
  assert.equal(p.envKeys(), AGENT_ENV);
});

test('the pod command run here: without the Secret key (or with it empty) the billing check refuses before the agent (exit 78, nothing counted)', async () => {
  for (const env of [{}, { CLAUDE_CODE_OAUTH_TOKEN: '' }] as Record<string, string>[]) {
    const p = podCase();
    const r = await p.run(shell('dash'), env);
    assert.is(r.code, 78);
    assert.match(p.log(), / hbgen docs error billing claude auth status says not logged in: /);
    assert.not.ok(existsSync(join(p.rec, 'env')), 'the agent did not run');
    assert.not.ok(existsSync(join(p.dir, 'repo', '.hbgen', 'wakes')), 'nothing counted');
  }
});

test('the pod command run here: without the runtime\'s ConfigMap (its source is optional), or with another runtime in it, heartbeat.sh refuses (exit 78) and no agent runs', async () => {
  for (const [what, breakIt] of [
    ['missing', (f: string) => rmSync(f)],
    ['another build of the same version', (f: string) => writeFileSync(f, `${readFileSync(f, 'utf8')}# another build\n`)],
  ] as const) {
    const p = podCase();
    mkdirSync(join(p.dir, 'repo', '.hbgen'));
    writeFileSync(join(p.dir, 'repo', '.hbgen', 'runtime.log'), '');
    breakIt(join(p.mount, 'runtime-0.2.0.sh'));
    const r = await p.run(shell('dash'), { CLAUDE_CODE_OAUTH_TOKEN: 'tok' });
    assert.is(r.code, 78, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /runtime-0\.2\.0\.sh is missing or not the runtime 0\.2\.0 this heartbeat\.sh pins/, what);
    assert.match(p.log(), / hbgen docs error runtime changed/, what);
    assert.not.ok(existsSync(join(p.rec, 'env')), `${what}: the agent ran`);
  }
});

// ---------------------------------------------------------------- install, stop, status: kubectl STAND-IN

const KUBECTL = `#!/bin/sh
# STAND-IN for kubectl, tests only: records its argv. apply keeps the runtime's manifest (its
# first -f) and the spec's (its second) and says state/apply-said (or "created"); get answers
# cronjob,jobs from state/get.json, a ConfigMap by name from state/configmap.json (none:
# nothing, as --ignore-not-found), and all of hbgen's CronJobs from state/cronjobs.json.
top=$(dirname "$0"); d=$top/state; mkdir -p "$d"
printf '%s\\n' "kubectl $*" >> "$top/calls"
case $1 in
apply)
  [ ! -e "$d/fail-apply" ] || { echo 'error: You must be logged in to the server (Unauthorized)' >&2; exit 1; }
  cp "$3" "$d/applied-runtime.yaml"; cp "$5" "$d/applied.yaml"
  if [ -f "$d/apply-said" ]; then cat "$d/apply-said"; else echo 'configmap/hbgen-runtime-0.2.0 created'; echo 'configmap/hbgen-docs created'; echo 'cronjob.batch/hbgen-docs created'; fi; exit 0 ;;
delete) if [ "$2" = configmap ]; then echo "configmap \\"$3\\" deleted"; else echo 'cronjob.batch "hbgen-docs" deleted'; fi; exit 0 ;;
get)
  case $2 in
  configmap) [ ! -f "$d/configmap.json" ] || cat "$d/configmap.json" ;;
  cronjob) if [ -f "$d/cronjobs.json" ]; then cat "$d/cronjobs.json"; else echo '{"apiVersion":"v1","items":[]}'; fi ;;
  *) if [ -f "$d/get.json" ]; then cat "$d/get.json"; else echo '{"apiVersion":"v1","items":[]}'; fi ;;
  esac
  exit 0 ;;
esac
echo "stand-in kubectl: unexpected $*" >&2; exit 2
`;

function cliCase(over: Raw = {}) {
  const dir = mkdtempSync(join(tmp, 'cli-'));
  const tools = join(dir, 'tools');
  mkdirSync(tools);
  writeFileSync(join(tools, 'kubectl'), KUBECTL, { mode: 0o755 });
  chmodSync(join(tools, 'kubectl'), 0o755);
  const specFile = join(dir, 'hbgen.json');
  const raw = base({ env: { HOME: join(dir, 'pod-home'), PATH: '/usr/local/bin:/usr/bin:/bin' }, ...over });
  writeFileSync(specFile, JSON.stringify(raw));
  const spec = specOf(raw);
  const env = { PATH: `${tools}:/usr/bin:/bin`, HOME: join(dir, 'home'), LC_ALL: 'C' };
  mkdirSync(env.HOME);
  const run = (...args: string[]) => hbgen([...args, specFile], { env, cwd: dir });
  const calls = () => (existsSync(join(tools, 'calls')) ? readFileSync(join(tools, 'calls'), 'utf8').trim().split('\n') : []);
  const state = join(dir, 'pod-home', '.local/state/hbgen/docs');
  const manifest = join(state, 'host/hbgen-docs.cronjob.yaml');
  const runtimeManifest = join(state, RUNTIME_MANIFEST);
  return { dir, tools, spec, run, calls, state, manifest, runtimeManifest, apply: `kubectl apply -f ${runtimeManifest} -f ${manifest}` };
}

test('install without --apply (stand-in kubectl on PATH): writes the manifest and state.json, prints the exact kubectl apply, never runs kubectl', () => {
  const c = cliCase();
  const r = c.run('install', '--yes');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.ok(r.stdout.includes(`  ${c.apply}\n`), r.stdout);
  assert.equal(c.calls(), [], 'no cluster talk');
  assert.is(readFileSync(c.manifest, 'utf8'), manifestOf(c.spec).yaml);
  assert.is(readFileSync(c.runtimeManifest, 'utf8'), manifestOf(c.spec).runtimeYaml);
  const st = JSON.parse(readFileSync(join(c.state, 'state.json'), 'utf8'));
  assert.is(st.scheduler.type, 'kubernetes');
  assert.is(st.kubernetes.applied, null);
  assert.equal(st.kubernetes.objects, ['configmap/hbgen-docs', 'cronjob/hbgen-docs', 'cronjob/hbgen-docs-2']);
  const rt = manifestOf(c.spec).r.files.find((f) => f.path === 'runtime-0.2.0.sh')!;
  assert.equal(st.kubernetes.runtime, { configMap: 'hbgen-runtime-0.2.0', manifest: c.runtimeManifest, sha256: createHash('sha256').update(rt.content).digest('hex') });
  assert.match(r.stdout, /configmap\/hbgen-runtime-0\.2\.0, the runtime, shared with every install of hbgen 0\.2\.0 in the namespace/);
  // Without a terminal and without --yes: refused, nothing written.
  const d = cliCase();
  const n = d.run('install', '--apply');
  assert.is(n.code, 1);
  assert.match(n.stderr, /there is no terminal to ask for consent/);
  assert.not.ok(existsSync(d.manifest));
  assert.equal(d.calls(), []);
});

test('install --apply against a recording kubectl stand-in: runs kubectl apply -f on the written manifest after consent and records it', () => {
  const c = cliCase();
  const r = c.run('install', '--apply', '--yes');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.equal(c.calls(), [c.apply]);
  assert.is(readFileSync(join(c.tools, 'state', 'applied.yaml'), 'utf8'), readFileSync(c.manifest, 'utf8'));
  assert.is(readFileSync(join(c.tools, 'state', 'applied-runtime.yaml'), 'utf8'), readFileSync(c.runtimeManifest, 'utf8'));
  const st = JSON.parse(readFileSync(join(c.state, 'state.json'), 'utf8'));
  assert.equal(st.kubernetes.applied.argv, ['kubectl', 'apply', '-f', c.runtimeManifest, '-f', c.manifest]);
  assert.not.match(r.stdout, /warning/);
  // Another build of 0.2.0 had put its runtime there (kubectl says "configured"): said, since installs that pin that one now refuse their wakes.
  writeFileSync(join(c.tools, 'state', 'apply-said'), 'configmap/hbgen-runtime-0.2.0 configured\nconfigmap/hbgen-docs unchanged\n');
  assert.is(c.run('stop', '--apply').code, 0, 'so that the install applies again');
  const again = c.run('install', '--apply', '--yes');
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /warning: configmap\/hbgen-runtime-0\.2\.0 held another runtime than this hbgen's \(another build of hbgen 0\.2\.0, or an edit\); any other install in namespace default that pins that one refuses its wakes/);
  assert.match(st.kubernetes.applied.said, /cronjob.batch\/hbgen-docs created/);
});

test('install --apply against a failing kubectl stand-in: one clear line, the files it wrote are undone', () => {
  const c = cliCase();
  mkdirSync(join(c.tools, 'state'));
  writeFileSync(join(c.tools, 'state', 'fail-apply'), '');
  const r = c.run('install', '--apply', '--yes');
  assert.is(r.code, 1);
  assert.match(r.stderr, /kubectl apply failed \(error: You must be logged in to the server \(Unauthorized\)\)/);
  assert.not.ok(existsSync(c.manifest));
  assert.not.ok(existsSync(c.runtimeManifest));
  assert.not.ok(existsSync(join(c.state, 'state.json')));
});

test('--apply is refused for a host scheduler (usage, exit 2)', () => {
  const { kubernetes: _k, ...raw } = base({ schedule: { ...base().schedule, scheduler: 'cron' } });
  const c = cliCase();
  writeFileSync(join(c.dir, 'hbgen.json'), JSON.stringify(raw));
  const r = c.run('install', '--apply', '--yes');
  assert.is(r.code, 2);
  assert.match(r.stderr, /--apply: only for schedule.scheduler "kubernetes"/);
});

const DEL = 'kubectl delete cronjob,configmap --namespace default --selector hbgen.dev/name=docs,app.kubernetes.io/managed-by=hbgen --ignore-not-found';
const MANAGED = 'kubectl get cronjob --namespace default --selector app.kubernetes.io/managed-by=hbgen --output json';
const DEL_RUNTIME = 'kubectl delete configmap hbgen-runtime-0.2.0 --namespace default --ignore-not-found';

test('stop prints the kubectl delete; stop --apply runs it against the stand-in, then deletes the runtime\'s ConfigMap that no CronJob mounts any more, and marks state.json stopped', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  const p = c.run('stop');
  assert.is(p.code, 0);
  assert.ok(p.stdout.includes(`  ${DEL}\n`), p.stdout);
  assert.ok(p.stdout.includes(`The runtime's ConfigMap hbgen-runtime-0.2.0 is shared by every install of its hbgen version in namespace default: once no CronJob there mounts it, remove it with:\n  ${DEL_RUNTIME}\n`), p.stdout);
  assert.is(c.calls().length, 1, 'printing runs nothing');
  const r = c.run('stop', '--apply');
  assert.is(r.code, 0, r.stderr);
  assert.equal(c.calls().slice(1), [DEL, MANAGED, DEL_RUNTIME]);
  assert.match(r.stdout, /configmap "hbgen-runtime-0\.2\.0" deleted/);
  assert.is(JSON.parse(readFileSync(join(c.state, 'state.json'), 'utf8')).status, 'stopped');
});

test('stop --apply keeps the runtime\'s ConfigMap while another install\'s CronJob mounts it, and says which (stand-in)', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  // Another spec of the namespace, rendered by the same hbgen: its CronJob mounts the same runtime.
  const other = objectsOf(manifestOf(specOf(base({ name: 'api' }))).yaml)[1]!;
  assert.is(other.metadata.name, 'hbgen-api');
  writeFileSync(join(c.tools, 'state', 'cronjobs.json'), JSON.stringify({ apiVersion: 'v1', items: [other] }));
  const r = c.run('stop', '--apply');
  assert.is(r.code, 0, r.stderr);
  assert.equal(c.calls().slice(1), [DEL, MANAGED]);
  assert.match(r.stdout, /kept configmap\/hbgen-runtime-0\.2\.0: hbgen-api in namespace default still mounts it/);
  // One that mounts another runtime (another hbgen version) does not keep it.
  other.spec.jobTemplate.spec.template.spec.volumes[0].projected.sources[1].configMap.name = 'hbgen-runtime-0.3.0';
  writeFileSync(join(c.tools, 'state', 'cronjobs.json'), JSON.stringify({ apiVersion: 'v1', items: [other] }));
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  const again = c.run('stop', '--apply');
  assert.is(again.code, 0, again.stderr);
  assert.equal(c.calls().slice(-3), [DEL, MANAGED, DEL_RUNTIME]);
});

test('status against the kubectl stand-in: kubectl get cronjob,jobs -l, last schedule, active jobs, the last job failing on its deadline', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  // Nothing in the cluster: an orphan.
  let r = c.run('status');
  assert.is(r.code, 1);
  assert.match(r.stdout, /problem {2}orphan: the cluster holds no CronJob of "docs" in namespace default/);
  assert.ok(c.calls().includes('kubectl get cronjob,jobs --namespace default --selector hbgen.dev/name=docs --output json'));
  const jobs = objectsOf(manifestOf(c.spec).yaml).slice(1);
  const cj = (j: Raw) => ({ kind: 'CronJob', metadata: { name: j.metadata.name }, spec: j.spec, status: { lastScheduleTime: '2027-03-01T12:07:00Z', active: [] } });
  const job = (name: string, start: string, cond: Raw) => ({ kind: 'Job', metadata: { name }, status: { startTime: start, conditions: [cond] } });
  const answer = (items: Raw[]) => writeFileSync(join(c.tools, 'state', 'get.json'), JSON.stringify({ apiVersion: 'v1', items }));
  answer([...jobs.map(cj), job('hbgen-docs-1', '2027-03-01T11:37:00Z', { type: 'Complete', status: 'True' })]);
  // The runtime's ConfigMap: missing, then holding another build's runtime, then the pinned one.
  r = c.run('status');
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stdout, /problem {2}missing: the cluster lacks the runtime's configmap\/hbgen-runtime-0\.2\.0 in namespace default, so every wake stops at its pin check \(exit 78, runtime changed\)/);
  assert.ok(c.calls().includes('kubectl get configmap hbgen-runtime-0.2.0 --namespace default --ignore-not-found --output json'), c.calls().join('\n'));
  const rtObj = objectsOf(manifestOf(c.spec).runtimeYaml)[0]!;
  const cmAnswer = (o: Raw) => writeFileSync(join(c.tools, 'state', 'configmap.json'), JSON.stringify(o));
  cmAnswer({ ...rtObj, data: { 'runtime-0.2.0.sh': `${rtObj.data['runtime-0.2.0.sh']}# another build\n` } });
  r = c.run('status');
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stdout, /problem {2}drift: configmap\/hbgen-runtime-0\.2\.0 holds another runtime \(sha256 [0-9a-f]{12}…\) than heartbeat\.sh pins/);
  cmAnswer(rtObj);
  r = c.run('status');
  assert.is(r.code, 0, r.stdout);
  assert.match(r.stdout, /ok {7}the runtime's configmap\/hbgen-runtime-0\.2\.0 holds the runtime heartbeat\.sh pins/);
  assert.match(r.stdout, /ok {7}the CronJob hbgen-docs-2 fires "7,37 9-17 \* \* 1-5" America\/Santiago; last scheduled 2027-03-01T12:07:00Z; 0 active jobs/);
  assert.match(r.stdout, /ok {7}last Job hbgen-docs-1 \(started 2027-03-01T11:37:00Z\) succeeded/);
  answer([...jobs.map(cj), job('hbgen-docs-1', '2027-03-01T11:37:00Z', { type: 'Complete', status: 'True' }), job('hbgen-docs-2', '2027-03-01T12:07:00Z', { type: 'Failed', status: 'True', reason: 'DeadlineExceeded' })]);
  r = c.run('status');
  assert.is(r.code, 1);
  assert.match(r.stdout, /problem {2}last Job hbgen-docs-2 \(started 2027-03-01T12:07:00Z\) failed: it ran past activeDeadlineSeconds/);
  // A suspended CronJob, and one the spec no longer renders.
  answer([...jobs.map((j) => ({ ...cj(j), spec: { ...j.spec, suspend: true } })), { kind: 'CronJob', metadata: { name: 'hbgen-docs-3' }, spec: jobs[0]!.spec }]);
  r = c.run('status');
  assert.match(r.stdout, /problem {2}suspended: the CronJob hbgen-docs has suspend: true/);
  assert.match(r.stdout, /problem {2}duplicate: the cluster also holds the CronJob hbgen-docs-3/);
});

test('status puts back a removed manifest, and its cluster check reads the manifest as put back: the same findings as before the audit planned its repairs', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  const jobs = objectsOf(manifestOf(c.spec).yaml).slice(1);
  const items = jobs.map((j) => ({ kind: 'CronJob', metadata: { name: j.metadata.name }, spec: j.spec, status: { lastScheduleTime: '2027-03-01T12:07:00Z', active: [] } }));
  writeFileSync(join(c.tools, 'state', 'get.json'), JSON.stringify({ apiVersion: 'v1', items }));
  const installed = readFileSync(c.manifest, 'utf8');
  rmSync(c.manifest);
  const r = c.run('status');
  assert.is(r.code, 1, r.stdout);
  assert.ok(r.stdout.includes(`problem  tampered: ${c.manifest} differed from what hbgen installed (missing); hbgen put the installed bytes back`), r.stdout);
  assert.match(r.stdout, /ok {7}the CronJob hbgen-docs-2 fires "7,37 9-17 \* \* 1-5" America\/Santiago; last scheduled 2027-03-01T12:07:00Z; 0 active jobs/);
  assert.is(readFileSync(c.manifest, 'utf8'), installed);
});

test('status --json: the kubernetes backend audits through the common status, so a script gets the same document as on a host', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  const r = c.run('status', '--json');
  assert.is(r.code, 1, r.stdout + r.stderr);
  const j = JSON.parse(r.stdout);
  assert.is(j.scheduler, 'kubernetes');
  assert.is(j.state, 'installed');
  assert.equal(j.problems.map((p: { code: string }) => p.code), ['orphan']);
  assert.match(j.problems[0].message, /^orphan: the cluster holds no CronJob of "docs" in namespace default/);
  assert.ok(j.info.some((i: string) => /^hbgen applied the manifest at /.test(i)), JSON.stringify(j.info));
});

test('install --apply again after the plan lost a cron line, then in another namespace: what the new plan lacks is deleted by its derived name (stand-in)', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  // From 08:00 one line says it all (7,37 8-17): hbgen-docs-2 goes.
  const raw = JSON.parse(readFileSync(join(c.dir, 'hbgen.json'), 'utf8'));
  raw.schedule.hours.start = '08:00';
  writeFileSync(join(c.dir, 'hbgen.json'), JSON.stringify(raw));
  let r = c.run('install', '--apply', '--yes');
  assert.is(r.code, 0, r.stderr);
  assert.equal(c.calls().slice(1), [c.apply, 'kubectl delete --namespace default --ignore-not-found cronjob/hbgen-docs-2']);
  raw.kubernetes.namespace = 'agents';
  writeFileSync(join(c.dir, 'hbgen.json'), JSON.stringify(raw));
  r = c.run('install', '--apply', '--yes');
  assert.is(r.code, 0, r.stderr);
  // The old namespace's runtime goes too, once no CronJob there mounts it.
  assert.equal(c.calls().slice(3), [c.apply, 'kubectl delete --namespace default --ignore-not-found configmap/hbgen-docs cronjob/hbgen-docs', MANAGED, DEL_RUNTIME]);
});

test('resume --apply after stop --apply applies the recorded spec again (stand-in)', () => {
  const c = cliCase();
  assert.is(c.run('install', '--apply', '--yes').code, 0);
  assert.is(c.run('stop', '--apply').code, 0);
  const r = c.run('resume', '--apply', '--yes');
  assert.is(r.code, 0, r.stderr);
  assert.is(c.calls().at(-1), c.apply);
  assert.is(JSON.parse(readFileSync(join(c.state, 'state.json'), 'utf8')).status, 'installed');
});

test('without kubectl on PATH: install --apply, stop --apply and status say so in one line, and change nothing', () => {
  const c = cliCase();
  assert.is(c.run('install', '--yes').code, 0);
  const env = { PATH: join(c.dir, 'empty'), HOME: join(c.dir, 'home'), LC_ALL: 'C' };
  const run = (...a: string[]) => hbgen([...a, join(c.dir, 'hbgen.json')], { env, cwd: c.dir });
  for (const args of [['install', '--apply', '--yes'], ['stop', '--apply']]) {
    const r = run(...args);
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.stderr, /^hbgen: kubectl is not on PATH, so hbgen cannot (apply the manifest|delete the objects); install kubectl \(1\.27 or later/);
  }
  const st = run('status');
  assert.is(st.code, 1);
  assert.match(st.stdout, /problem {2}kubectl is not on PATH, so hbgen cannot ask the cluster how the CronJob runs/);
  assert.is(JSON.parse(readFileSync(join(c.state, 'state.json'), 'utf8')).status, 'installed');
  assert.equal(c.calls(), []);
});

test('wake says where the wake runs and how to start one there', () => {
  const c = cliCase();
  const r = c.run('wake');
  assert.is(r.code, 1);
  assert.match(r.stderr, /kubectl create job --namespace default --from=cronjob\/hbgen-docs hbgen-docs-now/);
  const rc = c.run('resume', '--reset-cap', '--yes');
  assert.is(rc.code, 2);
  assert.match(rc.stderr, /--reset-cap: the wake counter of "docs" is in the pod's state folder/);
  assert.equal(c.calls(), []);
});

test.run();
