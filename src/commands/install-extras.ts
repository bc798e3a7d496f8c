// Small pieces of install kept out of install.ts (a file several people edit at once).
import { rmSync } from 'node:fs';
import { posix } from 'node:path';
import { writeAtomic } from '../atomic.ts';
import type { FilePlan, Journal } from '../host/backend.ts';
import { ENTRY_SUM, entrySumText } from '../host/install/entry-sum.ts';
import { readOrNull } from '../host/fsx.ts';
import type { Names } from '../names.ts';
import type { Spec } from '../spec.ts';

/**
 * The seed's ownership record `{type, self_schedule: false, detail, ids, note}`:
 * `detail` says in words which entry runs the wakes and when; `note` what install noted of
 * that entry (its caveats), null when nothing.
 */
export function ownershipRecord(type: string, ids: Record<string, string>, summary: string, caveats: string[]): { detail: string; note: string | null } {
  const named = Object.values(ids).join(', ');
  return {
    detail: `${type}${named ? ` (${named})` : ''}: ${summary || 'no fire planned'}`,
    note: caveats.length ? caveats.join('; ') : null,
  };
}

/** <stateDir>/entry.sum for the wrapper's per-wake look at its entry (src/host/install/entry-sum.ts); the undo puts the earlier one back. */
export function writeEntrySum(p: { spec: Spec; names: Names; pre: { hostFiles: FilePlan[] }; render: { files: { path: string; content: string }[] } }, j: Journal): void {
  const path = posix.join(p.names.stateDir, ENTRY_SUM);
  const before = readOrNull(path);
  const text = entrySumText(p.names.wrapper, p.pre.hostFiles, p.render.files);
  if (text) writeAtomic(path, text, 0o600);
  else rmSync(path, { force: true });
  j.push(before ? `restored ${path}` : `removed ${path}`, () => (before ? writeAtomic(path, before, 0o600) : rmSync(path, { force: true })));
}
