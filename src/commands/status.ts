// hbgen status [SPEC]: the face of the audit. The audit (src/host/audit/audit.ts) reads and
// returns its findings with a plan of repairs; applyRepairs (src/host/audit/repair.ts) makes
// them (the state-folder files hbgen wrote put back, the health record in state.json); this
// command then prints the findings, as a panel or as one JSON document with --json
// (statusJson; its fields are documented in docs/commands.md). Exit 0 healthy, 1 otherwise.
import { UserError } from '../errors.ts';
import { colourOn, palette } from '../colour.ts';
import { type Findings, audit, healthy } from '../host/audit/audit.ts';
import { readStateOrNote } from '../host/audit/found.ts';
import { applyRepairs } from '../host/audit/repair.ts';
import type { HostIO } from '../host/io.ts';
import { names } from '../names.ts';
import { ownerRefusal } from '../host/state.ts';
import { shownWord } from '../escape.ts';
import { labelOf } from '../status-labels.ts';
import { line, loadFor } from './common.ts';

export async function status(argv: { spec: string; json?: boolean }, io: HostIO): Promise<number> {
  let f: Findings;
  try {
    f = await auditAndRepair(argv, io);
  } catch (e) {
    // A script still gets one document (the lines go to stderr as well, for a person).
    if (!argv.json || !(e instanceof UserError)) throw e;
    for (const l of e.lines) io.err(`hbgen: ${l}\n`);
    line(io, JSON.stringify({ format: 1, name: null, healthy: false, problems: e.lines.map((message) => ({ code: 'cannot-audit', message })) }, null, 2));
    return e.exitCode;
  }
  if (argv.json) line(io, JSON.stringify(statusJson(f), null, 2));
  else report(io, f);
  return healthy(f) ? 0 : 1;
}

/**
 * The audit, then its repairs. A file applyRepairs could not write is not repaired: the
 * audit runs again knowing which it wrote, so that the findings (and the record) say drift
 * for it, as they would have had it never been planned.
 */
async function auditAndRepair(argv: { spec: string }, io: HostIO): Promise<Findings> {
  const loaded = loadFor(io, argv.spec);
  const n = names(loaded.spec);
  const state = readStateOrNote(n);
  const first = await audit(loaded, state, io);
  // Another user's status only reads: a repair it would make is refused (the file would be
  // theirs, not the owner's), and the health record is left as the owner's last status wrote it.
  const foreign = ownerRefusal(n.stateDir, io.uid, `hbgen status ${shownWord(argv.spec)}`);
  if (foreign) {
    if (first.repairs.files.length) throw new UserError([`${first.repairs.files.map((r) => r.path).join(', ')} would be put back, and ${foreign}`]);
    first.findings.labels.set(foreign, 'note');
    first.findings.info.push(foreign);
    return first.findings;
  }
  const failed = applyRepairs(first.repairs);
  if (failed.length === 0) return first.findings;
  const again = await audit(loaded, state, io, { written: first.repairs.files.filter((r) => !failed.includes(r)), failed: failed.map((r) => r.path) });
  applyRepairs(again.repairs);
  return again.findings;
}

/** The findings as the panel a person reads: the header, what the install is, each row under its label, the count. */
function report(io: HostIO, f: Findings): void {
  const c = palette(colourOn(io));
  line(io, f.header);
  if (f.verdict && f.problems.length === 0) {
    // "not installed" is the header itself.
    if (f.verdict.code === 'stopped') line(io, `  ${f.verdict.message}`);
    return;
  }
  const w = Math.max(0, ...f.about.map(([k]) => k.length));
  for (const [k, v] of f.about) line(io, `  ${k.padEnd(w)}  ${v}`);
  for (const i of f.info) {
    const l = f.labels.get(i) ?? labelOf(i);
    line(io, `  ${(l === 'ok' ? c.good : l === 'warn' ? c.warn : c.dim)(l)}${' '.repeat(9 - l.length)}${i}`);
  }
  for (const p of f.problems) line(io, `  ${c.bad('problem')}  ${p.message}`);
  const count = f.problems.length;
  line(io, count === 0 ? c.good('healthy') : c.bad(`${count} problem${count === 1 ? '' : 's'}`));
}

/** The findings as the one JSON document of `status --json` (field names are a contract: docs/commands.md). */
export function statusJson(f: Findings): Record<string, unknown> {
  return {
    format: 1,
    name: f.name,
    scheduler: f.scheduler,
    repo: f.repo,
    stateDir: f.stateDir,
    state: f.state,
    healthy: healthy(f),
    problems: f.verdict && f.problems.length === 0 ? [f.verdict] : f.problems,
    info: f.info,
    lastWake: f.lastWake,
    nextFire: f.nextFire,
    wakes: f.wakes,
    cap: f.cap,
    billing: f.billing,
    heart: f.heart,
    running: f.running,
    paused: f.paused,
    jail: f.jail,
    limits: f.limits,
    workspace: f.workspace,
    usage: f.usage,
    checkedAt: f.checkedAt,
  };
}

