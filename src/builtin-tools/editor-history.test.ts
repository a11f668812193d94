import { describe, expect, it } from 'vitest';

import { EditorHistory } from './editor-history.js';

describe('EditorHistory', () => {
  it('pops per key, newest first, and remembers creations as undefined', () => {
    const history = new EditorHistory(1_000);
    history.push('/a', undefined);
    history.push('/a', 'one');
    history.push('/b', 'bee');
    expect(history.pop('/a')).toEqual({ previous: 'one' });
    expect(history.pop('/a')).toEqual({ previous: undefined });
    expect(history.pop('/a')).toBeUndefined();
    expect(history.pop('/b')).toEqual({ previous: 'bee' });
  });

  it('drops the oldest entries of any file beyond its character budget', () => {
    const history = new EditorHistory(10);
    history.push('/a', 'aaaa');
    history.push('/b', 'bbbb');
    history.push('/a', 'cccc');
    expect(history.pop('/b')).toEqual({ previous: 'bbbb' });
    expect(history.pop('/a')).toEqual({ previous: 'cccc' });
    expect(history.pop('/a')).toBeUndefined();
    history.push('/big', 'x'.repeat(11));
    expect(history.pop('/big')).toBeUndefined();
  });
});
