// The read-only `sdk` global of a program (docs/large-catalogs.md): `sdk.describe` returns the
// declarations of named tools in the program's language, from the same renderer as the full SDK
// (TypeScript, or Python under the Python runtime), and `sdk.search`
// ranks tools for a query. Both answer on the host from the catalog visible when the run started;
// they are not tools, so they never enter the registry pipeline and never appear as dispatches.

import { InvalidArgsError, UnknownToolError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { DEFAULT_SDK_SEARCH_LIMIT, MAX_SDK_DESCRIBE_NAMES, MAX_SDK_QUERY_CHARS, MAX_SDK_SEARCH_LIMIT } from '../limits.js';
import type { BindingFunction, BindingNamespace } from '../ptc-runtime/types.js';
import type { ToolSchema } from '../tools/types.js';
import { DEFAULT_LANGUAGE, languagePackOr } from '../languages/table.js';
import { signature } from './catalog-index.js';
import { searchCatalog } from './catalog-search.js';

export const SDK_BINDING_GLOBAL = 'sdk';
export const SDK_ERROR_CLASS = 'SdkError';

/** What the prompt declares for `sdk` under TypeScript; each language pack has its own. */
export { SDK_BINDING_DECLARATION } from '../languages/typescript/sdk/sdk-declaration.js';

/** The `sdk` namespace over the tools visible to one run; `describe` answers in `language` (a pack's id). */
export function createSdkBinding(tools: readonly ToolSchema[], language: string = DEFAULT_LANGUAGE): BindingNamespace {
  const byName = new Map<string, ToolSchema>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  const { render } = languagePackOr(language).sdk;
  // Programs of both languages hand over all their arguments (argumentList), so extra ones are an
  // INVALID_ARGS rather than silently dropped.
  const describe: BindingFunction = async (args) => describeTools(byName, onlyArgument(args, 'sdk.describe', DESCRIBE_USAGE), render);
  const search: BindingFunction = async (args) => searchTools([...byName.values()], searchArguments(args));
  return {
    global: SDK_BINDING_GLOBAL,
    functions: { describe, search },
    errorClass: { name: SDK_ERROR_CLASS, memberNameProperty: 'method' },
    argumentList: true,
  };
}

const DESCRIBE_USAGE = 'sdk.describe takes a tool name or a non-empty array of names, e.g. sdk.describe(["memory__read_graph"]).';
const SEARCH_USAGE =
  'sdk.search takes a query string, optionally then { limit }, or one { query: string, limit?: number }, e.g. sdk.search("read file", { limit: 5 }).';

/** The one argument of a call made with argumentList; more is INVALID_ARGS, not silently dropped. */
function onlyArgument(args: JsonValue, method: string, usage: string): JsonValue {
  const given = Array.isArray(args) ? args : [args];
  if (given.length > 1) throw new InvalidArgsError(`${method} takes one argument; got ${given.length}. ${usage}`);
  return given[0] ?? null;
}

/** `(query)`, `(query, { limit })` or `({ query, limit })` as the one request parseSearch reads. */
function searchArguments(args: JsonValue): JsonValue {
  const given = Array.isArray(args) ? args : [args];
  if (given.length <= 1) return given[0] ?? null;
  const [query, options] = given;
  if (given.length > 2 || typeof query !== 'string' || typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgsError(SEARCH_USAGE);
  }
  if ('query' in options) throw new InvalidArgsError(`${SEARCH_USAGE} The query is given twice.`);
  return { ...options, query };
}

function describeTools(byName: ReadonlyMap<string, ToolSchema>, args: JsonValue, render: (tools: readonly ToolSchema[]) => string): string {
  const names = typeof args === 'string' ? [args] : Array.isArray(args) ? args : undefined;
  if (names === undefined || names.length === 0 || !names.every((n): n is string => typeof n === 'string')) {
    throw new InvalidArgsError(DESCRIBE_USAGE);
  }
  if (names.length > MAX_SDK_DESCRIBE_NAMES) {
    throw new InvalidArgsError(`sdk.describe takes at most ${MAX_SDK_DESCRIBE_NAMES} names per call; got ${names.length}. Split the list.`);
  }
  const unknown = [...new Set(names.filter((n) => !byName.has(n)))];
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 200)));
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
    throw new UnknownToolError(
      `sdk.describe: no visible tool is named ${shown.join(', ')}${more}. Names are exact, e.g. "<server>__<tool>"; find them with sdk.search("words").`,
    );
  }
  return render([...new Set(names)].map((n) => byName.get(n)!));
}

function searchTools(tools: readonly ToolSchema[], args: JsonValue): JsonValue {
  const request = parseSearch(args);
  return searchCatalog(tools, request.query, request.limit).map((hit) => ({
    name: hit.name,
    group: hit.group,
    signature: signature(hit.args),
    summary: hit.summary,
  }));
}

function parseSearch(args: JsonValue): { query: string; limit: number } {
  const usage = SEARCH_USAGE;
  let query: JsonValue | undefined = args;
  let limit: JsonValue | undefined = DEFAULT_SDK_SEARCH_LIMIT;
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const extra = Object.keys(args).filter((k) => k !== 'query' && k !== 'limit');
    if (extra.length > 0) throw new InvalidArgsError(`${usage} Unknown field ${JSON.stringify(extra[0])}.`);
    query = args['query'];
    limit = args['limit'] ?? DEFAULT_SDK_SEARCH_LIMIT;
  }
  if (typeof query !== 'string') throw new InvalidArgsError(usage);
  if (query.length > MAX_SDK_QUERY_CHARS) {
    throw new InvalidArgsError(`sdk.search: the query is ${query.length} characters; the limit is ${MAX_SDK_QUERY_CHARS}. Use a few words.`);
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SDK_SEARCH_LIMIT) {
    throw new InvalidArgsError(`sdk.search: limit must be an integer from 1 to ${MAX_SDK_SEARCH_LIMIT}.`);
  }
  return { query, limit };
}
