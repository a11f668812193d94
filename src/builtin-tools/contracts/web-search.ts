// The contract of `web_search` (docs/builtin-tools.md): zod, the one source of its types and wire schemas.

import { z } from 'zod';
import { DEFAULT_WEB_SEARCH_RESULTS, MAX_WEB_SEARCH_QUERY_CHARS, MAX_WEB_SEARCH_RESULTS, MAX_WEB_SEARCH_SITES } from '../web-search/limits.js';
import { WEB_SEARCH_BACKENDS } from '../web-search/backend.js';

export const input = z.strictObject({
  query: z.string().min(1).max(MAX_WEB_SEARCH_QUERY_CHARS).describe('What to search for, as you would type it into a search engine.'),
  count: z.int().min(1).max(MAX_WEB_SEARCH_RESULTS).optional().describe(`How many results to return at most. Default ${DEFAULT_WEB_SEARCH_RESULTS}.`),
  sites: z
    .array(z.string().min(1))
    .max(MAX_WEB_SEARCH_SITES)
    .optional()
    .describe('Only results on these domains (or their subdomains), e.g. ["developer.mozilla.org"]. Default: any site.'),
});

export const result = z.strictObject({
  title: z.string().describe('The page title (plain text).'),
  url: z.string().describe('The http(s) URL of the page: pass it to web_fetch to read it.'),
  snippet: z.string().describe('A short excerpt of the page (plain text), cut with … when long.'),
});

export const output = z.strictObject({
  query: z.string().describe('The query as given.'),
  backend: z.enum(WEB_SEARCH_BACKENDS).describe('The search service that answered.'),
  results: z.array(result).describe('The results, best first; empty when nothing matched.'),
});
