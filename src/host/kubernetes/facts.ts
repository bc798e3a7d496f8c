// kubernetes' facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'kubernetes',
  // Only install --apply, stop --apply and status run it (src/host/kubernetes/backend.ts
  // checks it there); the host-wide looks of list and stop never do.
  tools: [{ name: 'kubectl', installOnly: true }],
  // The CronJob carries the working zone (spec.timeZone), as systemd's OnCalendar= does.
  hostClock: false,
  offHost: true,
  block: 'kubernetes',
  entry: 'CronJob',
  missedCause: 'the cluster did not schedule it (`kubectl get events`), or the CronJob is suspended',
  catchUp: {
    once: "the cluster does not sleep; a Job the CronJob could not start is Kubernetes' to retry",
    skip: "the cluster does not sleep; a Job the CronJob could not start is Kubernetes' to retry",
  },
  printsCommand: 'kubectl',
} as const satisfies SchedulerFacts<'kubernetes'>;
