// What changes the scheduler entry without changing a byte of hbgen's files, for `hbgen
// status` (problems, exit 1) and `hbgen list` (state "tampered"). The entry checks the
// wrapper with tools at fixed paths under its own PATH (generators/entry.ts), so a PATH
// set for it changes nothing any more; what still does:
// - systemd: a drop-in (`systemctl --user edit`, `set-property`, a file in any
//   `<unit>.d/`, `hbgen-.service.d/` or `service.d/` the user manager reads) may replace
//   ExecStart= or add Environment=; a unit of the same name in a folder read before
//   ~/.config/systemd/user replaces hbgen's; `systemctl --user set-environment` (and
//   environment.d) gives every unit variables;
// - cron: variable lines above or inside hbgen's block apply to its lines (crontab(5));
//   SHELL= makes cron run the line with another program than /bin/sh;
// - everywhere: variables read before the entry's first word (the dynamic loader's, and
//   bash's when it is /bin/sh), which no script can undo (ENTRY_ENV below).
// Every message starts with "tampered:", the code status gives it (src/host/audit/audit.ts problemOf).
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { lstatOrNull, readOrNull } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { runTool } from '../proc/tools.ts';

/** Why a variable in the scheduler's environment changes what the entry runs, or null. */
export function entryEnvWhy(name: string): string | null {
  if (/^(LD|DYLD)_/.test(name)) return "the dynamic loader reads it before /bin/sh runs the entry's first word (LD_PRELOAD loads any code into it)";
  if (name.startsWith('BASH_FUNC_')) return 'bash, as /bin/sh, turns it into a shell function that runs in place of a command of the wrapper';
  if (name === 'BASH_ENV' || name === 'ENV') return 'a shell runs the file it names when it starts';
  if (name === 'SHELLOPTS' || name === 'BASHOPTS') return 'bash takes its options from it';
  return null;
}

const DROP_IN_ADVICE = 'if you did not make it, someone with your rights did';

/**
 * The user manager's unit folders (systemd.unit(5), "User Unit Search Path"), in the order
 * it reads them, and where ~/.config/systemd/user (hbgen's) is among them.
 */
function userUnitPath(home: string, env: Record<string, string | undefined>, uid: number): { dirs: string[]; ours: number } {
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : posix.join(home, '.config');
  const data = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : posix.join(home, '.local/share');
  const run = env.XDG_RUNTIME_DIR?.startsWith('/') ? env.XDG_RUNTIME_DIR : `/run/user/${uid}`;
  const dirs = [
    posix.join(config, 'systemd/user.control'),
    posix.join(run, 'systemd/user.control'),
    posix.join(run, 'systemd/transient'),
    posix.join(run, 'systemd/generator.early'),
    posix.join(config, 'systemd/user'),
    '/etc/xdg/systemd/user',
    '/etc/systemd/user',
    posix.join(run, 'systemd/user'),
    '/run/systemd/user',
    posix.join(run, 'systemd/generator'),
    posix.join(data, 'systemd/user'),
    '/usr/local/share/systemd/user',
    '/usr/share/systemd/user',
    '/usr/local/lib/systemd/user',
    '/usr/lib/systemd/user',
    posix.join(run, 'systemd/generator.late'),
  ];
  return { dirs, ours: 4 };
}

/** The drop-in folder names that apply to `unit`: its own, each dash prefix's, and its type's. */
function dropInNames(unit: string): string[] {
  const dot = unit.lastIndexOf('.');
  const stem = unit.slice(0, dot);
  const type = unit.slice(dot + 1);
  const out = [`${unit}.d`, `${type}.d`];
  for (let i = stem.indexOf('-'); i >= 0; i = stem.indexOf('-', i + 1)) out.push(`${stem.slice(0, i + 1)}.${type}.d`);
  return out;
}

const confsIn = (dir: string): string[] => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.conf')).sort().map((f) => posix.join(dir, f));
  } catch {
    return [];
  }
};

