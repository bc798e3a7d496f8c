// Environment variables that make a program load code from a path the variable names: the
// dynamic loader's (every program the wrapper starts: date, ps, the agent's client, the gate,
// notify), and the interpreters' that the agents' clients and the usual gate and notify
// programs are written in (node: claude and codex; python, perl, ruby: scripts). The agent
// may write anything in the repo, and the wake runs there, so a path of one of these that is
// inside the repo, or relative (resolved against the repo), would let it choose code that
// hbgen's wrapper, the billing check, the gate or notify run outside the agent's sandbox.
// Pure: src/spec.ts checks the words as written; src/host/install/reach.ts resolves them on the host.
// Not listed: BASH_ENV and ENV (refused outright with the wrapper's own shell variables),
// variables that name no code (PYTHONSTARTUP is read by interactive python only).
import { within } from './names.ts';

/**
 * How each variable's value names paths: `list` a colon-separated list of folders or files
 * (an empty entry means the working folder, for the loader and the interpreters alike);
 * `libs` LD_PRELOAD's list (blanks or colons; a word without a slash is a library name
 * searched in the system folders); `node`/`perl`/`ruby` option strings, of which only the
 * options that load code from a path are read.
 */
type Kind = 'list' | 'libs' | 'node' | 'perl' | 'ruby';

export const PRELOAD_VARS: Readonly<Record<string, Kind>> = {
  LD_PRELOAD: 'libs',
  LD_AUDIT: 'list',
  LD_LIBRARY_PATH: 'list',
  DYLD_INSERT_LIBRARIES: 'list',
  DYLD_LIBRARY_PATH: 'list',
  DYLD_FRAMEWORK_PATH: 'list',
  DYLD_FALLBACK_LIBRARY_PATH: 'list',
  DYLD_FALLBACK_FRAMEWORK_PATH: 'list',
  GCONV_PATH: 'list',
  NODE_OPTIONS: 'node',
  NODE_PATH: 'list',
  PYTHONPATH: 'list',
  PYTHONHOME: 'list',
  PYTHONUSERBASE: 'list',
  PERL5LIB: 'list',
  PERLLIB: 'list',
  PERL5OPT: 'perl',
  RUBYLIB: 'list',
  RUBYOPT: 'ruby',
};

/** One path a variable names: as written, and whether a bare word is a name searched elsewhere (not a path). */
export interface NamedPath {
  word: string;
  /** True for a word the program looks up by name (a library, a module), not as a path. */
  byName: boolean;
}

/** The argument of each of these options, in `--opt X`, `--opt=X` or (short) `-oX` form. */
function optionArgs(words: string[], long: string[], short: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.indexOf('=');
    if (long.includes(w) || short.includes(w)) {
      if (i + 1 < words.length) out.push(words[++i]!);
    } else if (eq > 0 && long.includes(w.slice(0, eq))) out.push(w.slice(eq + 1));
    else {
      const s = short.find((o) => w.startsWith(o) && w.length > o.length);
      if (s) out.push(w.slice(s.length));
    }
  }
  return out;
}

/** The paths a preload variable's value names (empty for a variable not in PRELOAD_VARS). */
export function pathsIn(name: string, value: string): NamedPath[] {
  const kind = PRELOAD_VARS[name];
  const words = value.split(/[ \t]+/).filter(Boolean);
  switch (kind) {
    case 'list':
      return value.split(name === 'LD_LIBRARY_PATH' ? /[:;]/ : /:/).map((word) => ({ word, byName: false }));
    case 'libs':
      return value.split(/[ \t:]+/).filter(Boolean).map((word) => ({ word, byName: !word.includes('/') }));
    case 'node':
      // node resolves a bare name from the working folder's node_modules: the repo's.
      return optionArgs(words, ['--require', '--import', '--loader', '--experimental-loader'], ['-r']).map((word) => ({ word, byName: false }));
    case 'perl':
      return optionArgs(words, [], ['-I']).map((word) => ({ word, byName: false }));
    case 'ruby':
      return [
        ...optionArgs(words, [], ['-I']).map((word) => ({ word, byName: false })),
        ...optionArgs(words, [], ['-r']).map((word) => ({ word, byName: !word.includes('/') })),
      ];
    default:
      return [];
  }
}

/** Why a path a preload variable names is refused as written, or undefined. */
export function preloadWordProblem(name: string, p: NamedPath, repo: string): string | undefined {
  if (p.byName) return undefined;
  const shown = JSON.stringify(p.word);
  const what = `the wrapper, the billing check, the gate and notify would load code from there outside the agent's sandbox`;
  if (!p.word.startsWith('/')) {
    return `${p.word === '' ? 'an empty entry' : shown} is resolved against the wake's working folder, the repo, where the agent can write, so ${what}: give an absolute path outside the repo, or remove ${name}`;
  }
  if (within(repo, p.word)) return `${shown} is inside repo, where the agent can write, so ${what}: give a path outside the repo, or remove ${name}`;
  return undefined;
}
