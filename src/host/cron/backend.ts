// cron: the marked block merged into the user's crontab by src/host/cron/crontab.ts (bytes kept,
// block first, re-read before and verified after each write), under hbgen's own lock.
// state.json records whether the table existed before, so that stop restores "no
// crontab" with `crontab -r`, and the block's bytes, so that an edited block is refused
// rather than overwritten or deleted.
import { catchUpCaveat } from '../audit/catchup.ts';
import { UserError } from '../../errors.ts';
import type { Plan } from '../../schedule.ts';
import { cronWord } from '../../escape.ts';
import { type Audit, type Backend, type Ctx, type HostEntry, type Journal, type Preflight, type StopPlan, entryOwner, lastWordBack, nothingToStop, runsWrapper, wrapperIn } from '../backend.ts';
import { ANY_CRON_MARKER } from '../../formats.ts';
import { cronDaemonRefusal } from './daemon.ts';
import {
  CrontabRefusal,
  type CrontabState,
  crontabRunner,
  findBlocks,
  jobLinesOutsideBlocks,
  listingAmbiguities,
  mergeBlock,
  readCrontab,
  removeBlock,
  sameState,
  writeCrontab,
} from './crontab.ts';
import { nextFireText } from '../audit/next.ts';
import { crontabEnvProblems } from '../audit/tamper.ts';
import type { State } from '../state.ts';
import { findOnPath, toolsPresent } from '../proc/tools.ts';

/** What state.json records for cron: whether there was a crontab before, and the block's bytes. */
export interface CronRecord {
  tableBefore: 'absent' | 'empty' | 'present';
  block: string;
}

declare module '../state.ts' {
  interface State {
    cron?: CronRecord;
  }
}

/** The table preflight read and the one apply writes; null when there is nothing to write. */
type CronData = { before: CrontabState; table: Buffer } | null;

/** A preflight that found the crontab out of reach: one refusal, nothing else. */
function unreachable(refusal: string): Preflight<CronData> {
  return { refusals: [refusal], caveats: [], hostFiles: [], writes: [], commands: [], checks: [], unchanged: false, ids: {}, data: null, stateExtra: {} };
}

function io(c: Pick<Ctx, 'io'>) {
  return { runner: crontabRunner({ command: findOnPath('crontab', c.io.env.PATH) ?? 'crontab', env: c.io.env }) };
}

function blockOf(c: Ctx): Buffer {
  return Buffer.from(c.files.find((f) => f.path === 'host/crontab')!.content);
}

const tableOf = (s: CrontabState) => (s.state === 'present' ? s.table : null);

/** Everything a merge needs, or the refusals; pure given `before`. */
function computeMerge(c: Ctx, before: CrontabState): { refusals: string[]; table?: Buffer; action?: string; warnings: string[]; edited?: string[]; tableBefore?: CronRecord['tableBefore'] } {
  const block = blockOf(c);
  const table = tableOf(before);
  const name = c.spec.name;
  const edited: string[] = [];
  if (table) {
    const scan = findBlocks(table, name);
    if (scan.problems.length) return { refusals: [...scan.problems.map((p) => `your crontab: ${p}`)], warnings: [] };
    const old = scan.blocks[0];
    if (old) {
      const bytes = table.subarray(old.start, old.endByte);
      const recorded = c.prev?.cron ? Buffer.from(c.prev.cron.block) : null;
      const lines = `lines ${old.begin + 1}–${old.end + 1}`;
      if (!bytes.equals(block) && !(recorded && bytes.equals(recorded))) {
        // hbgen's own block (state.json records it) edited since install: drift that install
        // repairs after the panel has shown the lines it replaces; a block it did not record
        // belongs to another install and is refused.
        if (recorded) {
          edited.push(`${lines} of your crontab, hbgen's block "${name}", were edited since install; install puts hbgen's block back, replacing:\n${bytes.toString('latin1').trimEnd()}`);
        } else {
          return {
            refusals: [
              `${lines} of your crontab hold a block "${name}" that ${c.names.stateDir}/state.json does not record (another install of a spec named "${name}"?); stop that install with \`hbgen stop\` and its spec, or delete the block with \`crontab -e\`, then run the command again`,
            ],
            warnings: [],
          };
        }
      }
    }
  }
  let m;
  try {
    m = mergeBlock(table, block, name);
  } catch (e) {
    if (e instanceof CrontabRefusal) return { refusals: e.problems.map((l) => `your crontab: ${l}`), warnings: [] };
    throw e;
  }
  const refusals = table && m.action !== 'unchanged' ? listingAmbiguities(table) : [];
  const hadOurs = table !== null && findBlocks(table, name).blocks.length === 1;
  const tableBefore = hadOurs && c.prev?.cron ? c.prev.cron.tableBefore : before.state === 'absent' ? 'absent' : table!.length === 0 ? 'empty' : 'present';
  return { refusals, table: m.table, action: m.action, warnings: m.warnings, edited, tableBefore };
}

