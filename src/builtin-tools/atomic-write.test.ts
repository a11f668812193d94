import * as fs from 'node:fs/promises';
import { closeSync, constants, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { writeFileAtomicAt } from './atomic-write.js';

let dir: string;
let dirFd: number;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-atomic-')));
  dirFd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
});

afterEach(async () => {
  closeSync(dirFd);
  await fs.rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomicAt', () => {
  it('creates a file with the default mode and reports it as created', async () => {
    expect(await writeFileAtomicAt(dirFd, 'new.txt', 'abc', undefined)).toEqual({ created: true });
    expect(await fs.readFile(path.join(dir, 'new.txt'), 'utf8')).toBe('abc');
    expect(await fs.readdir(dir)).toEqual(['new.txt']);
  });

  it('replaces a file, keeping mode bits the umask would drop', async () => {
    const target = path.join(dir, 'shared.txt');
    await fs.writeFile(target, 'old');
    await fs.chmod(target, 0o666);
    const existing = await fs.stat(target);
    expect(await writeFileAtomicAt(dirFd, 'shared.txt', new Uint8Array([0x6e, 0x65, 0x77]), existing)).toEqual({ created: false });
    expect(await fs.readFile(target, 'utf8')).toBe('new');
    expect((await fs.stat(target)).mode & 0o777).toBe(0o666);
  });

  it('rejects with the fs error and cleans up when the rename fails', async () => {
    // Renaming a file over a non-empty directory fails after the temp file was written.
    const target = path.join(dir, 'taken');
    await fs.mkdir(target);
    await fs.writeFile(path.join(target, 'inside.txt'), 'keep');
    await expect(writeFileAtomicAt(dirFd, 'taken', 'x', undefined)).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(await fs.readdir(dir)).toEqual(['taken']);
    expect(await fs.readFile(path.join(target, 'inside.txt'), 'utf8')).toBe('keep');
  });

  it('stays in the opened directory after its path is swapped for a symlink to elsewhere', async () => {
    const sub = path.join(dir, 'sub');
    const elsewhere = path.join(dir, 'elsewhere');
    await fs.mkdir(sub);
    await fs.mkdir(elsewhere);
    const subFd = openSync(sub, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await fs.rename(sub, path.join(dir, 'moved'));
      await fs.symlink(elsewhere, sub);
      await writeFileAtomicAt(subFd, 'x.txt', 'data', undefined);
    } finally {
      closeSync(subFd);
    }
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect(await fs.readFile(path.join(dir, 'moved', 'x.txt'), 'utf8')).toBe('data');
  });

  it('replaces a symlink planted at the target instead of writing through it', async () => {
    const victim = path.join(dir, 'victim.txt');
    await fs.writeFile(victim, 'untouched');
    await fs.symlink(victim, path.join(dir, 'target.txt'));
    await writeFileAtomicAt(dirFd, 'target.txt', 'new', undefined);
    expect(await fs.readFile(victim, 'utf8')).toBe('untouched');
    expect((await fs.lstat(path.join(dir, 'target.txt'))).isFile()).toBe(true);
  });
});
