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

/**
 * Each command's own options (beyond --help and --version), to answer a flag given to the
 * wrong command ("wake --now": `--now` is resume's). test/mistakes.test.ts checks this table
 * against each command's --help, so that it cannot drift from cli.ts.
 */
export const OPTIONS_OF: Record<string, string[]> = {
  render: ['--out', '--scheduler'],
  check: [],
  schema: [],
  runtime: ['--sha256'],
  init: [],
  install: ['--yes', '--dry-run', '--apply', '--first-wake', '--force-empty-heart'],
  status: ['--json'],
  stop: ['--all', '--apply'],
  resume: ['--yes', '--dry-run', '--apply', '--reset-cap', '--now'],
  wake: [],
  doctor: [],
  log: ['--days', '--digest', '--json', '--send', '--state'],
  plan: ['--svg'],
  forget: ['--keep-logs', '--yes', '--dry-run'],
  list: ['--json'],
  upgrade: ['--all', '--yes', '--dry-run'],
};

/** The arguments each command takes besides its options, for an extra one ("plan takes one argument, SPEC"). */
const POSITIONALS_OF: Record<string, string> = {
  render: 'SPEC', check: '[SPEC] DIR', init: 'DIR', install: 'SPEC', status: 'SPEC', stop: 'SPEC', resume: 'SPEC',
  wake: 'SPEC', doctor: 'SPEC', log: 'SPEC', plan: 'SPEC', forget: 'NAME', upgrade: 'NAME', schema: '', runtime: '', list: '',
};

/** "render takes --out, --scheduler" (or "wake takes no options"). */
const takes = (cmd: string) => (OPTIONS_OF[cmd]?.length ? `${cmd} takes ${OPTIONS_OF[cmd]!.join(', ')}` : `${cmd} takes no options`);

/** One unknown flag of `cmd`: the closest of its own, else the command(s) it belongs to, else what it takes. */
function unknownFlag(flag: string, cmd: string | undefined, own: string[]): string {
  const near = didYouMean(flag, own);
  if (near) return `unknown option ${flag} (${near.replace(/^; /, '')})`;
  if (!cmd || !OPTIONS_OF[cmd]) return `unknown option ${flag}`;
  const all = [...new Set(Object.values(OPTIONS_OF).flat())];
  const meant = all.includes(flag) ? flag : (/"(.*)"/.exec(didYouMean(flag, all))?.[1] ?? null);
  const where = meant ? Object.keys(OPTIONS_OF).filter((c) => OPTIONS_OF[c]!.includes(meant)) : [];
  if (meant && where.length) {
    const said = meant === flag ? `${flag} is an option of ${where.join(', ')} (\`hbgen ${where[0]} ${flag}\`), not of ${cmd}` : `did you mean ${meant}? it is an option of ${where.join(', ')}, not of ${cmd}`;
    return `unknown option ${flag} for ${cmd}: ${said}; ${takes(cmd)}`;
  }
  return `unknown option ${flag} for ${cmd}; ${takes(cmd)}`;
}

/** Whether yargs' word `w` (from "Unknown arguments: …") was written as a flag in `args`, not as an extra argument. */
function writtenAsFlag(w: string, args: string[]): boolean {
  return args.some((a) => {
    if (a.startsWith('--')) return a === `--${w}` || a.startsWith(`--${w}=`) || a === `--no-${w}`;
    // A short flag, alone or in a cluster (`-Cx`), or with a value (`-C=3`).
    return w.length === 1 && /^-[^-]/.test(a) && a.slice(1).split('=')[0]!.includes(w);
  });
}

/** Extra arguments: what the command takes instead. */
function extraArguments(words: string[], cmd: string | undefined): string {
  const list = words.map((w) => JSON.stringify(w)).join(', ');
  const what = words.length === 1 ? `argument ${list}` : `arguments ${list}`;
  if (!cmd || POSITIONALS_OF[cmd] === undefined) return `unexpected ${what}`;
  const p = POSITIONALS_OF[cmd]!;
  return p ? `unexpected ${what} for ${cmd}: it takes \`hbgen ${cmd} ${p}\` (quote a path with spaces)` : `unexpected ${what}: ${cmd} takes no argument`;
}

/** yargs' message as one line, naming a flag that was written before the command. */
export function usageLine(msg: string, hoisted: string[], options: string[] = [], cmd?: string, args: string[] = []): string {
  // yargs words some messages over two lines; a usage error is one line.
  const line = msg.replace(/:?\s*\n\s*/g, ': ');
  // A value outside an option's choices: said as the spec's enum fields are, with "did you mean".
  const bad = /^Invalid values: Argument: ([\w-]+), Given: "(.*)", Choices: (.*)$/.exec(line);
  if (bad) {
    const choices = bad[3]!.split(', ').map((c) => c.replace(/^"|"$/g, ''));
    return `--${bad[1]}: must be one of ${choices.join(' ')}, got ${JSON.stringify(bad[2])}${didYouMean(bad[2]!, choices)}`;
  }
  // A required argument left out (forget's NAME): what to write.
  if (/^Not enough non-option arguments/.test(line) && cmd && POSITIONALS_OF[cmd]) {
    return `${cmd}: name the install, as \`hbgen ${cmd} ${POSITIONALS_OF[cmd]}\` (\`hbgen list\` lists them)`;
  }
  const m = /^Unknown arguments?: (.*)$/.exec(line);
  if (!m) return line;
  // yargs names a dashed flag twice, as written and camel-cased ("keep-log, keepLog").
  const all = m[1]!.split(', ');
  const camel = (w: string) => w.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const words = all.filter((w) => !(/[A-Z]/.test(w) && w.length > 1 && all.some((o) => o !== w && camel(o) === w)));
  // Without the command line (a caller that has none), every word is taken for a flag.
  const extra = args.length ? words.filter((w) => !writtenAsFlag(w, args)) : [];
  if (extra.length) return extraArguments(extra, cmd);
  const named = words.map((a) => (a.length === 1 ? `-${a}` : `--${a}`));
  const early = named.filter((a) => hoisted.includes(a));
  if (early.length) return `${early.join(', ')}: not an option of this command (hbgen takes only --help and --version before the command; options go after it, as in \`hbgen status --json\`)`;
  // One mistyped option: the closest one this command takes ("--sceduler" → "--scheduler").
  const flags = options.filter((o) => o.length > 1 && /^[a-z][a-z-]*$/.test(o)).map((o) => `--${o}`);
  if (named.length === 1) return unknownFlag(named[0]!, cmd, flags);
  if (cmd && OPTIONS_OF[cmd]) return `unknown options ${named.join(', ')} for ${cmd}; ${takes(cmd)}`;
  return `unknown options ${named.join(', ')}`;
}
