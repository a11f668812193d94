import { describe, expect, it } from 'vitest';

// @ts-expect-error -- a plain browser ES module without declarations; these tests pin its behaviour.
import { changeDiff } from './change-diff.js';

describe('changeDiff', () => {
  it('shows an edit as its replaced lines against the new ones', () => {
    expect(changeDiff('edit', { path: 'a.ts', old_string: 'one\ntwo\nthree', new_string: 'one\n2\nthree' })).toEqual({
      path: 'a.ts',
      lines: [
        { sign: ' ', text: 'one' },
        { sign: '-', text: 'two' },
        { sign: '+', text: '2' },
        { sign: ' ', text: 'three' },
      ],
    });
    expect(changeDiff('str_replace_editor', { command: 'str_replace', path: 'b', old_str: 'x' })).toEqual({ path: 'b', lines: [{ sign: '-', text: 'x' }] });
    expect(changeDiff('edit', { path: 'a', old_string: 'x', new_string: 'y', replace_all: true }).note).toBe('every occurrence');
  });

  it('shows a write as added lines, saying whether it created the file', () => {
    expect(changeDiff('write', { path: 'n.txt', content: 'a\nb\n' }, '{"path":"n.txt","bytes":4,"created":true}')).toEqual({
      path: 'n.txt',
      note: 'new file',
      lines: [
        { sign: '+', text: 'a' },
        { sign: '+', text: 'b' },
      ],
    });
    expect(changeDiff('write', { path: 'o.txt', content: 'a' }, '{"created":false}').note).toMatch(/replaces the whole file/);
    expect(changeDiff('write', { path: 'o.txt', content: 'a' }, 'Created o.txt (1 bytes).').note).toBe('new file');
    expect(changeDiff('write', { path: 'o.txt', content: 'a' }, 'Replaced o.txt (1 bytes).').note).toMatch(/replaces the whole file/);
    expect(changeDiff('write', { path: 'o.txt', content: 'a' }).note).toBeUndefined();
  });

  it('has nothing for other calls', () => {
    expect(changeDiff('read', { path: 'a' })).toBeUndefined();
    expect(changeDiff('write', 'oops')).toBeUndefined();
    expect(changeDiff('str_replace_editor', { command: 'view', path: 'a' })).toBeUndefined();
  });
});
