// JSON values as they cross every boundary of the harness: tool results, control frames, logs.

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema (2020-12 subset) as plain data. `true`/`false` are valid schemas too. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

export type JsonCheck = { ok: true } | { ok: false; path: string; reason: string };

/**
 * Checks that `value` survives JSON.stringify/parse unchanged: no undefined inside objects or arrays,
 * no non-finite numbers, no cycles, no functions, symbols or bigints, only plain objects and arrays.
 */
export function checkJson(value: unknown): JsonCheck {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string): JsonCheck => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return { ok: true };
    if (typeof v === 'number') {
      return Number.isFinite(v) ? { ok: true } : { ok: false, path, reason: `non-finite number ${String(v)}` };
    }
    if (typeof v !== 'object') return { ok: false, path, reason: `${typeof v} is not JSON` };
    if (seen.has(v)) return { ok: false, path, reason: 'cyclic reference' };
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const r = visit(v[i], `${path}/${i}`);
          if (!r.ok) return r;
        }
        return { ok: true };
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        return { ok: false, path, reason: `${describeObject(v)} is not a plain object` };
      }
      for (const key of Object.keys(v)) {
        const r = visit((v as Record<string, unknown>)[key], `${path}/${escapePointer(key)}`);
        if (!r.ok) return r;
      }
      return { ok: true };
    } finally {
      seen.delete(v);
    }
  };
  return visit(value, '');
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
