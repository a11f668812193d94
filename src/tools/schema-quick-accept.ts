// An accept-only check in front of ajv for the vetted schemas (schema-validator.ts, deferSchema): a
// value it accepts is one ajv accepts too, so the common case, valid arguments, needs no ajv at all
// (loading ajv and compiling is most of a trivial `ptc exec`'s tool work; docs/benchmarks.md,
// "CLI start-up"). Anything it cannot vouch for is handed to ajv, which decides and words the
// problems: it answers only "valid" or "ask ajv", never "invalid".
//
// It knows a small set of keywords, with the meaning ajv gives them under the options
// schema-validator.ts uses (ownProperties, no formats): a schema with any other keyword, a `$ref`,
// a tuple `items`, a `pattern` or an `enum` of non-primitive values gets no quick check. Where the
// meaning is subtle it is stricter than ajv (only finite numbers are numbers), which only sends a
// value to ajv.

import { isRecord as isObject } from '../codegen/schema-access.js';
import { isJsonValue, type JsonSchema } from '../json.js';

/** true: the schema accepts the value; false: ask ajv. */
export type QuickAccept = (value: unknown) => boolean;

const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

/** The quick check of `schema`, or undefined when it uses anything this file does not know. */
export function quickAcceptOf(schema: JsonSchema): QuickAccept | undefined {
  const { $schema: _dialect, ...rest } = typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? schema : { $schema: undefined };
  const check = typeof schema === 'boolean' ? compile(schema) : compile(rest);
  // Only plain JSON data is vouched for (what the tool pipeline's snapshot hands over): no
  // undefined, class instances, non-finite numbers or cycles, each of which goes to ajv.
  return check === undefined ? undefined : (value) => isJsonValue(value) && check(value);
}

function compile(schema: unknown): QuickAccept | undefined {
  if (schema === true) return () => true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const checks: QuickAccept[] = [];
  const s = schema as Record<string, unknown>;
  for (const [keyword, arg] of Object.entries(s)) {
    if (ANNOTATIONS.has(keyword)) continue;
    const check = keywordCheck(keyword, arg, s);
    if (check === undefined) return undefined;
    checks.push(check);
  }
  return (value) => checks.every((check) => check(value));
}

function keywordCheck(keyword: string, arg: unknown, schema: Record<string, unknown>): QuickAccept | undefined {
  switch (keyword) {
    case 'type': {
      const types = typeof arg === 'string' ? [arg] : Array.isArray(arg) && arg.length > 0 ? arg : undefined;
      if (types === undefined || !types.every((t) => typeof t === 'string' && TYPES.has(t))) return undefined;
      return (value) => types.some((t) => isType(value, t as string));
    }
    case 'enum': {
      if (!Array.isArray(arg) || !arg.every((v) => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))) return undefined;
      return (value) => arg.includes(value);
    }
    case 'minLength':
    case 'maxLength': {
      if (!isCount(arg)) return undefined;
      const min = keyword === 'minLength';
      return (value) => typeof value !== 'string' || (min ? codePoints(value) >= arg : codePoints(value) <= arg);
    }
    case 'minimum':
    case 'maximum': {
      if (typeof arg !== 'number' || !Number.isFinite(arg)) return undefined;
      const min = keyword === 'minimum';
      return (value) => typeof value !== 'number' || (Number.isFinite(value) && (min ? value >= arg : value <= arg));
    }
    case 'minItems':
    case 'maxItems': {
      if (!isCount(arg)) return undefined;
      const min = keyword === 'minItems';
      return (value) => !Array.isArray(value) || (min ? value.length >= arg : value.length <= arg);
    }
    case 'items': {
      const item = compile(arg);
      if (item === undefined) return undefined;
      return (value) => !Array.isArray(value) || value.every((v) => v !== undefined && item(v));
    }
    case 'required': {
      if (!Array.isArray(arg) || !arg.every((k) => typeof k === 'string')) return undefined;
      return (value) => !isObject(value) || arg.every((k: string) => Object.hasOwn(value, k) && value[k] !== undefined);
    }
    case 'properties': {
      if (!isObject(arg)) return undefined;
      const props = new Map<string, QuickAccept>();
      for (const [name, sub] of Object.entries(arg)) {
        const check = compile(sub);
        if (check === undefined) return undefined;
        props.set(name, check);
      }
      return (value) => {
        if (!isObject(value)) return true;
        for (const [name, check] of props) {
          if (!Object.hasOwn(value, name)) continue;
          const v = value[name];
          if (v === undefined || !check(v)) return false;
        }
        return true;
      };
    }
    case 'additionalProperties': {
      const declared = schema['properties'];
      if (declared !== undefined && !isObject(declared)) return undefined;
      const known = new Set(Object.keys(declared ?? {}));
      const extra = arg === false ? () => false : compile(arg);
      if (extra === undefined) return undefined;
      return (value) => !isObject(value) || Object.keys(value).every((k) => known.has(k) || (value[k] !== undefined && extra(value[k])));
    }
    default:
      return undefined;
  }
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    default:
      return Array.isArray(value);
  }
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Length as ajv counts it for minLength/maxLength: in code points, a surrogate pair as one. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