/**
 * cronWord's word read back as sh reads it: '…' literal, \\x outside quotes for x (cron
 * itself turns \\% into %). Only a guess: wrapperIn accepts it only when cronWord gives
 * the same word again.
 */
function cronWordBack(w: string): string | null {
  let out = '';
  for (let i = 0; i < w.length; ) {
    const ch = w[i]!;
    if (ch === "'") {
      const j = w.indexOf("'", i + 1);
      if (j < 0) return null;
      out += w.slice(i + 1, j);
      i = j + 1;
    } else if (ch === '\\' && i + 1 < w.length) {
      out += w[i + 1];
      i += 2;
    } else if (/[\s\\]/.test(ch)) return null;
    else out += w[i++];
  }
  return out;
}

/** hbgen's blocks of any name in a crontab, each with the wrapper its job lines run (null unless all run the same one). */
function blockEntries(table: Buffer): { entries: HostEntry[]; notes: string[] } {
  const names = new Set<string>();
  for (const l of table.toString('latin1').split('\n')) {
    const m = ANY_CRON_MARKER.exec(l);
    if (m?.[1] === 'BEGIN') names.add(l.slice(l.lastIndexOf(' ') + 1));
  }
  const entries: HostEntry[] = [];
  const notes: string[] = [];
  for (const name of [...names].sort()) {
    const scan = findBlocks(table, name);
    notes.push(...scan.problems.map((p) => `your crontab: ${p}`));
    for (const b of scan.blocks) {
      const bytes = table.subarray(b.start, b.endByte);
      const text = bytes.toString('utf8');
      const jobs = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
      const runs = new Set(jobs.map((l) => wrapperIn(text, name, lastWordBack(l, `hbgen-${name}`, cronWord, cronWordBack), cronWord)));
      const wrapper = runs.size === 1 ? [...runs][0]! : null;
      const tampered = crontabEnvProblems(table.toString('utf8'), b.end, name);
      entries.push({ name, where: [`lines ${b.begin + 1}–${b.end + 1} of your crontab`], wrapper, copies: [{ copy: 'crontab', bytes }], tampered });
    }
  }
  return { entries, notes };
}

