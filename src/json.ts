// JSON values as they cross every boundary of the harness: tool results, control frames, logs.

import { MAX_JSON_DEPTH } from './limits.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema (2020-12 subset) as plain data. `true`/`false` are valid schemas too. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

export type JsonCheck = { ok: true } | { ok: false; path: string; reason: string };

/**
 * Checks that `value` survives JSON.stringify/parse unchanged: no undefined inside objects or arrays,
 * no non-finite numbers, no cycles, no functions, symbols or bigints, only plain objects and arrays,
 * nested at most `maxDepth` containers deep. The recursion is bounded by `maxDepth`, so a hostile
 * value fails with a reason instead of overflowing the stack (docs/control-channel.md). A getter that
 * throws propagates: callers handing in values they do not trust catch it.
 */
export function checkJson(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonCheck {
  // Most values (a tool's flat result) are accepted at first sight, without the walk's path strings
  // and cycle set; anything this declines is walked whole, which finds the reason.
  if (isFlatJson(value, maxDepth)) return { ok: true };
  const seen = new Set<object>();
  const visit = (v: unknown, path: string, depth: number): JsonCheck => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return { ok: true };
    if (typeof v === 'number') {
      return Number.isFinite(v) ? { ok: true } : { ok: false, path, reason: `non-finite number ${String(v)}` };
    }
    if (typeof v !== 'object') return { ok: false, path, reason: `${typeof v} is not JSON` };
    if (seen.has(v)) return { ok: false, path, reason: 'cyclic reference' };
    if (depth >= maxDepth) return { ok: false, path, reason: `value nested deeper than ${maxDepth} levels` };
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const r = visit(v[i], `${path}/${i}`, depth + 1);
          if (!r.ok) return r;
        }
        return { ok: true };
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        return { ok: false, path, reason: `${describeObject(v)} is not a plain object` };
      }
      for (const key of Object.keys(v)) {
        const r = visit((v as Record<string, unknown>)[key], `${path}/${escapePointer(key)}`, depth + 1);
        if (!r.ok) return r;
      }
      return { ok: true };
    } finally {
      seen.delete(v);
    }
  };
  return visit(value, '', 0);
}

/**
 * Whether checkJson's walk would accept `value` at its first level: a JSON primitive, or a plain
 * object or array (within `maxDepth`) whose values are all JSON primitives, read as the walk reads them.
 */
function isFlatJson(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return isJsonPrimitive(value);
  if (maxDepth < 1) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isJsonPrimitive(value[index])) return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    if (!isJsonPrimitive((value as Record<string, unknown>)[keys[index] as string])) return false;
  }
  return true;
}

function isJsonPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects more than `maxDepth` deep, found without parsing: one
 * pass that skips string literals (escapes included) and counts brackets. Cheap enough to run on every
 * control frame before JSON.parse, so nothing deeper ever becomes a value the host recurses over
 * (docs/control-channel.md). Malformed text is not judged here; JSON.parse rejects it after.
 */
export function jsonTextTooDeep(text: string, maxDepth: number): boolean {
  // Each level needs one opening character: shorter text cannot exceed the limit.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: one that is preceded by an even number of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false;
      i = end;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

export function isJsonValue(value: unknown): value is JsonValue {
  return checkJson(value).ok;
}

/** Renders a canonical value as model-visible text: strings raw, anything else as pretty JSON. */
export function renderJson(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeObject(v: object): string {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name ? `an instance of ${name}` : 'an exotic object';
}
