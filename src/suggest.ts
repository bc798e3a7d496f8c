// "Did you mean …?" for a mistyped field, command, enum value or time zone: the closest
// known word by edit distance, offered only when it is close enough to be the likely
// intent (a wild guess would mislead more than it helps).

/** Levenshtein distance (insert, delete, substitute; a swap of two neighbours counts 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      // A transposition ("rendr" is one insert; "stauts" is one swap).
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word closest to `input` (case-insensitively), or undefined when none is close:
 * at most 1 edit for words of up to 4 letters, 2 up to 8, 3 beyond, with the same digits.
 * Ties go to the first.
 */
export function closest(input: string, known: readonly string[]): string | undefined {
  const low = input.toLowerCase();
  // A whole word with more after it ("monday" for "mon"), or the start of exactly one
  // ("systemd" for "systemd-user"), is clearer than any distance.
  const lowKnown = known.map((k) => k.toLowerCase());
  const within = known.filter((_, i) => lowKnown[i]!.length >= 3 && low.startsWith(lowKnown[i]!));
  if (within.length === 1 && within[0] !== input) return within[0];
  const starts = low.length >= 3 ? known.filter((_, i) => lowKnown[i]!.startsWith(low)) : [];
  if (starts.length === 1 && starts[0] !== input) return starts[0];
  const limit = low.length <= 4 ? 1 : low.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestD = Infinity;
  // A different number is a different value, not a typo ("45m" is not "5m"; "1hr" is "1h").
  const digits = (x: string) => x.replace(/\D/g, '');
  for (const k of known) {
    if (digits(k) !== digits(input)) continue;
    const d = editDistance(low, k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= limit && best !== input ? best : undefined;
}

/** `; did you mean "X"?` when a known word is close, else the empty string. */
export function didYouMean(input: string, known: readonly string[]): string {
  const c = closest(input, known);
  return c === undefined ? '' : `; did you mean ${JSON.stringify(c)}?`;
}
