// The host-independent scripts: heartbeat.sh (PRODUCT.md §4), window.sh (§5) and, for
// shared folders, claim.sh (§7). All user data reaches them as single-quoted sh words.
import { posix } from 'node:path';
import { templates } from '../src/gen/templates.ts';
import { harnessArgs, promptSeparator } from '../src/harness.ts';
import { openDays, repeatsWallClock } from '../src/schedule.ts';
import { clockMinutes, seconds } from '../src/spec.ts';
import { sh } from '../src/escape.ts';
import type { RenderContext, RenderedFile } from './types.ts';

export function wrapperContext(ctx: RenderContext) {
  const { spec, names } = ctx;
  const timeout = seconds(spec.timeout);
  const killAfter = seconds(spec.killAfter);
  const gateArgv = spec.gate ?? [];
  // Where the state folder sits inside the repo, as a find(1) -path pattern (glob
  // characters escaped), so change detection can prune it; '' when it is outside.
  const rel = posix.relative(spec.repo, names.stateDir);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith('../') && !posix.isAbsolute(rel);
  const env = Object.keys(spec.env)
    .sort()
    .map((key) => ({ key, value: spec.env[key]! }));
  return {
    header: ctx.header,
    name: spec.name,
    repo: spec.repo,
    stateDir: names.stateDir,
    bin: spec.agent.bin,
    /** Everything between the binary and the prompt: harness preset, the spec's args, `--` for presets. */
    agentArgs: [...harnessArgs(spec.agent), ...spec.agent.args, ...promptSeparator(spec.agent)],
    prompt: spec.agent.prompt,
    env,
    /** env as NAME=value words, ready for `env -i`. */
    envWords: env.map((e) => `${e.key}=${e.value}`),
    timeout,
    timeoutText: spec.timeout,
    killAfter,
    /** A lock older than this belongs to a wake that must already be over. */
    staleAfter: timeout + killAfter,
    /** staleAfter in whole minutes, rounded up, for find -mmin (folder age without an owner file). */
    staleMinutes: Math.ceil((timeout + killAfter) / 60),
    /** env(1) reads any word with `=` before the command as an assignment: such a path is started through nice. */
    binHasEq: spec.agent.bin.includes('='),
    gateHasEq: (gateArgv[0] ?? '').includes('='),
    every: seconds(spec.schedule.every),
    lock: spec.lock,
    cap: spec.cap ?? 0,
    gateArgv,
    hasGate: gateArgv.length > 0,
    gateBin: gateArgv[0] ?? '',
    statePrune: inside ? `./${rel.replace(/[*?[\\\]]/g, (c) => `\\${c}`)}` : '',
    stateInRepo: inside,
    shared: spec.shared,
    timezone: spec.schedule.hours.timezone,
    // The context block's working-window line: minutes of the day where the window opens
    // and ends; the wrapper compares them with the local time of its one date call.
    windowStart: clockMinutes(spec.schedule.hours.start),
    windowEnd: clockMinutes(spec.schedule.hours.end),
    windowEndText: spec.schedule.hours.end,
    crossesMidnight: clockMinutes(spec.schedule.hours.end) <= clockMinutes(spec.schedule.hours.start),
    roundTheClock:
      clockMinutes(spec.schedule.hours.start) === 0 && clockMinutes(spec.schedule.hours.end) === 1440 && openDays(spec).length === 7,
    heartPath: posix.join(names.stateDir, 'heart.sum'),
    /** The model tiers line of the context block, '' without agent.models. */
    modelsLine: modelsLine(spec.agent.models),
    wrapperPath: names.wrapper,
    windowPath: names.gate,
    claimPath: names.claim,
    logPath: names.log,
    wakesPath: posix.join(names.stateDir, 'wakes'),
    markerPath: posix.join(names.stateDir, 'wake.marker'),
    claimsDir: posix.join(names.stateDir, 'claims'),
    lockPath: names.lock,
    lockDir: names.lockDir,
  };
}

function modelsLine(models: Record<string, string> | undefined): string {
  const tiers = Object.entries(models ?? {});
  if (tiers.length === 0) return '';
  return `Model tiers: ${tiers.map(([k, v]) => `${k}=${v}`).join(', ')} (route each subagent to the cheapest tier that can do its job)`;
}

export function windowContext(ctx: RenderContext) {
  const h = ctx.spec.schedule.hours;
  const plan = ctx.plan;
  const start = clockMinutes(h.start);
  const end = clockMinutes(h.end);
  // date +%u numbers the days 1 = Monday … 7 = Sunday.
  const days = openDays(ctx.spec).map((d) => (d === 0 ? 7 : d));
  // The zone file as a glob whose first letter in each component is a bracket expression:
  // the shell then reads each folder and matches the name case-sensitively, so the check
  // is exact even on a case-insensitive file system (macOS), where `[ -f ]` is not.
  const zoneGlob = h.timezone
    .split('/')
    .map((part) => (/^[A-Za-z0-9_+-]/.test(part) ? `[${part[0]}]${part.length > 1 ? sh(part.slice(1)) : ''}` : sh(part)))
    .join('/');
  return {
    header: ctx.header,
    name: ctx.spec.name,
    timezone: h.timezone,
    zoneGlob,
    start,
    end,
    startText: h.start,
    endText: h.end,
    crossesMidnight: end <= start,
    days: days.sort((a, b) => a - b).join(' '),
    dayList: days,
    allDays: days.length === 7,
    // Only where the host clock is in another zone does the scheduler fire off the grid.
    grid: plan.widened,
    hostTimezone: plan.hostTimezone,
    gridHourly: plan.everyMinutes <= 60,
    everyMinutes: plan.everyMinutes,
    minute: plan.minute,
    // every k hours: minutes from the window's opening to its first :minute
    gridFirst: (plan.minute - (start % 60) + 60) % 60,
    gridText:
      plan.everyMinutes <= 60
        ? `every ${plan.everyMinutes} minutes from :${String(plan.minute).padStart(2, '0')}`
        : `every ${plan.everyMinutes / 60} hours from the first :${String(plan.minute).padStart(2, '0')} of the window`,
    // Only zones whose clocks go back need the second-pass check (one more date call).
    firstPass: repeatsWallClock(h.timezone),
  };
}

export function scriptFiles(ctx: RenderContext): RenderedFile[] {
  const files: RenderedFile[] = [
    { path: 'heartbeat.sh', content: templates['heartbeat.sh']!(wrapperContext(ctx)), mode: 0o755 },
    { path: 'window.sh', content: templates['window.sh']!(windowContext(ctx)), mode: 0o755 },
  ];
  if (ctx.spec.shared) {
    files.push({ path: 'claim.sh', content: templates['claim.sh']!(wrapperContext(ctx)), mode: 0o755 });
  }
  return files;
}
