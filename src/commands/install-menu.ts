// install's (and resume's) choice on a terminal, after the panel: install as
// shown, edit the schedule, edit the agent, advanced, or cancel. An edit changes the spec
// file's text in memory (src/json-edit.ts: formatting and `$schema` kept), is validated as
// the file would be, planned again with every read-only check, and shown as a new panel;
// the file is written back only when the person chooses to install. Default No: Enter,
// "n", end of input or cancel change nothing. `--yes`, `--dry-run` and no terminal never
// get here.
import { readFileSync, statSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { writeAtomic } from '../atomic.ts';
import type { HostIO } from '../host/io.ts';
import { Lines } from '../host/install/prompt.ts';
import { setJsonValue } from '../json-edit.ts';
import { parseSpecText } from '../load.ts';
import type { Spec } from '../spec.ts';

export interface MenuHooks<P> {
  verb: 'install' | 'resume';
  /** The spec file (absolute) whose text is edited. */
  specFile: string;
  /** The spec as the plan holds it. */
  specOf: (p: P) => Spec;
  /** Every read-only check again, for an edited spec; throws a UserError on a refusal. */
  replan: (spec: Spec) => Promise<P>;
  /** The panel of a plan. */
  show: (p: P) => string;
}

/** One field a menu entry asks for: where it lives in the spec, and how an answer becomes its value. */
interface Field {
  label: string;
  path: string[];
  /** The current value as the person reads it. */
  shown: (s: Spec) => string;
  /** An answer (not empty) → the value, or undefined to remove the field. */
  parse: (a: string) => unknown;
}

const get = (s: unknown, path: string[]): unknown => path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), s);
const text = (path: string[], none = 'not set') => (s: Spec) => {
  const v = get(s, path);
  return v === undefined ? none : typeof v === 'string' ? v : JSON.stringify(v);
};
const str = (a: string) => (a === '-' ? undefined : a);
const int = (a: string) => (a === '-' ? undefined : /^\d+$/.test(a) ? Number(a) : a);
/** Words separated by spaces, or a JSON array for words with spaces in them. */
const words = (a: string) => {
  if (a === '-') return undefined;
  if (a.startsWith('[')) {
    try {
      return JSON.parse(a) as unknown;
    } catch {
      return a;
    }
  }
  return a.split(/\s+/).filter(Boolean);
};
// "fast=haiku strong=opus"; a word without "=" becomes a tier with no model, which validation names.
const tiers = (a: string) => (a === '-' ? undefined : Object.fromEntries(a.split(/\s+/).filter(Boolean).map((w) => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, '']))));

const SCHEDULE: Field[] = [
  { label: 'interval (schedule.every)', path: ['schedule', 'every'], shown: text(['schedule', 'every']), parse: str },
  { label: 'hours start (HH:MM)', path: ['schedule', 'hours', 'start'], shown: text(['schedule', 'hours', 'start']), parse: str },
  { label: 'hours end (HH:MM, 24:00)', path: ['schedule', 'hours', 'end'], shown: text(['schedule', 'hours', 'end']), parse: str },
  { label: 'days (mon tue …; - for every day)', path: ['schedule', 'hours', 'days'], shown: (s) => s.schedule.hours.days?.join(' ') ?? 'every day', parse: words },
  { label: 'time zone (IANA)', path: ['schedule', 'hours', 'timezone'], shown: text(['schedule', 'hours', 'timezone']), parse: str },
];
const AGENT: Field[] = [
  { label: 'harness (claude-code, codex, command)', path: ['agent', 'harness'], shown: text(['agent', 'harness']), parse: str },
  { label: 'model (- for the client\'s default)', path: ['agent', 'model'], shown: text(['agent', 'model'], "the client's default"), parse: str },
  { label: 'effort (- for the client\'s default)', path: ['agent', 'effort'], shown: text(['agent', 'effort'], "the client's default"), parse: str },
  { label: 'tiers (fast=haiku strong=opus; - for none)', path: ['agent', 'models'], shown: (s) => (s.agent.models ? Object.entries(s.agent.models).map(([k, v]) => `${k}=${v}`).join(' ') : 'none'), parse: tiers },
];
const ADVANCED = (s: Spec): Field[] => [
  { label: 'timeout', path: ['timeout'], shown: text(['timeout']), parse: str },
  { label: 'cap (wakes; - for none)', path: ['cap'], shown: text(['cap'], 'none'), parse: int },
  { label: 'budget (tokens per working day; - for none)', path: ['budget'], shown: text(['budget'], 'none'), parse: int },
  // Jail hosts only where the jail is on: setting them on `"sandbox": false` would turn it on unasked.
  ...(s.sandbox === false ? [] : [{ label: 'jail hosts (sandbox.allowHosts; - for none)', path: ['sandbox', 'allowHosts'], shown: (x: Spec) => ((get(x, ['sandbox', 'allowHosts']) as string[] | undefined)?.join(' ') ?? 'none'), parse: words }]),
  { label: 'notify (a program and its arguments; - for none)', path: ['notify'], shown: (x) => x.notify?.join(' ') ?? 'none', parse: words },
];

