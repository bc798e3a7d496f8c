// Time-zone names are checked against two authorities, because each one alone lies:
// - the system's zoneinfo, which date(1) and the gate read at run time. glibc silently
//   falls back to UTC for a name it cannot find ("Mars/Olympus", "asia/kathmandu",
//   "Europe/Berlin "), so a name that is not a real TZif file here would turn the gate
//   into a UTC gate that opens at the wrong hours without a word;
// - Node's ICU, which hbgen itself uses to compute fire times. Intl accepts lowercase
//   names and aliases, so it is only the second check, never the first.
// The user's exact string is what gets rendered; ICU's canonical id is never written back
// (Intl turns "Asia/Kathmandu" into "Asia/Katmandu", a link that may be absent).
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ZONE_TABLE } from './gen/zones.ts';

const NAME = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/;

export function zoneinfoDirs(): string[] {
  const dirs = ['/usr/share/zoneinfo', '/usr/lib/zoneinfo', '/usr/share/lib/zoneinfo'];
  const env = process.env.TZDIR;
  return env ? [env, ...dirs] : dirs;
}

/** True when `dir/rel` exists with exactly this spelling (case-insensitive file systems included). */
function existsExactCase(dir: string, rel: string): boolean {
  let cur = dir;
  for (const part of rel.split('/')) {
    let entries: string[];
    try {
      entries = readdirSync(cur);
    } catch {
      return false;
    }
    if (!entries.includes(part)) return false;
    cur = join(cur, part);
  }
  return true;
}

function isTzif(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(4);
      return readSync(fd, buf, 0, 4, 0) === 4 && buf.toString('latin1') === 'TZif';
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

let supported: Set<string> | undefined;

function icuAccepts(name: string): boolean {
  // The list is cheap; constructing a formatter loads ICU's zone data (~25 ms), so it is
  // only the fallback, for aliases such as "Asia/Kathmandu" that the list spells otherwise.
  // The build's zone table (src/gen/zones.ts) holds only names this ICU accepts.
  if (Object.hasOwn(ZONE_TABLE, name)) return true;
  supported ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (supported.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const cache = new Map<string, boolean>();

/** Whether `name` is an IANA zone this host can honour in date(1), systemd and hbgen alike. */
export function isKnownZone(name: string): boolean {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  let ok = false;
  if (NAME.test(name) && !name.startsWith('posix/') && !name.startsWith('right/') && icuAccepts(name)) {
    ok = zoneinfoDirs().some((d) => existsExactCase(d, name) && isTzif(join(d, name)));
  }
  cache.set(name, ok);
  return ok;
}
