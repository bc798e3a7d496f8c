// cron's facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'cron',
  tools: [{ name: 'crontab' }],
  hostClock: true,
  entry: 'crontab block',
  missedCause: 'the cron daemon was not running (`pgrep cron`)',
  noStart: "cron cannot start a job on demand, so cron itself is not exercised: the run gets cron's environment (env -i SHELL=/bin/sh HOME LOGNAME PATH=/usr/bin:/bin), no terminal, a new session",
} as const satisfies SchedulerFacts<'cron'>;
