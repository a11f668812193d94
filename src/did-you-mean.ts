// "Did you mean …?" for a mistyped name (a tool, a preset, a CLI command): the known names nearest
// by edit distance, close enough to be a typo rather than a different word.

/**
 * Edit distance, case-insensitive: insert, delete, substitute and swapping two neighbours each cost 1
 * (the swap because `raed` for `read` is the commonest typo).
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[t.length]!;
}

/** How far a typo may be: a third of the longer name, at least 1 (so `ls` → `lz`, not `ls` → `cat`). */
function maxDistance(typed: string, known: string): number {
  return Math.max(1, Math.floor(Math.max(typed.length, known.length) / 3));
}

/** Up to `limit` known names nearest to `typed` (closest first, then alphabetical); none when nothing is close. */
export function nearestNames(typed: string, known: Iterable<string>, limit = 3): string[] {
  const scored: { name: string; distance: number }[] = [];
  for (const name of new Set(known)) {
    if (name === typed) continue;
    const distance = editDistance(typed, name);
    // A name that contains what was typed (or the reverse) is also a likely meaning: `weather` → `mcp__weather`.
    const contains = typed.length >= 3 && (name.toLowerCase().includes(typed.toLowerCase()) || typed.toLowerCase().includes(name.toLowerCase()));
    if (distance <= maxDistance(typed, name) || contains) scored.push({ name, distance: contains ? Math.min(distance, 1) : distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, limit).map((s) => s.name);
}

/** ` Did you mean "a" or "b"?` (with a leading space), or '' when nothing is close. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const names = nearestNames(typed, known).map((n) => JSON.stringify(n));
  if (names.length === 0) return '';
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
  return ` Did you mean ${list}?`;
}
