// hbgen list [--json]: every hbgen install of this user on this host, with or without its
// spec file (src/host/audit/inventory.ts finds them), one line each: name, scheduler, state,
// last outcome, repo, state folder. Read-only; exit 0, also when nothing is found.
import { homeOf, type HostIO } from '../host/io.ts';
import { type InstallRow, type Installs, listInstalls } from '../host/audit/inventory.ts';
import { line } from './common.ts';

/** What each state means and what to run, said under the table once for each state shown. */
const HINTS: Record<InstallRow['state'], string> = {
  active: '',
  stopped: 'stopped: `hbgen stop` removed its entries and kept its state; `hbgen resume SPEC` installs it again',
  orphan: 'orphan: state.json says installed, but the scheduler entry is gone; `hbgen status SPEC` says more, `hbgen install SPEC` puts it back',
  unowned: 'unowned: an entry no state.json records (its state folder or state.json is gone, or state.json names another scheduler or name); `hbgen stop SPEC` removes it by its name, `hbgen stop --all SPEC` also what runs the spec\'s wrapper under another name',
  tampered: 'tampered: something changes what the scheduler runs without changing hbgen\'s files (a systemd drop-in, a variable in the scheduler\'s environment or above the crontab block), or hbgen\'s files were edited and put back; `hbgen status SPEC` says what',
  drifted: 'drifted: the wrapper or a host file differs from what hbgen installed; `hbgen status SPEC` shows which',
  unknown: 'unknown: state.json says installed on a scheduler hbgen could not look at here',
};

const lastText = (r: InstallRow) => (r.lastOutcome ? `${r.lastOutcome.outcome}${r.lastOutcome.detail ? ` ${r.lastOutcome.detail}` : ''} at ${r.lastOutcome.time}` : '-');

/**
 * A cell as the terminal shows it: state.json and runtime.log may hold what the agent
 * wrote, so control characters (an escape sequence would rewrite the screen) become "?".
 */
const cell = (v: string) => v.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** The rows as an aligned table (the last column unpadded). */
export function table(rows: InstallRow[]): string[] {
  const cells = [['NAME', 'SCHEDULER', 'STATE', 'LAST OUTCOME', 'REPO', 'STATE FOLDER'], ...rows.map((r) => [r.name, r.scheduler, r.state, lastText(r), r.repo ?? '-', r.stateDir ?? '-'].map(cell))];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  '));
}

/** Where list looked and where it did not, one line each. */
function places(f: Installs): string[] {
  const out = [`looked at: ${[...f.looked.map((l) => `${l.id} (${l.place})`), `state folders in ${f.roots.join(', ')}`].join('; ')}`];
  if (f.notLooked.length) out.push(`not looked at: ${f.notLooked.map((n) => `${n.id} (${n.why})`).join('; ')}`);
  return out;
}

export async function list(argv: { json?: boolean }, io: HostIO): Promise<number> {
  const f = await listInstalls(io, homeOf(io));
  if (argv.json) {
    line(io, JSON.stringify(f.rows, null, 2));
    for (const l of [...(f.notLooked.length ? places(f).slice(1) : []), ...f.notes]) io.err(`hbgen: ${l}\n`);
    return 0;
  }
  if (f.rows.length === 0) line(io, 'no hbgen install found for this user on this host');
  else for (const l of table(f.rows)) line(io, l);
  for (const l of places(f)) line(io, l);
  for (const st of new Set(f.rows.map((r) => r.state))) if (HINTS[st]) line(io, HINTS[st]);
  for (const n of f.notes) line(io, `note: ${n}`);
  return 0;
}
