/** "Did you mean" hints: most configuration mistakes are typos in a key or variable name. */

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate (case-insensitive) if it is close enough to be a plausible typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // Allow roughly one edit per four characters, so short names do not attract unrelated suggestions.
  return bestDistance <= Math.max(1, Math.floor(name.length / 4)) ? best : undefined;
}

/** `; did you mean X?` or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hit = closest(name, candidates);
  return hit === undefined ? '' : `; did you mean ${hit}?`;
}
