// The spec. This zod schema is the only definition of it: the TypeScript
// types, the validation and `hbgen schema` all come from here.
import { posix } from 'node:path';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { credential, forgeToken, looksSecret, whyItBills } from './credentials.ts';
import { carrierIssue } from './billing-rules.ts';
import { DAYS, LOG_MAX_BYTES, NAME_PATTERN, PAUSE_AFTER_DEFAULT, pad2 } from './formats.ts';
import { CONTROL, SHELL_KEYS, describe, text } from './spec-text.ts';
import { kubernetesBlock, kubernetesIssues } from './host/kubernetes/spec.ts';
import { WORKSPACES, workspaceDir, workspacePlaceProblem } from './workspace.ts';
import { meantFirst } from './error-order.ts';
import { ALL_EFFORTS, bypassArgs } from './harness.ts';
import { SCHEDULER_IDS, factsOf, schedulerList } from './scheduler-facts.ts';
import { COMMAND, PRESET_IDS, presetList, presetOf, type PresetId } from './harness/registry.ts';
import { fallbackIssues } from './model-fallback.ts';
import { didYouMean } from './suggest.ts';
import { legacyZoneAdvice, zoneSuggestion } from './zone-advice.ts';
import { isKnownZone } from './zones.ts';
import { pingProblem } from './notify.ts';
import { within } from './names.ts';
import { isLoopbackHost } from './loopback.ts';
import { joinUnder } from './path-join.ts';
import { SECRET_PATHS, homePath } from './jail-secrets.ts';
import { PRELOAD_VARS, pathsIn, preloadWordProblem } from './preload.ts';

/** spec pauseAfter's one sentence for every wrong form (0 included: false is the word for never). */
const PAUSE_AFTER_ERROR = 'must be a whole number of failing wakes in a row, at least 1 (default 5), or false to never pause';
/** spec idleAfter's one sentence for every wrong form. */
const IDLE_AFTER_ERROR = 'must be a whole number of wakes in a row that changed nothing, at least 1 (default 3), or false for no idle backoff';
/** The idle backoff's defaults: after 3 wakes that changed nothing, one wake every 4 h. */
export const IDLE_AFTER_DEFAULT = 3;
export const IDLE_EVERY_DEFAULT = '4h';

// zod/mini, not the full zod: the same checks and messages, but its schemas carry no table
// of methods, which made building this schema most of a render's own CPU time
// (docs/SPEED.md). It sets no locale by itself: English, as the full zod has by default,
// for the few messages the fields below do not word themselves.
z.config({ jitless: true, ...en() });

export const EVERY = ['5m', '10m', '15m', '20m', '30m', '1h', '2h', '3h', '4h', '6h', '8h', '12h', '24h'] as const;
export { DAYS };
/** agent.harness: the presets (src/harness/registry.ts, one line each), then `command` for any other program. */
export const HARNESSES = [...PRESET_IDS, COMMAND] as unknown as readonly [PresetId | typeof COMMAND, ...(PresetId | typeof COMMAND)[]];

/** A duration: a whole number of seconds, minutes or hours, at least 1s. */
export const DURATION = /^[1-9][0-9]*[smh]$/;

/** Seconds in a duration such as "25m"; the schema has already checked the form. */
export function seconds(d: string): number {
  const n = Number(d.slice(0, -1));
  return n * { s: 1, m: 60, h: 3600 }[d.slice(-1) as 's' | 'm' | 'h']!;
}

/** How long the wakes pause after a limit whose reset time the client does not name. */
export const LIMIT_BACKOFF_DEFAULT = '1h';

/** The grace between TERM and KILL when the spec names none. */
export const KILL_AFTER_DEFAULT = '30s';

/** Minutes after midnight of "HH:MM" ("24:00" is 1440). */
export function clockMinutes(t: string): number {
  return Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
}

function absPath(what: string) {
  return text(what).check((ctx) => {
    const v = ctx.value;
    if (CONTROL.test(v)) return;
    if (!v.startsWith('/')) {
      ctx.issues.push({ code: 'custom', input: v, message: `must be an absolute path (starting with "/"), got "${v}"` });
    } else if (posix.normalize(v) !== v || (v.length > 1 && v.endsWith('/'))) {
      const fix = posix.normalize(v).replace(/(.)\/$/, '$1');
      ctx.issues.push({ code: 'custom', input: v, message: `must be a normalized path; write "${fix}"` });
    }
  });
}

/** An absolute path, or one under HOME written `~/…` (normalized either way). */
function homeOrAbsPath(what: string) {
  return text(what).check((ctx) => {
    const v = ctx.value;
    if (CONTROL.test(v)) return;
    const abs = v.startsWith('~/') ? v.slice(1) : v;
    if (!abs.startsWith('/')) {
      ctx.issues.push({ code: 'custom', input: v, message: `must be an absolute path (starting with "/") or a path under HOME starting with "~/", got "${v}"` });
    } else if (abs === '/' || posix.normalize(abs) !== abs || abs.endsWith('/')) {
      const fix = posix.normalize(abs).replace(/(.)\/$/, '$1');
      ctx.issues.push({ code: 'custom', input: v, message: `must be a normalized path${fix === '/' ? '' : `; write "${v.startsWith('~/') ? `~${fix}` : fix}"`}` });
    }
  });
}

const duration = (what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `required: ${what}` : 'must be a duration string such as "25m"') })
    .check(z.regex(DURATION, { error: (i) => `must be a whole number of s, m or h, at least 1s (e.g. "25m"), got "${i.input}"` }));

const clock = (allow2400: boolean, what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `required: ${what}` : 'must be a time as "HH:MM"') })
    .check(z.regex(allow2400 ? /^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/ : /^([01][0-9]|2[0-3]):[0-5][0-9]$/, {
      error: (i) => {
        // "9:00" is what people write; the spec wants the one spelling every target reads alike.
        const fix = typeof i.input === 'string' ? paddedClock(i.input, allow2400) : undefined;
        return `must be a time as "HH:MM" (00:00–23:59${allow2400 ? ' or 24:00' : ''}), got "${i.input}"${fix ? `; write "${fix}"` : ''}`;
      },
    }));

/** The digest's time: HH:MM, 00:00 to 23:59. */
const digestAt = clock(false, 'the time of the digest, as HH:MM');

/** "9:00", "9" or "9:5" as "09:00" / "09:05" when that is a valid time, else undefined. */
export function paddedClock(v: string, allow2400 = false): string | undefined {
  // "5pm", "5:30 PM", "12am": the 12-hour clock, said as the 24-hour time it means.
  const ampm = /^\s*(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\.?\s*$/i.exec(v);
  if (ampm) {
    const h = Number(ampm[1]);
    const min = Number(ampm[2] ?? 0);
    return h >= 1 && h <= 12 && min <= 59 ? `${pad2((h % 12) + (/p/i.test(ampm[3]!) ? 12 : 0))}:${pad2(min)}` : undefined;
  }
  const m = /^\s*(\d{1,2})(?:[:.h](\d{1,2}))?\s*$/.exec(v);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2] ?? 0);
  if (min > 59 || h > 24 || (h === 24 && (min !== 0 || !allow2400))) return undefined;
  const t = `${pad2(h)}:${pad2(min)}`;
  return t === v ? undefined : t;
}

/** A zone name; `place`: it must be the zone of a place (the working hours), not a legacy or fixed-offset name. */
const zone = (what: string, place = false) =>
  z
    .string({ error: (i) => (i.input === undefined ? `required: ${what}` : 'must be a time-zone name string') })
    .check((ctx) => {
      const v = ctx.value;
      const known = isKnownZone(v);
      const legacy = place || !known ? legacyZoneAdvice(v) : undefined;
      if (legacy) ctx.issues.push({ code: 'custom', input: v, message: legacy });
      else if (!known) {
        const near = zoneSuggestion(v);
        ctx.issues.push({
          code: 'custom',
          input: v,
          message: near
            ? `unknown IANA time zone "${v}"${near.toLowerCase() === v.toLowerCase() ? ' (case matters)' : ''}; did you mean "${near}"?`
            : `unknown IANA time zone "${v}"; use an exact name from the tz database such as "Europe/Berlin" (case matters)`,
        });
      }
    });

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, {
    error: (i) =>
      i.input === undefined
        ? `required: ${what}, one of ${values.join(' ')}`
        : `must be one of ${values.join(' ')}, got ${JSON.stringify(i.input)}${typeof i.input === 'string' ? didYouMean(i.input, values) : ''}`,
  });

const envKey = z.string().check((ctx) => {
  const k = ctx.value;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
    ctx.issues.push({ code: 'custom', input: k, message: `"${k}" is not a valid environment variable name; use letters, digits and _` });
  } else if (credential(k)) {
    // The wrapper's env -i keeps the caller's copies out; this keeps the spec from putting them back in.
    ctx.issues.push({ code: 'custom', input: k, message: `${whyItBills(credential(k)!)}; remove it from env` });
  } else if (SHELL_KEYS.has(k)) {
    ctx.issues.push({ code: 'custom', input: k, message: `${k} is read by the wrapper's own shell and would change how it runs; remove it` });
  } else if (k.startsWith('HBGEN_')) {
    ctx.issues.push({ code: 'custom', input: k, message: `${k} is set by the wrapper itself; remove it` });
  }
});

