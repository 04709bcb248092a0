/** Edit distance (insertions, deletions, substitutions) between two short names. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The name a typo most likely meant ("certifcation" → "certification"): the nearest within a third
 * of its length (at least 1, at most 3 edits), case aside; undefined when none is that near.
 */
export function closest(given: string, names: readonly string[]): string | undefined {
  const g = given.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(g.length / 3)));
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(g, name.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
