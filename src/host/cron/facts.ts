// cron's facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'cron',
  tools: [{ name: 'crontab' }],
  hostClock: true,
  entry: 'crontab block',
  missedCause: 'the cron daemon was not running (`pgrep cron`)',
  catchUp: {
    once: 'cron never runs a fire missed while the machine slept or was off, so "once" cannot be kept here: the fire is lost, counted missed (asleep) where the host can tell; the next fire runs as usual',
    skip: 'cron never runs a fire missed while the machine slept or was off; the next fire runs as usual',
  },
  noStart: "cron cannot start a job on demand, so cron itself is not exercised: the run gets cron's environment (env -i SHELL=/bin/sh HOME LOGNAME PATH=/usr/bin:/bin), no terminal, a new session",
  bounds: { wrapper: 'scope', says: 'the wrapper runs the agent in a transient systemd scope (systemd-run --user --scope) where a user manager answers, else under rlimits (prlimit: tasks count every process of the user, memory bounds each process)' },
} as const satisfies SchedulerFacts<'cron'>;
