import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearestNames } from './did-you-mean.js';

describe('did-you-mean', () => {
  it('measures edit distance case-insensitively', () => {
    expect(editDistance('tols', 'tools')).toBe(1);
    expect(editDistance('raed', 'read')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('Read', 'read')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the nearest names, closest first, and nothing for an unrelated word', () => {
    expect(nearestNames('raed', ['read', 'write', 'bash'])).toEqual(['read']);
    expect(nearestNames('zzzzzz', ['read', 'write', 'bash'])).toEqual([]);
    expect(nearestNames('weather', ['mcp__weather', 'bash'])).toEqual(['mcp__weather']);
    expect(nearestNames('minimel', ['minimal', 'default', 'minimal'])).toEqual(['minimal']);
  });

  it('writes one sentence, or nothing', () => {
    expect(didYouMean('grpe', ['grep', 'glob'])).toBe(' Did you mean "grep"?');
    expect(didYouMean('bsh', ['bash', 'bsd'])).toBe(' Did you mean "bash" or "bsd"?');
    expect(didYouMean('qqqq', ['grep'])).toBe('');
  });
});
