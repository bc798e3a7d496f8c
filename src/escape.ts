// Escaping, one function per target language, each with the manual section it follows.
// Validation has already refused control characters, NUL and broken Unicode everywhere
// (newlines survive only in agent.prompt, which only ever reaches sh), so these functions
// deal with printable text. test/escape.test.ts table-tests each with hostile strings and
// the real consumer (sh, systemd-analyze, cron, plistutil).

/**
 * One POSIX sh word. Inside single quotes every byte is literal except `'` itself, which
 * is written as `'\''` (close, escaped quote, reopen).
 * https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_02
 */
function singleQuoted(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * One POSIX sh word, as singleQuoted, except that backslashes ending a quoted stretch are
 * written outside the quotes as `\\`: `'a\'` means the same to sh, but shellcheck reads it
 * as a failed attempt to escape the quote (SC1003), and rendered scripts stay lint-clean.
 * https://www.shellcheck.net/wiki/SC1003
 */
export function sh(s: string): string {
  if (s === '') return "''";
  return s
    .split("'")
    .map((part) => {
      const m = /\\+$/.exec(part);
      const body = m ? part.slice(0, m.index) : part;
      const tail = m ? m[0].replace(/\\/g, '\\\\') : '';
      return (body || !tail ? `'${body}'` : '') + tail;
    })
    .join("\\'");
}

/** Several sh words, space separated. */
export function shWords(words: readonly string[]): string {
  return words.map(sh).join(' ');
}

/**
 * One sh word as a person would type it in a message or the install panel: bare when
 * every character is safe unquoted, else single-quoted (hbgen's own messages, not scripts).
 */
export function shownWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : singleQuoted(s);
}

/** A command line, as shownWord shows each word. */
export function shownArgv(argv: readonly string[]): string {
  return argv.map(shownWord).join(' ');
}

/**
 * One argument of a systemd command line (ExecStart=), as a double-quoted word:
 * - `\` and `"` are C-escaped inside quotes (systemd.syntax(7), "Quoting");
 *   https://www.freedesktop.org/software/systemd/man/latest/systemd.syntax.html#Quoting
 * - `%` starts a specifier everywhere, quoted or not; `%%` is a literal `%`
 *   (systemd.unit(5), "Specifiers");
 *   https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html#Specifiers
 * - `$` expands environment variables in ExecStart=; `$$` is a literal `$`
 *   (systemd.service(5), "Command lines").
 *   https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html#Command%20lines
 */
export function systemdArg(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

/**
 * A sh word inside a crontab command. cron treats `%` as "end of command, rest is stdin"
 * unless it is written `\%`, and Debian's cron removes that backslash even inside sh
 * single quotes; it also collapses `\\` to `\` (crontab(5); checked against the real cron).
 * So: quote for sh, keep any two backslashes apart with an empty '' (sh drops it, cron
 * then never sees `\\`), and write each `%` outside the quotes as `\%`, which cron turns
 * into a bare `%` that sh leaves alone.
 * https://manpages.debian.org/bookworm/cron/crontab.5.en.html
 */
export function cronWord(s: string): string {
  return singleQuoted(s).replace(/\\(?=\\)/g, "\\''").replace(/%/g, "'\\%'");
}

/**
 * Text inside an XML comment: `--` may not occur and the comment may not end in `-`
 * (XML 1.0 §2.5). Only hbgen-chosen text goes there; this guards it anyway.
 * https://www.w3.org/TR/xml/#sec-comments
 */
export function xmlComment(s: string): string {
  return s.replace(/-(?=-)/g, '- ').replace(/-$/, '- ');
}

/**
 * Text for a terminal. Much of what hbgen prints was written by the agent or could have
 * been (STATE.md, runtime.log, state.json, names of files in the state folder), and a
 * terminal obeys the control characters in it: OSC 52 writes the clipboard, OSC 0 the
 * window title, CSI 2J clears the screen (ECMA-48 §5 and §8.3; xterm's list:
 * https://invisible-island.net/xterm/ctlseqs/ctlseqs.html). So every control character (C0
 * but newline and tab, DEL, C1) becomes "?". hbgen's own colour passes only as the marks
 * colourMark makes: the same SGR bytes in the agent's text are the agent's, and a red
 * "fail" painted green by a commit subject is a lie on the person's screen. Applied once,
 * where the commands' output leaves the process (src/host/io.ts, src/errors.ts).
 */
export function terminalText(s: string): string {
  const key = markKey;
  return s.replace(CONTROL, (m, k: string | undefined, code: string | undefined) => {
    if (k === undefined) return '?';
    // Mark-shaped: colour with this process's key, else its two NULs are control characters like any other.
    return k === key ? `\u001b[${code}m` : m.replaceAll('\u0000', '?');
  });
}

// A mark is NUL, a key drawn once per process, the SGR code, NUL: NUL is a control character,
// so any mark the agent wrote without the key comes out as "?" like every other one, and the
// key, drawn after the agent's text was written and never printed, cannot be guessed.
const CONTROL = /\u0000([0-9a-f]{16})(0|2|3[123])\u0000|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
let markKey: string | undefined;

/** hbgen's own colour (SGR 0, 2, 31, 32, 33: colour and nothing else), as a mark terminalText turns into it. */
export function colourMark(code: 0 | 2 | 31 | 32 | 33): string {
  markKey ??= Array.from(globalThis.crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(16).padStart(8, '0')).join('');
  return `\u0000${markKey}${code}\u0000`;
}
