// `sdk.search`: ranks the visible tools for a query by a simple, deterministic word score over
// names and descriptions (docs/large-catalogs.md). No model, no embeddings: the same catalog and
// query always give the same list. Words are compared by stem (word-stem.ts), and a tool whose
// name matches comes before every tool matched only by its description; ties broken by name.

import { compareCodeUnits } from '../codegen/ts-syntax.js';
import type { ToolSchema } from '../tools/types.js';
import { catalogEntry, OTHER_TOOLS_GROUP, type CatalogEntry } from './catalog-index.js';
import { stem } from './word-stem.js';

/** Score weights: a word of the tool's own name counts most, a description word least. */
const NAME_WORD_SCORE = 4;
const NAME_PART_SCORE = 2;
const SERVER_WORD_SCORE = 2;
const DESCRIPTION_WORD_SCORE = 1;
/** The whole query found in the name (e.g. "read_file"). */
const WHOLE_NAME_MATCH_SCORE = 6;

export interface SearchHit extends CatalogEntry {
  readonly score: number;
  /** Whether a query word matched the tool's own name or its server's (ranked before description-only hits). */
  readonly nameMatch: boolean;
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
  const queryWords = [...new Set(words(query).map(stem))];
  if (queryWords.length === 0) return [];
  const whole = query.trim().toLowerCase();
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const entry = catalogEntry(tool);
    const { score, nameMatch } = scoreTool(entry, String(tool.description ?? ''), queryWords, whole);
    if (score > 0) hits.push({ ...entry, score, nameMatch });
  }
  hits.sort((a, b) => Number(b.nameMatch) - Number(a.nameMatch) || b.score - a.score || compareCodeUnits(a.name, b.name));
  return hits.slice(0, limit);
}

function scoreTool(entry: CatalogEntry, description: string, queryWords: readonly string[], whole: string): { score: number; nameMatch: boolean } {
  const own = entry.group === OTHER_TOOLS_GROUP ? entry.name : entry.name.slice(entry.group.length + 2);
  const nameWords = new Set(words(own).map(stem));
  const serverWords = new Set(entry.group === OTHER_TOOLS_GROUP ? [] : words(entry.group).map(stem));
  const descriptionWords = new Set(words(description).map(stem));
  let nameScore = whole !== '' && entry.name.toLowerCase().includes(whole) ? WHOLE_NAME_MATCH_SCORE : 0;
  let descriptionScore = 0;
  for (const word of queryWords) {
    if (nameWords.has(word)) nameScore += NAME_WORD_SCORE;
    else if ([...nameWords].some((n) => n.startsWith(word) || (n.length >= 3 && word.startsWith(n)))) nameScore += NAME_PART_SCORE;
    if (serverWords.has(word)) nameScore += SERVER_WORD_SCORE;
    if (descriptionWords.has(word) || [...descriptionWords].some((d) => d.length > word.length && d.startsWith(word))) {
      descriptionScore += DESCRIPTION_WORD_SCORE;
    }
  }
  return { score: nameScore + descriptionScore, nameMatch: nameScore > 0 };
}
