import { describe, expect, it } from 'vitest';
import { MarkdownBlocks } from './markdown-stream.js';

/** Feeds `text` in pieces of `size` and returns the completed blocks in order, then the rest. */
function feed(text: string, size: number): string[] {
  const blocks = new MarkdownBlocks();
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    const done = blocks.push(text.slice(i, i + size));
    if (done !== '') out.push(done);
  }
  out.push(blocks.end());
  return out;
}

describe('MarkdownBlocks', () => {
  it('cuts at blank lines once the next block starts, whatever the chunking', () => {
    const text = '# Title\n\nA paragraph\nstill it.\n\nLast one.';
    for (const size of [1, 3, 7, text.length]) expect(feed(text, size).join('')).toBe(text);
    expect(feed(text, 1)).toEqual(['# Title\n\n', 'A paragraph\nstill it.\n\n', 'Last one.']);
    // Text that arrives at once comes out as one piece of whole blocks.
    expect(feed(text, text.length)).toEqual(['# Title\n\nA paragraph\nstill it.\n\n', 'Last one.']);
  });

  it('keeps a code fence with blank lines in one block', () => {
    const text = 'Intro.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter.';
    expect(feed(text, 2)).toEqual(['Intro.\n\n', '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n', 'After.']);
  });

  it('keeps a loose list and its continuation lines together', () => {
    const text = '1. one\n\n2. two\n\n   more of two\n\nDone.';
    expect(feed(text, 4)).toEqual(['1. one\n\n2. two\n\n   more of two\n\n', 'Done.']);
  });

  it('returns nothing until a block is complete', () => {
    const blocks = new MarkdownBlocks();
    expect(blocks.push('Hello\n\n')).toBe('');
    expect(blocks.push('Wor')).toBe('Hello\n\n');
    expect(blocks.end()).toBe('Wor');
    expect(blocks.end()).toBe('');
  });
});
