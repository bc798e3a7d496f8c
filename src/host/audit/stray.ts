// Entries that run an install's wrapper but are not hbgen's: a copy of the job line left in
// the crontab outside every hbgen block, a unit in the user's unit folders or a LaunchAgent
// under another file name. Each fires a full wake whatever state.json says, so a stopped
// install with one of these is not stopped. They are found by the wrapper's path
// (`<stateDir>/heartbeat.sh`, bare between blanks or quotes, or as the scheduler's own
// quoting writes it) and are never edited by hbgen: a person wrote them, and the crontab's
// other bytes are the person's. stop, status and doctor name each with how to remove it.
// hbgen's own entries of any name (blocks, hbgen-<name>.service, dev.hbgen.<name>.plist
// that entryOwner recognises) are not strays: stop and status handle them by name
// (src/host/audit/found.ts, inventory.ts).
import { posix } from 'node:path';
import { ANY_CRON_MARKER } from '../../formats.ts';
import { cronWord, systemdArg } from '../../escape.ts';
import type { Names } from '../../names.ts';
import { namesIn, readOrNull } from '../fsx.ts';
import type { HostIO } from '../io.ts';
import { crontabRunner, readCrontab } from '../cron/crontab.ts';
import { findOnPath, toolsPresent } from '../proc/tools.ts';
import { hostEntries } from './inventory.ts';

export interface Stray {
  scheduler: 'cron' | 'systemd-user' | 'launchd';
  /** Where it is: "line 4 of your crontab", or the file's path. */
  where: string;
  /** The crontab line as it reads (shortened), or null for a file. */
  text: string | null;
  /** How the person removes it, one clause. */
  fix: string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Does `text` name `wrapper` as a whole path: bare between blanks, quotes, tags or `=`, or as `quoted`? */
export function runsWrapper(text: string, wrapper: string, quoted: string[]): boolean {
  if (quoted.some((q) => text.includes(q))) return true;
  return new RegExp(`(?:^|[\\s'"=>])${escapeRe(wrapper)}(?=$|[\\s'"<;&|)])`, 'm').test(text);
}

/** A crontab line that runs a command (not blank, not a comment, not an environment line). */
function isJob(t: string): boolean {
  if (/^[ \t]*(#|$)/.test(t)) return false;
  return !/^[ \t]*(?:"[^"]*"|'[^']*'|[^ \t="']+)[ \t]*=/.test(t);
}

/** The crontab's job lines outside every hbgen block that run `wrapper`: 0-based index and text. */
export function strayCronLines(table: Buffer, wrapper: string): { line: number; text: string }[] {
  const lines = table.toString('latin1').split('\n');
  const out: { line: number; text: string }[] = [];
  let open: string | null = null;
  lines.forEach((t, i) => {
    const m = ANY_CRON_MARKER.exec(t);
    if (open === null && m?.[1] === 'BEGIN') open = `# END ${t.slice('# BEGIN '.length)}`;
    else if (open !== null && t === open) open = null;
    else if (open === null && isJob(t) && runsWrapper(t, wrapper, [cronWord(wrapper)])) out.push({ line: i, text: t });
  });
  return out;
}

/** A file's text when it is a regular file hbgen may read (a link, a FIFO or a huge file is passed over). */
function textOf(path: string): string | null {
  try {
    return readOrNull(path, 1 << 20, { noFollow: true })?.toString('utf8') ?? null;
  } catch {
    return null;
  }
}

/** The user's own unit folders (systemd.unit(5)): those a user's files live in. */
function userUnitDirs(home: string, env: Record<string, string | undefined>): string[] {
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : posix.join(home, '.config');
  const data = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : posix.join(home, '.local', 'share');
  return [...new Set([posix.join(home, '.config', 'systemd', 'user'), posix.join(config, 'systemd', 'user'), posix.join(data, 'systemd', 'user')])];
}

// A copied job line is long (hbgen's entry checks the wrapper's SHA-256): its schedule and its end, which names the wrapper.
const shorten = (t: string) => (t.length > 160 ? `${t.slice(0, 60)} ... ${t.slice(-90)}` : t);

/**
 * Every stray entry that runs `n.wrapper` on this host, and notes for what could not be
 * looked at. Read-only.
 */
export async function strayEntries(io: HostIO, home: string, n: Names): Promise<{ strays: Stray[]; notes: string[] }> {
  const strays: Stray[] = [];
  const notes: string[] = [];
  // hbgen's own entries that run this wrapper, whatever their name: handled by stop and status as hbgen's.
  const own = new Set((await hostEntries(io, home)).entries.filter((e) => e.wrapper === n.wrapper).flatMap((e) => e.where));
  if (toolsPresent('cron', io.env.PATH, 'inspect').ok) {
    try {
      const now = await readCrontab({ runner: crontabRunner({ command: findOnPath('crontab', io.env.PATH) ?? 'crontab', env: io.env }) });
      if (now.state === 'present') {
        for (const l of strayCronLines(now.table, n.wrapper)) {
          strays.push({ scheduler: 'cron', where: `line ${l.line + 1} of your crontab`, text: shorten(l.text), fix: 'delete that line with `crontab -e` (hbgen never edits a line of your crontab outside its block)' });
        }
      }
    } catch (e) {
      notes.push(`could not read your crontab to look for a line that runs ${n.wrapper} (${(e as Error).message.split('\n')[0]})`);
    }
  }
  for (const dir of userUnitDirs(home, io.env)) {
    for (const f of namesIn(dir)) {
      const path = posix.join(dir, f);
      if (!/\.service$/.test(f) || own.has(path)) continue;
      const text = textOf(path);
      const body = text?.split('\n').filter((l) => !/^\s*[#;]/.test(l)).join('\n');
      if (body && runsWrapper(body, n.wrapper, [systemdArg(n.wrapper)])) {
        strays.push({ scheduler: 'systemd-user', where: path, text: null, fix: `run \`systemctl --user disable --now ${f}\` and delete ${path} (and its .timer, if it has one)` });
      }
    }
  }
  const agents = posix.join(home, 'Library', 'LaunchAgents');
  for (const f of namesIn(agents)) {
    const path = posix.join(agents, f);
    if (!/\.plist$/.test(f) || own.has(path)) continue;
    const text = textOf(path);
    const xml = `>${n.wrapper.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}<`;
    if (text && runsWrapper(text, n.wrapper, [xml])) {
      strays.push({ scheduler: 'launchd', where: path, text: null, fix: `run \`launchctl bootout gui/${io.uid} ${path}\` and delete the file` });
    }
  }
  return { strays, notes };
}

/** One sentence for a stray entry. */
export function strayText(s: Stray, wrapper: string): string {
  return `${s.where}${s.text !== null ? ` (${s.text})` : ''} runs ${wrapper}, and hbgen did not write it: it fires wakes whatever hbgen says; ${s.fix}`;
}
