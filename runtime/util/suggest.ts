/**
 * "Did you mean": the candidate nearest to a name that is not one, as git and psql answer a typo.
 * Near is a candidate the name begins (`rotate` → `rotate-key`) or one within an edit distance of 1
 * for a name of 3 or 4 characters (none for shorter ones: `-x` is no typo of `-i`), 2 up to 8, 3 beyond (an insertion, deletion, substitution or
 * swap of two neighbours each; letter case ignored): `jbo` → `job`, but not `foo` → `job`.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = lower.length <= 2 ? 0 : lower.length <= 4 ? 1 : lower.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    // A beginning is nearer than any typo; of two, the shorter rest.
    const d = other.startsWith(lower) ? (other.length - lower.length) / (other.length + 1) : distance(lower, other);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** The tail of an "unknown …" message: `; did you mean <near>?`, or nothing when no candidate is near. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = name === '' ? undefined : closest(name, candidates);
  return near === undefined ? '' : `; did you mean ${near}?`;
}

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}
