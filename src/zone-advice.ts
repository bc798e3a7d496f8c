// Advice for a time-zone name the spec refuses: the right spelling of a wrong-case or
// mistyped name, and, for the working hours, the city zones a legacy or fixed-offset name
// usually stands for. "EST" is UTC−5 all year: a New York user who writes it is an hour off
// all summer, and nothing would ever say so (the gate simply opens an hour late).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ZONE_TABLE } from './gen/zones.ts';
import { closest } from './suggest.ts';
import { isKnownZone, zoneinfoDirs } from './zones.ts';

/** City zones for each whole-hour UTC offset, the usual intent of a fixed offset. */
const CITIES_AT: Record<number, string[]> = {
  [-11]: ['Pacific/Pago_Pago'],
  [-10]: ['Pacific/Honolulu'],
  [-9]: ['America/Anchorage'],
  [-8]: ['America/Los_Angeles', 'America/Vancouver'],
  [-7]: ['America/Denver', 'America/Phoenix'],
  [-6]: ['America/Chicago', 'America/Mexico_City'],
  [-5]: ['America/New_York', 'America/Bogota'],
  [-4]: ['America/Halifax', 'America/Caracas'],
  [-3]: ['America/Sao_Paulo', 'America/Argentina/Buenos_Aires'],
  [-2]: ['America/Noronha'],
  [-1]: ['Atlantic/Azores'],
  0: ['Europe/London', 'UTC'],
  1: ['Europe/Berlin', 'Africa/Lagos'],
  2: ['Europe/Athens', 'Africa/Johannesburg'],
  3: ['Europe/Moscow', 'Asia/Riyadh'],
  4: ['Asia/Dubai'],
  5: ['Asia/Karachi', 'Asia/Tashkent'],
  6: ['Asia/Dhaka'],
  7: ['Asia/Bangkok', 'Asia/Jakarta'],
  8: ['Asia/Shanghai', 'Australia/Perth'],
  9: ['Asia/Tokyo'],
  10: ['Australia/Sydney', 'Australia/Brisbane'],
  11: ['Pacific/Noumea'],
  12: ['Pacific/Auckland'],
  13: ['Pacific/Tongatapu'],
  14: ['Pacific/Kiritimati'],
};

/** Abbreviations and POSIX-style names in the tz database, what they are, and what people mean by them. */
const US = 'a legacy zone kept for old systems: it follows today\'s US rules with none of the local history or exceptions';
const EU = 'a legacy zone kept for old systems: it follows the EU rules with none of a country\'s own history';
const LEGACY: Record<string, { what: string; cities: string[] }> = {
  EST: { what: 'UTC−5 all year, with no summer time: a New York user would be an hour off all summer', cities: ['America/New_York', 'America/Panama'] },
  MST: { what: 'UTC−7 all year, with no summer time: a Denver user would be an hour off all summer', cities: ['America/Denver', 'America/Phoenix'] },
  HST: { what: 'a fixed offset (UTC−10), not the time of a place', cities: ['Pacific/Honolulu'] },
  EST5EDT: { what: US, cities: ['America/New_York'] },
  CST6CDT: { what: US, cities: ['America/Chicago'] },
  MST7MDT: { what: US, cities: ['America/Denver'] },
  PST8PDT: { what: US, cities: ['America/Los_Angeles'] },
  CET: { what: EU, cities: ['Europe/Berlin', 'Europe/Paris'] },
  MET: { what: EU, cities: ['Europe/Berlin', 'Europe/Paris'] },
  EET: { what: EU, cities: ['Europe/Athens', 'Europe/Helsinki'] },
  WET: { what: EU, cities: ['Europe/Lisbon'] },
};

const minus = (h: number) => (h < 0 ? `−${-h}` : `+${h}`);
const quoted = (cities: string[]) => cities.map((c) => JSON.stringify(c)).join(' or ');

/**
 * Why `name` should not be the working hours' zone, with the city zones meant, or
 * undefined: legacy names, Etc/GMT±N (N ≠ 0) and typed offsets such as "GMT+5" or
 * "UTC-03:00". UTC itself (and its aliases) is a fine zone for working hours.
 */
export function legacyZoneAdvice(name: string): string | undefined {
  const bare = name.replace(/^(?:SystemV|Etc)\//, '');
  const l = LEGACY[bare];
  if (l) return `"${name}" is ${l.what}; use the city zone you mean, e.g. ${quoted(l.cities)}`;
  const etc = /^Etc\/GMT([+-])(\d{1,2})$/.exec(name);
  if (etc && Number(etc[2]) !== 0) {
    // The tz database's Etc names carry POSIX's sign: Etc/GMT+5 is five hours BEHIND UTC.
    const h = (etc[1] === '+' ? -1 : 1) * Number(etc[2]);
    const cities = CITIES_AT[h];
    return `"${name}" is a fixed offset, UTC${minus(h)} all year (Etc/GMT names invert the sign) with no summer time, not the time of a place; use the city zone you mean${cities ? `, e.g. ${quoted(cities)}` : ''}`;
  }
  const typed = /^(?:UTC|GMT|Z)?\s*([+\-\u2212])\s*(\d{1,2})(?::?(\d{2}))?$/i.exec(name.trim());
  if (typed) {
    const h = (typed[1] === '+' ? 1 : -1) * Number(typed[2]);
    if (h === 0 && Number(typed[3] ?? 0) === 0) return `"${name}" is an offset, not a zone name; write "UTC"`;
    const cities = typed[3] && typed[3] !== '00' ? undefined : CITIES_AT[h];
    return `"${name}" is a UTC offset, not a zone: an offset stays the same all year while a place may change its clocks; use the city zone you mean${cities ? `, e.g. ${quoted(cities)}` : ' (see `timedatectl list-timezones`)'}`;
  }
  return undefined;
}

/** `name` with each part spelled as on disk, when only its case is wrong; else undefined. */
function caseFixed(name: string): string | undefined {
  for (const dir of zoneinfoDirs()) {
    let cur = dir;
    const parts: string[] = [];
    for (const part of name.split('/')) {
      let entries: string[];
      try {
        entries = readdirSync(cur);
      } catch {
        entries = [];
      }
      const hit = entries.find((e) => e.toLowerCase() === part.toLowerCase());
      if (!hit) break;
      parts.push(hit);
      cur = join(cur, hit);
    }
    const fixed = parts.join('/');
    if (parts.length === name.split('/').length && fixed !== name && isKnownZone(fixed)) return fixed;
  }
  return undefined;
}

let names: string[] | undefined;

/** The zone `name` was probably meant to be (wrong case, a typo, stray spaces), or undefined. */
export function zoneSuggestion(name: string): string | undefined {
  if (name.length > 64) return undefined;
  const trimmed = name.trim();
  if (trimmed !== name && isKnownZone(trimmed)) return trimmed;
  const fixed = /^[A-Za-z0-9_+\-/]+$/.test(name) ? caseFixed(name) : undefined;
  if (fixed) return fixed;
  names ??= [...new Set([...Object.keys(ZONE_TABLE), ...Intl.supportedValuesOf('timeZone')])];
  const near = closest(name, names);
  return near && isKnownZone(near) ? near : undefined;
}
