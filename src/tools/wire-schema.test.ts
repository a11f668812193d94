import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { wireSchema } from './wire-schema.js';

describe('wireSchema', () => {
  it('drops the safe-integer bounds zod gives every z.int(), keeps the ones written', () => {
    const schema = wireSchema(z.strictObject({ a: z.int(), b: z.int().min(1), c: z.int().max(5) }), 'input', 't');
    expect(schema).toStrictEqual({
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer', minimum: 1 }, c: { type: 'integer', maximum: 5 } },
      required: ['a', 'b', 'c'],
      additionalProperties: false,
    });
  });

  it('writes a nullable of a bare type as one type list, and leaves richer unions alone', () => {
    const schema = wireSchema(z.object({ n: z.int().nullable(), s: z.string().min(1).nullable() }), 'output', 't') as {
      properties: Record<string, unknown>;
    };
    expect(schema.properties['n']).toStrictEqual({ type: ['integer', 'null'] });
    expect(schema.properties['s']).toStrictEqual({ anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] });
  });

  it('orders keys the same whichever way the zod was chained: type first, description last', () => {
    const a = wireSchema(z.int().min(1).optional().describe('d'), 'input', 't');
    const b = wireSchema(z.int().describe('d').min(1).optional(), 'input', 't');
    expect(JSON.stringify(a)).toBe('{"type":"integer","minimum":1,"description":"d"}');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // Property order is the object's, not sorted.
    expect(Object.keys((wireSchema(z.object({ z: z.string(), a: z.string() }), 'input', 't') as { properties: object }).properties)).toEqual(['z', 'a']);
  });

  it('has no $schema and refuses what JSON cannot carry with CONFIG naming the tool', () => {
    expect(wireSchema(z.string(), 'input', 't')).toStrictEqual({ type: 'string' });
    expect(() => wireSchema(z.date(), 'input', 'tool "when"')).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(/tool "when".*cannot be expressed as JSON Schema.*types JSON can carry/s) }),
    );
  });
});
