// The word in front of each row of `hbgen status` ("ok  last outcome: fail 3" once read
// as a pass). A row's label says what the row means: `ok` for a check that passed,
// `note` for a fact to know that is not a fault (running now, paused, recovered), `warn`
// for something that is not yet a problem but needs an eye (a last wake that failed,
// lingering off), `problem` for what makes the install unhealthy (exit 1).

import { FAILED, SUCCEEDED, isOneOf } from './formats.ts';

export type Label = 'ok' | 'note' | 'warn' | 'problem';

/** The label for a row a scheduler backend said (they word their warnings so). */
export function labelOf(text: string): Label {
  if (/^warning:/.test(text) || /could not be read|cannot be read/.test(text)) return 'warn';
  return 'ok';
}

/** The label for "last outcome: OUTCOME …": a pass for ok and quiet, an eye for fail and timeout. */
export function outcomeLabel(outcome: string): Label {
  if (isOneOf(SUCCEEDED, outcome)) return 'ok';
  if (isOneOf(FAILED, outcome)) return 'warn';
  return 'note';
}
