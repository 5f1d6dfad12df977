/** "Did you mean …" for mistyped commands and flags. */

/**
 * Edit distance of `a` and `b` where a swap of two neighbouring characters counts as one edit
 * (`stauts` → `status` is one typo, not two).
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate `typed` most likely meant: the nearest within two edits (one for words of up to
 * four characters), else the only candidate it begins; `undefined` when none is close.
 */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { word: string; distance: number } | undefined;
  for (const word of list) {
    const distance = editDistance(typed, word);
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { word, distance };
  }
  if (best !== undefined) return best.word;
  const extended = list.filter((word) => typed.length >= 3 && word.startsWith(typed));
  return extended.length === 1 ? extended[0] : undefined;
}

/** ` (did you mean 'x'?)` for the candidate nearest to `typed`, or `''`. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const match = closest(typed, candidates);
  return match === undefined ? '' : ` (did you mean '${match}'?)`;
}
