import { describe, expect, it } from 'vitest';

import { fitLine, lineBytes } from './fit-line.js';

describe('fitLine', () => {
  it('returns a line within the limit untouched', () => {
    const record = { type: 'user/message', ts: 't', text: 'hello' };
    const fitted = fitLine(record, 1024);
    expect(fitted).toEqual({ line: JSON.stringify(record), record, bytes: lineBytes(JSON.stringify(record)), truncated: false });
    expect(fitted.record).toBe(record);
  });

  it('never cuts type or ts, and lists at most 100 cut fields', () => {
    const args = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
    const fitted = fitLine({ type: 'x'.repeat(300), ts: 't'.repeat(300), args }, 64 * 1024);
    expect(fitted.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(fitted.bytes).toBe(lineBytes(fitted.line));
    expect(JSON.parse(fitted.line)).toEqual(fitted.record);
    expect(fitted.record['type']).toBe('x'.repeat(300));
    expect(fitted.record['ts']).toBe('t'.repeat(300));
    const note = fitted.record['truncated'] as { fields: string[]; omitted?: string[] };
    expect(note.fields).toHaveLength(100);
    expect(note.fields[0]).toBe('/args/k0');
    expect(note.omitted).toBeUndefined();
  });

  it('escapes JSON pointer keys and does not list cut fields inside an omitted one', () => {
    const fitted = fitLine(
      { type: 't', ts: 't', 'a/b~c': 'z'.repeat(3000), args: { list: Array.from({ length: 2000 }, () => 1), text: 'q'.repeat(2000) } },
      2048,
    );
    expect(fitted.bytes).toBeLessThanOrEqual(2048);
    const note = fitted.record['truncated'] as { fields: string[]; omitted?: string[] };
    expect(note.omitted).toEqual(['/args']);
    expect(note.fields).toEqual(['/a~1b~0c']);
    expect(fitted.record['args']).toEqual({});
  });
});
