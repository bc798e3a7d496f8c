// cron's facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'cron',
  tools: [{ name: 'crontab' }],
  hostClock: true,
  entry: 'crontab block',
  missedCause: 'the cron daemon was not running (`pgrep cron`)',
} as const satisfies SchedulerFacts<'cron'>;