const agent = z.strictObject({
  harness: oneOf(HARNESSES, 'the agent harness').apply(describe, 'claude-code or codex (presets that pin headless flags), or command (your own argv).'),
  bin: absPath('the absolute path of the agent executable').apply(describe, 'Absolute path of the real executable (not an alias or shell function).'),
  args: z.array(text('an argument'), { error: 'must be an array of strings' }).apply(z._default, []).apply(describe, 'Extra arguments, after the preset\'s and before the prompt.'),
  prompt: text('the wake prompt', true).check(z.minLength(1, { error: 'must not be empty; say what the agent should do on each wake' })).apply(describe, 'The wake prompt, passed as the last argument, followed by a short context block. Newlines allowed.'),
  model: text('a model name').check(z.minLength(1, { error: 'must not be empty; leave the field out instead' })).apply(z.optional).apply(describe, 'Model the claude-code and codex presets pin on the command line.'),
  // The model the next wake uses after the client refused `model` (src/model-fallback.ts).
  fallbackModel: text('a model name').check(z.minLength(1, { error: 'must not be empty; leave the field out instead' })).apply(z.optional).apply(describe, 'Model the presets fall back to when the client refuses agent.model (claude-code --fallback-model; for codex the next wake switches to it): the refusal is logged `error model …`, and status says which model the wakes run.'),
  // The reasoning effort the preset pins (claude --effort, codex model_reasoning_effort);
  // which levels each harness takes is checked with the harness (agentIssues).
  effort: oneOf(ALL_EFFORTS, 'an effort level').apply(z.optional).apply(describe, 'Reasoning effort the preset pins: claude-code --effort (low medium high xhigh max), codex -c model_reasoning_effort (low medium high xhigh max ultra).'),
  // Model tiers the agent may route subagents to (named in the wake prompt's context block).
  models: z
    .record(
      z.string().check((ctx) => {
        if (!/^[a-z][a-z0-9-]*$/.test(ctx.value)) {
          ctx.issues.push({ code: 'custom', input: ctx.value, message: `tier name ${JSON.stringify(ctx.value)} must be lowercase letters, digits and dashes, starting with a letter (e.g. "fast")` });
        }
      }),
      text('a model id').check(z.minLength(1, { error: 'must not be empty; name the model id of this tier or remove the tier' })),
      { error: 'must be an object of tier: "model id" strings, e.g. {"fast": "haiku", "general": "sonnet", "strong": "opus"}' },
    )
    .check(z.refine((m) => Object.keys(m).length > 0, { error: 'must name at least one tier; leave the field out for none' }))
    .apply(z.optional).apply(describe, 'Optional model tiers, tier name → model id (e.g. {"fast": "haiku", "general": "sonnet", "strong": "opus"}): listed in the wake prompt so the agent routes subagents to the cheapest sufficient tier. For claude-code a tier may be "inherit" (the subagent runs on the lead\'s model); `hbgen init` writes the tiers its client\'s catalog ranks. A catalog lists the models the client knows, not those your plan allows, which no client tells without a paid call: a tier the plan refuses fails that subagent, so keep a tier on a model your plan has.'),
});

// The OS jail around the agent's process tree (src/jail.ts): false turns it off;
// omitted or an object keeps it on, with more hosts to reach and more paths to hide.
const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
// The ping's URL: a healthchecks-style address (src/notify.ts has its rules).
const pingUrl = text('the URL to ping').check((ctx) => {
  const why = CONTROL.test(ctx.value) ? undefined : pingProblem(ctx.value);
  if (why) ctx.issues.push({ code: 'custom', input: ctx.value, message: why });
});

