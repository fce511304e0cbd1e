// "Did you mean ...?": the closest of some known names to a mistyped one (Levenshtein distance).

/** Edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name closest to `name` (case-insensitive), or null when none is close enough to be a typo
 * (more than `maxRatio` of the longer name's length would have to change).
 */
export function closest(name: string, known: readonly string[], maxRatio = 0.5): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  const wanted = name.toLowerCase();
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    // A name missing a prefix (max_iterations for default_max_iterations) is close to the candidate's end.
    const tail = lower.length > wanted.length ? editDistance(wanted, lower.slice(lower.length - wanted.length)) + 1 : Infinity;
    const d = Math.min(editDistance(wanted, lower), tail);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best === null) return null;
  return bestDistance <= Math.ceil(wanted.length * maxRatio) ? best : null;
}
