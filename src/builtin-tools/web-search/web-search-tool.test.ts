// web_search through the real tool against loopback servers speaking SearXNG's and Brave's formats
// (test/helpers/search-servers.ts), errors included.

import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { waitUntil } from '../../../test/helpers/wait-until.js';
import { BRAVE_GOOD_KEY, BRAVE_REVOKED_KEY, startBrave, startSearxng, type SearchServer } from '../../../test/helpers/search-servers.js';
import { MAX_WEB_SEARCH_SNIPPET_CHARS } from './limits.js';
import { resolveWorkspacePolicy } from '../../sandbox/index.js';
import type { ToolExecContext } from '../../tools/types.js';
import type { WebSearchConfig } from './backend.js';
import { createWebSearchTool, type WebSearchArgs, type WebSearchToolOptions } from './web-search-tool.js';

let searxng: SearchServer;
let searxngNoJson: SearchServer;
let brave: SearchServer;
let workspace: string;

beforeAll(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-web-search-'));
  [searxng, searxngNoJson, brave] = await Promise.all([startSearxng(), startSearxng({ jsonFormat: false }), startBrave()]);
});

afterAll(async () => {
  await Promise.all([searxng.close(), searxngNoJson.close(), brave.close()]);
  fs.rmSync(workspace, { recursive: true, force: true });
});

type Options = Omit<WebSearchToolOptions, 'policy'> & { network?: boolean };

function tool({ network = true, ...rest }: Options) {
  return createWebSearchTool({ policy: resolveWorkspacePolicy({ cwd: workspace, network }), ...rest });
}

function exec(): ToolExecContext {
  return { signal: new AbortController().signal, callId: 's1', deferContext() {} };
}

const searx = (): WebSearchConfig => ({ backend: 'searxng', url: searxng.base });
const braveAt = (apiKeyEnv = 'TEST_BRAVE_KEY'): WebSearchConfig => ({ backend: 'brave', url: `${brave.base}/res/v1/web/search`, apiKeyEnv });

async function failure(args: WebSearchArgs, options: Options) {
  return Promise.resolve(tool(options).execute(args, exec())).then(
    () => expect.fail('web_search should have failed'),
    (error: { code: string; message: string }) => error,
  );
}

describe('web_search with SearXNG', () => {
  it('returns title, URL and snippet as plain text, deduplicated, without unusable URLs', async () => {
    const t = tool({ config: searx() });
    const value = await t.execute({ query: 'streams' }, exec());
    expect(value.backend).toBe('searxng');
    expect(value.results.map((r) => r.url)).toEqual([
      'https://nodejs.org/api/stream.html',
      'https://developer.mozilla.org/en-US/docs/Web/API/Streams_API',
      'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
      'https://example.com/long',
    ]);
    expect(value.results[0]).toEqual({
      title: 'Node.js streams & pipes',
      url: 'https://nodejs.org/api/stream.html',
      snippet: 'Streams are an abstract interface for working with streaming data in Node.js.',
    });
    const request = searxng.seen.at(-1)!;
    expect(request.path).toBe('/search');
    expect(request.params.get('format')).toBe('json');
    expect(request.params.get('q')).toBe('streams');
    expect(t.renderContent!(value)).toContain('web_fetch');
  });

  it('bounds the count and the snippet size', async () => {
    const value = await tool({ config: searx() }).execute({ query: 'streams', count: 2 }, exec());
    expect(value.results).toHaveLength(2);
    const long = (await tool({ config: searx() }).execute({ query: 'word' }, exec())).results[0]!;
    expect(long.url).toBe('https://example.com/long');
    expect(long.snippet.length).toBe(MAX_WEB_SEARCH_SNIPPET_CHARS);
    expect(long.snippet.endsWith('…')).toBe(true);
  });

  it('filters by site: in the query and on the results (subdomains included)', async () => {
    const value = await tool({ config: searx() }).execute({ query: 'streams', sites: ['https://NodeJS.org/'] }, exec());
    expect(searxng.seen.at(-1)!.params.get('q')).toBe('streams site:nodejs.org');
    expect(value.results.map((r) => new URL(r.url).hostname)).toEqual(['nodejs.org', 'nodejs.org']);
    await tool({ config: searx() }).execute({ query: 'streams', sites: ['nodejs.org', 'mozilla.org'] }, exec());
    expect(searxng.seen.at(-1)!.params.get('q')).toBe('streams (site:nodejs.org OR site:mozilla.org)');
  });

  it('an instance without the JSON format (403) is CONFIG naming settings.yml and the fix', async () => {
    const error = await failure({ query: 'streams' }, { config: { backend: 'searxng', url: searxngNoJson.base } });
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('403');
    expect(error.message).toContain('settings.yml');
    expect(error.message).toContain('json');
  });

  it('a rate limit (429) is TOOL_FAILED naming the retry-after', async () => {
    const error = await failure({ query: 'ratelimit' }, { config: searx() });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('429');
    expect(error.message).toMatch(/retry after 7 s/);
  });

  it('a body that is not JSON is TOOL_FAILED naming the backend and its URL', async () => {
    const error = await failure({ query: 'notjson' }, { config: searx() });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('searxng');
    expect(error.message).toContain(`${searxng.base}/search`);
    expect(error.message).toContain('webSearch.url');
  });

  it('a backend that does not answer in time is TIMEOUT naming the limit', async () => {
    const error = await failure({ query: 'hang' }, { config: searx(), timeoutMs: 300 });
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(error.message).toContain('WEB_SEARCH_TIMEOUT_MS');
  });

  it('an abort by the caller is ABORTED, not TIMEOUT', async () => {
    const controller = new AbortController();
    const before = searxng.seen.length;
    const pending = Promise.resolve(tool({ config: searx() }).execute({ query: 'hang' }, { ...exec(), signal: controller.signal })).then(
      () => expect.fail('web_search should have failed'),
      (error: { code: string }) => error,
    );
    await waitUntil('the search reached the server', () => searxng.seen.length > before);
    controller.abort();
    expect((await pending).code).toBe('ABORTED');
  });

  it('an instance that is not running is TOOL_FAILED naming the cause and webSearch.url', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure({ query: 'streams' }, { config: { backend: 'searxng', url: `http://127.0.0.1:${port}` } });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('webSearch.url');
  });
});

