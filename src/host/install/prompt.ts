// Asking things on a terminal: the one consent question of install and resume, and init's
// menus. Questions go to stderr, so that stdout stays the command's own output.
import { createInterface } from 'node:readline';
import type { HostIO } from '../io.ts';

/** Lines from a terminal, one question at a time; null at end of input. */
export class Lines {
  private buf: string[] = [];
  private waiting: ((l: string | null) => void) | null = null;
  private closed = false;
  private rl;
  constructor(stdin: NodeJS.ReadableStream) {
    this.rl = createInterface({ input: stdin, terminal: false });
    this.rl.on('line', (l) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(l);
      } else this.buf.push(l);
    });
    this.rl.on('close', () => {
      this.closed = true;
      if (this.waiting) this.waiting(null);
    });
  }
  next(): Promise<string | null> {
    if (this.buf.length) return Promise.resolve(this.buf.shift()!);
    if (this.closed) return Promise.resolve(null);
    return new Promise((r) => (this.waiting = r));
  }
  close(stdin: NodeJS.ReadableStream) {
    this.rl.close();
    (stdin as NodeJS.ReadStream).pause?.();
  }
}

// A yes/no question. Default No (the one consent question): only "y" or "yes" accepts;
// anything else, an empty line or end of input, does not. `enterIsYes` ("[Y/n]"): Enter
// accepts too; anything else, and end of input (nobody answered), still declines. Without
// a terminal there is no one to ask.
export async function askConsent(io: HostIO, question: string, enterIsYes = false): Promise<'yes' | 'no' | 'no-tty'> {
  if (!io.stdin.isTTY) return 'no-tty';
  io.err(`${question} ${enterIsYes ? '[Y/n]' : '[y/N]'} `);
  const lines = new Lines(io.stdin);
  const answer = await lines.next();
  lines.close(io.stdin);
  if (answer === null) io.err('\n');
  return answer !== null && (enterIsYes ? /^\s*(y(es)?)?\s*$/i : /^\s*y(es)?\s*$/i).test(answer) ? 'yes' : 'no';
}

export interface Question {
  title: string;
  choices: { label: string; value: string }[];
  /** How to type an answer that is not in the menu; '' when only the menu will do. */
  custom: string;
  /** An error sentence for a custom value, or null when it is fine. */
  check: (v: string) => string | null;
  /** The custom value as recorded, once check accepted it ("9" → "09:00"). */
  normalize?: (v: string) => string;
}

/** The menu's keys: letters, so that a number is always a value typed in (an hour, a count). */
const KEYS = 'abcdefghijklmnopqrstuvwxyz';

/** Ask one menu question until it gets a usable answer; '' = decide later, null = input ended. */
export async function ask(io: HostIO, lines: Lines, q: Question): Promise<string | null> {
  // A menu choice is a letter and a typed value never is, so "3" for an hour is 03:00, never
  // the third choice.
  const menu = q.choices.map((c, i) => `  ${KEYS[i]}) ${c.label}`).join('\n');
  const last = KEYS[q.choices.length - 1];
  const pick = q.choices.length > 1 ? `a letter from a to ${last}` : 'a';
  const or = q.custom ? `, ${q.custom},` : '';
  io.err(`\n${q.title}\n${menu}\n${q.custom ? `  or type ${q.custom}\n` : ''}  (a letter picks a choice; Enter: decide later) > `);
  for (;;) {
    const l = await lines.next();
    if (l === null) {
      io.err('\n');
      return null;
    }
    const a = l.trim();
    if (a === '') return '';
    const k = /^[a-z]$/i.test(a) ? KEYS.indexOf(a.toLowerCase()) : -1;
    if (k >= 0 && k < q.choices.length) return q.choices[k]!.value;
    const why = q.check(a);
    if (!why) return q.normalize ? q.normalize(a) : a;
    io.err(`  ${why}; answer with ${pick}${or} or Enter > `);
  }
}
