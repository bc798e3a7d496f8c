// launchd: ~/Library/LaunchAgents/<label>.plist (folder created when missing, as on a
// fresh Mac) and `launchctl bootstrap gui/<uid>`. bootout is asynchronous: an immediate
// bootstrap fails with "Bootstrap failed: 5: Input/output error", so hbgen polls
// `launchctl print gui/<uid>/<label>` until the label is gone and retries once on exit 5.
import { catchUpCaveat } from '../audit/catchup.ts';
import { rmSync } from 'node:fs';
import { posix } from 'node:path';
import { UserError } from '../../errors.ts';
import type { Plan } from '../../schedule.ts';
import {
  type Audit,
  type Backend,
  type Ctx,
  type Journal,
  type PlannedCommand,
  type Preflight,
  type StopPlan,
  type HostEntry,
  changedRefusal,
  derivedFileState,
  leftAlone,
  nothingToStop,
  planFile,
  pollUntil,
  runsWrapper,
  wrapperIn,
  writePlanned,
} from '../backend.ts';
import { NAME_PATTERN } from '../../formats.ts';
import { lstatOrNull, namesIn, readOrNull, readSoft } from '../fsx.ts';
import { nextFireText } from '../audit/next.ts';
import { firstLine, runTool } from '../proc/tools.ts';
import type { State } from '../state.ts';

/** A path as the plist writer puts it in a <string>: XML text, `&` and `<` escaped. */
const xmlText = (p: string) => `<string>${p.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</string>`;

/**
 * The last ProgramArguments string of a plist hbgen wrote (the wrapper's path), its XML
 * text read back. Only a guess: wrapperIn accepts it only when xmlText gives it again.
 */
function lastProgramArgument(text: string): string | null {
  const args = /<key>ProgramArguments<\/key>\s*<array>([^]*?)<\/array>/.exec(text)?.[1];
  const last = args?.match(/<string>[^<]*<\/string>/g)?.pop();
  if (!last) return null;
  const ents: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };
  return last.slice('<string>'.length, -'</string>'.length).replace(/&(amp|lt|gt);/g, (e) => ents[e]!);
}

/** hbgen's LaunchAgents of any name, each with the wrapper it runs. */
function agentEntries(dir: string): HostEntry[] {
  const files = namesIn(dir);
  const out: HostEntry[] = [];
  for (const f of files) {
    const name = /^dev\.hbgen\.(.+)\.plist$/.exec(f)?.[1];
    const bytes = name && NAME_PATTERN.test(name) ? readSoft(posix.join(dir, f)) : null;
    if (!name || bytes === null) continue;
    const text = bytes.toString('utf8');
    out.push({ name, where: [posix.join(dir, f)], wrapper: wrapperIn(text, name, lastProgramArgument(text), xmlText), copies: [{ copy: f, bytes }] });
  }
  return out;
}

export function plistPath(c: Pick<Ctx, 'home' | 'names'>): string {
  return posix.join(c.home, 'Library', 'LaunchAgents', `${c.names.label}.plist`);
}

const domain = (c: Ctx) => `gui/${c.io.uid}`;
const target = (c: Ctx) => `gui/${c.io.uid}/${c.names.label}`;

async function loaded(c: Ctx): Promise<boolean> {
  return (await runTool(c.io, 'launchctl', ['print', target(c)])).code === 0;
}

async function bootoutAndWait(c: Ctx): Promise<void> {
  const r = await runTool(c.io, 'launchctl', ['bootout', target(c)]);
  // A label that is already gone (exit 3/113, "No such process") is what we want.
  if (r.code !== 0 && (await loaded(c))) {
    throw new UserError([`\`launchctl bootout ${target(c)}\` failed (${firstLine(r)}); check the job with \`launchctl print ${target(c)}\``]);
  }
  if (!(await pollUntil(async () => !(await loaded(c)), 10_000))) {
    throw new UserError([`launchd still lists ${c.names.label} 10 s after \`launchctl bootout\`; wait a moment and run the command again`]);
  }
}