const ENTRIES = ['install as shown', 'edit the schedule (interval, hours, days, zone)', 'edit the agent (harness, model, effort, tiers)', 'advanced (timeout, cap, budget, jail hosts, notify)', 'cancel'];

/** The spec file's text (a UTF-8 BOM kept apart, so that the file keeps it). */
function readSpecText(file: string): { bom: string; body: string } {
  const t = readFileSync(file, 'utf8');
  return t.startsWith('\ufeff') ? { bom: '\ufeff', body: t.slice(1) } : { bom: '', body: t };
}

/** Ask each field in turn; Enter keeps it. The edited text, or null when nothing changed. */
async function askFields(io: HostIO, lines: Lines, fields: Field[], spec: Spec, body: string): Promise<string | null> {
  let out = body;
  io.err('Enter keeps a value; - removes an optional one.\n');
  for (const f of fields) {
    io.err(`  ${f.label} [${f.shown(spec)}]: `);
    const a = await lines.next();
    if (a === null) {
      io.err('\n');
      return null;
    }
    const v = a.trim();
    if (v !== '') out = setJsonValue(out, f.path, f.parse(v));
  }
  return out === body ? null : out;
}

/** The menu; returns the plan to install (its spec file written if edited), or throws: nothing changed. */
export async function chooseOnTerminal<P>(first: P, io: HostIO, h: MenuHooks<P>): Promise<P> {
  const lines = new Lines(io.stdin);
  const { bom, body: original } = readSpecText(h.specFile);
  let body = original;
  let p = first;
  const question = `${h.verb === 'install' ? 'Install' : 'Resume'} "${h.specOf(p).name}" on this host with these settings?`;
  try {
    for (;;) {
      io.err(`${question}\n${ENTRIES.map((e, i) => `  ${i + 1}) ${e}`).join('\n')}\n[1-5, y/N] `);
      const l = await lines.next();
      if (l === null) io.err('\n');
      const a = (l ?? '').trim().toLowerCase();
      if (a === '1' || a === 'y' || a === 'yes') {
        if (body !== original) {
          writeAtomic(h.specFile, bom + body, statSync(h.specFile).mode & 0o7777);
          io.err(`wrote the edited settings to ${h.specFile}\n`);
        }
        return p;
      }
      if (l === null || a === '' || a === '5' || a === 'n' || a === 'no') {
        throw new UserError([`you did not confirm, so nothing was changed on this host${body !== original ? ` and ${h.specFile} is as it was` : ''}`]);
      }
      const spec = h.specOf(p);
      const fields = a === '2' ? SCHEDULE : a === '3' ? AGENT : a === '4' ? ADVANCED(spec) : null;
      if (!fields) {
        io.err('answer with a number from 1 to 5 (Enter cancels)\n');
        continue;
      }
      const edited = await askFields(io, lines, fields, spec, body);
      if (edited === null) {
        io.err('nothing changed\n');
        continue;
      }
      try {
        const next = await h.replan(parseSpecText(edited, h.specFile));
        body = edited;
        p = next;
        io.out(h.show(p));
      } catch (e) {
        if (!(e instanceof UserError)) throw e;
        io.err(`that edit is not taken (the settings stay as shown above):\n${e.lines.map((x) => `  ${x}`).join('\n')}\n`);
      }
    }
  } finally {
    lines.close(io.stdin);
  }
}
