// A client's JSON event stream, read as the JSON it is: each line parsed on its own, never
// matched by its text's first bytes (Claude Code 2.1.332 prints a result event's keys in
// another order than 2.1.197 did, and a client may space its JSON).

/** Every line of TEXT that parses as a JSON object, in order. */
export function events(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(l);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // not a JSON line
    }
  }
  return out;
}

/** The first event of this type, or undefined. */
export function ofType(text: string, type: string): Record<string, unknown> | undefined {
  return events(text).find((e) => e.type === type);
}
