// systemd (user)'s facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'systemd-user',
  tools: [
    { name: 'systemctl' },
    {
      name: 'loginctl',
      installOnly: true,
      missing:
        'loginctl is not on PATH, so hbgen cannot check or turn on lingering (systemd stops user timers at logout without it); install systemd-logind or choose another schedule.scheduler, such as cron',
    },
  ],
  // The timer's OnCalendar= carries the working zone itself.
  hostClock: false,
  entry: 'user timer',
  missedCause: 'your user manager was not running (lingering off and you were logged out: `loginctl enable-linger`)',
  catchUp: {
    once: 'a missed fire runs once at resume or boot, in your hours',
    skip: 'a fire missed while the machine was off is dropped (Persistent=false); one systemd still makes late on resume is logged skip-late and not run',
  },
  startJob: { argv: ['systemctl', '--user', 'start', '<service>'], says: 'through the user manager, the installed unit unchanged' },
  bounds: { wrapper: 'in', says: "the service's TasksMax=, MemoryMax= and MemorySwapMax=0, which the user manager enforces through the service's control group where the pids and memory controllers are delegated to it; elsewhere the wrapper applies rlimits (prlimit)" },
} as const satisfies SchedulerFacts<'systemd-user'>;
