// The host-independent scripts: heartbeat.sh (PRODUCT.md §4), window.sh (§5) and, for
// shared folders, claim.sh (§7). All user data reaches them as single-quoted sh words.
import { templates } from '../src/gen/templates.ts';
import { harnessArgs } from '../src/harness.ts';
import { openDays } from '../src/schedule.ts';
import { clockMinutes, seconds } from '../src/spec.ts';
import type { RenderContext, RenderedFile } from './types.ts';

export function wrapperContext(ctx: RenderContext) {
  const { spec, names } = ctx;
  const timeout = seconds(spec.timeout);
  const killAfter = seconds(spec.killAfter);
  const env = Object.keys(spec.env)
    .sort()
    .map((key) => ({ key, value: spec.env[key]! }));
  return {
    header: ctx.header,
    name: spec.name,
    repo: spec.repo,
    stateDir: names.stateDir,
    bin: spec.agent.bin,
    /** Everything between the binary and the prompt: harness preset, then the spec's args. */
    agentArgs: [...harnessArgs(spec.agent), ...spec.agent.args],
    prompt: spec.agent.prompt,
    env,
    /** env as NAME=value words, ready for `env -i`. */
    envWords: env.map((e) => `${e.key}=${e.value}`),
    timeout,
    killAfter,
    /** A lock older than this belongs to a wake that must already be over. */
    staleAfter: timeout + killAfter,
    every: seconds(spec.schedule.every),
    lock: spec.lock,
    cap: spec.cap ?? 0,
    gateArgv: spec.gate ?? [],
    shared: spec.shared,
    timezone: spec.schedule.hours.timezone,
    wrapperPath: names.wrapper,
    windowPath: names.gate,
    claimPath: names.claim,
    logPath: names.log,
    lockPath: names.lock,
    lockDir: names.lockDir,
  };
}

export function windowContext(ctx: RenderContext) {
  const h = ctx.spec.schedule.hours;
  const start = clockMinutes(h.start);
  const end = clockMinutes(h.end);
  // date +%u numbers the days 1 = Monday … 7 = Sunday.
  const days = openDays(ctx.spec).map((d) => (d === 0 ? 7 : d));
  return {
    header: ctx.header,
    name: ctx.spec.name,
    timezone: h.timezone,
    start,
    end,
    startText: h.start,
    endText: h.end,
    crossesMidnight: end <= start,
    days: days.sort((a, b) => a - b).join(' '),
    allDays: days.length === 7,
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
