// Colour, sparingly: only on a terminal, never with NO_COLOR set (https://no-color.org: any
// non-empty value), never for TERM=dumb, never in --json output. Plain SGR sequences, no
// dependency: a pipe, a file or a script always gets the same bytes as before. Each is a mark
// (src/escape.ts colourMark) that only the output guard turns into colour, so the same bytes
// in text the agent wrote stay inert.
import { colourMark } from './escape.ts';
import type { HostIO } from './host/io.ts';

export type Paint = (s: string) => string;
export interface Palette {
  good: Paint;
  bad: Paint;
  warn: Paint;
  dim: Paint;
}

const sgr = (code: 2 | 31 | 32 | 33): Paint => (s) => `${colourMark(code)}${s}${colourMark(0)}`;
const plain: Paint = (s) => s;

/** Whether output to `io.out` may be coloured. */
export function colourOn(io: Pick<HostIO, 'env' | 'outTTY'>, json = false): boolean {
  if (json || io.outTTY !== true) return false;
  if ((io.env.NO_COLOR ?? '') !== '') return false;
  return io.env.TERM !== 'dumb';
}

export function palette(on: boolean): Palette {
  return on ? { good: sgr(32), bad: sgr(31), warn: sgr(33), dim: sgr(2) } : { good: plain, bad: plain, warn: plain, dim: plain };
}
