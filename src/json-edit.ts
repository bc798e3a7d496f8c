// Edits of a spec file's JSON text that keep everything else byte for byte: the person's
// formatting, key order and `$schema` (install's menu). Only values are
// replaced, added or removed; the text must be valid JSON (RFC 8259), as the spec loader
// already required. https://www.rfc-editor.org/rfc/rfc8259
type Path = string[];

interface Member {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  valueStart: number;
  valueEnd: number;
  value: Node;
}
interface Node {
  start: number;
  end: number;
  members?: Member[];
}

/** A recursive-descent scan recording where each object member's value starts and ends. */
function scan(text: string): Node {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const str = () => {
    const s = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(s, i)) as string;
  };
  const value = (): Node => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: Member[] = [];
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const keyStart = i;
          const key = str();
          ws();
          i++; // ':'
          ws();
          const v = value();
          members.push({ key, keyStart, valueStart: v.start, valueEnd: v.end, value: v });
          ws();
          if (text[i++] === '}') break;
        }
      return { start, end: i, members };
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (;;) {
          value();
          ws();
          if (text[i++] === ']') break;
        }
      return { start, end: i };
    }
    if (c === '"') {
      str();
      return { start, end: i };
    }
    while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++;
    return { start, end: i };
  };
  return value();
}

/** The text of a value: an object or array of scalars on one line, as a person would type it. */
function valueText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${valueText(x)}`).join(', ')}}`;
  return JSON.stringify(v);
}

/** The indentation of the line holding offset `at`. */
function indentAt(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/**
 * `text` with the value at `path` set to `v` (undefined removes the member). A missing
 * member is added after the last one of its object, indented like its siblings; missing
 * objects on the way are added whole.
 */
export function setJsonValue(text: string, path: Path, v: unknown): string {
  JSON.parse(text); // the spec loader's contract: never edit text that is not JSON
  let node = scan(text);
  for (let d = 0; d < path.length; d++) {
    const key = path[d]!;
    const m = node.members?.find((x) => x.key === key);
    const last = d === path.length - 1;
    if (m && last) {
      if (v !== undefined) return text.slice(0, m.valueStart) + valueText(v) + text.slice(m.valueEnd);
      return removeMember(text, node, m);
    }
    if (m && m.value.members) {
      node = m.value;
      continue;
    }
    if (v === undefined) return text;
    // Build what is missing from here down, and add it to this object.
    const rest = path.slice(d + 1).reduceRight<unknown>((acc, k) => ({ [k]: acc }), v);
    if (m) return text.slice(0, m.valueStart) + valueText(rest) + text.slice(m.valueEnd);
    return addMember(text, node, key, rest);
  }
  return text;
}

function addMember(text: string, obj: Node, key: string, v: unknown): string {
  const members = obj.members ?? [];
  const entry = `${JSON.stringify(key)}: ${valueText(v)}`;
  if (members.length === 0) return `${text.slice(0, obj.start + 1)}${entry}${text.slice(obj.end - 1)}`;
  const lastM = members[members.length - 1]!;
  const sameLine = !text.slice(members[0]!.keyStart, lastM.keyStart).includes('\n') && !text.slice(obj.start, members[0]!.keyStart).includes('\n');
  const sep = sameLine ? ', ' : `,\n${indentAt(text, lastM.keyStart)}`;
  return text.slice(0, lastM.valueEnd) + sep + entry + text.slice(lastM.valueEnd);
}

function removeMember(text: string, obj: Node, m: Member): string {
  const members = obj.members!;
  const k = members.indexOf(m);
  if (members.length === 1) return text.slice(0, obj.start + 1) + text.slice(obj.end - 1);
  // Remove from the end of the previous value (its comma included), or up to the next key.
  if (k > 0) return text.slice(0, members[k - 1]!.valueEnd) + text.slice(m.valueEnd);
  return text.slice(0, m.keyStart) + text.slice(members[1]!.keyStart);
}