const sandboxObject = z.strictObject({
  allowHosts: z
    .array(
      text('a host name').check((ctx) => {
        if (!CONTROL.test(ctx.value) && isLoopbackHost(ctx.value)) {
          // The jail's proxy runs on the host: through it, a loopback name reaches every service listening there (src/loopback.ts).
          ctx.issues.push({ code: 'custom', input: ctx.value, message: `${JSON.stringify(ctx.value)} is this host's own loopback or a link-local address, which would let the agent reach every service listening on this machine through the jail's proxy; remove it (a service the agent needs must listen on a routable address or name)` });
        } else if (!CONTROL.test(ctx.value) && !HOST_NAME.test(ctx.value)) {
          ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be a host name such as "github.com" or "*.npmjs.org" (no scheme, port or path), got ${JSON.stringify(ctx.value)}` });
        }
      }),
      { error: 'must be an array of host names such as ["github.com", "registry.npmjs.org"]' },
    )
    .apply(z.optional).apply(describe, 'Hosts the agent may reach besides its client\'s own API, e.g. ["github.com", "registry.npmjs.org"] ("*.example.com" for subdomains). Loopback and link-local names and addresses (localhost, 127.0.0.0/8, ::1, 169.254.0.0/16, fe80::/10, 0.0.0.0) are refused: the jail\'s proxy would reach every service on this host.'),
  denyRead: z.array(absPath('an absolute path the agent must not read'), { error: 'must be an array of absolute paths such as ["/home/ada/secrets"]' }).apply(z.optional).apply(describe, `More absolute paths the agent must not read (always hidden: ${SECRET_PATHS.map((p) => `~/${p}`).join(', ')}, /root).`),
  // Opens one of the credential files the jail hides by default (src/jail.ts SECRET_PATHS);
  // which ones it may name needs env.HOME, so that is checked with the whole spec (sandboxIssues).
  allowRead: z.array(homeOrAbsPath('an absolute path or a ~/ path the agent may read'), { error: 'must be an array of paths such as ["~/.npmrc"]' }).apply(z.optional).apply(describe, 'Credential paths of that default list the agent may read after all, each exactly as listed, as "~/.npmrc" or an absolute path, e.g. ["~/.npmrc"] for a private registry.'),
  bin: absPath('the absolute path of the srt executable (@anthropic-ai/sandbox-runtime)').apply(z.optional).apply(describe, 'Absolute path of the srt executable; default: srt on env.PATH at wake time.'),
});
const sandbox = z.union([z.literal(false), sandboxObject], {
  error: (i) => (i.input === true ? 'must be false (no jail) or an object such as {"allowHosts": ["github.com"]}; leave it out for the default jail' : typeof i.input === 'object' && i.input !== null && !Array.isArray(i.input) ? undefined : 'must be false (no jail) or an object {allowHosts?, denyRead?, allowRead?, bin?}'),
});

// The wake's bounds (docs/threat-model.md "Bounds on a wake"): how many tasks (processes and threads) the
// agent's tree may hold and how much memory, each applied by the host's own mechanism
// (the systemd unit, a transient scope or rlimits for cron, the launchd plist). false
// turns them off; omitted or an object keeps them on, with LIMITS_DEFAULT for a field left out.
// The default memory is a share of the RAM, at most memoryCap: on a large machine half of
// it is more than one wake should ever hold.
export const LIMITS_DEFAULT = { tasks: 4096, memory: '50%', memoryCap: '8G' } as const;
// A size as systemd.resource-control(5) reads MemoryMax= (K, M, G: powers of 1024) in the
// two forms every scheduler can carry, or a share of the host's RAM.
const MEMORY = /^([1-9][0-9]{0,6}[MG]|([1-9][0-9]?|100)%)$/;
const limitsObject = z.strictObject({
  tasks: z
    .number({ error: 'must be a whole number of tasks (processes and threads), e.g. 4096' })
    .check(z.int({ error: 'must be a whole number of tasks (processes and threads), e.g. 4096' }))
    .check(z.gte(32, { error: 'must be at least 32: the wrapper, the jail and the agent\'s client take a few dozen tasks before any work starts' }))
    .check(z.lte(4_194_304, { error: 'must be at most 4194304, Linux\'s highest PID' }))
    .apply(z.optional).apply(describe, 'Most tasks (processes and threads) the agent\'s whole tree may hold at once (default 4096; 32 to 4194304). Under rlimits (cron without a user manager) it counts every process of the user, see docs/threat-model.md "Bounds on a wake".'),
  memory: text('a memory size').check((ctx) => {
    const v = ctx.value;
    if (CONTROL.test(v)) return;
    if (!MEMORY.test(v)) ctx.issues.push({ code: 'custom', input: v, message: `must be a size such as "4G" or "512M", or a share of the host's RAM such as "50%", got ${JSON.stringify(v)}` });
    else if (memoryBytes(v) !== null && memoryBytes(v)! < 32 * 1024 * 1024) ctx.issues.push({ code: 'custom', input: v, message: `must be at least "32M": the agent's client alone needs more, got ${JSON.stringify(v)}` });
  }).apply(z.optional).apply(describe, 'Most memory the agent\'s whole tree may use, swap none (default "50%" of the host\'s RAM, at most 8G): a size such as "8G" or "512M" (at least "32M"; for claude-code at least "1G", which its client needs to start), or a share such as "25%". Under rlimits it bounds each process\'s data, not the tree. There is no bound on the disk or the private tmp (srt has no size option for it).'),
});
const limits = z.union([z.literal(false), limitsObject], {
  error: (i) => (i.input === true ? 'must be false (no bounds) or an object such as {"tasks": 4096, "memory": "8G"}; leave it out for the defaults' : typeof i.input === 'object' && i.input !== null && !Array.isArray(i.input) ? undefined : 'must be false (no bounds) or an object {tasks?, memory?}'),
});

/** Bytes of a memory size ("512M", "4G"); null for a share of the RAM ("50%"), which only the host can turn into bytes. */
export function memoryBytes(v: string): number | null {
  if (v.endsWith('%')) return null;
  return Number(v.slice(0, -1)) * (v.endsWith('G') ? 1024 ** 3 : 1024 ** 2);
}

/**
 * The bounds of a wake, every default applied (`cap`: the most the default share of the RAM
 * may come to, null for a memory the spec sets); null when the spec turns them off
 * ("limits": false) or the scheduler's own job carries them (kubernetes.resources).
 */
export function limitsOf(s: Pick<Spec, 'limits' | 'schedule'>): { tasks: number; memory: string; cap: string | null } | null {
  if (s.limits === false || !factsOf(s.schedule.scheduler)?.bounds) return null;
  const memory = s.limits?.memory;
  return { tasks: s.limits?.tasks ?? LIMITS_DEFAULT.tasks, memory: memory ?? LIMITS_DEFAULT.memory, cap: memory === undefined ? LIMITS_DEFAULT.memoryCap : null };
}

/** The memory bound as the panel, status and the outcome say it: "8G", "25% of RAM", "50% of RAM, at most 8G". */
export function memoryText(l: { memory: string; cap: string | null }): string {
  if (!l.memory.endsWith('%')) return l.memory;
  return l.cap ? `${l.memory} of RAM, at most ${l.cap}` : `${l.memory} of RAM`;
}

const hours = z.strictObject({
  start: clock(false, 'choose when the working hours start, as HH:MM').apply(describe, 'HH:MM, local to timezone.'),
  end: clock(true, 'choose when the working hours end, as HH:MM or 24:00').apply(describe, 'HH:MM or 24:00, local to timezone; before start, the window crosses midnight.'),
  timezone: zone('the IANA time zone of the working hours, e.g. "Europe/Berlin"', true).apply(describe, 'IANA zone of the working hours, exactly as in the system zoneinfo (case matters).'),
  days: z
    .array(oneOf(DAYS, 'a day'), { error: `must be an array of days (${DAYS.join(' ')})` })
    .check(z.minLength(1, { error: 'must name at least one day; leave the field out for every day' }))
    .check(z.refine((d) => new Set(d).size === d.length, { error: 'names a day twice; list each day once' }))
    .apply(z.optional).apply(describe, 'Days on which the window opens (default every day).'),
});

const schedule = z.strictObject({
  scheduler: oneOf(SCHEDULER_IDS, 'the host scheduler').apply(describe, `The scheduler: ${schedulerList()} (a CronJob in a cluster).`),
  every: oneOf(EVERY, 'choose the interval between wakes').apply(describe, 'Interval between wakes inside the working hours.'),
  minute: z
    .number({ error: 'must be a whole number from 1 to 59' })
    .check(z.int({ error: 'must be a whole number from 1 to 59' }))
    .check(z.gte(1, { error: 'must be from 1 to 59 (:00 is where every other job on the host fires)' }))
    .check(z.lte(59, { error: 'must be from 1 to 59' }))
    .apply(z.optional).apply(describe, 'The off-:00 minute (1–59, below every when every is under an hour). Default: derived from name, never :00 or :30.'),
  hours: z.strictObject(hours.shape, { error: (i) => (i.input === undefined ? 'required: choose the working hours {start, end, timezone}' : 'must be an object {start, end, timezone, days?}') }).apply(describe, 'The working hours: the agent sleeps outside them.'),
  hostTimezone: zone('the host clock\'s IANA time zone').apply(z.optional).apply(describe, 'Zone the host clock of launchd or cron is set to (default: hours.timezone); refused for kubernetes.'),
});

/**
 * env judged by what it carries (src/billing-rules.ts): a credential header, another host.
 * A base URL whose host the person lists in sandbox.allowHosts is their own deliberate
 * endpoint (an LLM gateway of theirs, a local stand-in): the panel shows it with the hosts.
 */
function envCarriers(s: { env?: unknown; sandbox?: unknown }, ctx: z.core.$RefinementCtx): void {
  const sb = s.sandbox as { allowHosts?: unknown } | undefined;
  const allowed = new Set(typeof sb === 'object' && sb !== null && Array.isArray(sb.allowHosts) ? sb.allowHosts.map((h: unknown) => String(h).toLowerCase()) : []);
  const hostOf = (u: string) => {
    try {
      return new URL(u).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    } catch {
      return undefined;
    }
  };
  if (typeof s.env === 'object' && s.env !== null && !Array.isArray(s.env)) {
    for (const [k, v] of Object.entries(s.env as Record<string, unknown>)) {
      if (typeof v !== 'string') continue;
      const carried = carrierIssue(k, v);
      if (!carried) continue;
      const url = /_BASE_URL$/.test(k);
      const h = url ? hostOf(v) : undefined;
      if (h && allowed.has(h)) continue;
      const own = url ? ' (or, for an endpoint of your own, list its host in sandbox.allowHosts)' : '';
      ctx.addIssue({ code: 'custom', input: v, path: ['env', k], message: `${carried}; remove it from env${own}` });
    }
  }
}

const env = z
  .record(envKey, text('a value'), {
    error: (i) => (i.input === undefined ? "required: the agent's environment, at least HOME and PATH" : 'must be an object of NAME: "value" strings'),
  })
  // Runs even when some other key is wrong, so that HOME and PATH are always reported.
  .check(z.superRefine(
    (e, ctx) => {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) return;
      for (const k of ['HOME', 'PATH']) {
        if (!(k in e)) ctx.addIssue({ code: 'custom', input: e, path: [k], message: `required: the agent's ${k}` });
      }
      if (typeof e.HOME === 'string' && !CONTROL.test(e.HOME)) {
        const r = absPath('HOME').safeParse(e.HOME);
        for (const i of r.error?.issues ?? []) ctx.addIssue({ code: 'custom', input: e.HOME, path: ['HOME'], message: i.message });
      }
      if (typeof e.PATH === 'string' && !CONTROL.test(e.PATH)) {
        // An empty PATH entry means the current directory, which is the repo the agent edits.
        for (const dir of e.PATH.split(':')) {
          if (!dir.startsWith('/') || posix.normalize(dir) !== dir) {
            ctx.addIssue({
              code: 'custom',
              input: e.PATH,
              path: ['PATH'],
              message: `every entry must be an absolute, normalized folder (found "${dir}"); an empty or relative entry lets the repo shadow system tools`,
            });
            break;
          }
        }
      }
    },
    { when: () => true },
  ));

const stateDir = text('the state folder').check((ctx) => {
  const v = ctx.value;
  if (CONTROL.test(v)) return;
  const norm = posix.normalize(v).replace(/(.)\/$/, '$1');
  if (v === '' || v === '.' || norm !== v) {
    ctx.issues.push({ code: 'custom', input: v, message: `must be a normalized folder path such as "/home/ada/.local/state/hbgen/docs", got "${v}"` });
  } else if (!v.startsWith('/') && (v === '..' || v.startsWith('../'))) {
    ctx.issues.push({ code: 'custom', input: v, message: 'a relative stateDir must stay inside the repo (no ".."); use an absolute path for a folder outside it' });
  }
});

/** sandbox.allowRead names only what the jail hides by default (SECRET_PATHS under env.HOME): anything else is readable already, or hidden by sandbox.denyRead on purpose. */
function allowReadIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  const list = typeof s.sandbox === 'object' && s.sandbox !== null && Array.isArray(s.sandbox.allowRead) ? s.sandbox.allowRead : [];
  const home = typeof s.env?.HOME === 'string' && s.env.HOME.startsWith('/') ? s.env.HOME.replace(/(.)\/$/, '$1') : null;
  if (!home) return;
  const hidden = new Set(SECRET_PATHS.map((p) => joinUnder(home, p)));
  list.forEach((p: unknown, i: number) => {
    if (typeof p !== 'string' || !(p.startsWith('/') || p.startsWith('~/')) || posix.normalize(homePath(p, home)) !== homePath(p, home)) return;
    if (!hidden.has(homePath(p, home))) {
      ctx.addIssue({ code: 'custom', path: ['sandbox', 'allowRead', i], message: `${JSON.stringify(p)} is not one of the credential paths the jail hides by default (~/${SECRET_PATHS.join(', ~/')}); name one of them exactly, or remove it` });
    }
  });
}


function notifyIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  if (Array.isArray(s.notify) && typeof s.notify[0] === 'string' && !s.notify[0].startsWith('/')) {
    ctx.addIssue({ code: 'custom', path: ['notify', 0], message: `must be an absolute path to the program to run, got "${s.notify[0]}"` });
  }
  if (s.notifyAfter !== undefined && s.notify === undefined) {
    ctx.addIssue({ code: 'custom', path: ['notifyAfter'], message: 'applies only with notify; add notify or remove notifyAfter' });
  }
}

function limitsIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  const m = typeof s.limits === 'object' && s.limits !== null ? s.limits.memory : undefined;
  // The least memory a preset's client starts with (its descriptor's memoryMin).
  const p = presetOf(s.agent?.harness);
  if (!p?.memoryMin || typeof m !== 'string' || !MEMORY.test(m)) return;
  const bytes = memoryBytes(m);
  if (bytes !== null && bytes < memoryBytes(p.memoryMin)!) {
    ctx.addIssue({ code: 'custom', path: ['limits', 'memory'], message: `must be at least "${p.memoryMin}" for harness "${p.id}": its client does not start with less memory to a process, got ${JSON.stringify(m)}` });
  }
}


/**
 * Secrets that bill nothing in env (src/credentials.ts forgeToken, looksSecret): env is
 * written in clear into heartbeat.sh, state.json and every render, and on Kubernetes into
 * the ConfigMap and the CronJob's pod spec. Forge and registry tokens are refused on every
 * scheduler (their tools keep a login of their own); on Kubernetes any secret-looking name
 * is, since the Secret (secretName + secretKeys) carries it at no cost.
 */
function envSecretIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  const env = typeof s.env === 'object' && s.env !== null && !Array.isArray(s.env) ? (s.env as Record<string, unknown>) : {};
  const onK8s = typeof s.schedule === 'object' && s.schedule !== null && s.schedule.scheduler === 'kubernetes';
  const inSecret = 'put it in the Secret (kubernetes.secretName) and name it in kubernetes.secretKeys, so that the wrapper passes it on';
  for (const k of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || credential(k)) continue; // envKey says these
    const t = forgeToken(k);
    if (onK8s && (t || looksSecret(k))) {
      ctx.addIssue({ code: 'custom', path: ['env', k], message: `${k} ${t ? `is ${t.what}` : 'names a secret'}, and env is written in clear into the ConfigMap's heartbeat.sh and the CronJob's pod spec, which whoever may read them in the namespace sees; remove it from env and ${inSecret}` });
    } else if (t) {
      ctx.addIssue({ code: 'custom', path: ['env', k], message: `${k} is ${t.what}, and env is written in clear into heartbeat.sh, state.json and every render (often committed); remove it from env and let the tool keep its own login: ${t.login}, which the agent finds under its HOME` });
    }
  }
}

// How big the agent's command line may get. The wrapper passes the prompt and its context
// block (wake number, times, window, HEART.md state, claim.sh, model tiers) as ONE
// argument, and starts the agent as `timeout … env -i ENV… bin ARGS… PROMPT` from a shell
// whose own environment is ENV again. Linux refuses any one argument over 128 KiB
// (MAX_ARG_STRLEN) and macOS refuses more than 256 KiB of arguments and environment
// together (ARG_MAX); past either, every wake fails "Argument list too long". hbgen stays
// well under both, so that the scheduler's own environment and the host never matter.
export const COMMAND_LINE = {
  /** The prompt plus its context block, one argument. */
  argBytes: 64 * 1024,
  /** What the context block's own text and run-time values may take (the spec's models and claim path count on top). */
  contextBytes: 1024,
  /** Everything the exec carries: the environment (twice), bin, args, prompt and context, gate, repo. */
  totalBytes: 96 * 1024,
  /** The wrapper's own words: /usr/bin/env -i, timeout -k, nice, HBGEN_* variables, the preset's flags. */
  wrapperBytes: 1024,
} as const;

const bytes = (v: string) => Buffer.byteLength(v, 'utf8') + 1; // with the terminating NUL
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The parts of the agent's exec, in bytes, by spec field; undefined while a part has the wrong form. */
function commandLineParts(s: Record<string, any>): [string, number][] | undefined {
  if (typeof s !== 'object' || s === null) return undefined;
  const a = typeof s.agent === 'object' && s.agent !== null ? s.agent : {};
  const env: unknown = s.env;
  const models: unknown = a.models ?? {};
  if (typeof a.prompt !== 'string' || typeof a.bin !== 'string' || typeof s.repo !== 'string') return undefined;
  if (typeof env !== 'object' || env === null || typeof models !== 'object' || models === null) return undefined;
  const envEntries = Object.entries(env);
  const modelEntries = Object.entries(models);
  if (![...envEntries, ...modelEntries].every(([, v]) => typeof v === 'string')) return undefined;
  if (!strings(a.args ?? []) || !strings(s.gate ?? []) || !['undefined', 'string'].includes(typeof a.model)) return undefined;
  const shared = s.shared === true ? bytes(s.repo) + bytes(typeof s.stateDir === 'string' ? s.stateDir : defaultStateDir(s)) : 0;
  return [
    // The wrapper's shell carries the environment while it starts `env -i ENV… bin`.
    ['env', 2 * envEntries.reduce((n, [k, v]) => n + bytes(`${k}=${v}`), 0)],
    ['agent.prompt', bytes(a.prompt) + COMMAND_LINE.contextBytes],
    ['agent.models', modelEntries.reduce((n, [k, v]) => n + bytes(`${k}=${v}`), 0)],
    ['agent.args', (a.args ?? []).reduce((n: number, x: string) => n + bytes(x), 0)],
    ['gate', (s.gate ?? []).reduce((n: number, x: string) => n + bytes(x), 0)],
    ['agent.bin', bytes(a.bin)],
    ['agent.model', a.model === undefined ? 0 : bytes(a.model)],
    ['repo', bytes(s.repo) + shared],
    ['(wrapper)', COMMAND_LINE.wrapperBytes],
  ];
}

/** The agent's command line must fit every host: see COMMAND_LINE. */
function commandLineIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  const parts = commandLineParts(s);
  if (!parts) return;
  const prompt = Buffer.byteLength(s.agent.prompt, 'utf8');
  const maxPrompt = COMMAND_LINE.argBytes - COMMAND_LINE.contextBytes;
  if (prompt > maxPrompt) {
    ctx.addIssue({
      code: 'custom',
      path: ['agent', 'prompt'],
      message: `is ${prompt} bytes; the prompt and its context block become one argument, which hbgen keeps within 64 KiB (Linux refuses one over 128 KiB), so shorten it to at most ${maxPrompt} bytes, e.g. by moving standing instructions into HEART.md`,
    });
  }
  const total = parts.reduce((n, [, b]) => n + b, 0);
  const [field, size] = parts.filter(([f]) => f !== '(wrapper)').sort((x, y) => y[1] - x[1])[0]!;
  // An over-long prompt is already reported above, with its own fix.
  if (total > COMMAND_LINE.totalBytes && !(field === 'agent.prompt' && prompt > maxPrompt)) {
    ctx.addIssue({
      code: 'custom',
      path: field.split('.'),
      message: `the agent's command line would take ${total} bytes, over the 96 KiB (${COMMAND_LINE.totalBytes} bytes) hbgen allows for arguments and environment together (macOS refuses more than 256 KiB); this field is the largest part (${size} bytes${field === 'env' ? ', counted twice since the wrapper\'s shell carries it too' : ''}), so shorten it`,
    });
  }
}

/**
 * The wrapper runs programs found on env.PATH (date, mkdir, the agent's own tools) outside
 * the agent's sandbox, and the agent may write anything inside the repo: a PATH folder inside
 * the repo would let it drop a fake `date` that the next wake runs for it. Empty and relative
 * entries (the repo, since the wake runs there) are refused by the env rule itself.
 */
function pathInRepoIssues(s: { repo?: unknown; env?: unknown }, ctx: z.core.$RefinementCtx): void {
  const e = s.env as Record<string, unknown> | undefined;
  if (typeof s.repo !== 'string' || !s.repo.startsWith('/') || typeof e?.PATH !== 'string') return;
  const repo = posix.normalize(s.repo).replace(/(.)\/$/, '$1');
  for (const dir of e.PATH.split(':')) {
    if (!dir.startsWith('/')) continue;
    const d = posix.normalize(dir).replace(/(.)\/$/, '$1');
    if (d === repo || d.startsWith(repo === '/' ? '/' : `${repo}/`)) {
      ctx.addIssue({
        code: 'custom',
        path: ['env', 'PATH'],
        message: `"${dir}" is inside repo; the agent can write there, so a program the wrapper runs could be replaced: remove the entry and put the tool in a folder outside the repo`,
      });
    }
  }
}

/** What each program field is to hbgen, for the refusal of one inside the repo. */
const PROGRAMS: [path: (string | number)[], runs: string][] = [
  [['agent', 'bin'], 'hbgen runs it for every wake, and the billing check runs it outside the agent\'s sandbox'],
  [['gate', 0], 'the wrapper runs the gate before every wake, outside the agent\'s sandbox'],
  [['notify', 0], 'the wrapper runs it outside the agent\'s sandbox'],
  [['sandbox', 'bin'], 'it is the jail itself, run outside it'],
];

/**
 * Programs and loaded code the agent could rewrite: a program field (agent.bin, gate[0],
 * notify[0]) inside the repo, and a path of a preload variable (src/preload.ts) that is
 * relative or inside the repo. Lexical only: src/host/install/reach.ts resolves links on the host.
 */