/** Drop-ins and overriding units for hbgen's units: one problem each. */
export function systemdOverrides(home: string, io: Pick<HostIO, 'env' | 'uid'>, units: string[]): string[] {
  const { dirs, ours } = userUnitPath(home, io.env, io.uid);
  const out: string[] = [];
  for (const unit of units) {
    dirs.forEach((dir, i) => {
      for (const d of dropInNames(unit)) {
        for (const conf of confsIn(posix.join(dir, d))) {
          out.push(`tampered: ${conf} is a systemd drop-in for ${unit}, which can replace its ExecStart= or add variables, so the timer may run something other than hbgen's checked entry; ${DROP_IN_ADVICE}: read it, delete it, run \`systemctl --user daemon-reload\`, then \`hbgen status\` again`);
        }
      }
      // Units later on the path are shadowed by hbgen's (status reports those as duplicates).
      if (i < ours && lstatOrNull(posix.join(dir, unit))) {
        out.push(`tampered: ${posix.join(dir, unit)} replaces hbgen's ${unit} (systemd reads ${dir} first), so the timer runs what that file says; ${DROP_IN_ADVICE}: delete it, run \`systemctl --user daemon-reload\`, then \`hbgen status\` again`);
      }
    });
  }
  return [...new Set(out)];
}

/** The names `systemctl --user show-environment` lists, or null when it cannot be asked. */
async function managerEnvNames(io: HostIO): Promise<string[] | null> {
  const r = await runTool(io, 'systemctl', ['--user', 'show-environment']);
  if (r.code !== 0) return null;
  return r.stdout.split('\n').map((l) => /^([^=\s]+)=/.exec(l)?.[1]).filter((k): k is string => k !== undefined);
}

/** Variables of the user manager's environment that change what the entry runs: one problem each. */
export async function managerEnvProblems(io: HostIO): Promise<{ problems: string[]; info: string[] }> {
  const keys = await managerEnvNames(io);
  if (keys === null) return { problems: [], info: ["the systemd user manager's environment could not be read (`systemctl --user show-environment`)"] };
  const problems: string[] = [];
  for (const k of keys) {
    const why = entryEnvWhy(k);
    if (why) {
      problems.push(`tampered: your systemd user manager's environment sets ${k}, which every unit gets, hbgen's entry included: ${why}; ${DROP_IN_ADVICE}: run \`systemctl --user unset-environment ${k}\`, remove it from ~/.config/environment.d and systemd's user.conf, then \`hbgen status\` again`);
    }
  }
  return { problems, info: [] };
}

/** The login shells /etc/shells lists (root's file), and /bin/sh. */
export function systemShells(): string[] {
  const text = readOrNull('/etc/shells')?.toString('utf8') ?? '';
  return ['/bin/sh', ...text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('/'))];
}

/**
 * Variable lines of a crontab that apply to the line at index `upTo` (cron applies each
 * assignment to the lines after it): those that change what hbgen's entry runs.
 */
export function crontabEnvProblems(table: string, upTo: number, name: string, shells: string[] = systemShells()): string[] {
  const out: string[] = [];
  const lines = table.split('\n').slice(0, upTo);
  lines.forEach((l, i) => {
    // crontab(5): name = value, the name optionally quoted; comments and job lines are not assignments.
    const m = /^[ \t]*(["']?)([^\s=#"']+)\1[ \t]*=[ \t]*(.*)$/.exec(l);
    if (!m || /^[ \t]*[\d*@]/.test(l)) return;
    const [, , key, raw] = m as unknown as [string, string, string, string];
    const value = raw.trim().replace(/^(["'])(.*)\1$/, '$2');
    // A shell the system lists (/etc/shells, root's) only starts /bin/sh with the entry; another program replaces it.
    const why = key === 'SHELL' ? (shells.includes(value) ? null : 'cron runs every line after it with that program instead of /bin/sh, and it is no shell /etc/shells lists') : entryEnvWhy(key);
    if (why) {
      out.push(`tampered: line ${i + 1} of your crontab sets ${key}, which applies to hbgen's block "${name}" below it: ${why}; ${DROP_IN_ADVICE}: remove the line with \`crontab -e\`, then \`hbgen status\` again`);
    }
  });
  return out;
}
