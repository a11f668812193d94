import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { ToolExecContext } from '../tools/types.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';
import { createWriteTool, type WriteArgs } from './write.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-write-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(ws);
  await fs.mkdir(outside);
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const exec: ToolExecContext = { signal: new AbortController().signal, callId: 't1', deferContext() {} };

function write(args: WriteArgs, options: Partial<WorkspacePolicyInput> = {}) {
  const tool = createWriteTool({ policy: resolveWorkspacePolicy({ cwd: ws, ...options }) });
  return Promise.resolve(tool.execute(args, exec)).then((value) => ({ value, content: tool.renderContent!(value) }));
}

/** Every entry below `root`, to prove no temp file was left behind. */
async function tree(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true });
  return entries.map(String).sort();
}

describe('write', () => {
  it('creates a file and its parent directories', async () => {
    const { value, content } = await write({ path: 'a/b/c.txt', content: 'héllo\n' });
    expect(value).toEqual({ path: 'a/b/c.txt', bytes: 7, created: true });
    expect(content).toContain('Created a/b/c.txt');
    expect(await fs.readFile(path.join(ws, 'a', 'b', 'c.txt'), 'utf8')).toBe('héllo\n');
    expect(await tree(ws)).toEqual(['a', 'a/b', 'a/b/c.txt']);
  });

  it('replaces an existing file, keeping its mode, and leaves no temp file', async () => {
    const target = path.join(ws, 'run.sh');
    await fs.writeFile(target, 'old');
    await fs.chmod(target, 0o751);
    const { value } = await write({ path: 'run.sh', content: 'new' });
    expect(value).toEqual({ path: 'run.sh', bytes: 3, created: false });
    expect(await fs.readFile(target, 'utf8')).toBe('new');
    expect((await fs.stat(target)).mode & 0o777).toBe(0o751);
    expect(await tree(ws)).toEqual(['run.sh']);
  });

  it('writes through a symlink that stays inside the workspace, keeping the link', async () => {
    await fs.writeFile(path.join(ws, 'real.txt'), 'old');
    await fs.symlink('real.txt', path.join(ws, 'alias.txt'));
    await write({ path: 'alias.txt', content: 'new' });
    expect(await fs.readFile(path.join(ws, 'real.txt'), 'utf8')).toBe('new');
    expect((await fs.lstat(path.join(ws, 'alias.txt'))).isSymbolicLink()).toBe(true);
  });

  it('fails with TOOL_FAILED when a parent is a file, changing nothing', async () => {
    await fs.writeFile(path.join(ws, 'plain'), 'keep');
    await expect(write({ path: 'plain/child.txt', content: 'x' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect(await fs.readFile(path.join(ws, 'plain'), 'utf8')).toBe('keep');
    expect(await tree(ws)).toEqual(['plain']);
  });

  it('fails with TOOL_FAILED when the path is a directory', async () => {
    await fs.mkdir(path.join(ws, 'd'));
    await expect(write({ path: 'd', content: 'x' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect(await tree(ws)).toEqual(['d']);
  });

  it('leaves the original untouched and no temp file when the write itself fails', async () => {
    // The temp name adds a prefix and suffix to the base name, so a 250-byte name makes its creation
    // fail (ENAMETOOLONG) while the original, with a legal name, exists.
    const name = 'n'.repeat(250);
    await fs.writeFile(path.join(ws, name), 'original');
    await expect(write({ path: name, content: 'replacement' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect(await fs.readFile(path.join(ws, name), 'utf8')).toBe('original');
    expect(await tree(ws)).toEqual([name]);
  });

  it('refuses .. escapes and symlinks out of the workspace, directly or through a parent', async () => {
    await fs.writeFile(path.join(outside, 'target.txt'), 'keep');
    await fs.symlink(path.join(outside, 'target.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    for (const p of ['../outside/new.txt', 'link.txt', 'linkdir/new.txt', 'linkdir/deep/new.txt']) {
      await expect(write({ path: p, content: 'x' }), p).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    expect(await tree(outside)).toEqual(['target.txt']);
    expect(await fs.readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('keep');
  });

  it('refuses a place that allowRead opens but allowWrite does not, and writes where allowWrite opens', async () => {
    const target = path.join(outside, 'new.txt');
    const denied = write({ path: target, content: 'x' }, { allowRead: [outside] });
    await expect(denied).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(denied).rejects.toThrow(/--allow-write/);
    const { value } = await write({ path: target, content: 'x' }, { allowWrite: [outside] });
    expect(value).toEqual({ path: target, bytes: 1, created: true });
  });
});
