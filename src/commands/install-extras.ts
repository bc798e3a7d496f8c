// Small pieces of install kept out of install.ts (a file several people edit at once).

/**
 * The seed's ownership record `{type, self_schedule: false, detail, ids, note}` (issue 28):
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
