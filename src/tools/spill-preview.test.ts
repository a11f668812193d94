import { describe, expect, it } from 'vitest';
import { spillPreview, spillToolResult } from './spill-preview.js';
import type { SpillRef, SpillStore } from './spill.js';

const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const ref: SpillRef = { path: '/s/x.txt', bytes: Buffer.byteLength(text), totalBytes: Buffer.byteLength(text) };

describe('spillPreview', () => {
  it('shows whole first and last lines, the size, the file, and the offset of the next unseen line', () => {
    const preview = spillPreview(text, ref, { maxTotalBytes: 1, usedBytes: 0, dir: '/s' }, { headChars: 40, tailChars: 20 });
    const [head, note, tail] = [preview.split('\n[')[0]!, preview.match(/\[Output spilled[^\]]*\]/)![0], preview.split(']\n').pop()!];
    // 7 characters a line (with its newline): 5 fit in 40, 2 in 20.
    expect(head).toBe('line 1\nline 2\nline 3\nline 4\nline 5');
    expect(tail).toBe('line 99\nline 100');
    expect(note).toContain(`${ref.bytes} bytes in 100 lines`);
    expect(note).toContain('/s/x.txt');
    expect(note).toContain('lines 1-5 above and lines 99-100 below');
    expect(note).toContain('"offset":6');
  });

  it('shows the start of a single line longer than the budget, and says when the budget is used up', () => {
    const long = 'z'.repeat(1000);
    expect(spillPreview(long, { ...ref, bytes: 1000, totalBytes: 1000 }, { maxTotalBytes: 1, usedBytes: 0, dir: '/s' }, { headChars: 50 })).toMatch(/^z{50} \[… line 1 continues\]\n\[Output spilled/);
    const none = spillPreview(text, undefined, { maxTotalBytes: 1234, usedBytes: 1200, dir: '/s' }, { headChars: 40, tailChars: 20 });
    expect(none).toContain('spill budget (1234 bytes) is used up');
    expect(none).toContain('line 1\n');
    // Within the budget, a failed write says so instead.
    expect(spillPreview(text, undefined, { maxTotalBytes: 1e6, usedBytes: 0, dir: '/s' })).toContain('could not be written to /s');
  });
});

describe('spillToolResult', () => {
  it('leaves a result within the limit untouched and spills one over it', () => {
    const written: string[] = [];
    const store = {
      maxTotalBytes: 1,
      usedBytes: 0,
      dir: '/s',
      writeText: (name: string, t: string) => (written.push(`${name}:${t.length}`), ref),
    } as unknown as SpillStore;
    const small = { content: 'ok', isError: false };
    expect(spillToolResult(small, store, 'c1', 10)).toBe(small);
    const big = spillToolResult({ content: text, isError: false }, store, 'c2', 10);
    expect(written).toEqual([`c2:${text.length}`]);
    expect(big.spill).toBe(ref);
    expect(big.content).toContain('/s/x.txt');
  });
});
