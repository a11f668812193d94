// The `web_search` tool: a query -> titles, URLs and snippets from the configured backend
// (docs/web-tools.md, "web_search"), for `web_fetch` to follow up. Runs on the host like web_fetch,
// so the same rule gates it: without network (`--allow-net`) it refuses before any connection. The
// backend comes from the config file's `webSearch` (docs/config.md); with none, every call is CONFIG
// saying how to set one. The key is read from its environment variable when a call runs.

import { AbortedError, ConfigError, HarnessError, InvalidArgsError } from '../../errors.js';
import { networkCall } from '../network-call.js';
import { DEFAULT_WEB_SEARCH_RESULTS, MAX_WEB_SEARCH_RESULTS, WEB_SEARCH_TIMEOUT_MS } from './limits.js';
import type { WorkspacePolicy } from '../../sandbox/index.js';
import { defineTool, type ToolDefinition } from '../../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from '../builtin-contract.js';
import type { SearchBackend, WebSearchConfig } from './backend.js';
import { BRAVE_DEFAULT_KEY_ENV, createBraveBackend } from './brave-backend.js';
import { boundResults } from './bound-results.js';
import { createSearxngBackend } from './searxng-backend.js';

type Contract = typeof import('../contracts/web-search.js');
export type WebSearchArgs = ArgsOf<Contract>;
export type WebSearchOutput = ValueOf<Contract>;

