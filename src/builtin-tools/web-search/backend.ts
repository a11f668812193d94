// The seam between `web_search` and a search service (docs/web-tools.md, "web_search"): one request
// in, raw hits out. A backend speaks one wire format and maps that service's failures to errors that
// name the cause and the fix; bounding the hits is the tool's job (bound-results.ts), not the backend's.

/** The backends a config file may name (`webSearch.backend`, docs/config.md). */
export const WEB_SEARCH_BACKENDS = ['searxng', 'brave'] as const;
export type WebSearchBackendName = (typeof WEB_SEARCH_BACKENDS)[number];

/** `webSearch` of the config file, as the tool receives it. */
export interface WebSearchConfig {
  readonly backend: WebSearchBackendName;
  /** The service's base URL: required for SearXNG, Brave's public endpoint when absent. */
  readonly url?: string;
  /** The environment variable that holds the key (Brave; default BRAVE_API_KEY). */
  readonly apiKeyEnv?: string;
  /** Where the setting came from (`/home/u/.config/ptc/config.yaml:7`), for messages. */
  readonly origin?: string;
}

export interface SearchRequest {
  /** The query as the model wrote it. */
  readonly query: string;
  /** Results wanted, already clamped by the tool. */
  readonly count: number;
  /** Domains to keep (`example.com`), already checked by the tool; empty means any. */
  readonly sites: readonly string[];
}

/** One hit as the service returned it; any field may be missing or too long. */
export interface RawHit {
  readonly title?: unknown;
  readonly url?: unknown;
  readonly snippet?: unknown;
}

export interface SearchBackend {
  /** `searxng`, `brave`: named in every error. */
  readonly name: WebSearchBackendName;
  /** The endpoint requests go to (without key), named in errors. */
  readonly endpoint: string;
  search(request: SearchRequest, signal: AbortSignal): Promise<readonly RawHit[]>;
}

/** The `site:` form both services understand: `q (site:a.com OR site:b.org)`. */
export function querySites(query: string, sites: readonly string[]): string {
  if (sites.length === 0) return query;
  const filter = sites.map((s) => `site:${s}`).join(' OR ');
  return `${query} ${sites.length === 1 ? filter : `(${filter})`}`;
}
