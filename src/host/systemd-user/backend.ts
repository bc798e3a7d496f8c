// systemd (user): ~/.config/systemd/user/hbgen-<name>.{service,timer}, daemon-reload,
// enable --now of a timer the manager has forgotten (see rearm below), and lingering (`loginctl show-user -p Linger`; the fix
// `loginctl enable-linger` runs inside the same consent). Without a user bus
// (`systemctl --user` over su, sudo or a bare ssh session cannot reach the user manager)
// nothing is written. A unit of the same name elsewhere on the unit path would be
// shadowed: refused.
import { catchUpCaveat } from '../audit/catchup.ts';
import { readdirSync, rmSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import {
  type Audit,
  type Backend,
  type Ctx,
  type FilePlan,
  type Journal,
  type Preflight,
  type StopPlan,
  type HostEntry,
  changedRefusal,
  derivedFileState,
  lastWordBack,
  leftAlone,
  planFile,
  pollUntil,
  runsWrapper,
  wrapperIn,
  writePlanned,
} from '../backend.ts';
import { systemdArg } from '../../escape.ts';
import { NAME_PATTERN } from '../../formats.ts';
import { lstatOrNull, namesIn, readOrNull, readSoft } from '../fsx.ts';
import { reachesRepo } from '../install/reach.ts';
import { managerEnvProblems, systemdOverrides } from '../audit/tamper.ts';
import { findOnPath, firstLine, runTool, type ToolResult } from '../proc/tools.ts';
import type { State } from '../state.ts';

/** What state.json records for systemd: lingering before install, and whether install turned it on. */
export interface SystemdRecord {
  lingerBefore: 'yes' | 'no' | 'unknown';
  lingerEnabledByHbgen: boolean;
}

declare module '../state.ts' {
  interface State {
    systemd?: SystemdRecord;
  }
}

/** The timer's state before install, and what apply must change. */
interface SystemdData {
  enabled: boolean;
  active: boolean;
  enableLinger: boolean;
  changed: boolean;
  timerChanged: boolean;
  /** The timer must be started (again): it is off, or its calendar changed. */
  rearm: boolean;
  /** Before that the manager must forget it (disable --now, daemon-reload): it knows the timer now. */
  forget: boolean;
  /** catchUp "once": the timer's stamp is cleared before it starts (no replay of a fire missed while off). */
  clean: boolean;
}

export function unitDir(c: Pick<Ctx, 'home'>): string {
  return posix.join(c.home, '.config', 'systemd', 'user');
}

/** Folders on the user unit path other than ~/.config/systemd/user (systemd.unit(5)). */
export function otherUnitDirs(c: Pick<Ctx, 'home'>): string[] {
  return ['/etc/systemd/user', '/usr/local/lib/systemd/user', '/usr/lib/systemd/user', posix.join(c.home, '.local', 'share', 'systemd', 'user')];
}

const sc = (c: Ctx, ...args: string[]) => runTool(c.io, 'systemctl', ['--user', ...args]);

async function bus(c: Ctx): Promise<ToolResult> {
  return sc(c, 'show', '--property=Version');
}

function busRefusal(c: Ctx, r: ToolResult): string {
  return `\`systemctl --user\` cannot reach your systemd user manager (${firstLine(r)}); run hbgen from a login session of ${c.io.user} (not su or sudo; over ssh, set XDG_RUNTIME_DIR=/run/user/${c.io.uid}), then try again`;
}

async function must(c: Ctx, args: string[]): Promise<void> {
  const r = await sc(c, ...args);
  if (r.code !== 0) throw new UserError([`\`systemctl --user ${args.join(' ')}\` failed (${firstLine(r)}); see \`journalctl --user -xe\``]);
}

/**
 * Does the user manager hold the timer in memory (loaded, whatever its state)?
 * `list-units` only lists what is loaded; unlike `show` it never loads a unit itself.
 */
async function held(c: Ctx): Promise<boolean> {
  const args = ['list-units', '--all', '--plain', '--no-legend', '--', c.names.timer];
  const r = await sc(c, ...args);
  if (r.code !== 0) throw new UserError([`\`systemctl --user ${args.join(' ')}\` failed (${firstLine(r)}); see \`journalctl --user -xe\``]);
  return r.stdout.split('\n').some((l) => l.trim().split(/\s+/)[0] === c.names.timer);
}

/**
 * Why the timer is started only once the manager has forgotten it. A timer that has fired
 * keeps its last fire and the time it was first started; `restart`, `stop` + `start` and
 * `enable --now` of a timer still loaded compute the next fire from those, so a slot between
 * them and now (the one that already fired included) fires at once: an unscheduled wake
 * (systemd 252 and later, upstream issue 31231; a daemon-reload with a changed calendar
 * does the same, upstream issue 16732). A timer that was disabled and stopped is unloaded by the
 * daemon-reload after it (nothing refers to it any more), and a fresh start counts from
 * now. So: disable --now, daemon-reload, make sure the manager forgot it, enable --now.
 */
async function forgotten(c: Ctx): Promise<void> {
  if (await pollUntil(async () => !(await held(c)), 3_000)) return;
  throw new UserError([
    `systemd still holds ${c.names.timer} after \`systemctl --user disable --now\` and daemon-reload (another unit wants it? \`systemctl --user list-dependencies --reverse ${c.names.timer}\` shows which), so hbgen did not start it: a timer started again while systemd remembers its last fire runs a wake at once; remove what holds it, then run the command again`,
  ]);
}

async function linger(c: Ctx): Promise<{ value: 'yes' | 'no' | 'unknown'; why: string }> {
  const r = await runTool(c.io, 'loginctl', ['show-user', c.io.user, '-p', 'Linger']);
  const m = /^Linger=(yes|no)$/m.exec(r.stdout);
  if (r.code === 0 && m) return { value: m[1] as 'yes' | 'no', why: '' };
  return { value: 'unknown', why: firstLine(r) };
}

function shadows(c: Ctx): string[] {
  const out: string[] = [];
  for (const dir of otherUnitDirs(c)) {
    for (const u of [c.names.service, c.names.timer]) {
      const p = posix.join(dir, u);
      if (lstatOrNull(p)) out.push(p);
    }
  }
  return out;
}

/** The other hbgen timers in the unit folder. */
function otherTimers(c: Ctx): string[] {
  try {
    return readdirSync(unitDir(c)).filter((f) => /^hbgen-.+\.timer$/.test(f) && f !== c.names.timer);
  } catch {
    return [];
  }
}

/** The two derived unit files before stop: this install's (to remove), changed (refused), or left alone. */
function unitFiles(c: Ctx, s: State | null): { files: string[]; refusals: string[]; notes: string[]; foreign: boolean } {
  const out = { files: [] as string[], refusals: [] as string[], notes: [] as string[], foreign: false };
  const rec = (path: string) => s?.hostFiles.find((r) => r.path === path);
  const [svcPath, timerPath] = backend.hostPaths(c).files as [string, string];
  const svc = derivedFileState(svcPath, rec(svcPath), c, systemdArg(c.names.wrapper));
  // The timer names no wrapper, only the service: it is this install's when the service is.
  let timer = derivedFileState(timerPath, rec(timerPath), c, `Unit=${c.names.service}`);
  if (timer === 'ours' && !rec(timerPath) && (svc === 'other' || svc === 'not-hbgen')) timer = 'other';
  for (const [path, st] of [[svcPath, svc], [timerPath, timer]] as const) {
    if (st === 'ours') out.files.push(path);
    else if (st === 'changed') out.refusals.push(changedRefusal(path));
    else if (st !== 'missing') {
      out.foreign = true;
      out.notes.push(leftAlone(path, st, c.spec.name));
    }
  }
  return out;
}

/**
 * A wake that failed, or ended on the stop's TERM (exit 143), leaves the service "failed":
 * the manager keeps listing it, and says "degraded", after its unit file is gone, until
 * reset-failed (systemctl(1)). Read with `show`, which a manager without the unit answers too.
 */
async function resetFailed(c: Ctx, say: (l: string) => void): Promise<void> {
  const r = await sc(c, 'show', '--property=ActiveState', c.names.service);
  if (!/^ActiveState=failed$/m.test(r.stdout)) return;
  await must(c, ['reset-failed', c.names.service]);
  say(`ran systemctl --user reset-failed ${c.names.service}`);
}

/**
 * systemdArg's word read back: `"…"` with `\x` for x, `%%` for % and `$$` for $. Only a
 * guess: wrapperIn accepts it only when systemdArg gives the same word again.
 */
function systemdArgBack(w: string): string | null {
  const m = /^"(.*)"$/s.exec(w);
  return m ? m[1]!.replace(/\\(.)|%%|\$\$/gs, (all, c: string | undefined) => c ?? all[0]!) : null;
}

/** hbgen's units of any name in the folder it writes them to, each name with the wrapper its service runs. */
/** A file's text when it is a regular file (a link, a FIFO or a file over 1 MiB is passed over, never waited on). */
function textOf(path: string): string | null {
  try {
    return readOrNull(path, 1 << 20, { noFollow: true })?.toString('utf8') ?? null;
  } catch {
    return null;
  }
}

function unitEntries(dir: string): HostEntry[] {
  const files = namesIn(dir);
  const byName = new Map<string, HostEntry>();
  for (const f of files) {
    const m = /^hbgen-(.+)\.(service|timer)$/.exec(f);
    if (!m || !NAME_PATTERN.test(m[1]!)) continue;
    // A unit file that is not a regular file is recorded (list and status say it) and passed over, never waited on.
    const bytes = readSoft(posix.join(dir, f));
    if (bytes === null) continue;
    const e = byName.get(m[1]!) ?? { name: m[1]!, where: [], wrapper: null, copies: [] };
    byName.set(e.name, e);
    e.where.push(posix.join(dir, f));
    e.copies.push({ copy: f, bytes });
    if (m[2] === 'service') {
      const text = bytes.toString('utf8');
      const exec = /^ExecStart=(.*)$/m.exec(text)?.[1] ?? '';
      e.wrapper = wrapperIn(text, e.name, lastWordBack(exec, `hbgen-${e.name}`, systemdArg, systemdArgBack), systemdArg);
    }
  }
  return [...byName.values()];
}

/**
 * The commands install runs, in order, as the panel shows them. `clean`: with catchUp
 * "once" (Persistent=true) systemd keeps the timer's last fire on disk, and a timer started
 * again after `hbgen stop` would replay at once a fire missed while it was off on purpose;
 * `clean --what=state` clears that stamp (systemctl(1), "clean"; systemd.timer(5),
 * Persistent=) while the timer is stopped, before it starts.
 */
function planCommands(c: Ctx, d: Pick<SystemdData, 'changed' | 'rearm' | 'forget' | 'clean' | 'enableLinger'>): { argv: string[]; note?: string }[] {
  const commands: { argv: string[]; note?: string }[] = [];
  if (d.forget) commands.push({ argv: ['systemctl', '--user', 'disable', '--now', c.names.timer], note: '(so that systemd forgets its last fire and starts no wake now)' });
  if (d.changed || d.forget) commands.push({ argv: ['systemctl', '--user', 'daemon-reload'] });
  if (d.clean) commands.push({ argv: ['systemctl', '--user', 'clean', '--what=state', c.names.timer], note: '(forget missed fires)' });
  if (d.rearm) commands.push({ argv: ['systemctl', '--user', 'enable', '--now', c.names.timer] });
  if (d.enableLinger) commands.push({ argv: ['loginctl', 'enable-linger', c.io.user], note: '(lingering is off: the timer would stop at logout)' });
  return commands;
}

export const backend: Backend<SystemdData> = {
  async preflight(c) {
    const refusals: string[] = [];
    const b = await bus(c);
    if (b.code !== 0) refusals.push(busRefusal(c, b));
    for (const p of shadows(c)) {
      refusals.push(`${p} is another unit named ${posix.basename(p)}: a second copy in ${unitDir(c)} would shadow it, giving two entries for one name; remove ${p} or give the spec another name`);
    }
    const plans: FilePlan[] = [];
    for (const u of [c.names.service, c.names.timer]) {
      const f = c.files.find((x) => x.path === `host/${u}`)!;
      const path = posix.join(unitDir(c), u);
      const pf = planFile(path, Buffer.from(f.content), f.mode, c.spec, c.names, c.prev?.hostFiles.find((r) => r.path === path));
      if (pf.refusal) refusals.push(pf.refusal);
      if (pf.plan) plans.push(pf.plan);
    }
    const reachable = b.code === 0;
    const enabled = reachable && (await sc(c, 'is-enabled', c.names.timer)).stdout.trim() === 'enabled';
    const active = reachable && (await sc(c, 'is-active', c.names.timer)).stdout.trim() === 'active';
    const l = await linger(c);
    const changed = plans.some((p) => p.action !== 'same');
    const timerChanged = plans.some((p) => p.path.endsWith('.timer') && p.action !== 'same');
    // Never `restart`: see forgotten() for why a timer is started only once the manager forgot it.
    const rearm = !enabled || !active || timerChanged;
    const forget = rearm && (enabled || active || (reachable && (await held(c))));
    // Persistent=true keeps the last fire on disk: cleared before a start (planCommands).
    const clean = rearm && c.spec.catchUp === 'once';
    const enableLinger = l.value === 'no';
    const commands = planCommands(c, { changed, rearm, forget, clean, enableLinger });
    // Lingering off: the loginctl command's own note in the panel says why install runs it.
    const caveats = [
      ...(l.value === 'yes'
        ? [`lingering is on for ${c.io.user}: the timer also runs while you are logged out`]
        : l.value === 'no'
          ? []
          : [`hbgen cannot tell whether lingering is on (loginctl: ${l.why}); without it systemd stops the timer when you log out: run \`loginctl enable-linger ${c.io.user}\` yourself`]),
      catchUpCaveat(c.spec),
    ];
    const prevLinger = c.prev?.systemd;
    return {
      refusals,
      caveats,
      hostFiles: plans,
      writes: [],
      commands,
      checks: [
        ['systemctl', '--user', 'is-enabled', c.names.timer],
        ['systemctl', '--user', 'list-timers', c.names.timer, '--all', '--no-pager'],
      ],
      unchanged: !changed && enabled && active && refusals.length === 0,
      ids: { service: c.names.service, timer: c.names.timer },
      data: { enabled, active, enableLinger, changed, timerChanged, rearm, forget, clean },
      stateExtra: {
        systemd: {
          lingerBefore: prevLinger?.lingerEnabledByHbgen ? 'no' : l.value,
          lingerEnabledByHbgen: enableLinger || (prevLinger?.lingerEnabledByHbgen ?? false),
        },
      },
    } satisfies Preflight<SystemdData>;
  },

  async apply(c, p, j: Journal) {
    const { enabled, active, enableLinger, changed, rearm, forget, clean } = p.data;
    const timer = c.names.timer;
    // Runs last on undo, when the previous unit files are back (and the timer install
    // started is off again): the earlier timer comes back as it was, started the same way.
    let off = false;
    j.push(`reloaded systemd with the previous units${forget && (enabled || active) ? ` and turned ${timer} back on` : ''}`, async () => {
      if (changed || off) await must(c, ['daemon-reload']);
      if (off && active) {
        await forgotten(c);
        await must(c, enabled ? ['enable', '--now', timer] : ['start', timer]);
      } else if (off && enabled) await must(c, ['enable', timer]);
    });
    if (forget) {
      await must(c, ['disable', '--now', timer]);
      off = true;
    }
    for (const f of p.hostFiles) writePlanned(f, j, 0o755);
    if (changed || forget) await must(c, ['daemon-reload']);
    if (rearm) {
      await forgotten(c);
      // A systemd without `clean` for timers (older than 243) keeps the old stamp: the worst
      // is the one replayed fire this avoids, so its failure does not undo the install.
      if (clean) await sc(c, 'clean', '--what=state', timer);
      await must(c, ['enable', '--now', timer]);
      j.push(`turned ${timer} off again`, () => must(c, ['disable', '--now', timer]));
    }
    if (enableLinger) {
      const r = await runTool(c.io, 'loginctl', ['enable-linger', c.io.user]);
      if (r.code !== 0) throw new UserError([`\`loginctl enable-linger ${c.io.user}\` failed (${firstLine(r)}); ask an administrator to run it, or install with cron`]);
      j.push(`turned lingering off again for ${c.io.user}`, async () => {
        const u = await runTool(c.io, 'loginctl', ['disable-linger', c.io.user]);
        if (u.code !== 0) throw new UserError([`\`loginctl disable-linger ${c.io.user}\` failed (${firstLine(u)})`]);
      });
    }
  },

  async listed(c) {
    const e = await sc(c, 'is-enabled', c.names.timer);
    const lt = await sc(c, 'list-timers', c.names.timer, '--all', '--no-pager');
    const row = lt.stdout.split('\n').find((l) => l.includes(c.names.timer));
    const state = e.stdout.trim() || firstLine(e);
    const ok = state === 'enabled' && lt.code === 0 && row !== undefined;
    return {
      ok,
      observed: `is-enabled ${c.names.timer}: ${state}; list-timers: ${row ? row.trim().replace(/\s+/g, ' ') : `no row for ${c.names.timer}`}`,
    };
  },

  hostPaths(c) {
    const d = unitDir(c);
    return { files: [posix.join(d, c.names.service), posix.join(d, c.names.timer)], dirs: [posix.dirname(posix.dirname(d)), posix.dirname(d), d] };
  },

  async planStop(c, s: State | null): Promise<StopPlan> {
    const absent = `systemd holds no ${c.names.timer} (already removed)`;
    const { files, refusals, notes, foreign } = unitFiles(c, s);
    const b = await bus(c);
    if (b.code !== 0) {
      // Without state.json a missing bus only means hbgen cannot look: say so, refuse nothing.
      if (s || files.length) refusals.push(busRefusal(c, b));
      else notes.push(`cannot reach your systemd user manager (${firstLine(b)}), so hbgen could not look for ${c.names.timer}`);
    }
    // Units hbgen did not write (or another install's) are not stopped either.
    const reachable = b.code === 0 && !foreign;
    const timerKnown = reachable && ['enabled', 'enabled-runtime', 'linked'].includes((await sc(c, 'is-enabled', c.names.timer)).stdout.trim());
    const timerActive = reachable && (await sc(c, 'is-active', c.names.timer)).stdout.trim() === 'active';
    const serviceActive = reachable && ['active', 'activating', 'deactivating', 'reloading'].includes((await sc(c, 'is-active', c.names.service)).stdout.trim());
    // Lingering goes off again only when install turned it on and no other hbgen timer needs it.
    // A state.json inside the repo may have been written by the agent: there it cannot
    // make stop turn lingering off, it only earns the advice.
    const lingerOurs = s?.systemd?.lingerEnabledByHbgen === true && otherTimers(c).length === 0;
    // Resolved through links: a state folder that reaches the repo by a link is inside it too.
    const dropLinger = lingerOurs && !reachesRepo(c.names.stateDir, c.spec.repo);
    if (lingerOurs && !dropLinger) {
      notes.push(`state.json says install turned lingering on; it sits inside the repo, where the agent can write, so hbgen leaves lingering as it is: run \`loginctl disable-linger ${c.io.user}\` if nothing else needs it`);
    }
    const found = [...files];
    if (timerKnown || timerActive) found.push(`${c.names.timer} (${[timerKnown ? 'enabled' : '', timerActive ? 'active' : ''].filter(Boolean).join(' and ')})`);
    if (serviceActive) found.push(`${c.names.service} (running)`);
    return {
      refusals,
      found,
      notes,
      absent,
      async run(say) {
        if (timerKnown || timerActive) {
          await must(c, ['disable', '--now', c.names.timer]);
          say(`ran systemctl --user disable --now ${c.names.timer}`);
        }
        if (serviceActive) {
          await must(c, ['stop', c.names.service]);
          say(`ran systemctl --user stop ${c.names.service}`);
        }
        for (const path of files) {
          rmSync(path, { force: true });
          say(`removed ${path}`);
        }
        if (files.length) {
          await must(c, ['daemon-reload']);
          say('ran systemctl --user daemon-reload');
        }
        if (reachable) await resetFailed(c, say);
        if (dropLinger) {
          const r = await runTool(c.io, 'loginctl', ['disable-linger', c.io.user]);
          say(r.code === 0 ? `ran loginctl disable-linger ${c.io.user}` : `could not turn lingering off (${firstLine(r)}); run \`loginctl disable-linger ${c.io.user}\` if nothing else needs it`);
        }
      },
    };
  },

  async audit(c, _s): Promise<Audit> {
    const problems: string[] = [];
    const info: string[] = [];
    const b = await bus(c);
    if (b.code !== 0) {
      problems.push(busRefusal(c, b).replace(/, then try again$/, ', then run status again'));
      return { problems, info, present: false };
    }
    for (const u of [c.names.service, c.names.timer]) {
      const p = posix.join(unitDir(c), u);
      if (!lstatOrNull(p)) problems.push(`orphan: ${p} is missing, so systemd has no ${u}; run \`hbgen install\` to put it back`);
    }
    const e = (await sc(c, 'is-enabled', c.names.timer)).stdout.trim() || 'not-found';
    const a = (await sc(c, 'is-active', c.names.timer)).stdout.trim() || 'unknown';
    if (e !== 'enabled' || a !== 'active') {
      problems.push(`orphan: state.json says installed, but ${c.names.timer} is ${e} and ${a}; run \`hbgen install\` to enable it again`);
    } else info.push(`${c.names.timer} is enabled and active`);
    for (const p of shadows(c)) problems.push(`duplicate: ${p} is a second unit named ${posix.basename(p)}; remove it or give the spec another name`);
    // What runs in place of the entry, or under it, without a byte of hbgen's files changed.
    problems.push(...systemdOverrides(c.home, c.io, [c.names.service, c.names.timer]));
    const env = await managerEnvProblems(c.io);
    problems.push(...env.problems);
    info.push(...env.info);
    const lt = await sc(c, 'list-timers', c.names.timer, '--all', '--no-pager');
    const row = lt.stdout.split('\n').find((l) => l.includes(c.names.timer));
    const next = row ? /^\s*(\S+ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+)/.exec(row)?.[1] : undefined;
    // A next fire only for a timer that is there and running (an orphan fires never).
    const present = e === 'enabled' && a === 'active';
    if (present) info.push(`next fire: ${next ?? (row ? row.trim().replace(/\s+/g, ' ') : 'none listed by systemctl --user list-timers')}`);
    const l = await linger(c);
    if (l.value === 'no') info.push(`warning: lingering is off for ${c.io.user}: the timer stops when you log out; run \`loginctl enable-linger ${c.io.user}\``);
    return { problems, info, present };
  },

  // A unit of the person's own in their unit folders (systemd.unit(5)) whose command runs
  // the wrapper: named, never touched. Comment lines run nothing.
  async strays(c, own) {
    const config = c.io.env.XDG_CONFIG_HOME?.startsWith('/') ? c.io.env.XDG_CONFIG_HOME : posix.join(c.home, '.config');
    const data = c.io.env.XDG_DATA_HOME?.startsWith('/') ? c.io.env.XDG_DATA_HOME : posix.join(c.home, '.local', 'share');
    const dirs = [...new Set([unitDir(c), posix.join(config, 'systemd', 'user'), posix.join(data, 'systemd', 'user')])];
    const w = c.names.wrapper;
    const found = [];
    for (const dir of dirs) {
      for (const f of namesIn(dir)) {
        const path = posix.join(dir, f);
        if (!f.endsWith('.service') || own.has(path)) continue;
        const body = textOf(path)?.split('\n').filter((l) => !/^\s*[#;]/.test(l)).join('\n');
        if (body && runsWrapper(body, w, [systemdArg(w)])) found.push({ where: path, text: null, fix: `run \`systemctl --user disable --now ${f}\` and delete ${path} (and its .timer, if it has one)` });
      }
    }
    return { found, notes: [] };
  },

  async inventory(c, toolsOnPath) {
    const dir = unitDir(c);
    const looked = toolsOnPath || lstatOrNull(dir) !== null;
    const entries = looked ? unitEntries(dir) : [];
    // Files only: the manager's environment is sharedTamper's, asked by `hbgen list` once (src/host/audit/inventory.ts).
    for (const e of entries) e.tampered = systemdOverrides(c.home, c.io, [`hbgen-${e.name}.service`, `hbgen-${e.name}.timer`]);
    return { place: dir, looked, entries, notes: [] };
  },

  // The user manager's environment reaches every unit it starts (src/host/audit/tamper.ts).
  async sharedTamper(io) {
    return (await managerEnvProblems(io)).problems;
  },

  // Where `systemctl --user` reaches a user manager (over su, sudo or a bare ssh session it
  // does not, and install would then refuse). The same question install asks first, bounded:
  // a hung bus must not hang init.
  async detect(io) {
    if (!findOnPath('systemctl', io.env.PATH)) return { fits: false, why: 'systemctl is not on PATH, so there is no systemd user manager to use' };
    const r = await runTool(io, 'systemctl', ['--user', 'show', '--property=Version'], { timeoutMs: 10_000 });
    if (r.code === 0) return { fits: true, why: '`systemctl --user` reaches your user manager' };
    return {
      fits: false,
      why: `\`systemctl --user\` cannot reach a user manager here (${firstLine(r)}); from a login session of your own (over ssh: XDG_RUNTIME_DIR=/run/user/$(id -u)) you may set schedule.scheduler to "systemd-user" instead`,
    };
  },
};
