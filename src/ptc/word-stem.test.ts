import { describe, expect, it } from 'vitest';
import { stem } from './word-stem.js';

describe('stem', () => {
  it('joins the plural, -ing and -ed forms of a word', () => {
    for (const [word, expected] of [
      ['forecasts', 'forecast'],
      ['forecast', 'forecast'],
      ['searching', 'search'],
      ['searched', 'search'],
      ['queries', 'query'],
      ['matches', 'match'],
      ['boxes', 'box'],
      ['files', 'file'],
      ['running', 'run'],
      ['spelling', 'spell'],
    ]) {
      expect(stem(word!), word).toBe(expected);
    }
  });

  it('leaves short words, words with digits and -ss/-us/-is endings whole', () => {
    for (const word of ['is', 'bus', 'red', 'status', 'address', 'analysis', 'v2s', 'seed', 'ring']) expect(stem(word), word).toBe(word);
  });
});
