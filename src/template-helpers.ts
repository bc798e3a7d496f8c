// The helpers every template may call. Templates are compiled with noEscape, so output
// is raw unless a template asks for one of these per-language escapers.
import { cronWord, sh, shWords, systemdArg } from './escape.ts';

export const helpers = {
  sh: (s: string) => sh(String(s)),
  shWords: (words: string[]) => shWords(words),
  systemdArg: (s: string) => systemdArg(String(s)),
  cronWord: (s: string) => cronWord(String(s)),
  join: (items: unknown[], sep: string) => items.join(typeof sep === 'string' ? sep : ' '),
};
