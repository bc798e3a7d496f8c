// The kubernetes manifest's YAML writer: block mappings and sequences of strings, integers,
// booleans and null, two spaces a level, a sequence indented under its key, multi-line
// strings as literal blocks (`|`). It writes what the `yaml` library wrote here before
// (`Document#toString` with lineWidth 0, blockQuote 'literal', indentSeq), byte for byte for
// every fixture spec rendered for kubernetes, in a hundred lines: loading and running that
// library was about a third of a kubernetes render's CPU time (docs/SPEED.md).
// The library stays for reading YAML back (src/host/kubernetes, the tests).
//
// The rules, from the YAML 1.2.2 spec (https://yaml.org/spec/1.2.2/): a string is written
// plain (§7.3.3) only when a plain scalar can hold it and it would not read back as another
// type, else single-quoted (§7.3.2: '' is a quote, no escapes, one line) when it has a `"`
// and no `'`, else double-quoted (§7.3.1, JSON's escapes plus \uXXXX for what YAML may not
// carry raw). kubectl reads manifests with a YAML 1.1 resolver (go-yaml, via
// sigs.k8s.io/yaml), where `yes`, `off`, `0755`, `1:20` and `2024-01-01` are not strings
// (https://yaml.org/type/): those are quoted too, which the library did not do. A literal
// block (§8.1.2) keeps every character of its lines; strings it cannot hold are quoted:
// characters YAML 1.1 reads as line breaks (\r, NEL, LS, PS), non-printable ones, and a
// last line of blanks (it would read as trailing empty lines). test/manifest-yaml.test.ts
// parses the output back with the `yaml` library, as YAML 1.2 and as 1.1.

type Scalar = string | number | boolean | null;
type Value = Scalar | undefined | Value[] | { [key: string]: Value };

const isMap = (v: Value): v is { [key: string]: Value } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One YAML document (ending in a newline), `comment` first as `#` lines and a blank line. */
export function yamlDocument(value: { [key: string]: Value }, comment?: string): string {
  const head = comment === undefined ? '' : `${comment.split('\n').map((l) => `#${l}`).join('\n')}\n\n`;
  return head + (Object.keys(value).some((k) => value[k] !== undefined) ? mapping(value, '') : '{}\n');
}

/** A non-empty mapping's lines at `indent` (absent keys, as undefined, are left out). */
function mapping(map: { [key: string]: Value }, indent: string): string {
  let out = '';
  for (const [k, v] of Object.entries(map)) {
    if (v === undefined) continue;
    // An implicit key has at most 1024 characters (§7.4.2); the manifest's keys are hbgen's own.
    if (k.length > 1024) throw new Error(`manifest-yaml: a key of ${k.length} characters`);
    const key = `${indent}${inline(k)}:`;
    if (isMap(v) || Array.isArray(v)) out += empty(v) ? `${key} ${Array.isArray(v) ? '[]' : '{}'}\n` : `${key}\n${collection(v, `${indent}  `)}`;
    else if (typeof v === 'string' && literalFits(v)) out += `${key} ${literal(v, `${indent}  `)}`;
    else out += `${key} ${inline(v)}\n`;
  }
  return out;
}

/** A sequence's lines at `indent`: `- ` then the item, whose own lines follow two columns in. */
function sequence(items: Value[], indent: string): string {
  let out = '';
  for (const v of items) {
    if (v === undefined) throw new Error('manifest-yaml: a sequence holds undefined');
    // A nested collection starts on the dash's line: its first line loses its own indent.
    if ((isMap(v) || Array.isArray(v)) && !empty(v)) out += `${indent}- ${collection(v, `${indent}  `).slice(indent.length + 2)}`;
    else if (isMap(v) || Array.isArray(v)) out += `${indent}- ${Array.isArray(v) ? '[]' : '{}'}\n`;
    else out += `${indent}- ${inline(v)}\n`;
  }
  return out;
}

function collection(v: Value[] | { [key: string]: Value }, indent: string): string {
  return Array.isArray(v) ? sequence(v, indent) : mapping(v, indent);
}

function empty(v: Value[] | { [key: string]: Value }): boolean {
  return Array.isArray(v) ? v.length === 0 : !Object.values(v).some((x) => x !== undefined);
}

