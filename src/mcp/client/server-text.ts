// What an MCP server says about its tools, made safe to put in a prompt (docs/mcp.md, "Trust"): a
// tool name must have the spec's tool-name form, and every description or title is one bounded line
// with no markdown structure, so a server can word its tools but cannot add a line, a heading or a
// code fence of its own to the system prompt, the SDK or a native tool list.

import type { JsonSchema } from '../../json.js';
import { MCP_MAX_TOOL_DESCRIPTION_CHARS, MCP_MAX_TOOL_NAME_CHARS, MCP_MAX_SHOWN_NAME_CHARS } from './limits.js';

/**
 * The tool-name form of the MCP specification (letters, digits, `_`, `-`, `.`). A name outside it is
 * not registered: mapping it to another name could collide with a real tool, and the model would
 * call a name the server never listed.
 */
const TOOL_NAME = /^[A-Za-z0-9._-]+$/;

/** Why `name` cannot be a tool name, or undefined when it can. */
export function toolNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > MCP_MAX_TOOL_NAME_CHARS) return `the name is longer than ${MCP_MAX_TOOL_NAME_CHARS} characters`;
  if (!TOOL_NAME.test(name)) return 'the name has characters other than letters, digits, _, - and .';
  return undefined;
}

/** A name as a message may quote it: escaped (no control character reaches a terminal) and short. */
export function quoteName(name: string): string {
  const shown = name.length > MCP_MAX_SHOWN_NAME_CHARS ? `${name.slice(0, MCP_MAX_SHOWN_NAME_CHARS)}…` : name;
  return JSON.stringify(shown);
}

// Every line break Unicode knows, tabs, and the characters that move or hide text: C0 and C1
// controls, DEL, and format characters (bidi overrides, zero-width joiners and spaces).
const BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;
// Three or more backticks or tildes open or close a code fence.
const FENCE_RUNS = /`{3,}|~{3,}/g;
// What makes a line a heading, a quote or a list item when it starts one.
const LEADING_BLOCK_MARKERS = /^(?:[#>*+=|-]+\s*)+/;

/**
 * One line of text from a server: breaks and controls become spaces, fence runs a single character,
 * leading block markers go, whitespace collapses, and the result is cut at `maxChars`.
 */
export function promptLine(text: string, maxChars: number = MCP_MAX_TOOL_DESCRIPTION_CHARS): string {
  const line = text
    .replace(BREAKS_AND_CONTROLS, ' ')
    .replace(FENCE_RUNS, (run) => run.charAt(0))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(LEADING_BLOCK_MARKERS, '');
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars).trimEnd()} … [description cut: ${line.length} characters]`;
}

/** Keywords whose values are data, not schemas: their strings are left exactly as the server wrote them. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names (any string, "description" too) to schemas. */
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const TEXT_KEYWORDS = new Set(['description', 'title']);

type Position = 'schema' | 'map' | 'data';

/**
 * A copy of a server's JSON Schema whose `description` and `title` annotations are prompt lines (the
 * SDK renders them as comments). Validation keywords are untouched, so the schema accepts the same
 * values. Walked with a stack, not recursion: a deep schema cannot overflow it.
 */
export function promptSafeSchema(schema: JsonSchema): JsonSchema {
  const root: { value: unknown } = { value: undefined };
  const stack: { source: unknown; assign: (value: unknown) => void; at: Position }[] = [
    { source: schema, assign: (value) => void (root.value = value), at: 'schema' },
  ];
  while (stack.length > 0) {
    const { source, assign, at } = stack.pop()!;
    if (typeof source !== 'object' || source === null) {
      assign(source);
      continue;
    }
    if (Array.isArray(source)) {
      const out: unknown[] = new Array<unknown>(source.length);
      assign(out);
      source.forEach((item, i) => stack.push({ source: item, assign: (value) => void (out[i] = value), at: at === 'map' ? 'schema' : at }));
      continue;
    }
    const out: Record<string, unknown> = {};
    assign(out);
    for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
      // defineProperty: an own "__proto__" key stays an own key.
      const put = (v: unknown) => void Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      if (at === 'schema' && TEXT_KEYWORDS.has(key) && typeof value === 'string') put(promptLine(value));
      else stack.push({ source: value, assign: put, at: childPosition(at, key) });
    }
  }
  return root.value as JsonSchema;
}

function childPosition(at: Position, key: string): Position {
  if (at === 'data') return 'data';
  if (at === 'map') return 'schema';
  if (DATA_KEYWORDS.has(key)) return 'data';
  return MAP_KEYWORDS.has(key) ? 'map' : 'schema';
}
