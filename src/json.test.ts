import { describe, expect, it } from 'vitest';
import { checkJson, jsonTextTooDeep } from './json.js';
import { MAX_JSON_DEPTH } from './limits.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe('checkJson', () => {
  it('accepts plain JSON values', () => {
    expect(checkJson({ a: [1, 'x', null, true, { b: {} }] })).toEqual({ ok: true });
    expect(checkJson(Object.assign(Object.create(null) as object, { a: 1 }))).toEqual({ ok: true });
  });

  it.each([
    [{ a: undefined }, '/a', /undefined is not JSON/],
    [{ a: [1, NaN] }, '/a/1', /non-finite/],
    [{ 'x/y': { '~': () => 1 } }, '/x~1y/~0', /function is not JSON/],
    [new Date(0), '', /instance of Date is not a plain object/],
    // Flat values, which the first-sight check declines and the walk explains.
    [{ a: NaN }, '/a', /non-finite/],
    [[1, Infinity], '/1', /non-finite/],
    [{ a: 1n }, '/a', /bigint is not JSON/],
    [new Map(), '', /instance of Map is not a plain object/],
    [Infinity, '', /non-finite/],
  ])('refuses %o at %s', (value, path, reason) => {
    const check = checkJson(value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.path).toBe(path);
      expect(check.reason).toMatch(reason);
    }
  });

  it('refuses a flat object or array when no container level is allowed', () => {
    expect(checkJson({ a: 1 }, 0)).toEqual({ ok: false, path: '', reason: 'value nested deeper than 0 levels' });
    expect(checkJson([1], 0)).toEqual({ ok: false, path: '', reason: 'value nested deeper than 0 levels' });
    expect(checkJson('x', 0)).toEqual({ ok: true });
    expect(checkJson({ a: 1 }, 1)).toEqual({ ok: true });
  });

  it('refuses a cycle', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    expect(checkJson(a)).toEqual({ ok: false, path: '/self', reason: 'cyclic reference' });
  });

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses one more, with the path where the limit was hit`, () => {
    expect(checkJson(nested(MAX_JSON_DEPTH))).toEqual({ ok: true });
    const check = checkJson(nested(MAX_JSON_DEPTH + 1));
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.reason).toBe(`value nested deeper than ${MAX_JSON_DEPTH} levels`);
      expect(check.path.split('/')).toHaveLength(MAX_JSON_DEPTH + 1);
    }
  });

  it('does not overflow the stack on a value nested 100,000 deep', () => {
    expect(checkJson(nested(100_000)).ok).toBe(false);
  });
});

describe('jsonTextTooDeep', () => {
  it('counts brackets outside strings only', () => {
    expect(jsonTextTooDeep('[[[]]]', 3)).toBe(false);
    expect(jsonTextTooDeep('[[[[]]]]', 3)).toBe(true);
    expect(jsonTextTooDeep('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[[1]]}}', 3)).toBe(true);
    expect(jsonTextTooDeep(`["${'['.repeat(100)}"]`, 3)).toBe(false);
  });

  it('follows escapes inside strings', () => {
    // The string is [\"[[[[ ... : the escaped quote does not end it, so the brackets stay inside.
    expect(jsonTextTooDeep(`["\\"${'['.repeat(50)}"]`, 3)).toBe(false);
    // An escaped backslash before the quote does end it: the brackets after it count.
    expect(jsonTextTooDeep(`["\\\\",${'['.repeat(50)}${']'.repeat(50)}]`, 3)).toBe(true);
  });

  it('agrees with JSON.parse on the depth of generated values', () => {
    for (let depth = 0; depth < 12; depth++) {
      const text = JSON.stringify({ s: '[{"\\', v: nested(depth) });
      // The frame object is one level, the nested value adds `depth`.
      expect(jsonTextTooDeep(text, depth + 1)).toBe(false);
      expect(jsonTextTooDeep(text, depth)).toBe(true);
    }
  });
});