function repoCodeIssues(s: { repo?: unknown; agent?: unknown; gate?: unknown; notify?: unknown; env?: unknown; sandbox?: unknown }, ctx: z.core.$RefinementCtx): void {
  if (typeof s.repo !== 'string' || !s.repo.startsWith('/')) return;
  const repo = s.repo;
  for (const [path, runs] of PROGRAMS) {
    let v: unknown = s;
    for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string | number, unknown>)[k] : undefined;
    if (typeof v === 'string' && v.startsWith('/') && within(repo, v)) {
      ctx.addIssue({ code: 'custom', path, message: `"${v}" is inside repo, where the agent can write, so it could replace this program (${runs}): install the program outside the repo and point ${formatPath(path)} there` });
    }
  }
  const e = s.env;
  if (typeof e !== 'object' || e === null) return;
  for (const [k, v] of Object.entries(e as Record<string, unknown>)) {
    if (!(k in PRELOAD_VARS) || typeof v !== 'string' || CONTROL.test(v)) continue;
    for (const p of pathsIn(k, v)) {
      const why = preloadWordProblem(k, p, repo);
      if (why) ctx.addIssue({ code: 'custom', path: ['env', k], message: why });
    }
  }
}

/**
 * The agent's own rules across fields: an effort level the harness's client takes, and no
 * argument that switches off the client's permission checks or sandbox (any harness: a
 * `command` may run claude or codex too).
 */
/** A reserve's share of one plan window: a whole percent from 1% to 99%, written "30%". */
function reservePercent(what: string) {
  const msg = `must be the share of ${what} kept for you, a whole percent from "1%" to "99%", e.g. "30%"`;
  return z.string({ error: msg }).check(z.regex(/^[1-9][0-9]?%$/, { error: msg }));
}

/** The spec's reserve as whole percents (0: none for that window). */
export function reserveOf(spec: { reserve?: { fiveHour?: string; weekly?: string } }): { fiveHour: number; weekly: number } {
  const p = (v: string | undefined) => (v === undefined ? 0 : Number(v.slice(0, -1)));
  return { fiveHour: p(spec.reserve?.fiveHour), weekly: p(spec.reserve?.weekly) };
}

function agentIssues(s: { agent?: unknown }, ctx: z.core.$RefinementCtx): void {
  const a = (typeof s.agent === 'object' && s.agent) || {};
  const { harness, effort, args } = a as { harness?: unknown; effort?: unknown; args?: unknown };
  if (typeof effort === 'string' && (ALL_EFFORTS as readonly string[]).includes(effort)) {
    const p = presetOf(harness);
    if (harness === COMMAND) {
      ctx.addIssue({ code: 'custom', path: ['agent', 'effort'], message: `applies to the ${presetList()} presets only; for harness "command" put your client's own effort flag in agent.args` });
    } else if (p && !p.efforts.includes(effort)) {
      ctx.addIssue({ code: 'custom', path: ['agent', 'effort'], message: `"${effort}" is not an effort level of ${p.id}; use one of ${p.efforts.join(' ')}` });
    }
  }
  if (harness === 'command' && (s as { budget?: unknown }).budget !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['budget'], message: `counts the usage the ${presetList()} presets read from their client's stream; remove it for harness "command"` });
  }
  if (harness === 'command' && (s as { reserve?: unknown }).reserve !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['reserve'], message: `is measured from the plan's rate-limit readings in the ${presetList()} presets' client stream; remove it for harness "command"` });
  }
  if (strings(args)) for (const p of bypassArgs(args)) ctx.addIssue({ code: 'custom', path: ['agent', 'args', p.index], message: p.message });
  for (const i of fallbackIssues(a)) ctx.addIssue({ code: 'custom', path: ['agent', 'fallbackModel'], message: i });
  // "inherit" (the subagent runs on the lead's model) only where the preset's client has it.
  const models = (a as { models?: unknown }).models;
  const p = presetOf(harness);
  if (p && !p.model.inherit && typeof models === 'object' && models !== null) {
    for (const [tier, id] of Object.entries(models)) {
      if (id === 'inherit') ctx.addIssue({ code: 'custom', path: ['agent', 'models', tier], message: `"inherit" runs a subagent on the lead's own model, which ${p.label} has no way to say; name a model id of its catalog for this tier` });
    }
  }
}

