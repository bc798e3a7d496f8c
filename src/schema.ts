import * as z from 'zod';
import { SECRET_PATHS } from './jail-secrets.ts';
import { schedulerList } from './scheduler-facts.ts';
import { SpecSchema } from './spec.ts';

// One line per field, shown by editors that read the schema (hover, completion).
const DESCRIPTIONS: Record<string, string> = {
  $schema: 'Optional: the path or URL of this JSON Schema (as printed by `hbgen schema`).',
  version: 'The spec format version: 1.',
  name: 'Names every artifact (unit, label, crontab markers): lowercase letters and digits joined by single dashes, at most 40.',
  repo: 'Absolute path of the repository the agent owns; every wake starts there.',
  agent: 'The agent to run on each wake.',
  'agent.harness': 'claude-code or codex (presets that pin headless flags), or command (your own argv).',
  'agent.bin': 'Absolute path of the real executable (not an alias or shell function).',
  'agent.args': 'Extra arguments, after the preset\'s and before the prompt.',
  'agent.prompt': 'The wake prompt, passed as the last argument, followed by a short context block. Newlines allowed.',
  'agent.model': 'Model the claude-code and codex presets pin on the command line.',
  'agent.fallbackModel': 'Model the presets fall back to when the client refuses agent.model (claude-code --fallback-model; for codex the next wake switches to it): the refusal is logged `error model …`, and status says which model the wakes run.',
  'agent.effort': 'Reasoning effort the preset pins: claude-code --effort (low medium high xhigh max), codex -c model_reasoning_effort (low medium high xhigh max ultra).',
  'agent.models': 'Optional model tiers, tier name → model id (e.g. {"fast": "haiku", "general": "sonnet", "strong": "opus"}): listed in the wake prompt so the agent routes subagents to the cheapest sufficient tier.',
  schedule: 'When the heartbeat fires.',
  'schedule.scheduler': `The scheduler: ${schedulerList()} (a CronJob in a cluster).`,
  'schedule.every': 'Interval between wakes inside the working hours.',
  'schedule.minute': 'The off-:00 minute (1–59, below every when every is under an hour). Default: derived from name, never :00 or :30.',
  'schedule.hours': 'The working hours: the agent sleeps outside them.',
  'schedule.hours.start': 'HH:MM, local to timezone.',
  'schedule.hours.end': 'HH:MM or 24:00, local to timezone; before start, the window crosses midnight.',
  'schedule.hours.timezone': 'IANA zone of the working hours, exactly as in the system zoneinfo (case matters).',
  'schedule.hours.days': 'Days on which the window opens (default every day).',
  'schedule.hostTimezone': 'Zone the host clock of launchd or cron is set to (default: hours.timezone); refused for kubernetes.',
  timeout: 'Hard limit of one wake, e.g. "25m"; timeout + killAfter must be shorter than every.',
  minRun: 'Shortest run worth starting, below timeout (default "5m", or the timeout when that is 5m or shorter): a scheduled wake with less of its working window left is skipped (skip-window), and every wake ends by the window\'s end.',
  catchUp: 'A fire missed while the machine slept: "once" (default) runs it once on waking, inside the working hours with at least minRun left; "skip" logs skip-late and waits for the next fire. cron never runs a missed fire, whatever this says.',
  killAfter: 'Grace between TERM and KILL at the timeout (default "30s").',
  env: 'The agent\'s whole environment; HOME and PATH required. Metered credentials (API keys) and forge or registry tokens (GH_TOKEN, …) are refused; on kubernetes every secret-looking name (…_TOKEN, …_PASSWORD) belongs in the Secret.',
  stateDir: 'Folder for wrapper, gate, log, lock and state: relative to repo (no ..) or absolute. Default: outside the repo, $XDG_STATE_HOME/hbgen/<name> (~/.local/state/hbgen/<name>; launchd: ~/Library/Application Support/hbgen/<name>), where the agent cannot edit it.',
  lock: 'auto (flock when on PATH, else an atomic mkdir lock), flock or mkdir.',
  cap: 'Stop after this many counted wakes.',
  budget: "Tokens a day (claude-code and codex presets): once the usage lines of the day's wakes (in + out + cache, the working zone's day) reach it, the day's further wakes are skipped (skip-budget).",
  logMaxBytes: 'runtime.log is rotated to runtime.log.1 (one generation kept) once it is larger than this many bytes, and agent.log to agent.log.1 by the same rule, each by its own size (default 10485760, 10 MiB; 65536 to 536870912).',
  gate: 'Argv of an extra gate program; a non-zero exit skips the wake.',
  shared: 'True when several agents (each with its own spec and name) share the repo: adds claim.sh, whose claims live in <repo>/.agent-platform/claims/. Claims keep honest agents from duplicating work; they are no security boundary.',
  until: 'The job\'s end, a local date and time in hours.timezone ("2026-12-24T18:00"): from then on every fire logs skip-ended, runs no agent and counts no wake; status says the job ended, plan draws no wakes after it.',
  controlFiles: 'What git sees of the control files (HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/): "exclude" (default) adds them to the repository\'s own .git/info/exclude at install (never to .gitignore, never committed; stop removes them), so that the agent\'s `git add -A` leaves them out; "commit" leaves them to git like any file.',
  limitBackoff: "How long the wakes pause when the agent's client says the plan's usage limit is reached but names no reset time (default 1h; at most 8 days are used).",
  kubernetes: 'Only for schedule.scheduler "kubernetes": the pod that runs the same wrapper in a cluster (host/hbgen-<name>.cronjob.yaml).',
  'kubernetes.image': 'Container image holding the agent CLI (agent.bin), git and a POSIX sh with env and date.',
  'kubernetes.namespace': 'Namespace of the ConfigMap and CronJobs (default "default").',
  'kubernetes.secretName': 'A Secret whose keys become the container\'s env (envFrom); hbgen never reads it. For codex, its key auth.json is copied into CODEX_HOME.',
  'kubernetes.secretKeys': 'Names of the Secret\'s keys the agent gets (the wrapper passes only these on), e.g. ["CLAUDE_CODE_OAUTH_TOKEN"]; metered credentials are refused.',
  'kubernetes.git': 'The repo, cloned for every wake by an init container into an emptyDir mounted at repo (exactly one of git, pvc); a URL with a token, user name or query string is refused (the clone gets the Secret\'s keys for a credential helper).',
  'kubernetes.git.url': 'The repository\'s https URL, without a token, user name or query string.',
  'kubernetes.git.branch': 'The branch the init container clones (default: the remote\'s default branch).',
  'kubernetes.resources.cpu': 'CPU of the agent\'s container, requested and the limit, e.g. "1" or "500m".',
  'kubernetes.resources.memory': 'Memory of the agent\'s container, requested and the limit, e.g. "2Gi".',
  'kubernetes.sizeLimits.repo': 'sizeLimit of the clone\'s emptyDir (default "4Gi").',
  'kubernetes.sizeLimits.home': 'sizeLimit of HOME\'s emptyDir (default "1Gi").',
  'kubernetes.sizeLimits.tmp': 'sizeLimit of /tmp\'s emptyDir (default "1Gi").',
  'kubernetes.pvc': 'An existing PersistentVolumeClaim holding the repo, mounted at repo (exactly one of git, pvc); with a relative stateDir the state outlives the pod.',
  'kubernetes.serviceAccountName': 'ServiceAccount of the pod (default: none mounted).',
  'kubernetes.resources': 'CPU and memory, as requests = limits, e.g. {"cpu": "1", "memory": "2Gi"}; the init containers get the same (without it: 100m/128Mi requested, 1 CPU/1Gi at most).',
  'kubernetes.sizeLimits': 'sizeLimit of the emptyDirs (a pod past it is evicted): repo (the clone, default "4Gi"), home (default "1Gi"), tmp (default "1Gi").',
  notify: 'Argv of a program (absolute path first) run when notifyAfter wakes in a row ended fail, denied, timeout or error (HBGEN_EVENT=failing) and at the success after them (recovered), and once when the job pauses itself after pauseAfter of them (paused); env: the spec\'s plus HBGEN_EVENT, HBGEN_STREAK, HBGEN_OUTCOME, HBGEN_LOG, HBGEN_NAME, HBGEN_REPO.',
  pauseAfter: 'After this many failing wakes in a row (fail, denied, timeout, error; default 5) the job pauses itself: later fires log skip-paused and run no agent until a success by hand (hbgen wake), hbgen resume --now, an edit of HEART.md or the install of a changed spec; false: never.',
  idleAfter: 'Idle backoff: after this many wakes in a row that ended ok or quiet and left nothing changed (the repo\'s files and git refs, HEART.md, STATE.md; LOG.md and journal/ not counted; default 3), later fires log skip-idle and run no agent until something of those changes or idleEvery has passed since the last wake; false: never.',
  idleEvery: 'The longest an idle job goes without a wake (default 4h): then one wake looks again.',
  notifyAfter: 'Failing wakes in a row before notify runs (default 3); only with notify.',
  sandbox: 'The OS jail around the agent and every process it starts (@anthropic-ai/sandbox-runtime: bubblewrap on Linux, sandbox-exec on macOS, a proxy with a host allowlist). On by default (omitted or an object); false runs the agent with all your rights. Needs bwrap, rg and socat on Linux (apt-get install bubblewrap ripgrep socat).',
  'sandbox.allowHosts': 'Hosts the agent may reach besides its client\'s own API, e.g. ["github.com", "registry.npmjs.org"] ("*.example.com" for subdomains). Loopback and link-local names and addresses (localhost, 127.0.0.0/8, ::1, 169.254.0.0/16, fe80::/10, 0.0.0.0) are refused: the jail\'s proxy would reach every service on this host.',
  'sandbox.denyRead': `More absolute paths the agent must not read (always hidden: ${SECRET_PATHS.map((p) => `~/${p}`).join(', ')}, /root).`,
  'sandbox.allowRead': 'Credential paths of that default list the agent may read after all, each exactly as listed, as "~/.npmrc" or an absolute path, e.g. ["~/.npmrc"] for a private registry.',
  'sandbox.bin': 'Absolute path of the srt executable; default: srt on env.PATH at wake time.',
  limits: 'Bounds on every wake, each applied by the host\'s own mechanism (systemd: TasksMax=/MemoryMax= of the service; cron on Linux: a transient systemd scope where a user manager runs, else rlimits; launchd: the plist\'s resource limits). On by default (omitted or an object); false lifts them. A wake stopped by one ends `fail N limits.tasks …` / `fail N limits.memory …` (docs/threat-model.md "Bounds on a wake"). Not for kubernetes (kubernetes.resources bound the pod).',
  'limits.tasks': 'Most tasks (processes and threads) the agent\'s whole tree may hold at once (default 4096; 32 to 4194304). Under rlimits (cron without a user manager) it counts every process of the user, see docs/threat-model.md "Bounds on a wake".',
  'limits.memory': 'Most memory the agent\'s whole tree may use, swap none (default "50%" of the host\'s RAM, at most 8G): a size such as "8G" or "512M" (at least "32M"; for claude-code at least "1G", which its client needs to start), or a share such as "25%". Under rlimits it bounds each process\'s data, not the tree. There is no bound on the disk or the private tmp (srt has no size option for it).',
  ping: 'A healthchecks-style URL (https; http only for 127.0.0.1 or localhost): URL/start before the agent, URL after a success, URL/fail after a failure, by curl or wget. Or {url, body}: body false sends /fail empty (by default it carries the wake\'s last 20 lines of agent output and hbgen\'s last 10 log lines to that host, which the jail does not gate).',
  'ping.url': 'The healthchecks-style URL, as for ping written alone.',
  'ping.body': 'false sends /fail with no body, so that no line of the agent\'s output leaves for the ping\'s host (default true).',
};

/** Every key of DESCRIPTIONS, for the test that none is stale. */
export const DESCRIBED: readonly string[] = Object.keys(DESCRIPTIONS);

type Node = { properties?: Record<string, Node>; anyOf?: Node[]; description?: string };

function describe(node: Node, prefix: string): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    const text = DESCRIPTIONS[path];
    if (text) child.description = text;
    describe(child, path);
    // A field that is false or an object (sandbox): its object's fields too.
    for (const alt of child.anyOf ?? []) describe(alt, path);
  }
}

/** The spec's JSON Schema, as `hbgen schema` prints it. */
export function jsonSchema(): object {
  const s = z.toJSONSchema(SpecSchema, { io: 'input', unrepresentable: 'any' }) as Node & Record<string, unknown>;
  describe(s, '');
  return {
    $schema: s.$schema,
    title: 'hbgen spec, version 1',
    description: 'One heartbeat: the agent, its working hours, interval and timeout.',
    ...s,
  };
}
