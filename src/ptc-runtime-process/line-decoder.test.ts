import { describe, expect, it } from 'vitest';
import { LineDecoder } from './line-decoder.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('LineDecoder', () => {
  it('joins a line split across chunks and splits chunks holding several lines', () => {
    const decoder = new LineDecoder(100);
    expect(decoder.push(bytes('{"a":'))).toEqual({ ok: true, lines: [] });
    expect(decoder.push(bytes('1}\n{"b":2}\n{"c"'))).toEqual({ ok: true, lines: ['{"a":1}', '{"b":2}'] });
    expect(decoder.pendingBytes).toBe(4);
    expect(decoder.push(bytes(':3}\n'))).toEqual({ ok: true, lines: ['{"c":3}'] });
    expect(decoder.pendingBytes).toBe(0);
  });

  it('splits on LF only: a CR stays in the line', () => {
    const decoder = new LineDecoder(100);
    expect(decoder.push(bytes('a\r\nb\rc\n'))).toEqual({ ok: true, lines: ['a\r', 'b\rc'] });
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const decoder = new LineDecoder(100);
    const euro = bytes('€\n');
    expect(decoder.push(euro.subarray(0, 1))).toEqual({ ok: true, lines: [] });
    expect(decoder.push(euro.subarray(1, 2))).toEqual({ ok: true, lines: [] });
    expect(decoder.push(euro.subarray(2))).toEqual({ ok: true, lines: ['€'] });
  });

  it('yields empty lines as empty strings', () => {
    expect(new LineDecoder(10).push(bytes('\n\n'))).toEqual({ ok: true, lines: ['', ''] });
  });

  it('fails on an oversize partial line before its LF arrives, and stays failed', () => {
    const decoder = new LineDecoder(8);
    expect(decoder.push(bytes('ok\n12345'))).toEqual({ ok: true, lines: ['ok'] });
    const result = decoder.push(bytes('6789'));
    expect(result.ok).toBe(false);
    expect(result.lines).toEqual([]);
    expect(decoder.push(bytes('\n{}\n')).ok).toBe(false);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    expect(new LineDecoder(4).push(bytes('abcd\n'))).toEqual({ ok: true, lines: ['abcd'] });
    const over = new LineDecoder(4).push(bytes('x\nabcde\n'));
    expect(over).toMatchObject({ ok: false, lines: ['x'] });
  });

  it('with reused chunks, keeps an unfinished line when the caller overwrites the chunk it came in', () => {
    const decoder = new LineDecoder(100, { reusedChunks: true });
    const buffer = Buffer.alloc(16);
    const read = (text: string) => decoder.push(buffer.subarray(0, buffer.write(text)));
    expect(read('{"a":1}\n{"b"')).toEqual({ ok: true, lines: ['{"a":1}'] });
    expect(read('XXXXXXXX')).toEqual({ ok: true, lines: [] });
    expect(read(':2}\n')).toEqual({ ok: true, lines: ['{"b"XXXXXXXX:2}'] });
  });
});
