// The strings a spec may hold: what every target (sh, systemd, crontab, XML plists, YAML)
// can carry byte for byte, and the shell variables no spec may set. Shared by the spec's
// schema (src/spec.ts) and the kubernetes block's (src/host/kubernetes/spec.ts).
import * as z from 'zod/mini';

// Control characters break every target language in its own way: a newline injects a
// systemd directive or a crontab line, a CR becomes LF in XML, NUL cannot be an argv
// byte. C1 controls (U+0080–U+009F) are refused too.
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
// A lone surrogate cannot be encoded as UTF-8; systemd ignores a non-UTF-8 assignment.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Unicode's 66 non-characters (U+FDD0–U+FDEF and the last two code points of every plane)
// are valid UTF-8 but not text: systemd calls a unit line holding one "not UTF-8 clean"
// and ignores it (the ExecStart is dropped), and XML readers refuse U+FFFE and U+FFFF in
// a plist. Refused in every string so that a spec renders for every scheduler.
const NON_CHARACTER = new RegExp(
  `[\\u{FDD0}-\\u{FDEF}${Array.from({ length: 17 }, (_, p) => `\\u{${(p * 0x10000 + 0xfffe).toString(16)}}\\u{${(p * 0x10000 + 0xffff).toString(16)}}`).join('')}]`,
  'u',
);

/** Why a string cannot be carried by every target, or undefined. */
function unicodeProblem(v: string): string | undefined {
  if (LONE_SURROGATE.test(v)) return 'is not valid Unicode; remove the broken character';
  const m = NON_CHARACTER.exec(v);
  if (m) {
    const cp = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `contains the Unicode non-character U+${cp}, which scheduler files cannot carry (systemd drops the line); remove it`;
  }
  return undefined;
}

export function text(what: string, allowNewline = false) {
  return z.string({ error: (i) => (i.input === undefined ? `required: ${what}` : `must be a string (${what})`) }).check((ctx) => {
    const v = ctx.value;
    if ((allowNewline ? CONTROL_BUT_NEWLINE : CONTROL).test(v)) {
      ctx.issues.push({
        code: 'custom',
        input: v,
        message: allowNewline
          ? 'contains a control character other than newline; remove it'
          : 'contains a control character (newline, tab, …); remove it',
      });
    } else {
      const why = unicodeProblem(v);
      if (why) ctx.issues.push({ code: 'custom', input: v, message: why });
    }
  });
}

// Variables the wrapper's own shell reads at start-up or while it runs: in the spec env
// they would change how heartbeat.sh itself splits words, changes folders or traces.
export const SHELL_KEYS = new Set(['IFS', 'PPID', 'ENV', 'BASH_ENV', 'CDPATH', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'OPTIND', 'OPTARG', '_']);

/**
 * A field's description, for `hbgen schema`, docs/spec.md and editors, on a copy of the
 * schema (as the full zod's `.describe()` does), so that a schema used in two places keeps
 * each place's own description, or none.
 */
export function describe<T extends z.ZodMiniType>(schema: T, description: string): T {
  const copy = schema.clone() as T;
  z.globalRegistry.add(copy, { description });
  return copy;
}