export interface WebSearchToolOptions {
  /** The harness's one policy; `network: false` denies every call. */
  readonly policy: WorkspacePolicy;
  /** The config file's `webSearch`; absent: every call is CONFIG naming the key. */
  readonly config?: WebSearchConfig;
  /** Where the key's variable is read; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Deadline of one call (default WEB_SEARCH_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

export const WEB_SEARCH_DESCRIPTION =
  'Search the web and get back a list of results, each with a title, a URL and a short snippet. ' +
  'Follow a promising result up with web_fetch to read the page. `count` results at most ' +
  `(default ${DEFAULT_WEB_SEARCH_RESULTS}, at most ${MAX_WEB_SEARCH_RESULTS}); \`sites\` keeps results on the given ` +
  'domains and their subdomains (e.g. ["nodejs.org"]). Needs network access (the user passes --allow-net) ' +
  'and a search backend in the ptc config file.';

/** The CONFIG message of an unconfigured tool: where to set it, with an example per backend. */
export const NO_BACKEND_MESSAGE =
  'web_search has no search backend configured. Set webSearch in the ptc config file ' +
  '(~/.config/ptc/config.yaml, or .ptc/config.yaml of a trusted workspace), for a self-hosted SearXNG: ' +
  '`webSearch: { backend: searxng, url: "http://127.0.0.1:8888" }`, or for Brave Search: ' +
  '`webSearch: { backend: brave, apiKeyEnv: BRAVE_API_KEY }` with the key exported in BRAVE_API_KEY. ' +
  '`ptc config` shows what is set (docs/web-tools.md).';

export function createWebSearchTool(options: WebSearchToolOptions): ToolDefinition<WebSearchArgs, WebSearchOutput> {
  const timeoutMs = options.timeoutMs ?? WEB_SEARCH_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new ConfigError(`createWebSearchTool: timeoutMs must be a positive integer, got ${String(options.timeoutMs)}.`);
  }
  const { policy, config } = options;
  return defineTool<WebSearchArgs, WebSearchOutput>({
    name: 'web_search',
    description: WEB_SEARCH_DESCRIPTION,
    ...contractSchemas('web-search', () => import('../contracts/web-search.js')),
    isConcurrencySafe: true,
    async execute(args, exec) {
      const query = args.query.trim();
      if (query === '') throw new InvalidArgsError('web_search: query is empty; pass the words to search for.');
      const count = args.count ?? DEFAULT_WEB_SEARCH_RESULTS;
      const sites = (args.sites ?? []).map(siteOf);
      if (config === undefined) throw new ConfigError(NO_BACKEND_MESSAGE);
      const backend = backendOf(config, options.env ?? process.env);
      return networkCall(
        'web_search',
        policy.network,
        exec,
        timeoutMs,
        async (signal) => {
          const hits = await backend.search({ query, count, sites }, signal);
          return { query, backend: backend.name, results: boundResults(hits, { count, sites }) };
        },
        (error, end) => {
          if (end.aborted) return new AbortedError(`web_search was aborted while the ${backend.name} backend answered.`);
          if (end.timedOut) {
            return new HarnessError(
              'TIMEOUT',
              `The ${backend.name} backend at ${backend.endpoint} did not answer within web_search's ${timeoutMs} ms limit ` +
                `(WEB_SEARCH_TIMEOUT_MS); check that the service is up and reachable, then try again.`,
            );
          }
          return error instanceof HarnessError ? error : new HarnessError('TOOL_FAILED', `web_search failed: ${(error as Error).message}`);
        },
      );
    },
    renderContent(value) {
      if (value.results.length === 0) return `No results for "${value.query}" (${value.backend}).`;
      const lines = value.results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ''}`);
      return `Results for "${value.query}" (${value.backend}); read one with web_fetch:\n\n${lines.join('\n\n')}`;
    },
  });
}

/** The backend of `config`, built when a call runs (so the key is read then): CONFIG for what is missing. */
function backendOf(config: WebSearchConfig, env: Readonly<Record<string, string | undefined>>): SearchBackend {
  const at = config.origin === undefined ? '' : ` (set at ${config.origin})`;
  // A backend chosen by environment variable is fixed there too (docs/web-tools.md, "Configuration").
  const fromEnv = config.origin?.startsWith('env ') === true;
  const url = config.url === undefined ? undefined : parseUrl(config.url, at);
  if (config.backend === 'searxng') {
    if (url === undefined) {
      throw new ConfigError(
        `web_search's searxng backend needs the instance's URL${at}: ` +
          (fromEnv
            ? `set PTC_WEB_SEARCH_URL, e.g. PTC_WEB_SEARCH_URL=http://127.0.0.1:8888.`
            : `set webSearch.url in the ptc config file, e.g. webSearch: { backend: searxng, url: "http://127.0.0.1:8888" }.`),
      );
    }
    return createSearxngBackend(url);
  }
  const apiKeyEnv = config.apiKeyEnv ?? BRAVE_DEFAULT_KEY_ENV;
  const apiKey = env[apiKeyEnv]?.trim();
  if (apiKey === undefined || apiKey === '') {
    throw new ConfigError(
      `web_search's brave backend reads its API key from $${apiKeyEnv}, which is not set${at}. Export your Brave ` +
        `Search API key in ${apiKeyEnv}, or name the variable that holds it in ${fromEnv ? 'PTC_WEB_SEARCH_API_KEY_ENV' : 'webSearch.apiKeyEnv of the ptc config file'}.`,
    );
  }
  return createBraveBackend({ apiKeyEnv, apiKey, ...(url !== undefined ? { url } : {}) });
}

function parseUrl(text: string, at: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`webSearch.url "${text}"${at} is not an absolute URL; set it to e.g. http://127.0.0.1:8888.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`webSearch.url "${text}"${at} must be http or https.`);
  }
  return url;
}

/** A `sites` entry as a bare lowercase domain; a URL is taken for its host. */
function siteOf(entry: string): string {
  const text = entry.trim().toLowerCase();
  let host = text;
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text)) {
    try {
      host = new URL(text).hostname;
    } catch {
      host = '';
    }
  }
  host = host.replace(/^\*\./, '').replace(/\.$/, '');
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(host)) {
    throw new InvalidArgsError(`web_search: "${entry}" in sites is not a domain; pass domains such as "nodejs.org" or "docs.python.org".`);
  }
  return host;
}
