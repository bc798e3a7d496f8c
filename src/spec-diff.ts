// What changed in the spec since the last install, field by field, for the settings panel:
// the spec file may sit in the repo, where the agent can write it (a gate, a wider sandbox,
// another agent.bin), and the person consents to a re-install on the panel alone. The fields
// that choose what runs outside the jail, or what the agent may reach, are marked.
/** One changed field: its dotted path, the installed and the new value (JSON, or "none"). */
export interface SpecChange {
  path: string;
  before: string;
  after: string;
  /** The field chooses a program that runs outside the jail, or widens what the agent reaches. */
  widens: boolean;
}

// Each chooses a program hbgen runs, the agent's environment, or the jail's bounds; a
// change of any of them is the person's to see before the next wake runs it.
const REACH = ['gate', 'agent.bin', 'agent.args', 'sandbox', 'env', 'notify', 'ping'];

/** Leaf values by dotted path; arrays are one value (an argv reads as a whole). */
function leaves(v: unknown, at: string, out: Map<string, unknown>): Map<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) leaves(x, at ? `${at}.${k}` : k, out);
  } else if (at) out.set(at, v);
  return out;
}

// JSON as written in a spec (the spec refuses control characters in every string).
const shown = (v: unknown): string => (v === undefined ? 'none' : JSON.stringify(v));

/** The fields whose value differs between the installed spec and the new one, in path order. */
export function specChanges(installed: unknown, next: unknown): SpecChange[] {
  const a = leaves(installed, '', new Map());
  const b = leaves(next, '', new Map());
  const paths = [...new Set([...a.keys(), ...b.keys()])].filter((p) => p !== '$schema').sort();
  return paths
    .filter((p) => JSON.stringify(a.get(p)) !== JSON.stringify(b.get(p)))
    .map((p) => ({ path: p, before: shown(a.get(p)), after: shown(b.get(p)), widens: REACH.some((r) => p === r || p.startsWith(`${r}.`)) }));
}

/** The panel's section: a header and one line per change, the widening ones marked. */
export function changeLines(changes: SpecChange[], since: string): string[] {
  if (changes.length === 0) return [];
  const marked = changes.some((c) => c.widens);
  return [
    `changed in the spec since the install of ${since}${marked ? ' (! = chooses what runs outside the jail or what the agent reaches; the agent can write a spec in the repo)' : ''}:`,
    ...changes.map((c) => `  ${c.widens ? '!' : ' '} ${c.path}: ${c.before} → ${c.after}`),
  ];
}
