// The user's crontab, edited as bytes. hbgen owns exactly one marked block per spec name:
//   # BEGIN hbgen <name>      (exact full line)
//   …job lines…
//   # END hbgen <name>        (exact full line)
// and every other byte of the table is the user's and is preserved as read (comments, env
// lines, blank and indented lines, CRLF, non-UTF-8 bytes, a missing final newline).
//
// Decisions:
// - A marker is the whole line, byte for byte, up to "\n". A line that is a marker only
//   after trimming spaces, tabs or a CR (`# BEGIN hbgen docs\r` in a CRLF table) is
//   neither trusted nor ignored: the edit is refused and the line named, since ignoring it
//   would add a second, live block and trusting it would delete bytes hbgen did not write.
// - A new block goes FIRST in the table: no user env line (SHELL=, PATH=, CRON_TZ=,
//   MAILTO=) is above it, and it is never glued onto a user line that lacks a final
//   newline. A block being replaced keeps its position. The block's own lines end in "\n".
// - Removal takes out exactly the block's bytes, so add-then-remove returns the original
//   bytes. When nothing is left, removeBlock returns `null`: "run crontab -r" (cron treats
//   an empty table like none, and hbgen installs into an absent table far more often than
//   into an empty one; pass keepEmpty when the install recorded an empty, present table).
// - Refusals are UserErrors that name 1-based line numbers and what to do; nothing is
//   written on any refusal path.
// - CRLF: the pure functions keep CR bytes like any other. But Debian's `crontab -l`
//   prints a CR as the text `\r` (and BS as `\b`), the same as the text itself, so a
//   listing with `\r`/`\b` outside hbgen's blocks cannot be written back byte for byte:
//   writeCrontab refuses it (listingAmbiguities) rather than turn CRs into text.
// I/O: `crontab` is found on PATH and always run with LC_ALL=C, with argument arrays (no
// shell), stdout kept as bytes. Writing re-reads and compares first, then verifies after.
import { UserError } from '../../errors.ts';
import { ANY_CRON_MARKER, CRON_MAX_COMMAND, NAME_PATTERN, cronMarkers } from '../../formats.ts';

const LF = 0x0a;

export type CrontabState = { state: 'present'; table: Buffer } | { state: 'absent' };

/** One complete block: 0-based line indexes of its markers and its byte range [start, endByte). */
export interface CrontabBlock {
  begin: number;
  end: number;
  start: number;
  endByte: number;
}

export interface BlockScan {
  blocks: CrontabBlock[];
  /** One sentence per problem, with 1-based line numbers; empty when the table is safe to edit. */
  problems: string[];
}

export interface MergeResult {
  table: Buffer;
  action: 'added' | 'replaced' | 'unchanged';
  warnings: string[];
}

export interface RemoveResult {
  /** The new table, or null: nothing is left, remove the table with `crontab -r`. */
  table: Buffer | null;
  removed: boolean;
}

export interface EditOptions {
  /**
   * The block bytes hbgen installed last time (from state.json). When given, an existing
   * block that differs from it was edited by someone else: refuse rather than overwrite.
   */
  previous?: Buffer;
}

// ------------------------------------------------------------------ lines

interface Line {
  /** Byte offset of the first byte. */
  start: number;
  /** Byte offset of the "\n" (or the table's end when the line has none). */
  end: number;
  /** Byte offset of the next line. */
  next: number;
}

function splitLines(b: Buffer): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < b.length) {
    const nl = b.indexOf(LF, start);
    const end = nl === -1 ? b.length : nl;
    const next = nl === -1 ? b.length : nl + 1;
    lines.push({ start, end, next });
    start = next;
  }
  return lines;
}

/** A line's bytes without its "\n", one char per byte (latin1), so regexes never re-encode. */
function text(b: Buffer, l: Line): string {
  return b.toString('latin1', l.start, l.end);
}

function markers(name: string): { begin: string; end: string } {
  if (!NAME_PATTERN.test(name)) throw new Error(`crontab: invalid spec name ${JSON.stringify(name)}`);
  return cronMarkers(name);
}

function range(b: CrontabBlock): string {
  return `lines ${b.begin + 1}–${b.end + 1}`;
}

// ------------------------------------------------------------------ findBlocks

