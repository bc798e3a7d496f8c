// The wake's bounds (spec limits) as the install panel and status say them, from the spec
// alone: what each scheduler applies (src/scheduler-facts.ts bounds), or loudly that
// nothing bounds a wake ("limits": false), as the jail's line says it when the jail is off.
import { FACTS } from './scheduler-facts.ts';
import { limitsOf, memoryText, type Spec } from './spec.ts';

export function limitsLine(spec: Spec): string {
  const bounds = FACTS[spec.schedule.scheduler].bounds;
  if (!bounds) return 'none of hbgen\'s: kubernetes.resources bound the pod (see README "Kubernetes")';
  const l = limitsOf(spec);
  if (!l) return 'OFF ("limits": false): NOTHING BOUNDS A WAKE: a runaway agent (a fork bomb, a memory leak) can take every process and all the memory of this machine';
  return `tasks ${l.tasks}, memory ${memoryText(l)}, swap none; ${bounds.says}; no bound on the disk or the private tmp (README "Bounds on a wake")`;
}
