import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposedChange } from './proposed-change.js';

describe('proposedChange', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-proposed-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\ntwo\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('diffs a write against the file as it is, or against nothing for a new file', async () => {
    expect(await proposedChange(dir, 'write', { path: 'a.txt', content: 'new\n' })).toEqual({ kind: 'change', path: 'a.txt', oldText: 'one\ntwo\ntwo\n', newText: 'new\n' });
    expect(await proposedChange(dir, 'write', { path: 'b.txt', content: 'b' })).toEqual({ kind: 'change', path: 'b.txt', oldText: null, newText: 'b' });
  });

  it('applies an edit as the tool would, literally', async () => {
    expect(await proposedChange(dir, 'edit', { path: 'a.txt', old_string: 'one', new_string: '$& 1' })).toMatchObject({ newText: '$& 1\ntwo\ntwo\n' });
    expect(await proposedChange(dir, 'edit', { path: 'a.txt', old_string: 'two', new_string: '2', replace_all: true })).toMatchObject({ newText: 'one\n2\n2\n' });
    expect(await proposedChange(dir, 'edit', { path: 'a.txt', old_string: 'two', new_string: '2' })).toMatchObject({ kind: 'note', note: expect.stringMatching(/occurs 2 times/) });
    expect(await proposedChange(dir, 'str_replace_editor', { command: 'str_replace', path: 'a.txt', old_str: 'one\n' })).toMatchObject({ newText: 'two\ntwo\n' });
  });

  it('shows no diff for what it cannot read safely, and does not hang on a FIFO', async () => {
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    expect(await proposedChange(dir, 'write', { path: 'pipe', content: 'x' })).toMatchObject({ kind: 'note', note: 'not a regular file' });
    fs.writeFileSync(path.join(dir, 'bin'), Buffer.from([1, 0, 2]));
    expect(await proposedChange(dir, 'write', { path: 'bin', content: 'x' })).toMatchObject({ kind: 'note', note: 'a binary file' });
    expect(await proposedChange(dir, 'read', { path: 'a.txt' })).toBeUndefined();
    expect(await proposedChange(dir, 'bash', { command: 'ls' })).toBeUndefined();
  });
});
