// The host lifecycle under test: a temporary host (HOME, repo, agent binary, spec file,
// stand-in tools first on PATH), the commands run in-process with a HostIO built from it
// (the real rendered heartbeat.sh by default; a STAND-IN with the wrapper's --smoke/--now
// interface where a test injects a wrapper failure), and a byte-level snapshot of a
// folder tree for "exactly as before" comparisons.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { UserError } from '../../src/errors.ts';
import { terminalText } from '../../src/escape.ts';
import { plannedHostZone } from '../../src/host/audit/clock.ts';
import { subscriptionAnswers } from './clients.ts';
import { etcFor } from './etc.ts';
import type { HostIO } from '../../src/host/io.ts';
import { validateSpec, type Spec, type SpecInput } from '../../src/spec.ts';
import { useWrapper } from './standin-pipeline.ts';
import { makeStub } from './crontab.ts';
import { cronDaemonStandIn } from './cron-daemon.ts';
import { makeStandIns, type StandIns, type StandInWrapper } from './standins.ts';

export type { StandInWrapper };

// From here on, the commands hb() imports render through standin-pipeline.ts (they must
// not be imported before this line runs: hb() imports them when it runs one).
register('./standin-hooks.mjs', import.meta.url);

export interface Host {
  root: string;
  home: string;
  repo: string;
  bin: string;
  specFile: string;
  tools: StandIns;
  spec: Spec;
  env: Record<string, string>;
  wrapper: StandInWrapper;
}

