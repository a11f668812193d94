// The JSON Schema the model sees for one side of a zod schema. defineTool converts user tools with it
// at definition time; scripts/gen-builtin-schemas.ts converts the built-in tools' contracts with it at
// build time (docs/builtin-tools.md), so a built-in and a user tool with the same zod schema show the
// model the same JSON Schema.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../json.js';

type ZodSchema = z.core.$ZodType;

/**
 * The input side for arguments (a `.default()` field is optional there, the parse fills it in), the
 * output side for values, normalised (see `tidy`). Throws CONFIG, naming `where`, for a schema that
 * JSON Schema cannot express.
 */
export function wireSchema(schema: ZodSchema, side: 'input' | 'output', where: string): JsonSchema {
  let generated: Record<string, unknown>;
  try {
    generated = z.toJSONSchema(schema, { io: side }) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(
      `${where}: the ${side} schema cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)}); ` +
        'the model sees tools as JSON Schema, so use types JSON can carry (no dates, maps, functions or transforms on values).',
    );
  }
  // The registry reads a schema without `$schema` as 2020-12 anyway, and the model has no use for it.
  const { $schema: _dialect, ...rest } = generated;
  return tidy(rest) as JsonSchema;
}

/** Keys in the order a schema node shows them; others follow in zod's order. */
const KEY_ORDER = [
  'type',
  'enum',
  'const',
  'properties',
  'items',
  'prefixItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'additionalProperties',
  'description',
  'default',
];

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'propertyNames', 'contains'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'definitions', 'patternProperties'];

/**
 * What zod writes, made plainer for the model without changing what it accepts beyond what the zod
 * parse still checks: the ±2^53-1 bounds zod gives every `z.int()` go (the parse keeps them); an
 * `anyOf` of bare types (`z.int().nullable()`) becomes one `type` list, as zod already writes for
 * `z.union([z.string(), z.number()])`; keys come in one order (type first, description last) so a
 * schema reads the same whichever way its zod was chained.
 */
function tidy(node: unknown): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (ONE.includes(key)) out[key] = tidy(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map(tidy);
    else if (MAP.includes(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, tidy(sub)]));
    } else out[key] = value;
  }
  if (out['type'] === 'integer') {
    if (out['minimum'] === Number.MIN_SAFE_INTEGER) delete out['minimum'];
    if (out['maximum'] === Number.MAX_SAFE_INTEGER) delete out['maximum'];
  }
  const types = bareTypes(out['anyOf']);
  if (types !== undefined && out['type'] === undefined) {
    delete out['anyOf'];
    out['type'] = types;
  }
  return ordered(out);
}

/** The type names of an `anyOf` whose branches say nothing but a type, else undefined. */
function bareTypes(anyOf: unknown): string[] | undefined {
  if (!Array.isArray(anyOf) || anyOf.length < 2) return undefined;
  const names: string[] = [];
  for (const branch of anyOf) {
    if (typeof branch !== 'object' || branch === null || Object.keys(branch).length !== 1) return undefined;
    const type = (branch as { type?: unknown }).type;
    for (const name of Array.isArray(type) ? type : [type]) {
      if (typeof name !== 'string') return undefined;
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

function ordered(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (Object.hasOwn(node, key)) out[key] = node[key];
  for (const [key, value] of Object.entries(node)) if (!Object.hasOwn(out, key)) out[key] = value;
  return out;
}