describe('web_search with Brave', () => {
  const env = { TEST_BRAVE_KEY: BRAVE_GOOD_KEY };

  it('sends the key in X-Subscription-Token and the count, and returns web.results', async () => {
    const value = await tool({ config: braveAt(), env }).execute({ query: 'streams', count: 3 }, exec());
    expect(value.backend).toBe('brave');
    expect(value.results).toHaveLength(3);
    expect(value.results[1]).toEqual({
      title: 'Stream API - Web APIs',
      url: 'https://developer.mozilla.org/en-US/docs/Web/API/Streams_API',
      snippet: 'The Streams API allows JavaScript to programmatically access streams of data.',
    });
    const request = brave.seen.at(-1)!;
    expect(request.headers['x-subscription-token']).toBe(BRAVE_GOOD_KEY);
    expect(request.params.get('count')).toBe('3');
    expect(request.params.get('q')).toBe('streams');
  });

  it('passes the site filter as site: terms; an answer without web hits is an empty list', async () => {
    const value = await tool({ config: braveAt(), env }).execute({ query: 'streams', sites: ['mozilla.org'] }, exec());
    expect(brave.seen.at(-1)!.params.get('q')).toBe('streams site:mozilla.org');
    expect(value.results.map((r) => r.url)).toEqual(['https://developer.mozilla.org/en-US/docs/Web/API/Streams_API']);
    expect((await tool({ config: braveAt(), env }).execute({ query: 'zebra' }, exec())).results).toEqual([]);
  });

  it('a bad key (422 SUBSCRIPTION_TOKEN_INVALID, or 401) is CONFIG naming the variable', async () => {
    for (const key of ['wrong-key', BRAVE_REVOKED_KEY]) {
      const error = await failure({ query: 'streams' }, { config: braveAt(), env: { TEST_BRAVE_KEY: key } });
      expect(error.code).toBe('CONFIG');
      expect(error.message).toContain('TEST_BRAVE_KEY');
      expect(error.message).toContain('webSearch.apiKeyEnv');
      expect(error.message).not.toContain(key);
    }
  });

  it('an unset key variable is CONFIG naming it, before any request', async () => {
    const before = brave.seen.length;
    const error = await failure({ query: 'streams' }, { config: braveAt('UNSET_BRAVE_KEY_VAR'), env: {} });
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('UNSET_BRAVE_KEY_VAR');
    expect(brave.seen.length).toBe(before);
  });

  it('a rate limit (429) is TOOL_FAILED naming the reset from X-RateLimit-Reset', async () => {
    const error = await failure({ query: 'ratelimit' }, { config: braveAt(), env });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('429');
    expect(error.message).toMatch(/retry after 3 s/);
  });

  it('a non-JSON error page is TOOL_FAILED naming the backend and URL; a hang is TIMEOUT', async () => {
    const bad = await failure({ query: 'notjson' }, { config: braveAt(), env });
    expect(bad.code).toBe('TOOL_FAILED');
    expect(bad.message).toContain('brave');
    expect(bad.message).toContain(`${brave.base}/res/v1/web/search`);
    const slow = await failure({ query: 'hang' }, { config: braveAt(), env, timeoutMs: 300 });
    expect(slow.code).toBe('TIMEOUT');
    expect(slow.message).toContain('300 ms');
  });
});

describe('web_search without a backend or network', () => {
  it('no backend is CONFIG naming the webSearch key with an example for each backend', async () => {
    const error = await failure({ query: 'streams' }, {});
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('webSearch');
    expect(error.message).toContain('backend: searxng');
    expect(error.message).toContain('backend: brave');
    expect(error.message).toContain('config.yaml');
  });

  it('a searxng backend without url is CONFIG naming webSearch.url', async () => {
    const error = await failure({ query: 'streams' }, { config: { backend: 'searxng', origin: '/tmp/c.yaml:2' } });
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('webSearch.url');
    expect(error.message).toContain('/tmp/c.yaml:2');
    const fromEnv = await failure({ query: 'streams' }, { config: { backend: 'searxng', origin: 'env PTC_WEB_SEARCH_BACKEND' } });
    expect(fromEnv.code).toBe('CONFIG');
    expect(fromEnv.message).toContain('PTC_WEB_SEARCH_URL');
  });

  it('without --allow-net it is PERMISSION_DENIED before any request', async () => {
    const before = searxng.seen.length;
    const error = await failure({ query: 'streams' }, { config: searx(), network: false });
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('--allow-net');
    expect(searxng.seen.length).toBe(before);
  });

  it('a sites entry that is not a domain is INVALID_ARGS', async () => {
    for (const site of ['not a domain', 'http://', '../etc']) {
      const error = await failure({ query: 'streams', sites: [site] }, { config: searx() });
      expect(error.code).toBe('INVALID_ARGS');
      expect(error.message).toContain('domain');
    }
  });
});
