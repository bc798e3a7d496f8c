// Help with the command line's common mistakes: a mistyped command ("did you mean …"), and
// a flag written before the command (`hbgen --json status`), which yargs would otherwise
// read as a flag taking the command as its value.
import { didYouMean } from './suggest.ts';

/** Flags that belong before any command: yargs' own. */
const GLOBAL = new Set(['--help', '-h', '--version', '-v', '--get-yargs-completions']);

/**
 * `args` with the flags written before the command moved after it, when everything before
 * the command is a flag (`--json status` → `status --json`); `hoisted` names them, so that
 * a flag the command does not take is named as written.
 */
export function hoistFlags(args: string[], commands: string[]): { args: string[]; hoisted: string[] } {
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at <= 0 || !commands.includes(args[at]!)) return { args, hoisted: [] };
  const before = args.slice(0, at);
  if (before.some((a) => GLOBAL.has(a) || a === '--')) return { args, hoisted: [] };
  return { args: [args[at]!, ...before, ...args.slice(at + 1)], hoisted: before.map((a) => a.replace(/=.*$/, '')) };
}

/** "unknown command "rendr"; did you mean "render"?" when the first word is no command; else undefined. */
export function unknownCommand(args: string[], commands: string[]): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  if (first === undefined || commands.includes(first) || args.some((a) => GLOBAL.has(a))) return undefined;
  // Only a first word: `--out x` (a flag's value) is not a command the user meant.
  if (args.indexOf(first) !== 0) return undefined;
  const near = didYouMean(first, commands);
  return near ? `unknown command "${first}" (${near.replace(/^; /, '')})` : `unknown command "${first}"; the commands are ${commands.join(', ')}`;
}

/** yargs' message as one line, naming a flag that was written before the command. */
export function usageLine(msg: string, hoisted: string[], options: string[] = []): string {
  // yargs words some messages over two lines; a usage error is one line.
  const line = msg.replace(/:?\s*\n\s*/g, ': ');
  const m = /^Unknown arguments?: (.*)$/.exec(line);
  if (!m) return line;
  const named = m[1]!.split(', ').map((a) => (a.length === 1 ? `-${a}` : `--${a}`));
  const early = named.filter((a) => hoisted.includes(a));
  if (early.length) return `${early.join(', ')}: not an option of this command (hbgen takes only --help and --version before the command; options go after it, as in \`hbgen status --json\`)`;
  // One mistyped option: the closest one this command takes ("--sceduler" → "--scheduler").
  const flags = options.filter((o) => o.length > 1 && /^[a-z][a-z-]*$/.test(o)).map((o) => `--${o}`);
  const near = named.length === 1 && named[0]!.startsWith('--') ? didYouMean(named[0]!, flags) : '';
  return near ? `unknown option ${named[0]} (${near.replace(/^; /, '')})` : line;
}