async function bootstrap(c: Ctx, plist: string): Promise<void> {
  let r = await runTool(c.io, 'launchctl', ['bootstrap', domain(c), plist]);
  if (r.code === 5 || /Bootstrap failed: 5\b/.test(r.stderr)) {
    // The previous bootout has not finished: wait until the label is gone, then once more.
    await pollUntil(async () => !(await loaded(c)), 10_000);
    r = await runTool(c.io, 'launchctl', ['bootstrap', domain(c), plist]);
  }
  if (r.code !== 0) {
    throw new UserError([`\`launchctl bootstrap ${domain(c)} ${plist}\` failed (${firstLine(r)}); check the plist with \`plutil -lint ${plist}\` and that you are logged in at the Mac`]);
  }
}

function duplicatePaths(c: Ctx): string[] {
  return ['/Library/LaunchAgents', '/Library/LaunchDaemons'].map((d) => posix.join(d, `${c.names.label}.plist`)).filter((p) => lstatOrNull(p));
}

/** Whether launchd held the job before install. */
interface LaunchdData {
  loaded: boolean;
}

export const backend: Backend<LaunchdData> = {
  // launchd is macOS's scheduler, and there the only one hbgen uses.
  async detect(_io, platform) {
    return platform === 'darwin' ? { fits: true, why: 'macOS' } : { fits: false, why: 'this is not macOS' };
  },

  async preflight(c) {
    const refusals: string[] = [];
    const d = await runTool(c.io, 'launchctl', ['print', domain(c)]);
    if (d.code !== 0) {
      refusals.push(
        `launchd has no GUI session for uid ${c.io.uid} (\`launchctl print ${domain(c)}\`: ${firstLine(d)}); LaunchAgents run only for a user logged in at the Mac: log in there (not over ssh) and run install from its Terminal`,
      );
    }
    for (const p of duplicatePaths(c)) {
      refusals.push(`${p} also defines ${c.names.label}: launchd would hold two jobs of that name; remove that file (\`sudo launchctl bootout system/${c.names.label}\`, then \`sudo rm ${p}\`) or give the spec another name`);
    }
    const file = c.files.find((f) => f.path === `host/${c.names.label}.plist`)!;
    const path = plistPath(c);
    const pf = planFile(path, Buffer.from(file.content), file.mode, c.spec, c.names, c.prev?.hostFiles.find((r) => r.path === path));
    if (pf.refusal) refusals.push(pf.refusal);
    const isLoaded = d.code === 0 && (await loaded(c));
    const changed = pf.plan ? pf.plan.action !== 'same' : false;
    const commands: PlannedCommand[] = [];
    if (changed || !isLoaded) {
      if (isLoaded) commands.push({ argv: ['launchctl', 'bootout', target(c)] });
      commands.push({ argv: ['launchctl', 'bootstrap', domain(c), path] });
    }
    const p: Preflight<LaunchdData> = {
      refusals,
      caveats: [
        'launchd runs a LaunchAgent only while you are logged in at the Mac (a GUI session): after a restart nothing fires until you log in',
        catchUpCaveat(c.spec),
      ],
      hostFiles: pf.plan ? [pf.plan] : [],
      writes: [],
      commands,
      checks: [['launchctl', 'print', target(c)]],
      unchanged: !changed && isLoaded && refusals.length === 0,
      ids: { label: c.names.label },
      data: { loaded: isLoaded },
      stateExtra: {},
    };
    return p;
  },

  async apply(c, p, j: Journal) {
    const plan = p.hostFiles[0]!;
    const wasLoaded = p.data.loaded;
    const path = plistPath(c);
    // Runs last on undo: the old plist is back in place by then.
    j.push(wasLoaded ? `loaded the previous ${c.names.label} again` : `left ${c.names.label} unloaded`, async () => {
      if (wasLoaded && plan.prior !== null && !(await loaded(c))) await bootstrap(c, path);
    });
    writePlanned(plan, j, 0o755);
    if (p.commands.length === 0) return;
    if (wasLoaded) await bootoutAndWait(c);
    await bootstrap(c, path);
    j.push(`unloaded ${c.names.label} (launchctl bootout)`, async () => {
      if (await loaded(c)) await bootoutAndWait(c);
    });
  },

  async listed(c) {
    const r = await runTool(c.io, 'launchctl', ['print', target(c)]);
    return r.code === 0
      ? { ok: true, observed: `\`launchctl print ${target(c)}\` exit 0: launchd holds the job` }
      : { ok: false, observed: `\`launchctl print ${target(c)}\`: ${firstLine(r)}` };
  },

  hostPaths(c) {
    const d = posix.dirname(plistPath(c));
    return { files: [plistPath(c)], dirs: [posix.dirname(d), d] };
  },

  async planStop(c, s: State | null): Promise<StopPlan> {
    const path = plistPath(c);
    const absent = `launchd holds no ${c.names.label} (already removed)`;
    const st = derivedFileState(path, s?.hostFiles.find((r) => r.path === path), c, xmlText(c.names.wrapper));
    if (st === 'changed') return nothingToStop(absent, [], [changedRefusal(path)]);
    // A job loaded from a plist hbgen did not write (or another install's) is not booted out.
    if (st === 'other' || st === 'not-hbgen') return nothingToStop(absent, [leftAlone(path, st, c.spec.name)]);
    const isLoaded = await loaded(c);
    const found = [...(st === 'ours' ? [path] : []), ...(isLoaded ? [`the launchd job ${c.names.label} (loaded in gui/${c.io.uid})`] : [])];
    return {
      refusals: [],
      found,
      notes: [],
      absent,
      async run(say) {
        if (isLoaded) {
          await bootoutAndWait(c);
          say(`ran launchctl bootout ${target(c)}`);
        }
        if (st === 'ours') {
          rmSync(path, { force: true });
          say(`removed ${path}`);
        }
      },
    };
  },

  async audit(c, s, plan: Plan): Promise<Audit> {
    const problems: string[] = [];
    const info: string[] = [];
    const path = plistPath(c);
    const file = !!lstatOrNull(path);
    if (!file) problems.push(`orphan: ${path} is missing, so launchd has nothing to run; run \`hbgen install\` to put it back`);
    const r = await runTool(c.io, 'launchctl', ['print', target(c)]);
    if (r.code !== 0) problems.push(`orphan: state.json says installed, but launchd does not hold ${c.names.label} (${firstLine(r)}); run \`hbgen install\` to load it again`);
    else info.push(`launchd holds ${c.names.label} (launchctl print ${target(c)})`);
    for (const p of duplicatePaths(c)) problems.push(`duplicate: ${p} also defines ${c.names.label}; remove it or give the spec another name`);
    // launchd keeps a loaded job after its plist is deleted, until logout: it still fires.
    const present = r.code === 0;
    if (present) info.push(`next fire: ${nextFireText(plan, c.io.now())}${file ? '' : ' (until the next logout: the plist is gone)'}`);
    return { problems, info, present };
  },

  // A LaunchAgent of the person's own, under another file name, whose arguments run the
  // wrapper: named, never touched.
  async strays(c, own) {
    const dir = posix.join(c.home, 'Library', 'LaunchAgents');
    const w = c.names.wrapper;
    const found = [];
    for (const f of namesIn(dir)) {
      const path = posix.join(dir, f);
      if (!f.endsWith('.plist') || own.has(path)) continue;
      let text: string | null = null;
      try {
        text = readOrNull(path, 1 << 20, { noFollow: true })?.toString('utf8') ?? null;
      } catch {
        // a link, a FIFO: passed over, never waited on
      }
      if (text && runsWrapper(text, w, [xmlText(w)])) found.push({ where: path, text: null, fix: `run \`launchctl bootout gui/${c.io.uid} ${path}\` and delete the file` });
    }
    return { found, notes: [] };
  },

  async inventory(c, toolsOnPath) {
    const dir = posix.join(c.home, 'Library', 'LaunchAgents');
    const looked = toolsOnPath || lstatOrNull(dir) !== null;
    return { place: dir, looked, entries: looked ? agentEntries(dir) : [], notes: [] };
  },
};
