import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpillStore, createTempSpillStore } from './spill.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-spill-unit-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('createSpillStore', () => {
  it('writes a text whole, private, under a name made from the call id, and leaves no temp file', () => {
    const store = createSpillStore({ dir: path.join(root, 's.spill') });
    const ref = store.writeText('call_1', 'hello\nworld\n')!;
    expect(ref).toEqual({ path: path.join(root, 's.spill', 'call_1.txt'), bytes: 12, totalBytes: 12 });
    expect(fs.readFileSync(ref.path, 'utf8')).toBe('hello\nworld\n');
    expect(fs.statSync(ref.path).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(root, 's.spill')).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.join(root, 's.spill'))).toEqual(['call_1.txt']);
  });

  it('never lets a model-chosen call id leave the directory or overwrite an earlier file', () => {
    const store = createSpillStore({ dir: path.join(root, 's.spill') });
    const a = store.writeText('../../escape', 'a')!;
    const b = store.writeText('../../escape', 'b')!;
    const c = store.writeText('..', 'c')!;
    expect(path.dirname(a.path)).toBe(path.join(root, 's.spill'));
    expect(path.basename(a.path)).toBe('_.._escape.txt');
    expect(path.basename(b.path)).toBe('_.._escape-2.txt');
    expect(path.basename(c.path)).toBe('result.txt');
    expect(fs.readFileSync(a.path, 'utf8')).toBe('a');
    expect(fs.readdirSync(root)).toEqual(['s.spill']);
  });

  it('holds the session budget (counting files of an earlier turn) and the file cap', () => {
    const dir = path.join(root, 's.spill');
    const first = createSpillStore({ dir, maxTotalBytes: 100, maxFileBytes: 60 });
    const cut = first.writeText('a', 'é'.repeat(40))!;
    // 80 bytes cut at 60, never inside a two-byte character.
    expect(cut).toMatchObject({ bytes: 60, totalBytes: 80 });
    expect(fs.readFileSync(cut.path, 'utf8')).toBe('é'.repeat(30));
    // A later turn's store sees the 60 bytes already there.
    const later = createSpillStore({ dir, maxTotalBytes: 100, maxFileBytes: 60 });
    expect(later.usedBytes).toBe(60);
    expect(later.writeText('b', 'x'.repeat(41))).toBeUndefined();
    expect(later.writeText('c', 'x'.repeat(40))).toBeDefined();
    expect(later.writeText('d', 'x')).toBeUndefined();
    expect(fs.readdirSync(dir).sort()).toEqual(['a.txt', 'c.txt']);
  });

  it('a stream is invisible until committed, and a discarded one gives its bytes back', () => {
    const dir = path.join(root, 's.spill');
    const store = createSpillStore({ dir, maxTotalBytes: 10 });
    const stream = store.open('x.stdout');
    stream.push(Buffer.from('12345'));
    stream.push(Buffer.from('67890abc'));
    expect(fs.readdirSync(dir).every((name) => name.endsWith('.tmp'))).toBe(true);
    // The stream keeps its start, as much as the budget leaves.
    expect(store.usedBytes).toBe(10);
    stream.discard();
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(store.usedBytes).toBe(0);
    const kept = store.open('y');
    kept.push(Buffer.from('abc'));
    expect(kept.commit()).toMatchObject({ bytes: 3, totalBytes: 3, path: path.join(dir, 'y.txt') });
  });

  it('writes nothing through a symbolic link planted where the directory should be', () => {
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(root, 's.spill'));
    const store = createSpillStore({ dir: path.join(root, 's.spill') });
    expect(store.writeText('a', 'text')).toBeUndefined();
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('a temp store lives in its own private directory until removed', () => {
    const { store, remove } = createTempSpillStore();
    const ref = store.writeText('a', 'text')!;
    expect(fs.readFileSync(ref.path, 'utf8')).toBe('text');
    remove();
    expect(fs.existsSync(store.dir)).toBe(false);
  });
});
