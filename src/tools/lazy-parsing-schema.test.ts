import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazyParsingSchema } from './lazy-parsing-schema.js';
import { parseNow, parseWith } from './parsing-schema.js';

describe('lazyParsingSchema', () => {
  it('loads the schema at the first parse, once, and parses synchronously after that', async () => {
    let loads = 0;
    const lazy = lazyParsingSchema(async () => {
      loads++;
      return z.strictObject({ n: z.int() });
    });
    expect(loads).toBe(0);
    // Before the load a synchronous parse cannot answer.
    expect(parseNow(lazy, { n: 1 })).toBeUndefined();
    await expect(parseWith(lazy, { n: 1 })).resolves.toEqual({ ok: true, value: { n: 1 } });
    await expect(parseWith(lazy, { n: 'x' })).resolves.toMatchObject({ ok: false, problems: [expect.stringContaining('/n')] });
    expect(parseNow(lazy, { n: 2 })).toEqual({ ok: true, value: { n: 2 } });
    expect(loads).toBe(1);
  });

  it('tries the load again after one failed', async () => {
    let attempt = 0;
    const lazy = lazyParsingSchema(async () => {
      attempt++;
      if (attempt === 1) throw new Error('module not found');
      return z.string();
    });
    await expect(parseWith(lazy, 'a')).rejects.toThrow('module not found');
    await expect(parseWith(lazy, 'a')).resolves.toEqual({ ok: true, value: 'a' });
    expect(attempt).toBe(2);
  });
});
