// The TypeScript SDK the model programs against: one global declaration text (a script, not a
// module) giving `tools`, `ToolCallError` and the argument/output types of every tool.

import type { ToolSchema } from '../../../tools/types.js';
import { argsMayBeOmitted, isRecord } from '../../../codegen/schema-access.js';
import { renderSchemaType, type HelperDeclaration } from './json-schema-to-ts.js';
import { allocateName, compareCodeUnits, indentContinuation, jsDoc, quoteString } from '../../../codegen/ts-syntax.js';

/** Names the SDK declares itself; helper names never take these. */
const SDK_GLOBALS = ['JsonValue', 'ToolArgsMap', 'ToolOutputMap', 'ToolCallError', 'tools', 'Promise', 'Error'];

const JSON_VALUE_DECLARATION =
  'type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };';

const TOOL_CALL_ERROR_DECLARATION = [
  '/** A failed tool call rejects with this error; `message` says why. */',
  'declare class ToolCallError extends Error {',
  '  /** The name of the tool whose call failed. */',
  '  readonly toolName: string;',
  '  /** The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL". */',
  '  readonly code: string;',
  '}',
].join('\n');

/**
 * Renders the SDK for `tools`: `JsonValue`, helper types from `$defs`, `ToolArgsMap`,
 * `ToolOutputMap`, `ToolCallError` and `declare const tools`. Tools are sorted by name (code-unit
 * order), so the text is byte-stable and independent of input order. Of two tools with the same
 * name only the first in that order is kept (the registry never passes duplicates).
 */
export function renderTypeScriptSdk(tools: readonly ToolSchema[]): string {
  const sorted = [...tools].sort(compareTools).filter((t, i, all) => i === 0 || all[i - 1]!.name !== t.name);
  const prefixes = new Set<string>();
  const usedNames = new Set<string>(SDK_GLOBALS);
  const helpers: HelperDeclaration[] = [];
  const argsEntries: string[] = [];
  const outputEntries: string[] = [];
  const methods: string[] = [];

  for (const tool of sorted) {
    const key = quoteString(tool.name);
    const prefix = allocateName(prefixFor(tool.name), prefixes);
    const outputPrefix = allocateName(`${prefix}Output`, prefixes);

    const args = renderDocument(tool.inputSchema, `${prefix}Args`, prefix, usedNames);
    helpers.push(...args.helpers);
    argsEntries.push(`  ${key}: ${indentContinuation(args.type, '  ')};`);

    let output = 'JsonValue';
    if (tool.outputSchema !== undefined) {
      const rendered = renderDocument(tool.outputSchema, `${prefix}Output`, outputPrefix, usedNames);
      helpers.push(...rendered.helpers);
      output = rendered.type;
    }
    outputEntries.push(`  ${key}: ${indentContinuation(output, '  ')};`);

    const param = argsMayBeOmitted(tool.inputSchema) ? 'args?' : 'args';
    methods.push(
      `${jsDoc(tool.description, '  ')}  ${key}(${param}: ToolArgsMap[${key}]): Promise<ToolOutputMap[${key}]>;`,
    );
  }

  helpers.sort((a, b) => compareCodeUnits(a.name, b.name));
  const sections = [
    JSON_VALUE_DECLARATION,
    ...helpers.map((h) => h.text),
    block('interface ToolArgsMap', argsEntries),
    block('interface ToolOutputMap', outputEntries),
    TOOL_CALL_ERROR_DECLARATION,
    `${block('declare const tools:', methods)};`,
  ];
  return `${sections.join('\n\n')}\n`;
}

/**
 * One schema's type plus its helpers, named `<prefix>_<definition>`. A schema that refers to its
 * own root ("#") gets a named alias `rootName`: an interface member cannot refer to itself through
 * an array, an alias can. Other roots stay inline, which reads better.
 */
function renderDocument(
  schema: unknown,
  rootName: string,
  prefix: string,
  usedNames: Set<string>,
): { type: string; helpers: readonly HelperDeclaration[] } {
  const name = allocateName(rootName, usedNames);
  const nameHelper = (definitionKey: string) => {
    const part = definitionKey.replace(/[^A-Za-z0-9_]/g, '_').replace(/^_+/, '');
    return allocateName(`${prefix}_${part || 'Def'}`, usedNames);
  };
  const rendered = renderSchemaType(schema, { rootRef: name, nameHelper });
  if (!rendered.rootReferenced) return rendered;
  const text = `${jsDoc(rendered.description, '')}type ${name} = ${rendered.type};`;
  return { type: name, helpers: [...rendered.helpers, { name, text }] };
}

function block(head: string, lines: readonly string[]): string {
  return lines.length === 0 ? `${head} {}` : `${head} {\n${lines.join('\n')}\n}`;
}

/** `read_file` → `ReadFile`: readable, identifier-safe; uniqueness comes from allocateName. */
function prefixFor(name: string): string {
  const pascal = name
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return pascal === '' ? 'Tool' : /^[0-9]/.test(pascal) ? `Tool${pascal}` : pascal;
}


function compareTools(a: ToolSchema, b: ToolSchema): number {
  return (
    compareCodeUnits(a.name, b.name) ||
    compareCodeUnits(String(a.description), String(b.description)) ||
    compareCodeUnits(stableJson(a.inputSchema), stableJson(b.inputSchema)) ||
    compareCodeUnits(stableJson(a.outputSchema), stableJson(b.outputSchema))
  );
}

/** JSON with sorted keys, only to order duplicate names deterministically; '' when not JSON. */
function stableJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) =>
        isRecord(v) ? Object.fromEntries(Object.keys(v).sort(compareCodeUnits).map((k) => [k, v[k]])) : v,
      ) ?? ''
    );
  } catch {
    return '';
  }
}
