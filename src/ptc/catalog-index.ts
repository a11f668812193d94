// The tool index of a large catalog (docs/large-catalogs.md): when full declarations of the visible
// tools would flood the ptc prompt, it lists one line per tool — name, argument names, the first
// sentence of the description — grouped by MCP server, and programs fetch declarations on demand
// through the `sdk` binding. Byte-stable: sorted by code units, no locale, no clock.

import { renderTypeScriptSdk } from '../languages/typescript/sdk/render-sdk.js';
import { arrayOf, getOwn, isRecord, ownKeys } from '../codegen/schema-access.js';
import { compareCodeUnits, propertyKey, quoteString } from '../codegen/ts-syntax.js';
import {
  MAX_DECLARED_SDK_CHARS,
  MAX_DECLARED_SDK_TOOLS,
  MAX_INDEX_ARGUMENT_NAMES,
  MAX_INDEX_SUMMARY_CHARS,
  MAX_TOOLS_ALWAYS_DECLARED,
} from '../limits.js';
import type { ToolSchema } from '../tools/types.js';

/** How the ptc prompt presents the catalog: every declaration, or the index plus `sdk`. */
export type SdkPresentation = 'declarations' | 'index';

/** The group of tools not named `<server>__<tool>` (built-ins and plugin tools). */
export const OTHER_TOOLS_GROUP = 'other';

/** One index line's facts; `sdk.search` answers with these too. */
export interface CatalogEntry {
  readonly name: string;
  /** `<server>` of a `<server>__<tool>` name, else OTHER_TOOLS_GROUP. */
  readonly group: string;
  /** Argument names as a call writes them, optional ones with `?`; undefined when the arguments are not a plain object. */
  readonly args: readonly string[] | undefined;
  /** The description's first sentence, on one line, bounded. */
  readonly summary: string;
}

/**
 * Full declarations for a small catalog (MAX_TOOLS_ALWAYS_DECLARED or fewer tools, whatever their
 * size); the index once there are more than MAX_DECLARED_SDK_TOOLS tools or the declarations run
 * past MAX_DECLARED_SDK_CHARS.
 */
export function chooseSdkPresentation(toolCount: number, declarationChars: number): SdkPresentation {
  if (toolCount <= MAX_TOOLS_ALWAYS_DECLARED) return 'declarations';
  return toolCount > MAX_DECLARED_SDK_TOOLS || declarationChars > MAX_DECLARED_SDK_CHARS ? 'index' : 'declarations';
}

/** chooseSdkPresentation for a list of tools, rendering the declarations only when their count leaves it open. */
export function sdkPresentationFor(tools: readonly ToolSchema[]): SdkPresentation {
  const count = new Set(tools.map((t) => t.name)).size;
  if (count <= MAX_TOOLS_ALWAYS_DECLARED || count > MAX_DECLARED_SDK_TOOLS) return chooseSdkPresentation(count, 0);
  return chooseSdkPresentation(count, renderTypeScriptSdk(tools).length);
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** `memory` for `memory__read_graph` (split at the first `__`, as the MCP client names tools). */
export function toolGroup(name: string): string {
  const at = name.indexOf('__');
  if (at <= 0 || at + 2 >= name.length) return OTHER_TOOLS_GROUP;
  const server = name.slice(0, at);
  return SERVER_NAME.test(server) ? server : OTHER_TOOLS_GROUP;
}

export function catalogEntry(tool: ToolSchema): CatalogEntry {
  return { name: tool.name, group: toolGroup(tool.name), args: argumentNames(tool.inputSchema), summary: firstSentence(tool.description) };
}

/** The index lines under one heading per group: `other` first, then servers by name. */
export function renderCatalogIndex(tools: readonly ToolSchema[]): string {
  const groups = new Map<string, CatalogEntry[]>();
  const seen = new Set<string>();
  for (const tool of [...tools].sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const entry = catalogEntry(tool);
    const list = groups.get(entry.group) ?? [];
    list.push(entry);
    groups.set(entry.group, list);
  }
  const order = [...groups.keys()].sort((a, b) =>
    a === OTHER_TOOLS_GROUP ? -1 : b === OTHER_TOOLS_GROUP ? 1 : compareCodeUnits(a, b),
  );
  const blocks = order.map((group) => {
    const entries = groups.get(group) ?? [];
    const head = group === OTHER_TOOLS_GROUP ? `### Other tools (${entries.length})` : `### Server ${group} (${entries.length} tools)`;
    return [head, ...entries.map((e) => `- ${indexLine(e)}`)].join('\n');
  });
  return blocks.join('\n\n');
}

/** `name({ a, b? }) — First sentence.`; a name outside `[A-Za-z0-9_.$-]` is quoted. */
export function indexLine(entry: CatalogEntry): string {
  const name = /^[A-Za-z0-9_.$-]+$/.test(entry.name) ? entry.name : quoteString(entry.name);
  return `${name}${signature(entry.args)} — ${entry.summary}`;
}

/** `({ a, b? })`, `()` for no arguments, `(args)` when they are not a plain object. */
export function signature(args: readonly string[] | undefined): string {
  if (args === undefined) return '(args)';
  if (args.length === 0) return '()';
  const shown = args.length > MAX_INDEX_ARGUMENT_NAMES ? [...args.slice(0, MAX_INDEX_ARGUMENT_NAMES), '…'] : args;
  return `({ ${shown.join(', ')} })`;
}

/** Property names of an object schema in their declared order, optional ones marked `?`. */
function argumentNames(schema: unknown): readonly string[] | undefined {
  if (!isRecord(schema)) return undefined;
  for (const keyword of ['$ref', 'anyOf', 'oneOf', 'allOf']) if (getOwn(schema, keyword) !== undefined) return undefined;
  const type = getOwn(schema, 'type');
  const properties = getOwn(schema, 'properties');
  if (type !== 'object' && !(type === undefined && isRecord(properties))) return undefined;
  const required = new Set((arrayOf(getOwn(schema, 'required')) ?? []).filter((r): r is string => typeof r === 'string'));
  return ownKeys(properties).map((key) => `${propertyKey(key)}${required.has(key) ? '' : '?'}`);
}

/** The first sentence of an untrusted description: whitespace collapsed, controls dropped, bounded. */
export function firstSentence(description: unknown): string {
  const text = String(description ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return '(no description)';
  const match = /^(.+?[.!?])(?=\s|$)/.exec(text);
  const sentence = match ? match[1]! : text;
  return sentence.length > MAX_INDEX_SUMMARY_CHARS ? `${sentence.slice(0, MAX_INDEX_SUMMARY_CHARS - 1).trimEnd()}…` : sentence;
}
