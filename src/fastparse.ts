// The plain forms of render and check, parsed without yargs (see main.ts).
import { SCHEDULER_IDS, type SchedulerId } from './scheduler-facts.ts';

export type Fast = { cmd: 'render'; spec: string; out?: string; scheduler?: SchedulerId } | { cmd: 'check'; spec: string; dir: string };

/** The plain forms only; undefined sends the call to yargs. */
export function fastParse(args: string[]): Fast | undefined {
  const word = (s: string | undefined) => s !== undefined && s !== '' && !s.startsWith('-');
  if (args[0] === 'check') {
    return args.length === 3 && word(args[1]) && word(args[2]) ? { cmd: 'check', spec: args[1]!, dir: args[2]! } : undefined;
  }
  if (args[0] !== 'render') return undefined;
  const r: Fast & { cmd: 'render' } = { cmd: 'render', spec: './hbgen.json' };
  let spec = false;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--(out|scheduler)(?:=(.*))?$/.exec(a);
    if (m) {
      const value = m[2] ?? args[++i];
      if (!word(value) || r[m[1] as 'out' | 'scheduler'] !== undefined) return undefined;
      if (m[1] === 'scheduler') {
        if (!(SCHEDULER_IDS as readonly string[]).includes(value!)) return undefined;
        r.scheduler = value as SchedulerId;
      } else r.out = value;
    } else if (word(a) && !spec) {
      spec = true;
      r.spec = a;
    } else return undefined;
  }
  return r;
}

