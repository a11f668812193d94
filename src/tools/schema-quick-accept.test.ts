// The accept-only check in front of ajv: never "valid" where ajv says invalid (checked against ajv
// itself over the built-in schemas and values made to sit on each keyword's edge), and "valid" for
// the ordinary arguments it exists for.

import { describe, expect, it } from 'vitest';
import { BUILTIN_SCHEMAS } from '../builtin-tools/contracts/schemas.generated.js';
import type { JsonSchema } from '../json.js';
import { quickAcceptOf } from './schema-quick-accept.js';
import { compileSchema } from './schema-validator.js';

/** A deterministic pseudo-random source, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** A value shaped by `schema`, with a chance at each step of being just off it. */
function sample(schema: unknown, next: () => number, oddness: number, depth = 0): unknown {
  const odd = () => next() < oddness;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const junk = () => pick<unknown>([null, 0, -1, 1.5, 2 ** 60, '', 'é😀', true, [], {}, ['x'], { a: 1 }]);
  if (typeof schema !== 'object' || schema === null || depth > 4) return junk();
  const s = schema as Record<string, unknown>;
  if (odd()) return junk();
  if (Array.isArray(s['enum'])) return odd() ? `${String(pick(s['enum']))}x` : pick(s['enum']);
  const type = Array.isArray(s['type']) ? pick(s['type']) : s['type'];
  switch (type) {
    case 'string': {
      const min = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
      const max = typeof s['maxLength'] === 'number' ? s['maxLength'] : min + 5;
      const length = pick([min, Math.max(0, min - 1), max, max + 1, 3]);
      return pick(['a', '😀', 'é']).repeat(length);
    }
    case 'integer':
    case 'number': {
      const min = typeof s['minimum'] === 'number' ? s['minimum'] : -10;
      const max = typeof s['maximum'] === 'number' ? s['maximum'] : 10;
      return pick([min, min - 1, max, max + 1, (min + max) / 2, Math.round((min + max) / 2), 0.5]);
    }
    case 'boolean':
      return next() < 0.5;
    case 'array': {
      const n = pick([0, 1, 2, 5, typeof s['maxItems'] === 'number' ? s['maxItems'] + 1 : 3, typeof s['minItems'] === 'number' ? s['minItems'] : 1]);
      return Array.from({ length: n }, () => sample(s['items'], next, oddness, depth + 1));
    }
    default: {
      const props = (s['properties'] ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(props)) {
        if (required.has(name) ? !odd() : next() < 0.5) out[name] = sample(sub, next, oddness, depth + 1);
      }
      if (odd()) out['extra'] = 1;
      return out;
    }
  }
}

const schemas: [string, JsonSchema][] = Object.entries(BUILTIN_SCHEMAS).flatMap(([name, s]) => [
  [`${name} input`, s.input as JsonSchema],
  [`${name} output`, s.output as JsonSchema],
]);

describe('quickAcceptOf', () => {
  it.each(schemas)('%s: every value it accepts, ajv accepts', (name, schema) => {
    const quick = quickAcceptOf(schema);
    const ajv = compileSchema(schema, name);
    const next = random(name.length * 7919);
    let accepted = 0;
    for (let i = 0; i < 400; i++) {
      // Half the values stay close to the schema, half stray often.
      const value = sample(schema, next, i % 2 === 0 ? 0.01 : 0.15);
      if (quick?.(value)) {
        accepted++;
        expect(ajv(value), JSON.stringify(value)).toEqual([]);
      }
    }
    // The check is not vacuous where it applies.
    if (quick !== undefined) expect(accepted).toBeGreaterThan(0);
  });

  it("accepts ordinary run_code arguments and output, so no ajv is needed for them", () => {
    const input = quickAcceptOf(BUILTIN_SCHEMAS['run-code'].input as JsonSchema)!;
    const output = quickAcceptOf(BUILTIN_SCHEMAS['run-code'].output as JsonSchema)!;
    expect(input({ code: 'return 1', description: 'exec' })).toBe(true);
    expect(input({ code: 'return 1', description: 'exec', timeoutMs: 5000 })).toBe(true);
    expect(output({ logs: ['a'], result: { any: [1] } })).toBe(true);
  });

  it('never says valid for what the schema rejects, nor for what is not plain JSON', () => {
    const input = quickAcceptOf(BUILTIN_SCHEMAS['run-code'].input as JsonSchema)!;
    for (const bad of [{ code: 'x' }, { code: 1, description: 'd' }, { code: 'x', description: 'd', more: 1 }, { code: 'x', description: 'd', timeoutMs: 1.5 }, { code: 'x', description: 'd', timeoutMs: 10 ** 9 }, { code: 'x', description: 'd', timeoutMs: Infinity }, [], null, { code: 'x', description: 'd', timeoutMs: undefined }]) {
      expect(input(bad), JSON.stringify(bad)).toBe(false);
    }
    class Args {
      code = 'x';
      description = 'd';
    }
    expect(input(new Args())).toBe(false);
  });

  it('offers no check for a schema with a keyword it does not know, a $ref, a tuple or a pattern', () => {
    for (const schema of [{ type: 'string', pattern: 'a' }, { $ref: '#/$defs/x' }, { items: [{ type: 'string' }] }, { type: 'object', patternProperties: { a: {} } }, { anyOf: [{ type: 'string' }] }, { enum: [{ a: 1 }] }, { type: 'strng' }, false]) {
      expect(quickAcceptOf(schema as JsonSchema), JSON.stringify(schema)).toBeUndefined();
    }
  });

  it('counts string length in code points, as ajv does', () => {
    const quick = quickAcceptOf({ type: 'string', maxLength: 2 })!;
    expect(quick('😀😀')).toBe(true);
    expect(quick('😀😀😀')).toBe(false);
    expect(compileSchema({ type: 'string', maxLength: 2 }, 't')('😀😀')).toEqual([]);
  });
});
