// The order of a spec's error lines: a misspelled field ("schedule.evry") makes
// the field it meant missing too; its "did you mean" is said first, and the "required" of
// the field it names right after it, so that the person reads the cause before its effect.

const MEANT = /^(.*?)([^.[\]]+): unknown field; did you mean "([^"]+)"\?$/;

/** `lines` with each "did you mean X" line moved in front of X's "required" line. */
export function meantFirst(lines: string[]): string[] {
  const out = [...lines];
  for (const l of lines) {
    const m = MEANT.exec(l);
    if (!m) continue;
    const target = `${m[1]}${m[3]}: required`;
    const at = out.findIndex((x) => x.startsWith(target));
    const from = out.indexOf(l);
    if (at < 0 || at > from) continue;
    out.splice(from, 1);
    out.splice(at, 0, l);
  }
  return out;
}
