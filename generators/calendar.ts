// Shared helpers for writing calendar entries in each scheduler's own notation.

/** Sorted integers as runs: [1,2,3,5] -> [[1,3],[5,5]]. */
export function runs(values: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of values) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === v) last[1] = v;
    else out.push([v, v]);
  }
  return out;
}

/** A list in a notation whose range operator is `op` ("-" for cron, ".." for systemd). */
export function rangeList(values: readonly number[], op: string, fmt: (n: number) => string = String): string {
  return runs(values)
    .map(([a, b]) => (a === b ? fmt(a) : b === a + 1 ? `${fmt(a)},${fmt(b)}` : `${fmt(a)}${op}${fmt(b)}`))
    .join(',');
}