export const SpecSchema = z
  .strictObject({
    $schema: text('the path or URL of the JSON Schema').apply(z.optional).apply(describe, 'Optional: the path or URL of this JSON Schema (as printed by `hbgen schema`).'),
    version: z.literal(1, { error: (i) => (i.input === undefined ? 'required: 1, the spec format version' : `must be 1, got ${JSON.stringify(i.input)}`) }).apply(describe, 'The spec format version: 1.'),
    name: z
      .string({ error: (i) => (i.input === undefined ? 'required: a short name such as "docs"' : 'must be a string') })
      .check(z.maxLength(40, { error: 'must be at most 40 characters' }))
      .check(z.regex(NAME_PATTERN, {
        error: (i) => `must be lowercase letters and digits joined by single dashes, such as "docs-nightly", got ${JSON.stringify(i.input)}`,
      })).apply(describe, 'Names every artifact (unit, label, crontab markers): lowercase letters and digits joined by single dashes, at most 40.'),
    repo: absPath('the absolute path of the repository the agent owns').apply(describe, 'Absolute path of the repository the agent owns; every wake starts there.'),
    agent: z.strictObject(agent.shape, { error: (i) => (i.input === undefined ? 'required: the agent {harness, bin, prompt}' : 'must be an object') }).apply(describe, 'The agent to run on each wake.'),
    schedule: z.strictObject(schedule.shape, { error: (i) => (i.input === undefined ? 'required: the schedule {scheduler, every, hours}' : 'must be an object') }).apply(describe, 'When the heartbeat fires.'),
    timeout: duration('choose the hard time limit of one wake, shorter than every minus killAfter, e.g. "25m"').apply(describe, 'Hard limit of one wake, e.g. "25m"; timeout + killAfter must be shorter than every.'),
    killAfter: duration('the grace between TERM and KILL').apply(z._default, KILL_AFTER_DEFAULT).apply(describe, 'Grace between TERM and KILL at the timeout (default "30s").'),
    // The shortest run worth starting: a scheduled wake with less of its working window
    // left is skipped (skip-window). The default is in minRunDefault.
    minRun: duration('the shortest run worth starting, below timeout').apply(z.optional).apply(describe, 'Shortest run worth starting, below timeout (default "5m", or the timeout when that is 5m or shorter): a scheduled wake with less of its working window left is skipped (skip-window), and every wake ends by the window\'s end.'),
    // A fire missed while the machine slept: run once late, or skip it (skip-late).
    catchUp: z.enum(['skip', 'once'], { error: (i) => `must be "skip" or "once"${typeof i.input === 'string' ? didYouMean(i.input, ['skip', 'once']) : ''}` }).apply(z._default, 'once').apply(describe, 'A fire missed while the machine slept: "once" (default) runs it once on waking, inside the working hours with at least minRun left; "skip" logs skip-late and waits for the next fire. cron never runs a missed fire, whatever this says.'),
    env: env.apply(describe, 'The agent\'s whole environment; HOME and PATH required. Metered credentials (API keys) and forge or registry tokens (GH_TOKEN, …) are refused; on kubernetes every secret-looking name (…_TOKEN, …_PASSWORD) belongs in the Secret.'),
    stateDir: stateDir.apply(z.optional).apply(describe, 'Folder for wrapper, gate, log, lock and state: relative to repo (no ..) or absolute. Default: outside the repo, $XDG_STATE_HOME/hbgen/<name> (~/.local/state/hbgen/<name>; launchd: ~/Library/Application Support/hbgen/<name>), where the agent cannot edit it.'),
    lock: z.enum(['auto', 'flock', 'mkdir'], { error: (i) => `must be one of auto flock mkdir${typeof i.input === 'string' ? didYouMean(i.input, ['auto', 'flock', 'mkdir']) : ''}` }).apply(z._default, 'auto').apply(describe, 'auto (flock when on PATH, else an atomic mkdir lock), flock or mkdir.'),
    cap: z.number({ error: 'must be a whole number of wakes' }).check(z.int({ error: 'must be a whole number of wakes' })).check(z.gte(1, { error: 'must be at least 1' })).apply(z.optional).apply(describe, 'Stop after this many counted wakes.'),
    // Tokens a day: nine digits at most, within the wrapper's 32-bit arithmetic (mksh).
    budget: z.number({ error: 'must be a whole number of tokens a day, e.g. 5000000' }).check(z.int({ error: 'must be a whole number of tokens a day, e.g. 5000000' })).check(z.gte(1, { error: 'must be at least 1 token a day; leave the field out for no budget' })).check(z.lte(999_999_999, { error: 'must be at most 999999999 tokens a day; leave the field out for no budget' })).apply(z.optional).apply(describe, 'Tokens a day (claude-code and codex presets): once the usage lines of the day\'s wakes (in + out + cache, the working zone\'s day) reach it, the day\'s further wakes are skipped (skip-budget).'),
    // The share of the plan's windows kept for the person (claude-code: the stream's
    // rate_limit_event readings): a whole percent, so that the wrapper compares it in shell
    // arithmetic with the reading rounded to a whole percent.
    reserve: z
      .strictObject(
        { fiveHour: reservePercent('the 5-hour window').apply(z.optional).apply(describe, 'The share of the plan\'s 5-hour window kept for you, "1%" to "99%".'), weekly: reservePercent('the weekly window').apply(z.optional).apply(describe, 'The share of the plan\'s weekly (7-day) window kept for you, "1%" to "99%".') },
        { error: 'must be an object such as {"fiveHour": "30%", "weekly": "40%"}' },
      )
      .check(z.refine((r) => r.fiveHour !== undefined || r.weekly !== undefined, { error: 'must hold fiveHour, weekly or both, e.g. {"fiveHour": "30%"}; leave the field out for no reserve' }))
      .apply(z.optional).apply(describe, 'The share of the plan\'s windows kept for you (claude-code: read from the client\'s rate_limit_event), e.g. {"fiveHour": "30%", "weekly": "40%"}: a wake is not started while a window\'s last reading is inside it (skip-reserve), and a wake whose reading crosses into it is stopped (outcome reserve). codex exposes no reading: the panel says so.'),
    // 512 MiB at most: nine digits, so the wrapper compares sizes within 32-bit shell arithmetic (mksh).
    logMaxBytes: z.number({ error: 'must be a whole number of bytes, e.g. 10485760 (10 MiB)' }).check(z.int({ error: 'must be a whole number of bytes, e.g. 10485760 (10 MiB)' })).check(z.gte(65536, { error: 'must be at least 65536 (64 KiB); the default is 10485760 (10 MiB)' })).check(z.lte(536870912, { error: 'must be at most 536870912 (512 MiB); the default is 10485760 (10 MiB)' })).apply(z._default, LOG_MAX_BYTES).apply(describe, 'runtime.log is rotated to runtime.log.1 (one generation kept) once it is larger than this many bytes, and agent.log to agent.log.1 by the same rule, each by its own size (default 10485760, 10 MiB; 65536 to 536870912).'),
    gate: z
      .array(text('an argument'), { error: 'must be an argv array such as ["/usr/bin/on_ac_power"]' })
      .check(z.minLength(1, { error: 'must hold at least the program; leave the field out for no gate' }))
      .apply(z.optional).apply(describe, 'Argv of an extra gate program; a non-zero exit skips the wake.'),
    shared: z.boolean({ error: 'must be true or false' }).apply(z._default, false).apply(describe, 'True when several agents (each with its own spec and name) share the repo: adds claim.sh, whose claims live in <repo>/.agent-platform/claims/. Claims keep honest agents from duplicating work; they are no security boundary.'),
    // The job's end: a wall-clock time in hours.timezone, compared as such by the wrapper
    // (no zone arithmetic), so that a clock change cannot move it.
    until: z
      .string({ error: 'must be a local date and time in hours.timezone, "YYYY-MM-DDTHH:MM", e.g. "2026-12-24T18:00"' })
      .check(z.regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d$/, { error: 'must be a local date and time in hours.timezone, "YYYY-MM-DDTHH:MM", e.g. "2026-12-24T18:00"' }))
      .check(z.refine((v) => !Number.isNaN(Date.parse(`${v}:00Z`)) && new Date(`${v}:00Z`).toISOString().slice(0, 16) === v, { error: 'is no such date (the month has fewer days); e.g. "2026-12-24T18:00"' }))
      .apply(z.optional).apply(describe, 'The job\'s end, a local date and time in hours.timezone ("2026-12-24T18:00"): from then on every fire logs skip-ended, runs no agent and counts no wake; status says the job ended, plan draws no wakes after it.'),
    // Where the agent works: the person's checkout (default) or a clone of its own on its
    // own branch (src/workspace.ts).
    workspace: z.enum(WORKSPACES, { error: (i) => `must be "repo" (the default: the agent works in the repo itself) or "clone" (a checkout of its own on branch hbgen/<name>)${typeof i.input === 'string' ? didYouMean(i.input, [...WORKSPACES]) : ''}` }).apply(z._default, 'repo').apply(describe, 'Where the agent works: "repo" (default) in the repo itself; "clone" in a clone of its own at install (~/.local/share/hbgen/workspaces/<name>, $XDG_DATA_HOME when env sets it) on branch hbgen/<name> from your HEAD at install, so that it never writes your working tree, index or other refs (the jail enforces it). After each wake the wrapper fetches that branch into the repo, fast-forward only; status and list show it; forget asks before removing the clone. HEART.md and PROTOCOL.md are copied from the repo before each wake; STATE.md, LOG.md and journal/ live in the clone. Refused with "shared": true and for kubernetes.'),
    controlFiles: z.enum(['exclude', 'commit'], { error: 'must be "exclude" (the default: kept out of git through .git/info/exclude) or "commit"' }).apply(z.optional).apply(describe, 'What git sees of the control files (HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/): "exclude" (default) adds them to the repository\'s own .git/info/exclude at install (never to .gitignore, never committed; stop removes them), so that the agent\'s `git add -A` leaves them out; "commit" leaves them to git like any file.'),
    sandbox: sandbox.apply(z.optional).apply(describe, 'The OS jail around the agent and every process it starts (@anthropic-ai/sandbox-runtime: bubblewrap on Linux, sandbox-exec on macOS, a proxy with a host allowlist). On by default (omitted or an object); false runs the agent with all your rights. Needs bwrap, rg and socat on Linux (apt-get install bubblewrap ripgrep socat).'),
    limits: limits.apply(z.optional).apply(describe, 'Bounds on every wake, each applied by the host\'s own mechanism (systemd: TasksMax=/MemoryMax= of the service; cron on Linux: a transient systemd scope where a user manager runs, else rlimits; launchd: the plist\'s resource limits). On by default (omitted or an object); false lifts them. A wake stopped by one ends `fail N limits.tasks …` / `fail N limits.memory …` (docs/threat-model.md "Bounds on a wake"). Not for kubernetes (kubernetes.resources bound the pod).'),
    // How long the wakes pause when the agent's client says the plan's limit is reached
    // but names no reset time; default 1h, at most 8 days are used.
    limitBackoff: duration('how long to pause after a limit whose reset time is unknown, e.g. "1h"').apply(z._default, LIMIT_BACKOFF_DEFAULT).apply(describe, 'How long the wakes pause when the agent\'s client says the plan\'s usage limit is reached but names no reset time (default 1h; at most 8 days are used).'),
    kubernetes: z.strictObject(kubernetesBlock.shape, { error: 'must be an object {image, namespace?, secretName?, secretKeys?, git | pvc, serviceAccountName?, resources?, sizeLimits?}' }).apply(z.optional).apply(describe, 'Only for schedule.scheduler "kubernetes": the pod that runs the same wrapper in a cluster (host/hbgen-<name>.cronjob.yaml).'),
    // Being told when the wakes stop working: a program run at the notifyAfter-th
    // failing wake in a row and at the success after it, and a healthchecks-style URL.
    notify: z
      .array(text('an argument'), { error: 'must be an argv array such as ["/usr/bin/notify-send", "hbgen"]' })
      .check(z.minLength(1, { error: 'must hold at least the program; leave the field out for no notification' }))
      .apply(z.optional).apply(describe, 'Argv of a program (absolute path first) run when notifyAfter wakes in a row ended fail, denied, timeout or error (HBGEN_EVENT=failing) and at the success after them (recovered), and once when the job pauses itself after pauseAfter of them (paused); env: the spec\'s plus HBGEN_EVENT, HBGEN_STREAK, HBGEN_OUTCOME, HBGEN_LOG, HBGEN_NAME, HBGEN_REPO.'),
    notifyAfter: z.number({ error: 'must be a whole number of wakes' }).check(z.int({ error: 'must be a whole number of wakes' })).check(z.gte(1, { error: 'must be at least 1' })).apply(z.optional).apply(describe, 'Failing wakes in a row before notify runs (default 3); only with notify.'),
    // The job pauses itself after this many failing wakes in a row (default 5); false: never.
    pauseAfter: z
      .union([z.literal(false), z.number({ error: PAUSE_AFTER_ERROR }).check(z.int({ error: PAUSE_AFTER_ERROR })).check(z.gte(1, { error: PAUSE_AFTER_ERROR }))], { error: PAUSE_AFTER_ERROR })
      .apply(z._default, PAUSE_AFTER_DEFAULT).apply(describe, 'After this many failing wakes in a row (fail, denied, timeout, error; default 5) the job pauses itself: later fires log skip-paused and run no agent until a success by hand (hbgen wake), hbgen resume --now, an edit of HEART.md or the install of a changed spec; false: never.'),
    // Idle backoff: after idleAfter wakes in a row that left nothing changed (default 3;
    // false: never), fires are skipped until something changes or idleEvery passes (default 4h).
    idleAfter: z
      .union([z.literal(false), z.number({ error: IDLE_AFTER_ERROR }).check(z.int({ error: IDLE_AFTER_ERROR })).check(z.gte(1, { error: IDLE_AFTER_ERROR }))], { error: IDLE_AFTER_ERROR })
      .apply(z._default, IDLE_AFTER_DEFAULT).apply(describe, 'Idle backoff: after this many wakes in a row that ended ok or quiet and left nothing changed (the repo\'s files and git refs, HEART.md, STATE.md; LOG.md and journal/ not counted; default 3), later fires log skip-idle and run no agent until something of those changes or idleEvery has passed since the last wake; so do the fires before the time of the agent\'s "Next useful wake: not before YYYY-MM-DD HH:MM" line in STATE.md; false: never, and that line is not honoured.'),
    idleEvery: duration('the longest an idle job waits for its next wake, e.g. "4h"').apply(z._default, IDLE_EVERY_DEFAULT).apply(describe, 'The longest an idle job goes without a wake (default 4h): then one wake looks again; also the furthest the agent\'s "Next useful wake: not before" line in STATE.md can put off its next wake.'),
    ping: z.union([pingUrl, z.strictObject({ url: pingUrl.apply(describe, 'The healthchecks-style URL, as for ping written alone.'), body: z.boolean({ error: 'must be true or false' }).apply(z.optional).apply(describe, 'false sends /fail with no body, so that no line of the agent\'s output leaves for the ping\'s host (default true).') })], { error: 'must be a URL such as "https://hc-ping.com/<uuid>", or an object {url, body}' }).apply(z.optional).apply(describe, 'A healthchecks-style URL (https; http only for 127.0.0.1 or localhost): URL/start before the agent, URL after a success, URL/fail after a failure, by curl or wget. Or {url, body}: body false sends /fail empty (by default it carries the wake\'s last 20 lines of agent output and hbgen\'s last 10 log lines to that host, which the jail does not gate).'),
    // The morning digest: one day of the heartbeat, sent at the first fire at or after this
    // wall time of hours.timezone (heartbeat/33-digest runs `hbgen log --digest --send`).
    digest: z
      .union([digestAt, z.strictObject({ at: digestAt.apply(describe, 'HH:MM, local to hours.timezone.'), empty: z.enum(['skip', 'send'], { error: 'must be "skip" (the default: no digest for a day when nothing happened) or "send"' }).apply(z.optional).apply(describe, '"skip" (default): no digest for a day on which no wake ran, no error was logged and no fire was missed; "send": one anyway.') })], { error: 'must be a time "HH:MM" such as "08:30", or an object {at, empty}' })
      .apply(z.optional).apply(describe, 'The daily digest (`hbgen log --digest`), "HH:MM" in hours.timezone or {at, empty}: at the first fire at or after that time each day (or, when the day holds no fire then, at the next fire), the wrapper runs `hbgen log --digest yesterday --send` outside the jail, which writes <stateDir>/digest/DATE.txt and sends the text through notify (HBGEN_EVENT=digest, the text in HBGEN_DIGEST) and to the ping URL\'s /log; no agent runs for it. For a window that crosses midnight a day is the window that opens on it. Needs the state folder outside the repo; refused for kubernetes.'),
  }, { error: (i) => (i.code === 'invalid_type' ? 'must be a JSON object holding the spec; see `hbgen schema`' : undefined) })
  // Cross-field rules run even when some field is wrong, so that one run reports every
  // problem; each rule looks only at fields whose own form is already right.
  .check(z.superRefine((s, ctx) => {
    // With `when` this runs on any JSON value: `null`, a number or a string already has its
    // one "must be a JSON object" issue, and reading a field of null would throw.
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return;
    const dur = (d: unknown) => (typeof d === 'string' && DURATION.test(d) ? seconds(d) : undefined);
    envCarriers(s, ctx);
    const sch = (typeof s?.schedule === 'object' && s.schedule) || ({} as Partial<typeof s.schedule>);
    const hrs = (typeof sch.hours === 'object' && sch.hours) || ({} as Partial<typeof sch.hours>);
    const every = (EVERY as readonly unknown[]).includes(sch.every) ? dur(sch.every)! : undefined;
    const timeout = dur(s.timeout);
    const killAfter = dur(s.killAfter);
    if (every !== undefined && timeout !== undefined && killAfter !== undefined && timeout + killAfter >= every) {
      ctx.addIssue({
        code: 'custom',
        path: ['timeout'],
        message: `timeout ${s.timeout} + killAfter ${s.killAfter} must be shorter than every ${sch.every}; shorten the timeout or lengthen the interval`,
      });
    }
    const minRun = dur(s.minRun);
    // minRun equal to a timeout of 5m or less is the default itself (minRunDefault), as a
    // normalized spec holds it: state.json records one, and it is validated again.
    if (minRun !== undefined && timeout !== undefined && minRun >= timeout && !(minRun === timeout && timeout <= 300)) {
      ctx.addIssue({
        code: 'custom',
        path: ['minRun'],
        message: `minRun ${s.minRun} must be shorter than timeout ${s.timeout}; a wake with less than minRun of its working window left is skipped, so shorten minRun or lengthen the timeout`,
      });
    }
    const m = sch.minute;
    if (typeof m === 'number' && every !== undefined && every < 3600 && m >= every / 60) {
      ctx.addIssue({
        code: 'custom',
        path: ['schedule', 'minute'],
        message: `must be below the interval (${every / 60}) when every is ${sch.every}, e.g. ${Math.max(1, Math.min(7, every / 60 - 1))}`,
      });
    }
    if (typeof hrs.start === 'string' && hrs.start === hrs.end) {
      ctx.addIssue({
        code: 'custom',
        path: ['schedule', 'hours', 'end'],
        message: 'equals start; for round-the-clock use start "00:00" and end "24:00"',
      });
    }
    if (Array.isArray(s.gate) && typeof s.gate[0] === 'string' && !s.gate[0].startsWith('/')) {
      ctx.addIssue({ code: 'custom', path: ['gate', 0], message: `must be an absolute path to the gate program, got "${s.gate[0]}"` });
    }
    notifyIssues(s, ctx);
    pathInRepoIssues(s, ctx);
    repoCodeIssues(s, ctx);
    agentIssues(s, ctx);
    commandLineIssues(s, ctx);
    kubernetesIssues(s, ctx);
    workspaceIssues(s, ctx);
    envSecretIssues(s, ctx);
    allowReadIssues(s, ctx);
    limitsIssues(s, ctx);
    digestIssues(s, ctx);
  }, { when: () => true }))
  // The defaults that depend on other fields, filled in once every field is valid: the
  // schema's output is the spec every consumer reads, every default applied.
  .apply((spec) =>
    z.pipe(
      spec,
      z.transform((s: z.output<typeof spec>) => ({
        ...s,
        env: s.env as Record<string, string>,
        minRun: s.minRun ?? minRunDefault(s.timeout),
        stateDir: s.stateDir ?? defaultStateDir(s),
        ...(s.notify ? { notifyAfter: s.notifyAfter ?? NOTIFY_AFTER_DEFAULT } : {}),
      })),
    ),
  );

