// What a fire missed while the machine slept does, per scheduler and catchUp:
// the panel's caveat and status's missed-fire line, one sentence, the same words as the
// table of docs/spec.md ("A fire missed while asleep"). Each scheduler's words are its facts'
// (src/host/<id>/facts.ts `catchUp`).
import { factsOf } from '../../scheduler-facts.ts';
import { type Spec } from '../../spec.ts';

export function catchUpCaveat(spec: Pick<Spec, 'catchUp' | 'schedule'>): string {
  const c = spec.catchUp;
  const said = factsOf(spec.schedule.scheduler)?.catchUp?.[c];
  return `catchUp "${c}": ${said ?? 'whether a fire missed while the machine slept runs later is up to the scheduler'}`;
}
