// The TypeScript declarations of the `tools` and `sdk` globals that a large catalog's prompt shows
// instead of the full SDK (docs/large-catalogs.md); the binding itself is src/ptc/sdk-binding.ts.

import { DEFAULT_SDK_SEARCH_LIMIT, MAX_SDK_SEARCH_LIMIT } from '../../../limits.js';

/**
 * What the prompt declares for `sdk` (and `tools`, untyped) when it shows the index. Search takes
 * `(query, { limit }?)` or `({ query, limit })` (in Python also `(query, limit=5)`): the binding gets
 * every argument (BindingNamespace.argumentList), Python's keywords as one last dict.
 */
export const SDK_BINDING_DECLARATION = [
  'type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };',
  '',
  '/** Every tool of the index; `tools.<name>(args)` works whether or not you described it. */',
  'declare const tools: { readonly [name: string]: (args?: { [key: string]: JsonValue }) => Promise<JsonValue> };',
  '',
  '/** A failed tool call rejects with this error; `message` says why. */',
  'declare class ToolCallError extends Error {',
  '  readonly toolName: string;',
  '  readonly code: string;',
  '}',
  '',
  '/** A tool found by sdk.search. */',
  'interface SdkSearchHit {',
  '  name: string;',
  '  /** The server of a `<server>__<tool>` name, else "other". */',
  '  group: string;',
  '  /** How a call is written, e.g. `({ path, head? })`. */',
  '  signature: string;',
  '  /** The first sentence of its description. */',
  '  summary: string;',
  '}',
  '',
  '/** Read-only help about the tools, answered without calling any tool. */',
  'declare const sdk: {',
  '  /** TypeScript declarations (argument and return types, full descriptions) of the named tools. */',
  '  describe(names: string | string[]): Promise<string>;',
  `  /** Tools matching the words of a query, best first (default ${DEFAULT_SDK_SEARCH_LIMIT}, at most ${MAX_SDK_SEARCH_LIMIT}). */`,
  '  search(query: string, options?: { limit?: number }): Promise<SdkSearchHit[]>;',
  '  search(request: { query: string; limit?: number }): Promise<SdkSearchHit[]>;',
  '};',
  '',
  '/** A bad sdk call (unknown tool name, malformed query) rejects with this error. */',
  'declare class SdkError extends Error {',
  '  readonly method: string;',
  '  readonly code: string;',
  '}',
].join('\n');
