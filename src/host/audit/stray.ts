// Entries that run an install's wrapper but are not hbgen's: a copy of the job line left in
// the crontab outside every hbgen block, a unit in the user's unit folders or a LaunchAgent
// under another file name. Each fires a full wake whatever state.json says, so a stopped
// install with one of these is not stopped. Each backend finds its own (its `strays`) by the
// wrapper's path (`<stateDir>/heartbeat.sh`, as a whole path, bare or as the scheduler's own
// quoting writes it); hbgen never edits them: a person wrote them, and the crontab's other
// bytes are the person's. stop, status and doctor name each with how to remove it. hbgen's
// own entries of any name (blocks, units, LaunchAgents that entryOwner recognises) are not
// strays: stop and status handle them by name (src/host/audit/found.ts, inventory.ts).
import type { Names } from '../../names.ts';
import { SCHEDULER_IDS, SCHEDULERS } from '../../schedulers.ts';
import type { StrayEntry } from '../backend.ts';
import type { HostIO } from '../io.ts';
import { hostEntries } from './inventory.ts';

/** Every stray entry that runs `n.wrapper` on this host, and notes for what could not be looked at. Read-only. */
export async function strayEntries(io: HostIO, home: string, n: Names): Promise<{ strays: StrayEntry[]; notes: string[] }> {
  const own = new Set((await hostEntries(io, home)).entries.filter((e) => e.wrapper === n.wrapper).flatMap((e) => e.where));
  const strays: StrayEntry[] = [];
  const notes: string[] = [];
  for (const id of SCHEDULER_IDS) {
    const r = await (await SCHEDULERS[id].backend()).strays?.({ io, home, names: n }, own);
    if (!r) continue;
    strays.push(...r.found);
    notes.push(...r.notes);
  }
  return { strays, notes };
}

/** One sentence for a stray entry. */
export function strayText(s: StrayEntry, wrapper: string): string {
  return `${s.where}${s.text !== null ? ` (${s.text})` : ''} runs ${wrapper}, and hbgen did not write it: it fires wakes whatever hbgen says; ${s.fix}`;
}