/** Every complete block for `name` and every reason the table cannot be edited safely. */
export function findBlocks(table: Buffer, name: string): BlockScan {
  const m = markers(name);
  const lines = splitLines(table);
  const blocks: CrontabBlock[] = [];
  const problems: string[] = [];
  let open: number | null = null;
  lines.forEach((l, i) => {
    const t = text(table, l);
    if (t === m.begin) {
      if (open !== null) {
        problems.push(`line ${i + 1} is a second "${m.begin}" before the "${m.end}" of the block opened on line ${open + 1}`);
      } else open = i;
    } else if (t === m.end) {
      if (open === null) problems.push(`line ${i + 1} is "${m.end}" without a "${m.begin}" above it`);
      else {
        blocks.push({ begin: open, end: i, start: lines[open]!.start, endByte: l.next });
        open = null;
      }
    } else {
      // A CR is a raw byte from most crontab(1)s, and the text \r from Debian's `crontab -l`.
      const trimmed = t.replace(/^[ \t]+/, '').replace(/(?:[ \t\r]|\\r)+$/, '');
      if (trimmed === m.begin || trimmed === m.end) {
        const what = /(?:\r|\\r)$/.test(t) ? 'ends in a carriage return (CRLF)' : 'has extra spaces or tabs';
        problems.push(`line ${i + 1} looks like hbgen's marker "${trimmed}" but ${what}; hbgen only trusts exact marker lines`);
      } else if (open !== null && ANY_CRON_MARKER.test(t)) {
        problems.push(`line ${i + 1}, inside hbgen's block "${name}" opened on line ${open + 1}, is another block's marker "${t}"`);
      }
    }
  });
  if (open !== null) problems.push(`line ${open + 1} is "${m.begin}" but no "${m.end}" follows it`);
  if (blocks.length > 1) {
    const span = (b: CrontabBlock) => `${b.begin + 1}–${b.end + 1}`;
    const list = (bs: CrontabBlock[]) => `lines ${bs.length === 1 ? span(bs[0]!) : `${bs.slice(0, -1).map(span).join(', ')} and ${span(bs[bs.length - 1]!)}`}`;
    problems.push(`hbgen's block "${name}" appears ${blocks.length} times, at ${list(blocks)}; keep one and delete the others, for example ${list(blocks.slice(1))}`);
  }
  return { blocks, problems };
}

/**
 * A refusal: what is wrong (`problems`), then one closing line saying that hbgen left the
 * crontab alone. A caller that closes with its own line (the lifecycle commands say
 * "nothing was changed on this host") shows `problems` alone.
 */
export class CrontabRefusal extends UserError {
  constructor(
    readonly problems: string[],
    closing: string,
  ) {
    super([...problems, closing]);
  }
}

const UNTOUCHED = 'hbgen changed nothing in your crontab';

function refuse(problems: string[]): never {
  throw new CrontabRefusal(problems, 'hbgen changed nothing; fix your crontab with `crontab -e` and run the command again');
}

// ------------------------------------------------------------------ what crontab(1) refuses

type Kind = 'blank' | 'comment' | 'env' | 'job';

function classify(t: string): { kind: Kind; envName?: string } {
  if (/^[ \t]*$/.test(t)) return { kind: 'blank' };
  if (/^[ \t]*#/.test(t)) return { kind: 'comment' };
  const env = /^[ \t]*(?:"([^"]*)"|'([^']*)'|([^ \t="']+))[ \t]*=/.exec(t);
  if (env) return { kind: 'env', envName: env[1] ?? env[2] ?? env[3] };
  return { kind: 'job' };
}

