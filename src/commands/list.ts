// hbgen list [--json]: every hbgen install of this user on this host, with or without its
// spec file (src/host/audit/inventory.ts finds them), one line each: name, scheduler, state,
// last outcome, repo, state folder. Read-only; exit 0, also when nothing is found.
import { homeOf, type HostIO } from '../host/io.ts';
import { type InstallRow, type Installs, listInstalls } from '../host/audit/inventory.ts';
import { line } from './common.ts';
import { recordedSpec } from '../spec-arg.ts';
import { VERSION } from '../version.ts';
import { pendingUpgrade } from '../host/audit/upgrade.ts';
import { readState } from '../host/state.ts';
import { validateSpec } from '../spec.ts';
import { renderSpec } from '../pipeline.ts';

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
 * A cell as the table shows it: a newline or tab (state.json and runtime.log may hold what
 * the agent wrote) would break the table's columns, so every control character becomes "?"
 * here; the output guard (terminalText, src/escape.ts) covers the rest of the output.
 */
const cell = (v: string) => v.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** `v` cut to `w` characters with "…" at the end (or, `left`, at the start: a path's tail says more). */
export const cut = (v: string, w: number, left = false): string => {
  const ch = [...v];
  if (ch.length <= w) return v;
  return left ? `…${ch.slice(ch.length - w + 1).join('')}` : `${ch.slice(0, Math.max(0, w - 1)).join('')}…`;
};

/** The widest LAST OUTCOME without a terminal to fit (a billing error can run to 250 characters). */
const OUTCOME_MAX = 60;

/**
 * The rows as an aligned table (the last column unpadded), one line per install within
 * `width` characters when a width is known: the outcome is cut first (to no less than 20),
 * then the paths from the left; `--json` keeps every value whole.
 */
export function table(rows: InstallRow[], width?: number): string[] {
  const cells = [['NAME', 'SCHEDULER', 'STATE', 'HBGEN', 'LAST OUTCOME', 'REPO', 'STATE FOLDER'], ...rows.map((r) => [r.name, r.scheduler, r.state, r.version ?? '-', cut(lastText(r), OUTCOME_MAX), r.repo ?? '-', r.stateDir ?? '-'].map(cell))];
  const len = (v: string) => [...v].length;
  const widths = () => cells[0]!.map((_, i) => Math.max(...cells.map((c) => len(c[i]!))));
  const total = () => widths().reduce((a, b) => a + b, 0) + 2 * (cells[0]!.length - 1);
  if (width) {
    // Each column in turn gives what it can: the outcome to 20, then the state folder and repo to 16.
    for (const [i, min, left] of [[4, 20, false], [6, 16, true], [5, 16, true]] as const) {
      const over = total() - width;
      if (over <= 0) break;
      const w = Math.max(min, widths()[i]! - over, len(cells[0]![i]!));
      for (const c of cells.slice(1)) c[i] = cut(c[i]!, w, left);
    }
  }
  const ws = widths();
  return cells.map((c) => c.map((v, i) => (i === c.length - 1 ? v : v + ' '.repeat(ws[i]! - len(v)))).join('  '));
}

/** Where list looked and where it did not, one line each. */
function places(f: Installs): string[] {
  const out = [`looked at: ${[...f.looked.map((l) => `${l.id} (${l.place})`), `state folders in ${f.roots.join(', ')}`].join('; ')}`];
  if (f.notLooked.length) out.push(`not looked at: ${f.notLooked.map((n) => `${n.id} (${n.why})`).join('; ')}`);
  return out;
}

/**
 * One line for each install another hbgen made (its version or runtime is not this one's),
 * as status says it: who installed it, what this hbgen ships, and what installing again
 * rewrites, from the spec state.json recorded, rendered by this hbgen. Rendered only for
 * those installs, so that list stays quick for the rest.
 */
async function upgradeLines(rows: InstallRow[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of rows.filter((x) => x.stateDir && x.state !== 'stopped' && x.state !== 'unowned')) {
    const s = readState(r.stateDir!);
    if (!s || !pendingUpgrade(s)) continue;
    const spec = validateSpec(s.spec).spec;
    const fresh = spec ? await renderSpec(spec) : null;
    out.push(`${r.name}: ${pendingUpgrade(s, fresh && !fresh.errors.length ? fresh.files : undefined)}`);
  }
  if (out.length) out.push(`HBGEN: the hbgen that installed each; this one is ${VERSION}. \`hbgen upgrade --all\` installs each of them again after one list (\`hbgen install SPEC\` one of them)`);
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
  else for (const l of table(f.rows, Number(io.env.COLUMNS) || io.columns)) line(io, l);
  for (const r of f.rows) if (r.workspace) line(io, `${r.name}: ${r.workspace}`);
  for (const l of places(f)) line(io, l);
  for (const st of new Set(f.rows.map((r) => r.state))) if (HINTS[st]) line(io, HINTS[st]);
  for (const l of await upgradeLines(f.rows)) line(io, l);
  // A stopped install whose spec file is gone or renamed stays here until forgotten.
  for (const r of f.rows.filter((x) => x.state === 'stopped' && x.stateDir)) {
    const rec = recordedSpec(r.name, r.stateDir!);
    if (rec.gone || rec.other) line(io, `${r.name}: stopped, and its spec file ${rec.file ?? '(not recorded)'} ${rec.gone ? 'is gone' : 'now names another install (renamed?)'}; \`hbgen forget ${r.name}\` removes its state folder after listing it (\`--keep-logs\` keeps its logs)`);
  }
  for (const n of f.notes) line(io, `note: ${n}`);
  return 0;
}
