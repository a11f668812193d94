// The Brave Search API (docs/web-tools.md, "Backends"): `GET <url>?q=...&count=N` with the key in the
// `X-Subscription-Token` header, answered with `{ web: { results: [{ title, url, description }] } }`.
// A bad key is 401/403, or 422 with a SUBSCRIPTION_TOKEN_INVALID error; 429 carries
// X-RateLimit-Limit/-Remaining/-Reset headers (one value per window).

import { ConfigError, ToolFailedError } from '../../errors.js';
import { querySites, type RawHit, type SearchBackend, type SearchRequest } from './backend.js';
import { errorDetail, exchange, parseJson, rateLimited, redactedHref, type BackendAnswer } from './backend-http.js';

export const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search';
export const BRAVE_DEFAULT_KEY_ENV = 'BRAVE_API_KEY';

export interface BraveBackendOptions {
  /** The web search endpoint; default BRAVE_ENDPOINT. */
  readonly url?: URL;
  /** The variable that holds the key, named in errors. */
  readonly apiKeyEnv: string;
  /** The key, read from that variable when the call runs. */
  readonly apiKey: string;
}

export function createBraveBackend(options: BraveBackendOptions): SearchBackend {
  const endpoint = options.url ?? new URL(BRAVE_ENDPOINT);
  return {
    name: 'brave',
    endpoint: redactedHref(endpoint),
    async search(request: SearchRequest, signal: AbortSignal): Promise<readonly RawHit[]> {
      const target = new URL(endpoint.href);
      target.searchParams.set('q', querySites(request.query, request.sites));
      target.searchParams.set('count', String(request.count));
      // Plain snippets: no highlighting markup to strip.
      target.searchParams.set('text_decorations', 'false');
      const answer = await exchange('brave', target, { method: 'GET', headers: { 'x-subscription-token': options.apiKey } }, signal);
      if (answer.status === 401 || answer.status === 403 || (answer.status === 422 && badToken(answer))) {
        throw new ConfigError(
          `The brave backend at ${redactedHref(target)} rejected the API key in $${options.apiKeyEnv} (HTTP ${answer.status}` +
            `${errorDetail(answer) ? `: ${errorDetail(answer)}` : ''}). Export a valid Brave Search API key in ${options.apiKeyEnv} ` +
            `(the API dashboard's "API Keys"), or name another variable in webSearch.apiKeyEnv of the ptc config file.`,
        );
      }
      if (answer.status === 429) throw rateLimited('brave', target, answer, errorDetail(answer));
      if (answer.status < 200 || answer.status > 299) {
        const detail = errorDetail(answer);
        throw new ToolFailedError(
          `The brave backend at ${redactedHref(target)} answered HTTP ${answer.status}${detail ? ` (${detail})` : ''}; ` +
            `simplify the query or try again later.`,
        );
      }
      const value = parseJson('brave', target, answer) as { web?: { results?: unknown } } | null;
      // An answer with no web hits has no `web` at all.
      const results = value?.web?.results ?? [];
      if (!Array.isArray(results)) {
        throw new ToolFailedError(`The brave backend at ${redactedHref(target)} answered JSON whose web.results is not a list; check webSearch.url.`);
      }
      return results.map((r: { title?: unknown; url?: unknown; description?: unknown } | null) => ({ title: r?.title, url: r?.url, snippet: r?.description }));
    },
  };
}

function badToken(answer: BackendAnswer): boolean {
  return /token|subscription|api.?key/i.test(errorDetail(answer));
}
