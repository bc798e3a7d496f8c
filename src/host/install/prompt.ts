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

// The one consent question. Default No: only "y" or "yes" installs; anything else, an
// empty line or end of input, does not. Without a terminal there is no one to ask.
export async function askConsent(io: HostIO, question: string): Promise<'yes' | 'no' | 'no-tty'> {
  if (!io.stdin.isTTY) return 'no-tty';
  io.err(`${question} [y/N] `);
  const lines = new Lines(io.stdin);
  const answer = await lines.next();
  lines.close(io.stdin);
  if (answer === null) io.err('\n');
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer) ? 'yes' : 'no';
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

/** Ask one menu question until it gets a usable answer; '' = decide later, null = input ended. */
export async function ask(io: HostIO, lines: Lines, q: Question): Promise<string | null> {
  const menu = q.choices.map((c, i) => `  ${i + 1}) ${c.label}`).join('\n');
  const or = q.custom ? `, ${q.custom},` : '';
  io.err(`\n${q.title}\n${menu}\n${q.custom ? `  or type ${q.custom}\n` : ''}  (Enter: decide later) > `);
  for (;;) {
    const l = await lines.next();
    if (l === null) {
      io.err('\n');
      return null;
    }
    const a = l.trim();
    if (a === '') return '';
    const n = /^[0-9]+$/.test(a) ? Number(a) : NaN;
    if (n >= 1 && n <= q.choices.length) return q.choices[n - 1]!.value;
    const why = q.check(a);
    if (!why) return q.normalize ? q.normalize(a) : a;
    io.err(`  ${why}; answer with a number from 1 to ${q.choices.length}${or} or Enter > `);
  }
}
