// Loopback servers (127.0.0.1) that speak the wire formats of web_search's backends as their docs
// describe them (docs/web-tools.md, "Backends"): SearXNG's `/search?format=json` and Brave's
// `/res/v1/web/search`, with their error answers. Queries choose the behaviour: `ratelimit` answers
// 429, `hang` never answers, `notjson` answers an HTML page; any other query answers the corpus's
// pages whose text contains a word of it, honouring `site:` terms as the real services do.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Page {
  readonly title: string;
  readonly url: string;
  readonly text: string;
}

export const CORPUS: readonly Page[] = [
  { title: 'Node.js <b>streams</b> &amp; pipes', url: 'https://nodejs.org/api/stream.html', text: 'Streams are an abstract interface for working with streaming data in Node.js.' },
  { title: 'Stream API - Web APIs', url: 'https://developer.mozilla.org/en-US/docs/Web/API/Streams_API', text: 'The Streams API allows JavaScript to programmatically access streams of data.' },
  { title: 'Backpressuring in Streams', url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams', text: 'Backpressure is a buildup of data behind a buffer during data transfer in streams.' },
  { title: 'streams (duplicate)', url: 'https://nodejs.org/api/stream.html', text: 'The same page again, as metasearch engines often return.' },
  { title: 'Not a web page', url: 'javascript:alert(1)', text: 'streams from a broken engine' },
  { title: 'Long streams page', url: 'https://example.com/long', text: `streams ${'word '.repeat(400)}` },
];

export interface SeenRequest {
  readonly path: string;
  readonly params: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
}

export interface SearchServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

/** The pages matching `q`: a word of it in their title or text, on a `site:` domain when it names any. */
function matching(q: string): Page[] {
  const sites = [...q.matchAll(/site:([^\s)]+)/g)].map((m) => m[1]!.toLowerCase());
  const words = q
    .replace(/site:[^\s)]+/g, '')
    .replace(/\b(OR)\b|[()]/g, ' ')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  return CORPUS.filter((p) => {
    const text = `${p.title} ${p.text}`.toLowerCase();
    if (!words.some((w) => text.includes(w))) return false;
    if (sites.length === 0) return true;
    try {
      const host = new URL(p.url).hostname;
      return sites.some((s) => host === s || host.endsWith(`.${s}`));
    } catch {
      return false;
    }
  });
}

async function start(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void, seen: SeenRequest[]): Promise<SearchServer> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push({ path: url.pathname, params: url.searchParams, headers: req.headers });
    handler(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A SearXNG instance; `jsonFormat: false` is one whose settings.yml lists only `html` (it answers 403). */
export function startSearxng(options: { jsonFormat?: boolean } = {}): Promise<SearchServer> {
  return start((_req, res, url) => {
    if (url.pathname !== '/search' && url.pathname !== '/') return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    const q = url.searchParams.get('q') ?? '';
    const format = url.searchParams.get('format') ?? 'html';
    if (format !== 'html' && !(format === 'json' && options.jsonFormat !== false)) {
      return void res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>');
    }
    if (q.includes('hang')) return;
    if (q.includes('ratelimit')) return void res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '7' }).end('Too Many Requests');
    if (q.includes('notjson')) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>Welcome to nginx!</body></html>');
    const results = matching(q).map((p, i) => ({
      url: p.url,
      title: p.title,
      content: p.text,
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      positions: [i + 1],
      score: 1 / (i + 1),
      category: 'general',
      template: 'default.html',
    }));
    json(res, 200, { query: q, number_of_results: 0, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
  }, []);
}

export const BRAVE_GOOD_KEY = 'brave-test-key-1';
/** A key the account revoked: Brave answers 401 for it (any other unknown key gets the documented 422). */
export const BRAVE_REVOKED_KEY = 'brave-revoked-key';

function braveError(res: ServerResponse, status: number, code: string, detail: string, headers: Record<string, string> = {}): void {
  json(res, status, { type: 'ErrorResponse', error: { id: 'c8e1f6a0-test', status, code, detail, meta: {} }, time: 1_700_000_000 }, headers);
}

/** The Brave Search API at `/res/v1/web/search`, accepting BRAVE_GOOD_KEY in X-Subscription-Token. */
export function startBrave(): Promise<SearchServer> {
  return start((req, res, url) => {
    if (url.pathname !== '/res/v1/web/search') return braveError(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found.');
    const token = req.headers['x-subscription-token'];
    if (token === BRAVE_REVOKED_KEY) return braveError(res, 401, 'SUBSCRIPTION_TOKEN_REVOKED', 'The provided subscription token was revoked.');
    if (token !== BRAVE_GOOD_KEY) return braveError(res, 422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
    const q = url.searchParams.get('q') ?? '';
    const count = Number(url.searchParams.get('count') ?? '20');
    if (!Number.isInteger(count) || count < 1 || count > 20) return braveError(res, 422, 'VALIDATION', 'Unable to validate request parameter(s).');
    if (q.includes('hang')) return;
    if (q.includes('ratelimit')) {
      return braveError(res, 429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', {
        'x-ratelimit-limit': '1, 2000',
        'x-ratelimit-policy': '1;w=1, 2000;w=2592000',
        'x-ratelimit-remaining': '0, 1500',
        'x-ratelimit-reset': '3, 1419704',
      });
    }
    if (q.includes('notjson')) return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    const pages = matching(q).slice(0, count);
    if (pages.length === 0) return json(res, 200, { type: 'search', query: { original: q } });
    const decorate = url.searchParams.get('text_decorations') !== 'false';
    json(res, 200, {
      type: 'search',
      query: { original: q, more_results_available: false },
      mixed: { type: 'mixed', main: pages.map((_, index) => ({ type: 'web', index, all: false })) },
      web: {
        type: 'search',
        family_friendly: true,
        results: pages.map((p) => ({
          type: 'search_result',
          title: p.title,
          url: p.url,
          description: decorate ? p.text.replace(/(streams?)/gi, '<strong>$1</strong>') : p.text,
          is_source_local: false,
          language: 'en',
          meta_url: { scheme: 'https', hostname: (() => { try { return new URL(p.url).hostname; } catch { return ''; } })() },
        })),
      },
    });
  }, []);
}
