// The hits a backend returned, made safe to hand to the model (docs/web-tools.md, "Bounds"): at most
// `count` of them, each an http(s) URL web_fetch can follow, a title and a snippet as plain text cut
// to their limits; duplicates, hits outside the `sites` filter and hits without a usable URL dropped.
// The filter is applied here as well as in the query, since a metasearch engine forwards `site:` to
// engines that may ignore it.

import type { z } from 'zod';
import { MAX_WEB_SEARCH_SNIPPET_CHARS, MAX_WEB_SEARCH_TITLE_CHARS, MAX_WEB_SEARCH_URL_CHARS } from './limits.js';
import type { RawHit } from './backend.js';

/** One result as the tool returns it (its contract, src/builtin-tools/contracts/web-search.ts). */
export type WebSearchResult = z.output<(typeof import('../contracts/web-search.js'))['result']>;

export interface BoundOptions {
  readonly count: number;
  readonly sites: readonly string[];
  readonly maxTitleChars?: number;
  readonly maxSnippetChars?: number;
}

export function boundResults(hits: readonly RawHit[], options: BoundOptions): WebSearchResult[] {
  const maxTitle = options.maxTitleChars ?? MAX_WEB_SEARCH_TITLE_CHARS;
  const maxSnippet = options.maxSnippetChars ?? MAX_WEB_SEARCH_SNIPPET_CHARS;
  const seen = new Set<string>();
  const out: WebSearchResult[] = [];
  for (const hit of hits) {
    if (out.length >= options.count) break;
    const url = usableUrl(hit.url);
    if (url === undefined || seen.has(url.href)) continue;
    if (options.sites.length > 0 && !options.sites.some((site) => onSite(url.hostname, site))) continue;
    seen.add(url.href);
    const title = cut(plainText(hit.title), maxTitle);
    out.push({ title: title === '' ? cut(url.href, maxTitle) : title, url: url.href, snippet: cut(plainText(hit.snippet), maxSnippet) });
  }
  return out;
}

/** Whether `host` is `site` or one of its subdomains (`docs.example.com` is on `example.com`). */
export function onSite(host: string, site: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === site || h.endsWith(`.${site}`);
}

function usableUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.length > MAX_WEB_SEARCH_URL_CHARS) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Services put highlighting markup (`<strong>`) and entities in snippets: the model gets the text. */
function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]{0,200}>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
      if (Object.hasOwn(ENTITIES, name.toLowerCase())) return ENTITIES[name.toLowerCase()]!;
      const code = name.startsWith('#x') || name.startsWith('#X') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? Number(name.slice(1)) : NaN;
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** At most `max` characters, ending with an ellipsis when cut, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}
