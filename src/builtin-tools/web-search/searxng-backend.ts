// SearXNG's JSON API (docs/web-tools.md, "Backends"): `GET <url>/search?q=...&format=json`, answered
// with `{ results: [{ title, url, content }] }`. Self-hosted, no key. An instance answers 403 when
// its settings.yml does not list `json` under `search.formats`, and 429 when its limiter blocks us.

import { ConfigError, ToolFailedError } from '../../errors.js';
import { querySites, type RawHit, type SearchBackend, type SearchRequest } from './backend.js';
import { errorDetail, exchange, parseJson, rateLimited, redactedHref } from './backend-http.js';

/** `url` is the instance's base (`http://127.0.0.1:8888`, `https://host/searx`) or its `/search` URL. */
export function createSearxngBackend(url: URL): SearchBackend {
  const endpoint = new URL(url.href);
  if (!endpoint.pathname.endsWith('/search')) endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/search`;
  return {
    name: 'searxng',
    endpoint: redactedHref(endpoint),
    async search(request: SearchRequest, signal: AbortSignal): Promise<readonly RawHit[]> {
      const target = new URL(endpoint.href);
      target.searchParams.set('q', querySites(request.query, request.sites));
      target.searchParams.set('format', 'json');
      const answer = await exchange('searxng', target, { method: 'GET' }, signal);
      if (answer.status === 403) {
        throw new ConfigError(
          `The searxng backend at ${redactedHref(target)} refused the JSON format (HTTP 403): the instance does not ` +
            `enable it. Add json to search.formats in its settings.yml (formats: [html, json]) and restart it, ` +
            `or point webSearch.url at an instance that allows JSON.`,
        );
      }
      if (answer.status === 429) throw rateLimited('searxng', target, answer, 'its limiter blocked the request');
      if (answer.status < 200 || answer.status > 299) {
        const detail = errorDetail(answer);
        throw new ToolFailedError(
          `The searxng backend at ${redactedHref(target)} answered HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}` +
            `${detail ? ` (${detail})` : ''}. Check the instance's log; try again later.`,
        );
      }
      const value = parseJson('searxng', target, answer);
      const results = (value as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) {
        throw new ToolFailedError(
          `The searxng backend at ${redactedHref(target)} answered JSON without a results list; check that webSearch.url is a SearXNG instance.`,
        );
      }
      return results.map((r: { title?: unknown; url?: unknown; content?: unknown } | null) => ({ title: r?.title, url: r?.url, snippet: r?.content }));
    },
  };
}
