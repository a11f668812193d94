// A small suffix-stripping stemmer for `sdk.search` (docs/large-catalogs.md): "forecasts" and
// "forecast", "searching" and "search" become one word. Applied alike to the query and to the
// names and descriptions it is matched against, so only agreement matters, not linguistic truth.

/** A stem keeps at least this many letters, so short words ("is", "bus", "red") stay whole. */
const MIN_STEM_CHARS = 3;

/** `running` → `run`: the doubled consonant a suffix brought along (not ll, ss, zz: `spelling` → `spell`). */
function undouble(stem: string): string {
  const last = stem.at(-1);
  if (last !== undefined && stem.length > MIN_STEM_CHARS && stem.at(-2) === last && !'aeioulsz'.includes(last)) return stem.slice(0, -1);
  return stem;
}

function strip(word: string, suffix: string, replacement = ''): string | undefined {
  if (!word.endsWith(suffix)) return undefined;
  const stem = word.slice(0, word.length - suffix.length) + replacement;
  return stem.length >= MIN_STEM_CHARS ? stem : undefined;
}

/** The stem of one lower-case word of letters and digits. */
export function stem(word: string): string {
  if (word.length <= MIN_STEM_CHARS || /\d/.test(word)) return word;
  const ies = strip(word, 'ies', 'y');
  if (ies !== undefined) return ies;
  const ing = strip(word, 'ing');
  if (ing !== undefined) return undouble(ing);
  const ed = strip(word, 'ed');
  if (ed !== undefined && !word.endsWith('eed')) return undouble(ed);
  // `matches` → `match`, `boxes` → `box`; but `files` → `file` (the plain `s` rule below).
  if (/(?:ch|sh|ss|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}