export type SpecInput = z.input<typeof SpecSchema>;

/** A validated spec with every default applied. */
export type Spec = z.output<typeof SpecSchema>;

/**
 * The state folder when the spec names none: outside the repo, where the agent (which may
 * write anything in the repo) cannot edit the wrapper it is run by and `git clean` cannot
 * delete the counter and the log. The XDG Base Directory place for state
 * (https://specifications.freedesktop.org/basedir-spec/latest/#variables): `$XDG_STATE_HOME`
 * when the spec's env sets it to an absolute path, else `~/.local/state`; for launchd the
 * macOS place for an app's own files, `~/Library/Application Support`
 * (https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/FileSystemProgrammingGuide/FileSystemOverview/FileSystemOverview.html).
 * It comes from the spec alone (env.HOME, never the host's), so rendering stays pure.
 */
export function defaultStateDir(s: { name?: unknown; env?: unknown; schedule?: unknown }): string {
  const env = (typeof s.env === 'object' && s.env !== null ? s.env : {}) as Record<string, unknown>;
  const home = typeof env.HOME === 'string' ? env.HOME.replace(/(.)\/$/, '$1') : '/';
  const name = typeof s.name === 'string' ? s.name : '';
  const scheduler = typeof s.schedule === 'object' && s.schedule !== null ? (s.schedule as Record<string, unknown>).scheduler : undefined;
  const own = factsOf(scheduler)?.stateHome;
  if (own) return posix.join(home, own, 'hbgen', name);
  const xdg = env.XDG_STATE_HOME;
  const base = typeof xdg === 'string' && xdg.startsWith('/') ? posix.normalize(xdg) : posix.join(home, '.local/state');
  return posix.join(base, 'hbgen', name);
}

/** The failing wakes in a row after which the job pauses itself; 0: never (pauseAfter false). */
export function pauseAfterOf(s: Pick<Spec, 'pauseAfter'>): number {
  return s.pauseAfter === false ? 0 : (s.pauseAfter ?? PAUSE_AFTER_DEFAULT);
}

/**
 * The digest runs a program recorded at install in the state folder (digest.argv) outside
 * the jail: that folder must be one the agent cannot write (not inside the repo), and on
 * this host (a cluster's pod has no hbgen to run).
 */
function digestIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  if (s.digest === undefined) return;
  const sch = typeof s.schedule === 'object' && s.schedule !== null ? s.schedule : {};
  if (factsOf(sch.scheduler)?.offHost) {
    ctx.addIssue({ code: 'custom', path: ['digest'], message: `does not apply to schedule.scheduler "${sch.scheduler}": the pod has no hbgen to build the digest; remove it and read \`hbgen log --digest\` instead` });
    return;
  }
  if (typeof s.repo !== 'string' || !s.repo.startsWith('/') || typeof s.stateDir !== 'string') return;
  const state = s.stateDir.startsWith('/') ? posix.normalize(s.stateDir) : posix.join(s.repo, s.stateDir);
  const repo = posix.normalize(s.repo).replace(/(.)\/$/, '$1');
  if (state === repo || state.startsWith(repo === '/' ? '/' : `${repo}/`)) {
    ctx.addIssue({ code: 'custom', path: ['digest'], message: `needs the state folder outside the repo (stateDir "${s.stateDir}" is inside it): the wrapper runs the program recorded there outside the agent's sandbox; leave stateDir out or move it out of the repo` });
  }
}

/** The digest's time and whether a day when nothing happened is sent; null without digest. */
export function digestOf(s: Pick<Spec, 'digest'>): { at: string; empty: 'skip' | 'send' } | null {
  if (s.digest === undefined) return null;
  return typeof s.digest === 'string' ? { at: s.digest, empty: 'skip' } : { at: s.digest.at, empty: s.digest.empty ?? 'skip' };
}

/** The clone of "workspace": "clone": on this host only, and never inside the repo or the state folder. */
function workspaceIssues(s: Record<string, any>, ctx: z.core.$RefinementCtx): void {
  if (s.workspace !== 'clone') return;
  const sch = typeof s.schedule === 'object' && s.schedule !== null ? s.schedule : {};
  if (factsOf(sch.scheduler)?.offHost) {
    ctx.addIssue({ code: 'custom', path: ['workspace'], message: `does not apply to schedule.scheduler "${sch.scheduler}": the pod works on a clone of its own already; remove it` });
    return;
  }
  if (s.shared === true) {
    ctx.addIssue({ code: 'custom', path: ['workspace'], message: 'cannot go with "shared": true: the agents that share a repo claim chunks in it, and an agent in a clone of its own cannot write the repo; leave one of them out' });
  }
  const env = typeof s.env === 'object' && s.env !== null ? s.env : {};
  if (typeof s.name !== 'string' || typeof s.repo !== 'string' || !s.repo.startsWith('/') || typeof env.HOME !== 'string' || !factsOf(sch.scheduler)) return;
  const state = typeof s.stateDir === 'string' ? (s.stateDir.startsWith('/') ? s.stateDir : posix.join(s.repo, s.stateDir)) : defaultStateDir(s);
  const why = workspacePlaceProblem(workspaceDir({ name: s.name, env, schedule: { scheduler: sch.scheduler } }), s.repo, state);
  if (why) ctx.addIssue({ code: 'custom', path: ['workspace'], message: why });
}

/** The wakes in a row that changed nothing after which fires are skipped (0: no idle backoff), and the longest skip, in seconds. */
export function idleOf(s: Pick<Spec, 'idleAfter' | 'idleEvery'>): { after: number; every: number } {
  return { after: s.idleAfter === false ? 0 : (s.idleAfter ?? IDLE_AFTER_DEFAULT), every: seconds(s.idleEvery ?? IDLE_EVERY_DEFAULT) };
}

/** notify runs at this failing wake in a row when the spec names no notifyAfter. */
export const NOTIFY_AFTER_DEFAULT = 3;

/** Every duration of a spec in seconds, parsed once, and the bounds derived from them. */
export interface Durations {
  timeout: number;
  killAfter: number;
  every: number;
  minRun: number;
  limitBackoff: number;
  /**
   * The longest one wake can take: the timeout, then TERM, then killAfter before KILL.
   * Each scheduler's own bound adds its margin to this (systemd's TimeoutStartSec, the
   * Job's activeDeadlineSeconds, the lock's staleness, install's wait for a first wake).
   */
  wake: number;
}

const DURATIONS = new WeakMap<Spec, Durations>();

/**
 * The spec's durations in seconds. Keyed by the spec object itself, so a spec built anew
 * from another (a spread with another timeout) is read afresh, never from a stale copy.
 */
export function durations(spec: Spec): Durations {
  let d = DURATIONS.get(spec);
  if (!d) {
    const timeout = seconds(spec.timeout);
    const killAfter = seconds(spec.killAfter);
    d = { timeout, killAfter, every: seconds(spec.schedule.every), minRun: seconds(spec.minRun), limitBackoff: seconds(spec.limitBackoff), wake: timeout + killAfter };
    DURATIONS.set(spec, d);
  }
  return d;
}

/**
 * minRun when the spec names none: 5m, or the timeout itself when that is 5m or shorter,
 * so that a short-timeout spec stays valid (a scheduled wake then either gets its whole
 * timeout before its working window ends, or is skipped).
 */
export function minRunDefault(timeout: string): string {
  return seconds(timeout) <= 300 ? timeout : '5m';
}

/** A field's path the way every message names it: `schedule.hours.start`, `gate[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(spec)';
}

/** The field names the schema knows at `path` (an object's keys), for "did you mean". */
export function fieldsAt(path: readonly PropertyKey[]): string[] {
  // zod 4 keeps each wrapper's inner schema in _zod.def: optional/default (innerType), pipe (in).
  type Any = { shape?: Record<string, unknown>; _zod?: { def?: { type?: string; innerType?: Any; in?: Any; valueType?: Any; element?: Any; options?: Any[] } } } | undefined;
  const unwrap = (x: Any): Any => {
    for (let i = 0; i < 10 && x; i++) {
      const d = x._zod?.def;
      if (d?.innerType) x = d.innerType;
      else if (d?.type === 'pipe' && d.in) x = d.in;
      else if (d?.type === 'union' && d.options) x = d.options.find((o) => o?.shape) ?? d.options[0];
      else break;
    }
    return x;
  };
  let cur = unwrap(SpecSchema as unknown as Any);
  for (const p of path) {
    const d = cur?._zod?.def;
    if (cur?.shape && typeof p === 'string') cur = cur.shape[p] as Any;
    else if (d?.type === 'record') cur = d.valueType;
    else if (d?.type === 'array') cur = d.element;
    else return [];
    cur = unwrap(cur);
  }
  return cur?.shape ? Object.keys(cur.shape) : [];
}

/** A union branch the value is of: none of its problems is the value's type or value itself. */
function ofTheRightKind(e: readonly { path: readonly PropertyKey[]; code: string }[]): boolean {
  return e.length > 0 && !e.some((x) => x.path.length === 0 && (x.code === 'invalid_type' || x.code === 'invalid_value'));
}

// Fields a person may well expect that hbgen does not offer, each with why.
const NOT_OFFERED: Record<string, string> = {
  'limits.tmp': 'not offered: srt has no size option for the jail\'s private tmp, so a bound on it would not hold (docs/threat-model.md "Bounds on a wake"); remove it',
};

/** Validate a parsed JSON value. Returns the spec, or one message line per problem. */
export function validateSpec(raw: unknown): { spec: Spec; errors?: undefined } | { spec?: undefined; errors: string[] } {
  const r = SpecSchema.safeParse(raw);
  if (!r.success) {
    const lines: string[] = [];
    // One issue as lines; an issue inside a union (sandbox: false or an object) comes with
    // the union's path in front of its own.
    type Issue = (typeof r.error.issues)[number];
    const say = (issue: Issue, at: PropertyKey[]): void => {
      const path = [...at, ...issue.path];
      if (issue.code === 'unrecognized_keys') {
        // A field already written is not what a stray key meant.
        let here: unknown = raw;
        for (const p of path) here = typeof here === 'object' && here !== null ? (here as Record<PropertyKey, unknown>)[p] : undefined;
        const present = typeof here === 'object' && here !== null ? Object.keys(here) : [];
        const known = fieldsAt(path).filter((x) => !present.includes(x));
        for (const k of issue.keys) {
          const near = didYouMean(k, known);
          const at = formatPath([...path, k]);
          lines.push(`${at}: ${NOT_OFFERED[at] ?? `unknown field${near || '; remove it or check its spelling'}`}`);
        }
      } else if (issue.code === 'invalid_union' && issue.errors.some(ofTheRightKind)) {
        // The branch the value is of (an object, not `false`): its own problems, not a bare "Invalid input".
        for (const sub of issue.errors.find(ofTheRightKind)!) say(sub as Issue, path);
      } else if (issue.code === 'invalid_key') {
        for (const sub of issue.issues) lines.push(`${formatPath(path)}: ${sub.message}`);
      } else {
        lines.push(`${formatPath(path)}: ${issue.message}`);
      }
    };
    for (const issue of r.error.issues) say(issue, []);
    return { errors: meantFirst([...new Set(lines)]) };
  }
  return { spec: r.data };
}
