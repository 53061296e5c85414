/**
 * Scores `text` against `query` as a subsequence match (case-insensitive); null when the
 * letters of the query do not all appear in order. Higher is better: consecutive letters,
 * word starts and an early first hit score more.
 */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.trim().toLowerCase();
  if (q === "") return 0;
  const t = text.toLowerCase();
  const direct = t.indexOf(q);
  if (direct >= 0) return 1000 - direct + (direct === 0 || /\W/.test(t.charAt(direct - 1)) ? 200 : 0);
  let score = 0;
  let ti = 0;
  let prev = -2;
  for (const ch of q) {
    if (ch === " ") continue;
    const at = t.indexOf(ch, ti);
    if (at < 0) return null;
    score += at === prev + 1 ? 8 : 1;
    if (at === 0 || /[\s\-_./:]/.test(t.charAt(at - 1))) score += 5;
    prev = at;
    ti = at + 1;
  }
  return score - t.length / 100;
}

/** The best `limit` items for `query`, best first. */
export function fuzzyFilter<T>(items: T[], query: string, text: (item: T) => string, limit = 50): T[] {
  return fuzzyFilterBy(items, query, (item) => fuzzyScore(query, text(item)), limit);
}

/** Like `fuzzyFilter` with a custom score (null: no match). */
export function fuzzyFilterBy<T>(items: T[], query: string, score: (item: T) => number | null, limit = 50): T[] {
  if (query.trim() === "") return items.slice(0, limit);
  const scored: { item: T; score: number }[] = [];
  for (const item of items) {
    const s = score(item);
    if (s !== null) scored.push({ item, score: s });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((x) => x.item);
}