/** A scalar on one line: plain, single- or double-quoted. */
function inline(v: Scalar): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`manifest-yaml: ${v} is not an integer`);
    return String(v);
  }
  if (plainFits(v)) return v;
  if (v.includes('"') && !v.includes("'") && !UNPRINTABLE.test(v) && !v.includes('\n')) return `'${v}'`;
  return doubleQuoted(v);
}

/**
 * Characters written only as escapes: C0 and C1 controls but tab and newline, DEL, lone
 * surrogates (a high one with no low one after it, a low one with no high one before it),
 * the BOM, U+FFFE/FFFF, and NEL, LS, PS, which YAML 1.1 reads as line breaks. No `u` flag: a
 * unicode-mode regex scans a 100 KB script several times slower.
 */
const UNPRINTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Plain (§7.3.3): not empty; no blank at either end; not starting with an indicator
 * (`-`, `?`, `:` only when a non-blank follows); no `: ` and no ` #` inside, no `:` at the
 * end; one line of printable characters; and no other type's form in YAML 1.2 or 1.1.
 */
function plainFits(s: string): boolean {
  if (s === '' || UNPRINTABLE.test(s) || s.includes('\n') || s.includes('\t')) return false;
  if (/^[ ,[\]{}#&*!|>'"%@`]|^[?:-](?![^ ])|^[?:-]$|: | #| $|:$/.test(s)) return false;
  // A document marker at the start of a line ends the document (the keys and values here never start a line, but stay safe).
  if (/^(---|\.\.\.)/.test(s)) return false;
  return !OTHER_TYPE.test(s);
}

/**
 * What a YAML 1.2 (core schema) or 1.1 resolver reads as null, a boolean, an integer, a
 * float, a date, or the merge and value keys (https://yaml.org/type/), matched widely:
 * quoting a string that needed none is harmless.
 */
const OTHER_TYPE = new RegExp(
  [
    '^(~|null|Null|NULL)$',
    '^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$',
    // Integers and floats: 0b, 0o, 0x; else digits with `_`, `.` and base-60 `:` parts, and
    // an exponent; the yaml library reads `.` and `E0` as 1.1 floats (wider than either spec:
    // `1.2.3` and `+` are quoted too).
    // 0b, 0o, 0x each with its own digits only (a hash such as 0bea01… is a string: the
    // library writes it plain, and so must this writer, byte for byte).
    '^[-+]?0b[01_]+$',
    '^[-+]?0o[0-7_]+$',
    '^[-+]?0x[0-9a-fA-F_]+$',
    '^[-+]?(\\.[0-9_.]*|[0-9][0-9_.:]*)?([eE][-+]?[0-9]+)?$',
    '^[-+]?\\.(inf|Inf|INF)$',
    '^\\.(nan|NaN|NAN)$',
    '^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?([Tt \\t]|$)',
    '^(<<|=)$',
  ].join('|'),
);

/** JSON's string escapes are YAML's too; what JSON leaves raw and YAML may not carry raw becomes \uXXXX. */
function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(/[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A literal block holds `s` exactly: printable, no \r, and not ending in a line of blanks. */
function literalFits(s: string): boolean {
  if (!s.includes('\n') || s.includes('\r') || UNPRINTABLE.test(s)) return false;
  // Blanks after the last line break would read as trailing empty lines (the scripts are
  // ~100 KB: the ends are looked at from the end, not by a regex that tries every offset).
  let i = s.length;
  while (i > 0 && (s[i - 1] === ' ' || s[i - 1] === '\t')) i--;
  return i === s.length || s[i - 1] !== '\n';
}

/**
 * `|` with its chomping (§8.1.1.2: `-` no final line break, none for one, `+` for more) and,
 * when the text starts with blanks before its first character, the indentation indicator
 * (2: the content is two columns in from the key); then every line at `indent`, empty
 * lines left empty.
 */
function literal(s: string, indent: string): string {
  let end = s.length; // where the trailing run of blanks and line breaks starts
  while (end > 0 && (s[end - 1] === '\n' || s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  const nl = s.indexOf('\n', end);
  const chomp = nl === -1 ? '-' : end === 0 || nl !== s.length - 1 ? '+' : '';
  const head = /^[\n ]*/.exec(s)![0].includes(' ') ? '2' : '';
  const body = s.endsWith('\n') ? s.slice(0, -1) : s;
  // Each line that is not empty gets the indent: at the start, and after a line break.
  return `|${head}${chomp}\n${body && body[0] !== '\n' ? indent : ''}${body.replace(/\n(?=[^\n])/g, `\n${indent}`)}\n`;
}