export const backend: Backend<CronData> = {
  // cron is everywhere else: init's last choice, for the reason the schedulers before it declined.
  async detect() {
    return { fits: true, why: '' };
  },

  async preflight(c) {
    let before: CrontabState;
    try {
      before = await readCrontab(io(c));
    } catch (e) {
      if (!(e instanceof CrontabRefusal)) throw e;
      return unreachable(`${e.problems.join('; ')}; fix access to cron (e.g. /etc/cron.allow, /etc/cron.deny) or choose another scheduler`);
    }
    const m = computeMerge(c, before);
    // A crontab no daemon reads never fires.
    const daemon = await cronDaemonRefusal(c.io);
    if (daemon) m.refusals.push(daemon);
    const data = m.table !== undefined && m.action !== 'unchanged' ? { before, table: m.table } : null;
    const changes = data !== null;
    const p: Preflight<CronData> = {
      refusals: m.refusals,
      caveats: [
        ...(m.edited ?? []),
        // The library numbers lines in the merged table.
        ...m.warnings.map((w) => `once the block is in: ${w}`),
        'cron also runs the job while you are logged out',
        catchUpCaveat(c.spec),
      ],
      hostFiles: [],
      writes: changes ? [`your crontab: hbgen's block "${c.spec.name}" (${c.names.cronBegin} … ${c.names.cronEnd}) first, every other byte kept`] : [],
      commands: changes ? [{ argv: ['crontab', '-'], note: '(the new table on stdin, after re-reading it; read back after)' }] : [],
      checks: [['crontab', '-l']],
      unchanged: m.action === 'unchanged' && m.refusals.length === 0,
      ids: { begin: c.names.cronBegin, end: c.names.cronEnd },
      data,
      stateExtra: m.tableBefore ? { cron: { tableBefore: m.tableBefore, block: blockOf(c).toString('utf8') } } : {},
    };
    return p;
  },

  async apply(c, p, j: Journal) {
    if (!p.data) return;
    const o = io(c);
    let { before, table } = p.data;
    // The consent may have taken minutes: read again under hbgen's lock.
    const now = await readCrontab(o);
    if (!sameState(now, before)) {
      const m = computeMerge(c, now);
      if (m.refusals.length) throw new UserError(m.refusals);
      before = now;
      table = m.table!;
    }
    await writeCrontab(table, before, o);
    const wrote: CrontabState = { state: 'present', table };
    j.push(before.state === 'absent' ? 'removed your crontab again (crontab -r: there was none before)' : 'restored your crontab byte for byte', async () => {
      await writeCrontab(tableOf(before), wrote, o);
    });
  },

  async listed(c) {
    const now = await readCrontab(io(c));
    const table = tableOf(now);
    if (!table) return { ok: false, observed: 'crontab -l: no crontab' };
    const scan = findBlocks(table, c.spec.name);
    const b = scan.blocks[0];
    if (scan.blocks.length !== 1 || !b) return { ok: false, observed: `crontab -l holds ${scan.blocks.length} blocks "${c.spec.name}"` };
    const same = table.subarray(b.start, b.endByte).equals(blockOf(c));
    return {
      ok: same,
      observed: `crontab -l holds hbgen's block "${c.spec.name}" at lines ${b.begin + 1}–${b.end + 1}${same ? ', byte for byte as written' : ', but with other bytes'}`,
    };
  },

  hostPaths() {
    return { files: [], dirs: [] };
  },

  async planStop(c, s: State | null): Promise<StopPlan> {
    const o = io(c);
    const name = c.spec.name;
    const absent = `your crontab holds no block "${name}" (already removed)`;
    let before: CrontabState;
    try {
      before = await readCrontab(o);
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      // Without state.json this is only a look for a lost entry: say so, do not refuse.
      return s ? nothingToStop(absent, [], e.lines) : nothingToStop(absent, [`cannot read your crontab (${e.lines.join('; ')}), so hbgen could not look for a block "${name}" there`]);
    }
    const table = tableOf(before);
    const scan = table ? findBlocks(table, name) : { blocks: [], problems: [] };
    const b = scan.blocks[0];
    if (!table || !b) return nothingToStop(absent, [], scan.problems.map((p) => `your crontab: ${p}`));
    const lines = `lines ${b.begin + 1}–${b.end + 1}`;
    const recorded = s?.cron ? Buffer.from(s.cron.block) : undefined;
    if (!recorded) {
      // Found by its markers alone: remove it only when its content is this install's.
      const owner = entryOwner(table.subarray(b.start, b.endByte).toString('utf8'), c, cronWord(c.names.wrapper));
      if (owner !== 'ours') {
        return nothingToStop(absent, [
          owner === 'other'
            ? `left ${lines} of your crontab: hbgen's block "${name}" of another state folder; stop that install with its own spec`
            : `left ${lines} of your crontab: marked "${name}" but without hbgen's generated-by line; delete them with \`crontab -e\` if they are not yours`,
        ]);
      }
    }
    let r;
    try {
      // Without a record of the table before install, an emptied table is kept, not removed.
      r = removeBlock(table, name, { previous: recorded, keepEmpty: s?.cron?.tableBefore !== 'absent' || !recorded });
    } catch (e) {
      if (e instanceof CrontabRefusal) return nothingToStop(absent, [], e.problems.map((l) => `your crontab: ${l}`));
      throw e;
    }
    const next = r.table;
    return {
      refusals: [],
      found: [`the crontab block "${name}" (${lines} of your crontab)`],
      notes: [],
      absent,
      async run(say) {
        // Under hbgen's lock; writeCrontab re-reads and refuses if the table changed meanwhile.
        await writeCrontab(next, before, o);
        say(next === null ? 'ran crontab -r: you had no crontab before install' : `removed hbgen's block "${name}" from your crontab`);
      },
    };
  },

  async audit(c, s, plan: Plan): Promise<Audit> {
    const problems: string[] = [];
    const info: string[] = [];
    let now: CrontabState;
    try {
      now = await readCrontab(io(c));
    } catch (e) {
      if (e instanceof CrontabRefusal) return { problems: e.problems, info, present: false };
      throw e;
    }
    const table = tableOf(now);
    const scan = table ? findBlocks(table, c.spec.name) : { blocks: [], problems: [] };
    if (scan.problems.length) problems.push(...scan.problems.map((p) => `duplicate or broken block in your crontab: ${p}`));
    if (scan.blocks.length === 0) {
      problems.push(`orphan: state.json says installed, but your crontab holds no block "${c.spec.name}" (a \`crontab -e\` may have dropped it); run \`hbgen install\` to put it back`);
    } else if (scan.blocks.length === 1 && s.cron) {
      const b = scan.blocks[0]!;
      problems.push(...crontabEnvProblems(table!.toString('utf8'), b.end, c.spec.name));
      if (!table!.subarray(b.start, b.endByte).equals(Buffer.from(s.cron.block))) problems.push(`drift: lines ${b.begin + 1}–${b.end + 1} of your crontab, hbgen's block, differ from what hbgen installed; run \`hbgen install\``);
      else info.push(`your crontab holds hbgen's block "${c.spec.name}" at lines ${b.begin + 1}–${b.end + 1}`);
    }
    // A next fire only for an entry that is there (an orphan fires never).
    const present = scan.blocks.length > 0;
    if (present) info.push(`next fire: ${nextFireText(plan, c.io.now())}`);
    return { problems, info, present };
  },

  // A copy of the job line outside every hbgen block (a `crontab -e` that kept one): never
  // edited, only named (every byte outside hbgen's block is the person's).
  async strays(c) {
    if (!toolsPresent('cron', c.io.env.PATH, 'inspect').ok) return { found: [], notes: [] };
    let now: CrontabState;
    try {
      now = await readCrontab(io(c));
    } catch (e) {
      if (e instanceof CrontabRefusal) return { found: [], notes: [`could not read your crontab to look for a line that runs ${c.names.wrapper} (${e.problems.join('; ')})`] };
      throw e;
    }
    const table = tableOf(now);
    if (!table) return { found: [], notes: [] };
    const w = c.names.wrapper;
    // A copied job line is long (it checks the wrapper's SHA-256): its schedule and its end, which names the wrapper.
    const shorten = (t: string) => (t.length > 160 ? `${t.slice(0, 60)} ... ${t.slice(-90)}` : t);
    const found = jobLinesOutsideBlocks(table, (t) => runsWrapper(t, w, [cronWord(w)])).map((l) => ({
      where: `line ${l.line + 1} of your crontab`,
      text: shorten(l.text),
      fix: 'delete that line with `crontab -e` (hbgen never edits a line of your crontab outside its block)',
    }));
    return { found, notes: [] };
  },

  async inventory(c, toolsOnPath) {
    const place = 'crontab -l';
    if (!toolsOnPath) return { place, looked: false, entries: [], notes: [] };
    let now: CrontabState;
    try {
      now = await readCrontab(io(c));
    } catch (e) {
      if (e instanceof CrontabRefusal) return { place, looked: false, entries: [], notes: e.problems };
      throw e;
    }
    const table = tableOf(now);
    return { place, looked: true, ...(table ? blockEntries(table) : { entries: [], notes: [] }) };
  },
};
