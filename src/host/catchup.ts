// What a fire missed while the machine slept does, per scheduler and catchUp (issue 26):
// the panel's caveat, one sentence, the same words as the README's table ("A fire missed
// while asleep").
import { catchUpOf, type Spec } from '../spec.ts';

export function catchUpCaveat(spec: Pick<Spec, 'catchUp' | 'schedule'>): string {
  const once = catchUpOf(spec) === 'once';
  switch (spec.schedule.scheduler) {
    case 'launchd':
      return once
        ? 'catchUp "once": launchd runs a fire missed while the Mac slept once on wake; the wrapper runs it only inside your working hours with minRun left'
        : 'catchUp "skip": launchd runs a fire missed while the Mac slept once on wake, and the wrapper logs it skip-late and does not run the agent';
    case 'systemd-user':
      return once
        ? 'catchUp "once": a fire missed while the machine slept or was off runs once on resume or boot (Persistent=true); the wrapper runs it only inside your working hours with minRun left'
        : 'catchUp "skip": a fire missed while the machine was off is dropped (Persistent=false); one systemd still makes late on resume is logged skip-late and not run';
    case 'cron':
      return `catchUp "${catchUpOf(spec)}": cron never runs a fire missed while the machine slept or was off${once ? ', so "once" cannot be kept here: the fire is lost, counted missed (asleep) where the host can tell' : ''}; the next fire runs as usual`;
    default:
      return `catchUp "${catchUpOf(spec)}": the cluster does not sleep; a Job the CronJob could not start is Kubernetes' to retry`;
  }
}
