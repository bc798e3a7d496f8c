// cron: one marked block of plain job lines, no environment lines (they would change the
// meaning of every user line below them), the wrapper checked and called through /bin/sh
// by absolute path (generators/entry.ts) so that a user's SHELL= line cannot change how
// it runs.
import { cronWord } from '../src/escape.ts';
import { CRON_MAX_COMMAND } from '../src/formats.ts';
import { renderCrontab } from '../src/gen/templates.ts';
import type { CalEntry } from '../src/schedule.ts';
import { rangeList } from './calendar.ts';
import { entryLine } from './entry.ts';
import type { Generator, SchedulerContext } from './types.ts';

/** The job lines' command: the entry, each word as cron and then sh read it (cronWord). */
export function cronCommand(ctx: SchedulerContext): string {
  return entryLine(ctx, cronWord);
}

/** "7,37 8-22 * * 1-5": day-of-month stays `*`, since cron ORs it with day-of-week. */
export function cronTimes(e: CalEntry): string {
  const hours = e.hours.length === 24 ? '*' : rangeList(e.hours, '-');
  const days = e.days.length === 7 ? '*' : rangeList(e.days, '-');
  return `${e.minutes.join(',')} ${hours} * * ${days}`;
}

export const generator: Generator = {
  check(ctx) {
    // Debian crontab(1) refuses a longer command ("command too long"; 998 accepted, 999
    // refused, checked by test/cron.test.ts against the real crontab). Name the field that
    // carries the path: repo when stateDir is relative to it, else stateDir.
    const n = Buffer.byteLength(cronCommand(ctx));
    const field = ctx.spec.stateDir.startsWith('/') ? 'stateDir' : 'repo';
    return n > CRON_MAX_COMMAND
      ? [`${field}: the cron command would be ${n} bytes, over cron's ${CRON_MAX_COMMAND}-byte limit; choose a shorter repo or stateDir path`]
      : [];
  },
  files(ctx) {
    const command = cronCommand(ctx);
    const content = renderCrontab({
      header: ctx.header,
      begin: ctx.names.cronBegin,
      end: ctx.names.cronEnd,
      lines: ctx.plan.hostEntries.map((e) => `${cronTimes(e)} ${command}`),
      hostTimezone: ctx.plan.hostTimezone,
    });
    return [{ path: 'host/crontab', content, mode: 0o644 }];
  },
};
