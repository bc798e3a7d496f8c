// systemd user units: a oneshot service that runs the wrapper and a timer whose
// OnCalendar= lines carry the working zone as a suffix, so they are exact in any zone
// (systemd.time(7), "Calendar Events"; zone suffix since v235).
import { DAY_NAMES, pad2 } from '../src/formats.ts';
import { renderSystemdService, renderSystemdTimer } from '../src/gen/templates.ts';
import type { CalEntry } from '../src/schedule.ts';
import { systemdArg } from '../src/escape.ts';
import { durations, limitsOf } from '../src/spec.ts';
import { rangeList } from './calendar.ts';
import { entryLine } from './entry.ts';
import type { Generator } from './types.ts';

const SD_DAYS = DAY_NAMES.map((d) => d[0]!.toUpperCase() + d.slice(1));

/** One OnCalendar= value: "Mon..Fri *-*-* 08..22:07,37:00 America/Santiago". */
export function onCalendar(e: CalEntry, zone: string): string {
  // systemd counts weekdays Monday-first: write Sunday after Saturday so runs like
  // Sat..Sun stay ranges.
  const days = e.days.map((d) => (d === 0 ? 7 : d)).sort((a, b) => a - b);
  const dayPart = days.length === 7 ? '' : `${rangeList(days, '..', (d) => SD_DAYS[d % 7]!)} `;
  const hours = e.hours.length === 24 ? '*' : rangeList(e.hours, '..', pad2);
  return `${dayPart}*-*-* ${hours}:${e.minutes.map(pad2).join(',')}:00 ${zone}`;
}

/**
 * Documentation='s value: the installed wrapper as a file: URI (`systemctl --user help`
 * opens it; its header says what hbgen made and how to audit it), every byte outside the
 * URI's unreserved set and "/" percent-encoded (RFC 3986 §2), then each "%" doubled, since
 * a unit file reads "%" as a specifier (systemd.unit(5), "Specifiers").
 */
export function documentationUri(path: string): string {
  const enc = [...Buffer.from(path, 'utf8')].map((b) => (/[A-Za-z0-9._~/-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${(0x100 + b).toString(16).slice(1).toUpperCase()}`)).join('');
  return `file://${enc}`.replace(/%/g, '%%');
}

export const generator: Generator = {
  files(ctx) {
    const { spec, names, plan } = ctx;
    const unit = {
      header: ctx.header,
      name: spec.name,
      // The entry that checks the wrapper, then runs it (generators/entry.ts).
      execStart: entryLine(ctx, systemdArg),
      // A second net under the wrapper's own timeout: systemd kills the whole cgroup.
      // It fires a minute after the wrapper's own TERM→KILL sequence should have ended.
      timeoutStartSec: durations(spec).wake + 60,
      onCalendar: plan.zoneEntries.map((e) => onCalendar(e, spec.schedule.hours.timezone)),
      service: names.service,
      documentation: documentationUri(names.wrapper),
      persistent: spec.catchUp === 'once',
      limits: limitsOf(spec) !== null,
      tasksMax: limitsOf(spec)?.tasks ?? 0,
      memoryMax: limitsOf(spec)?.memory ?? '',
    };
    return [
      { path: `host/${names.service}`, content: renderSystemdService(unit), mode: 0o644 },
      { path: `host/${names.timer}`, content: renderSystemdTimer(unit), mode: 0o644 },
    ];
  },
};