const made: string[] = [];
process.on('exit', () => {
  if (!process.env.HBTEST_KEEP) for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Where a test host's state folder is: inside the repo (the default here, the harder case for trust), or in a folder of its own outside repo and HOME. */
export type StatePlace = 'repo' | 'outside';

export function baseSpec(root: string, scheduler: Spec['schedule']['scheduler'], over: Partial<SpecInput> = {}, place: StatePlace = 'outside'): SpecInput {
  return {
    version: 1,
    name: 'docs',
    repo: join(root, 'repo'),
    agent: { harness: 'command', bin: join(root, 'agent'), prompt: 'Do one chunk.' },
    schedule: { scheduler, every: '30m', minute: 7, hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' } },
    timeout: '10m',
    env: { HOME: join(root, 'home'), PATH: '/usr/bin:/bin' },
    // Inside the repo, where the agent can write (the harder case for the trust tests);
    // a test of the default, outside the repo, passes `stateDir: undefined`.
    stateDir: place === 'repo' ? '.agent-platform' : join(root, 'state'),
    // The lifecycle suites run without the jail; test/jail.test.ts turns it on.
    sandbox: false,
    ...over,
  };
}

export function makeHost(scheduler: Spec['schedule']['scheduler'], over: Partial<SpecInput> = {}, place: StatePlace = 'outside'): Host {
  // install refuses the cron backend without a cron daemon; a test may switch a host to cron later.
  cronDaemonStandIn();
  const root = mkdtempSync(join(tmpdir(), 'hbgen-life.'));
  chmodSync(root, 0o755);
  made.push(root);
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(root, 'repo'));
  writeFileSync(join(root, 'repo', 'README'), 'the repo\n');
  // install refuses a repo without a mission.
  writeFileSync(join(root, 'repo', 'HEART.md'), '# Mission\nKeep the docs true.\n');
  const bin = join(root, 'agent');
  // A STAND-IN agent that also answers the clients' status commands as a subscription login
  // (test/helpers/clients.ts), so that a spec switched to the claude-code or codex preset
  // passes install's billing check.
  writeFileSync(bin, `#!/bin/sh\n${subscriptionAnswers()}echo agent ran\n`);
  chmodSync(bin, 0o755);
  const tools = makeStandIns(join(root, 'standins'));
  const raw = baseSpec(root, scheduler, over, place);
  const specFile = join(root, 'hbgen.json');
  writeFileSync(specFile, JSON.stringify(raw, null, 2));
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('\n'));
  return {
    root,
    home,
    repo: join(root, 'repo'),
    bin,
    specFile,
    tools,
    spec: v.spec,
    env: { HOME: home, PATH: `${tools.bin}:/usr/bin:/bin`, LANG: 'C.UTF-8' },
    // The real rendered heartbeat.sh; tests that inject a wrapper failure set a stand-in.
    wrapper: { real: true },
  };
}

export function rewriteSpec(h: Host, over: Partial<SpecInput>): void {
  const raw = { ...baseSpec(h.root, h.spec.schedule.scheduler), ...JSON.parse(readFileSync(h.specFile, 'utf8')), ...over };
  writeFileSync(h.specFile, JSON.stringify(raw, null, 2));
  const v = validateSpec(raw);
  if (!v.spec) throw new Error(v.errors.join('\n'));
  h.spec = v.spec;
}

export interface Result {
  code: number;
  out: string;
  err: string;
}

type Cmd = 'install' | 'status' | 'stop' | 'resume' | 'wake' | 'list' | 'doctor' | 'log' | 'upgrade';

/** Run a lifecycle command in this process, as the CLI would, against the host. */
/** A HostIO like hb()'s, for tests that call host functions directly (output is dropped). */
export function hostIO(h: Host, now: () => Date = () => new Date()): HostIO {
  return { env: h.env, uid: process.getuid!(), user: 'ada', cwd: h.root, stdin: new PassThrough(), out: () => {}, err: () => {}, now };
}

export async function hb(h: Host, cmd: Cmd, opts: { yes?: boolean; dryRun?: boolean; all?: boolean; json?: boolean; tty?: boolean; answer?: string; env?: Record<string, string>; now?: () => Date; resetCap?: boolean; hostZone?: string; resumeNow?: boolean; outTTY?: boolean; firstWake?: boolean; forceEmptyHeart?: boolean; name?: string; digest?: string; send?: boolean; state?: string } = {}): Promise<Result> {
  let out = '';
  let err = '';
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = opts.tty ?? false;
  if (opts.answer !== undefined) stdin.end(`${opts.answer}\n`);
  else if (opts.tty) stdin.end();
  const io: HostIO = {
    env: { ...h.env, ...opts.env },
    uid: process.getuid!(),
    user: 'ada',
    cwd: h.root,
    stdin,
    // As the CLI's HostIO (src/host/io.ts): no control character the agent wrote gets out raw.
    out: (s) => (out += terminalText(s)),
    err: (s) => (err += terminalText(s)),
    now: opts.now ?? (() => new Date()),
    etc: etcFor(h.root, opts.hostZone ?? plannedHostZone(h.spec)),
    outTTY: opts.outTTY,
  };
  const argv = { spec: h.specFile, name: opts.name, yes: opts.yes, dryRun: opts.dryRun, resetCap: opts.resetCap, all: opts.all, json: opts.json, now: opts.resumeNow, firstWake: opts.firstWake, forceEmptyHeart: opts.forceEmptyHeart, digest: opts.digest, send: opts.send, state: opts.state };
  useWrapper(h.wrapper);
  const mod = await import(`../../src/commands/${cmd}.ts`);
  try {
    const code = (await mod[cmd](argv, io)) as number;
    return { code, out, err };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    for (const l of e.lines) err += terminalText(`hbgen: ${l}\n`);
    return { code: e.exitCode, out, err };
  }
}

/** Every entry under `dir` (not following links) with its type, mode and content hash. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(full);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out[`${r}/`] = `dir ${mode}`;
        walk(full, r);
      } else if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(full)}`;
      else out[r] = `file ${mode} ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)}`;
    }
  };
  walk(dir, '');
  return out;
}

export function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * A log's lines without their time stamps, and without the boot clock's `took N s` lines
 * (test/log-clock.test.ts reads those): the suites' patterns of a wake predate them.
 */
export function lines(log: string): string[] {
  return existsSync(log)
    ? readFileSync(log, 'utf8').split('\n').filter((l) => l && !/^\S+ hbgen \S+ took \d+ s$/.test(l)).map((l) => l.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (?=hbgen )/, ''))
    : [];
}

/**
 * A cron host whose state folder is outside the repo, installed on a recording STAND-IN
 * crontab first on its PATH (never a real user's table; the stand-in's folder goes when the
 * process exits).
 */
export async function installedOnStandInCrontab(): Promise<Host> {
  const h = makeHost('cron', {}, 'outside');
  const stub = makeStub();
  made.push(stub.dir);
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  const r = await hb(h, 'install', { yes: true });
  if (r.code !== 0) throw new Error(`install on the stand-in crontab failed (exit ${r.code}): ${r.err}${r.out}`);
  return h;
}
