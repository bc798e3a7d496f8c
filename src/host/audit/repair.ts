// This module writes. The audit (audit.ts) only reads, and plans the writes that repair what
// it found: the state-folder files hbgen wrote that differ from what it installed, and the
// health record in state.json. applyRepairs makes those writes; `hbgen status` calls it
// after the audit and before it prints, so that what it prints is what the host then holds.
import { writeAtomic } from '../fsx.ts';
import { type State, writeState } from '../state.ts';

/** A state-folder file to put back: the bytes and mode hbgen installed, and what was there instead. */
export interface FileRepair {
  path: string;
  content: string;
  mode: number;
  was: 'changed' | 'missing';
}

/** What the audit would write: files put back, in order, then state.json (null: it stays as it is). */
export interface RepairPlan {
  files: FileRepair[];
  record: { stateDir: string; state: State } | null;
}

/**
 * Writes the plan: each file atomically (a wake running the old wrapper keeps reading its own
 * copy), then state.json when every file was written. Returns the files it could not write:
 * the plan's record claims them, so it is not written, and the audit is to be run again
 * knowing which (audit.ts AfterRepairs).
 */
export function applyRepairs(plan: RepairPlan): FileRepair[] {
  const failed: FileRepair[] = [];
  for (const r of plan.files) {
    try {
      writeAtomic(r.path, r.content, r.mode);
    } catch {
      failed.push(r);
    }
  }
  if (failed.length || !plan.record) return failed;
  try {
    writeState(plan.record.stateDir, plan.record.state);
  } catch {
    // A state folder status cannot write is reported by the audit's checks; the record waits.
  }
  return [];
}
