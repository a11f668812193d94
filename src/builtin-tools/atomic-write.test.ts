import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { writeFileAtomic } from './atomic-write.js';

let dir: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-atomic-')));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates a file with the default mode and reports it as created', async () => {
    const target = path.join(dir, 'new.txt');
    expect(await writeFileAtomic(target, 'abc')).toEqual({ created: true });
    expect(await fs.readFile(target, 'utf8')).toBe('abc');
    expect(await fs.readdir(dir)).toEqual(['new.txt']);
  });

  it('replaces a file, keeping mode bits the umask would drop', async () => {
    const target = path.join(dir, 'shared.txt');
    await fs.writeFile(target, 'old');
    await fs.chmod(target, 0o666);
    expect(await writeFileAtomic(target, new Uint8Array([0x6e, 0x65, 0x77]))).toEqual({ created: false });
    expect(await fs.readFile(target, 'utf8')).toBe('new');
    expect((await fs.stat(target)).mode & 0o777).toBe(0o666);
  });

  it('rejects with the fs error and cleans up when the rename fails', async () => {
    // Renaming a file over a non-empty directory fails after the temp file was written.
    const target = path.join(dir, 'taken');
    await fs.mkdir(target);
    await fs.writeFile(path.join(target, 'inside.txt'), 'keep');
    await expect(writeFileAtomic(target, 'x')).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(await fs.readdir(dir)).toEqual(['taken']);
    expect(await fs.readFile(path.join(target, 'inside.txt'), 'utf8')).toBe('keep');
  });
});