/** The command of a job line (what follows the five time fields or an @keyword), or null. */
function jobCommand(t: string): string | null {
  const m = /^[ \t]*(?:@[^ \t]+|[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+)[ \t]+/.exec(t);
  return m ? t.slice(m[0].length) : null;
}

/**
 * The reasons Debian's crontab(1) would refuse the whole table, found before writing:
 * a job or env line last without a final newline ("missing newline before EOF"; a last
 * comment or blank line without one is accepted), and a command over 998 bytes ("command
 * too long"). Verified against Debian cron 3.0pl1 in test/crontab-host.test.ts.
 */
export function tableProblems(table: Buffer): string[] {
  const problems: string[] = [];
  const lines = splitLines(table);
  lines.forEach((l, i) => {
    const t = text(table, l);
    const c = classify(t);
    if (c.kind === 'job') {
      const cmd = jobCommand(t);
      if (cmd !== null && cmd.length > CRON_MAX_COMMAND) {
        problems.push(`line ${i + 1} has a ${cmd.length}-byte command, over cron's ${CRON_MAX_COMMAND}-byte limit, so crontab(1) would refuse the whole table`);
      }
    }
    if (l.next === l.end && c.kind !== 'blank' && c.kind !== 'comment') {
      problems.push(`line ${i + 1}, the last line, has no newline at its end, so crontab(1) would refuse the whole table ("missing newline before EOF")`);
    }
  });
  return problems;
}

/**
 * Lines outside every hbgen block where `crontab -l` output shows `\r` or `\b`. Debian's
 * crontab(1) (since 3.0pl1-149, "protect-list") prints a carriage return as the two bytes
 * `\r` and a backspace as `\b`, and prints the text `\r` the same way, so such a listing
 * does not say which bytes the table holds: writing it back could turn every CR of a CRLF
 * table into the text `\r`. hbgen blocks are skipped: hbgen never writes CR or BS, so a
 * `\r` there is text.
 */
export function listingAmbiguities(table: Buffer): string[] {
  const lines = splitLines(table).map((l) => text(table, l));
  const ours = new Set<number>();
  let open: { at: number; end: string } | null = null;
  lines.forEach((t, i) => {
    const m = ANY_CRON_MARKER.exec(t);
    if (m?.[1] === 'BEGIN' && open === null) open = { at: i, end: `# END ${t.slice('# BEGIN '.length)}` };
    else if (open !== null && t === open.end) {
      for (let j = open.at; j <= i; j++) ours.add(j);
      open = null;
    }
  });
  const out: string[] = [];
  lines.forEach((t, i) => {
    if (ours.has(i)) return;
    const seen = [...new Set(t.match(/\\[rb]/g) ?? [])];
    if (seen.length === 0) return;
    const what = seen.map((x) => (x === '\\r' ? '"\\r" (a carriage return, as in CRLF line ends, or the text \\r)' : '"\\b" (a backspace or the text \\b)')).join(' and ');
    out.push(`line ${i + 1} of your crontab shows ${what}: Debian's \`crontab -l\` prints both the same way, so hbgen cannot write your crontab back unchanged; remove carriage returns and backspaces with \`crontab -e\`, or move a command that needs the text into a script`);
  });
  return out;
}

/**
 * The job lines outside every hbgen block (of any name) that `runs` accepts: 0-based index
 * and text. Blank, comment and environment lines run nothing and are never among them.
 */
export function jobLinesOutsideBlocks(table: Buffer, runs: (line: string) => boolean): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let open: string | null = null;
  splitLines(table).forEach((l, i) => {
    const t = text(table, l);
    const m = ANY_CRON_MARKER.exec(t);
    if (open === null && m?.[1] === 'BEGIN') open = `# END ${t.slice('# BEGIN '.length)}`;
    else if (open !== null && t === open) open = null;
    else if (open === null && classify(t).kind === 'job' && runs(t)) out.push({ line: i, text: t });
  });
  return out;
}

// ------------------------------------------------------------------ warnings

function envWarnings(table: Buffer, name: string, block: CrontabBlock): string[] {
  const out: string[] = [];
  splitLines(table).forEach((l, i) => {
    if (i >= block.begin && i <= block.end) return;
    const c = classify(text(table, l));
    if (c.kind !== 'env') return;
    const v = c.envName!;
    const head = `line ${i + 1} of your crontab sets ${v}`;
    if (i < block.begin) {
      if (v === 'CRON_TZ') {
        out.push(`${head} above hbgen's block "${name}": cronie reads the block's times in that zone instead of the host clock they were written for (Debian's cron only passes it to the job); move the block to the top with \`crontab -e\``);
      } else if (v === 'SHELL') {
        out.push(`${head} above hbgen's block "${name}": cron starts the block's command with that shell, which then runs /bin/sh`);
      } else {
        out.push(`${head} above hbgen's block "${name}", so it applies to the block's job too`);
      }
    } else if (v === 'CRON_TZ' || v === 'TZ') {
      out.push(`${head} below hbgen's block "${name}": it applies only to the lines below it; the block's times follow the host clock`);
    } else if (v === 'SHELL') {
      out.push(`${head} below hbgen's block "${name}": it applies only to the lines below it; cron starts the block's command with /bin/sh`);
    }
  });
  return out;
}

// ------------------------------------------------------------------ merge and remove

