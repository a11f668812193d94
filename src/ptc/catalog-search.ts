// `sdk.search`: ranks the visible tools for a query by a simple, deterministic word score over
// names and descriptions (docs/large-catalogs.md). No model, no embeddings: the same catalog and
// query always give the same list, ties broken by name.

import { compareCodeUnits } from '../codegen/ts-syntax.js';
import type { ToolSchema } from '../tools/types.js';
import { catalogEntry, OTHER_TOOLS_GROUP, type CatalogEntry } from './catalog-index.js';

/** Score weights: a word of the tool's own name counts most, a description word least. */
const NAME_WORD_SCORE = 4;
const NAME_PART_SCORE = 2;
const SERVER_WORD_SCORE = 2;
const DESCRIPTION_WORD_SCORE = 1;
/** The whole query found in the name (e.g. "read_file"). */
const WHOLE_NAME_MATCH_SCORE = 6;

export interface SearchHit extends CatalogEntry {
  readonly score: number;
}

/** Lower-case words of letters and digits; camelCase and snake_case both split. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** The tools that match any query word, best first, at most `limit`. */
export function searchCatalog(tools: readonly ToolSchema[], query: string, limit: number): SearchHit[] {
  const queryWords = [...new Set(words(query))];
  if (queryWords.length === 0) return [];
  const whole = query.trim().toLowerCase();
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const entry = catalogEntry(tool);
    const score = scoreTool(entry, String(tool.description ?? ''), queryWords, whole);
    if (score > 0) hits.push({ ...entry, score });
  }
  hits.sort((a, b) => b.score - a.score || compareCodeUnits(a.name, b.name));
  return hits.slice(0, limit);
}

function scoreTool(entry: CatalogEntry, description: string, queryWords: readonly string[], whole: string): number {
  const own = entry.group === OTHER_TOOLS_GROUP ? entry.name : entry.name.slice(entry.group.length + 2);
  const nameWords = new Set(words(own));
  const serverWords = new Set(entry.group === OTHER_TOOLS_GROUP ? [] : words(entry.group));
  const descriptionWords = new Set(words(description));
  let score = whole !== '' && entry.name.toLowerCase().includes(whole) ? WHOLE_NAME_MATCH_SCORE : 0;
  for (const word of queryWords) {
    if (nameWords.has(word)) score += NAME_WORD_SCORE;
    else if ([...nameWords].some((n) => n.startsWith(word) || (n.length >= 3 && word.startsWith(n)))) score += NAME_PART_SCORE;
    if (serverWords.has(word)) score += SERVER_WORD_SCORE;
    if (descriptionWords.has(word) || [...descriptionWords].some((d) => d.length > word.length && d.startsWith(word))) {
      score += DESCRIPTION_WORD_SCORE;
    }
  }
  return score;
}
