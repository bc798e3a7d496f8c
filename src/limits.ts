// The wake's bounds (spec limits) as the install panel and status say them, from the spec
// alone: what each scheduler applies (src/scheduler-facts.ts bounds), or loudly that
// nothing bounds a wake ("limits": false), as the jail's line says it when the jail is off.
import { FACTS } from './scheduler-facts.ts';
import { limitsOf, memoryText, type Spec } from './spec.ts';

/** status --json's `limits`: the bounds with every default applied, null when off. */
export interface LimitsFindings {
  on: boolean;
  tasks: number | null;
  /** As the spec writes it ("8G", "25%"); the default "50%". */
  memory: string | null;
  /** The most the default share may come to ("8G"), null for a memory the spec sets. */
  memoryCap: string | null;
}

export function limitsFindings(spec: Spec): LimitsFindings {
  const l = limitsOf(spec);
  return l ? { on: true, tasks: l.tasks, memory: l.memory, memoryCap: l.cap } : { on: false, tasks: null, memory: null, memoryCap: null };
}

export function limitsLine(spec: Spec, short = false): string {
  const bounds = FACTS[spec.schedule.scheduler].bounds;
  if (!bounds) return 'none of hbgen\'s: kubernetes.resources bound the pod (see docs/kubernetes.md)';
  const l = limitsOf(spec);
  if (!l) return 'OFF ("limits": false): NOTHING BOUNDS A WAKE: a runaway agent (a fork bomb, a memory leak) can take every process and all the memory of this machine';
  // The panel's short line leaves how the scheduler enforces them to docs/threat-model.md and status.
  if (short) return `tasks ${l.tasks}, memory ${memoryText(l)}, no swap, disk unbounded`;
  return `tasks ${l.tasks}, memory ${memoryText(l)}, swap none; ${bounds.says}; no bound on the disk or the private tmp (docs/threat-model.md "Bounds on a wake")`;
}