function checkBlock(block: Buffer, name: string): void {
  const m = markers(name);
  const scan = findBlocks(block, name);
  const b = scan.blocks[0];
  const ok =
    scan.problems.length === 0 &&
    scan.blocks.length === 1 &&
    b!.start === 0 &&
    b!.endByte === block.length &&
    block[block.length - 1] === LF &&
    !block.includes(0x0d) &&
    block.subarray(0, m.begin.length + 1).equals(Buffer.from(`${m.begin}\n`));
  if (!ok) throw new Error(`crontab: the block for "${name}" must be "${m.begin}\\n" … "${m.end}\\n" with LF line ends and no other markers`);
}

function changedBlock(name: string, b: CrontabBlock): never {
  refuse([`${range(b)} of your crontab, hbgen's block "${name}", differ from what hbgen installed, so someone edited them; restore them or delete them yourself`]);
}

/**
 * `table` with hbgen's `block` for `name` in it: added first when absent, replaced in place
 * when present, or unchanged when identical. Refuses (UserError) on a broken or duplicated
 * block, and on a changed table crontab(1) would refuse (tableProblems).
 */
export function mergeBlock(table: Buffer | null, block: Buffer, name: string, opts: EditOptions = {}): MergeResult {
  checkBlock(block, name);
  let out: Buffer;
  let action: MergeResult['action'];
  if (table === null) {
    out = Buffer.from(block);
    action = 'added';
  } else {
    const scan = findBlocks(table, name);
    if (scan.problems.length) refuse(scan.problems);
    const old = scan.blocks[0];
    if (!old) {
      out = Buffer.concat([block, table]);
      action = 'added';
    } else {
      const bytes = table.subarray(old.start, old.endByte);
      if (bytes.equals(block)) {
        out = Buffer.from(table);
        action = 'unchanged';
      } else {
        if (opts.previous && !bytes.equals(opts.previous)) changedBlock(name, old);
        out = Buffer.concat([table.subarray(0, old.start), block, table.subarray(old.endByte)]);
        action = 'replaced';
      }
    }
  }
  const at = findBlocks(out, name).blocks[0]!;
  if (action !== 'unchanged') {
    const problems = tableProblems(out);
    if (problems.length) refuse(problems);
  }
  return { table: out, action, warnings: envWarnings(out, name, at) };
}

/**
 * `table` without hbgen's block for `name`, byte for byte what was around it. `table: null`
 * means nothing is left: remove the table (`crontab -r`), unless `keepEmpty` asks for an
 * empty table instead (the install found an empty, present one).
 */
export function removeBlock(table: Buffer, name: string, opts: EditOptions & { keepEmpty?: boolean } = {}): RemoveResult {
  const scan = findBlocks(table, name);
  if (scan.problems.length) refuse(scan.problems);
  const old = scan.blocks[0];
  if (!old) return { table: Buffer.from(table), removed: false };
  if (opts.previous && !table.subarray(old.start, old.endByte).equals(opts.previous)) changedBlock(name, old);
  const out = Buffer.concat([table.subarray(0, old.start), table.subarray(old.endByte)]);
  if (out.length === 0) return { table: opts.keepEmpty ? out : null, removed: true };
  const problems = tableProblems(out);
  if (problems.length) refuse(problems);
  return { table: out, removed: true };
}

// ------------------------------------------------------------------ running crontab(1)

export interface RunResult {
  /** undefined when the program could not be started (spawnError says why). */
  exitCode: number | undefined;
  stdout: Buffer;
  stderr: Buffer;
  spawnError?: string;
}

/** Runs `crontab ARGS…` with `input` on stdin (none: stdin closed). */
export type Runner = (args: string[], input?: Buffer) => Promise<RunResult>;

export interface IoOptions {
  runner?: Runner;
  /**
   * Whether `crontab -l` may print CR and BS as the text `\r` and `\b` (Debian's does;
   * see listingAmbiguities). Default true: writeCrontab refuses to write back a table
   * whose listing is ambiguous. Pass false only for a crontab(1) known to list verbatim.
   */
  listingEscapes?: boolean;
}

