// Defensive reads of schema data. Schemas come from tool authors and MCP servers, so a read must
// never throw (proxies, getters) and must never see inherited members such as `__proto__`.

import { MAX_SCHEMA_ARRAY_ITEMS } from '../limits.js';

// Arrays longer than MAX_SCHEMA_ARRAY_ITEMS are treated as garbage rather than copied (a sparse `length: 1e9`).
export { MAX_SCHEMA_ARRAY_ITEMS };

/** A non-null, non-array object: the only shape a schema (other than `true`/`false`) can take. */
export function isRecord(value: unknown): value is { readonly [key: string]: unknown } {
  try {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function hasOwn(value: unknown, key: string): boolean {
  if (!isRecord(value)) return false;
  try {
    return Object.prototype.hasOwnProperty.call(value, key);
  } catch {
    return false;
  }
}

/** The own property `key` of `value`, or undefined when absent or unreadable. */
export function getOwn(value: unknown, key: string): unknown {
  if (!hasOwn(value, key)) return undefined;
  try {
    return (value as { readonly [key: string]: unknown })[key];
  } catch {
    return undefined;
  }
}

/** Own enumerable string keys in the object's own order, or none when unreadable. */
export function ownKeys(value: unknown): readonly string[] {
  if (!isRecord(value)) return [];
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}

/** A copy of `value` when it is a reasonably sized array, else undefined. */
export function arrayOf(value: unknown): readonly unknown[] | undefined {
  try {
    if (!Array.isArray(value) || value.length > MAX_SCHEMA_ARRAY_ITEMS) return undefined;
    return Array.from(value as readonly unknown[]);
  } catch {
    return undefined;
  }
}

/**
 * True when a tool's arguments are a plain object schema with nothing required, so an SDK may let
 * the call omit them (the dispatcher treats missing arguments as `{}`).
 */
export function argsMayBeOmitted(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  for (const keyword of ['$ref', 'anyOf', 'oneOf', 'allOf', 'const', 'enum']) if (hasOwn(schema, keyword)) return false;
  const type = getOwn(schema, 'type');
  const isObject = type === 'object' || (type === undefined && hasOwn(schema, 'properties'));
  return isObject && (arrayOf(getOwn(schema, 'required')) ?? []).length === 0;
}