/** The default runner: `crontab` from PATH via execa, argv array, LC_ALL=C, bytes out. */
export function crontabRunner(opts: { command?: string; env?: Record<string, string | undefined> } = {}): Runner {
  return async (args, input) => {
    const { execa } = await import('execa');
    const r = await execa(opts.command ?? 'crontab', args, {
      env: { ...(opts.env ?? {}), LC_ALL: 'C' },
      extendEnv: opts.env === undefined,
      encoding: 'buffer',
      stripFinalNewline: false,
      reject: false,
      ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
    });
    const buf = (u: unknown) => (u instanceof Uint8Array ? Buffer.from(u.buffer, u.byteOffset, u.byteLength) : Buffer.alloc(0));
    const spawnError = r.exitCode === undefined ? ((r as { code?: string }).code ?? r.shortMessage ?? 'not started') : undefined;
    return { exitCode: r.exitCode, stdout: buf(r.stdout), stderr: buf(r.stderr), ...(spawnError ? { spawnError } : {}) };
  };
}

function say(r: RunResult): string {
  const msg = r.stderr.toString('utf8').trim().split(/\r?\n/).filter(Boolean).join('; ');
  return msg || `no message, exit ${r.exitCode}`;
}

async function run(runner: Runner, args: string[], input?: Buffer): Promise<RunResult> {
  const r = await runner(args, input);
  if (r.exitCode === undefined) {
    throw new CrontabRefusal([`cannot run \`crontab ${args.join(' ')}\` (${r.spawnError ?? 'not started'}); install cron or put crontab on PATH`], UNTOUCHED);
  }
  return r;
}

/** `crontab -l`: the table as bytes, or absent on exit 1 with "no crontab for …"; anything else refuses. */
export async function readCrontab(opts: IoOptions = {}): Promise<CrontabState> {
  const r = await run(opts.runner ?? crontabRunner(), ['-l']);
  if (r.exitCode === 0) return { state: 'present', table: r.stdout };
  if (r.exitCode === 1 && /^no crontab for /.test(r.stderr.toString('latin1'))) return { state: 'absent' };
  throw new CrontabRefusal([`\`crontab -l\` failed (exit ${r.exitCode}): ${say(r)}`], UNTOUCHED);
}

export function sameState(a: CrontabState, b: CrontabState): boolean {
  if (a.state === 'absent' || b.state === 'absent') return a.state === b.state;
  return a.table.equals(b.table);
}

function describe(s: CrontabState): string {
  return s.state === 'absent' ? 'no crontab' : `a ${s.table.length}-byte crontab`;
}

/**
 * Make the user's crontab `table` (null: no crontab, via `crontab -r`), provided it is
 * still `expectBefore` (what the caller read and edited). Order: refuse what crontab(1)
 * would refuse, and a listing that does not show the table's bytes (listingAmbiguities);
 * re-read and compare; write (skipped when already equal); read back and
 * compare. Returns whether crontab(1) was asked to change anything.
 */
export async function writeCrontab(table: Buffer | null, expectBefore: CrontabState, opts: IoOptions = {}): Promise<{ wrote: boolean }> {
  const runner = opts.runner ?? crontabRunner();
  if (table !== null) {
    const problems = tableProblems(table);
    if (problems.length) refuse(problems);
    if (opts.listingEscapes !== false && expectBefore.state === 'present' && !table.equals(expectBefore.table)) {
      const unclear = listingAmbiguities(expectBefore.table);
      if (unclear.length) refuse(unclear);
    }
  }
  const now = await readCrontab({ runner });
  if (!sameState(now, expectBefore)) {
    throw new CrontabRefusal(['your crontab changed while hbgen was editing it; run the command again'], UNTOUCHED);
  }
  const want: CrontabState = table === null ? { state: 'absent' } : { state: 'present', table };
  if (sameState(now, want)) return { wrote: false };

  const args = table === null ? ['-r'] : ['-'];
  const r = await run(runner, args, table ?? undefined);
  if (r.exitCode !== 0) {
    let after: CrontabState | null = null;
    try {
      after = await readCrontab({ runner });
    } catch {
      after = null;
    }
    const unchanged = after !== null && sameState(after, now);
    throw new UserError([
      `\`crontab ${args[0]}\` failed (exit ${r.exitCode}): ${say(r)}`,
      unchanged ? 'your crontab was not changed' : 'your crontab may have changed; check it with `crontab -l`',
    ]);
  }
  const after = await readCrontab({ runner });
  if (!sameState(after, want)) {
    throw new UserError([
      `after writing, \`crontab -l\` shows ${describe(after)} where hbgen wrote ${describe(want)}${after.state === 'present' && want.state === 'present' && after.table.length === want.table.length ? ' with other bytes' : ''}; check your crontab with \`crontab -l\``,
    ]);
  }
  return { wrote: true };
}
