import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createWorkspacePolicy } from './workspace-policy.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-policy-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(path.join(ws, 'sub'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(ws, 'sub', 'a.txt'), 'a');
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('createWorkspacePolicy', () => {
  it('resolves relative and absolute paths inside the workspace', async () => {
    const policy = createWorkspacePolicy({ cwd: ws });
    const rel = await policy.resolve('sub/a.txt', 'read');
    expect(rel).toEqual({
      absolute: path.join(ws, 'sub', 'a.txt'),
      real: path.join(ws, 'sub', 'a.txt'),
      exists: true,
      display: 'sub/a.txt',
    });
    const abs = await policy.resolve(path.join(ws, 'sub', '..', 'sub', 'a.txt'), 'write');
    expect(abs.display).toBe('sub/a.txt');
    expect((await policy.resolve('.', 'read')).display).toBe('.');
  });

  it('resolves a missing file through its nearest existing ancestor', async () => {
    const policy = createWorkspacePolicy({ cwd: ws });
    const file = await policy.resolve('new/deeper/b.txt', 'write');
    expect(file.exists).toBe(false);
    expect(file.real).toBe(path.join(ws, 'new', 'deeper', 'b.txt'));
  });

  it('refuses .. escapes and absolute paths outside the roots', async () => {
    const policy = createWorkspacePolicy({ cwd: ws });
    await expect(policy.resolve('../outside/secret.txt', 'read')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(policy.resolve('sub/../../outside', 'read')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(policy.resolve('/etc/hostname', 'read')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(policy.resolve(dir, 'read')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('refuses symlinks that lead outside, for existing, missing and dangling targets', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(ws, 'dangling.txt'));
    const policy = createWorkspacePolicy({ cwd: ws });
    for (const p of ['link.txt', 'linkdir/secret.txt', 'linkdir/new/file.txt', 'dangling.txt']) {
      await expect(policy.resolve(p, 'write'), p).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    await expect(policy.resolve('link.txt', 'read')).rejects.toThrow(/symbolic link/);
  });

  it('follows symlinks that stay inside the workspace', async () => {
    await fs.symlink(path.join(ws, 'sub'), path.join(ws, 'alias'));
    const policy = createWorkspacePolicy({ cwd: ws });
    const file = await policy.resolve('alias/a.txt', 'write');
    expect(file.real).toBe(path.join(ws, 'sub', 'a.txt'));
    expect(file.display).toBe('alias/a.txt');
  });

  it('accepts a workspace that is itself a symlink', async () => {
    const linkedWs = path.join(dir, 'ws-link');
    await fs.symlink(ws, linkedWs);
    const policy = createWorkspacePolicy({ cwd: linkedWs });
    const file = await policy.resolve('sub/a.txt', 'read');
    expect(file).toMatchObject({ real: path.join(ws, 'sub', 'a.txt'), display: 'sub/a.txt', exists: true });
    expect((await policy.resolve(path.join(ws, 'sub', 'a.txt'), 'write')).exists).toBe(true);
  });

  it('widens reads with allowRead but not writes', async () => {
    const policy = createWorkspacePolicy({ cwd: ws, allowRead: [outside] });
    const file = await policy.resolve(path.join(outside, 'secret.txt'), 'read');
    expect(file.display).toBe(path.join(outside, 'secret.txt'));
    const denied = policy.resolve(path.join(outside, 'secret.txt'), 'write');
    await expect(denied).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(denied).rejects.toThrow(/--allow-write/);
  });

  it('widens reads and writes with allowWrite, relative to cwd', async () => {
    const policy = createWorkspacePolicy({ cwd: ws, allowWrite: ['../outside'] });
    expect((await policy.resolve('../outside/secret.txt', 'read')).exists).toBe(true);
    expect((await policy.resolve('../outside/new.txt', 'write')).exists).toBe(false);
  });

  it('names the path, the roots and the flag in a refusal', async () => {
    const policy = createWorkspacePolicy({ cwd: ws });
    const error = await policy.resolve('../outside/secret.txt', 'read').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(String(error)).toContain('../outside/secret.txt');
    expect(String(error)).toContain(ws);
    expect(String(error)).toContain('--allow-read');
  });

  it('reports its roots as real paths', async () => {
    const linkedOut = path.join(dir, 'out-link');
    await fs.symlink(outside, linkedOut);
    const policy = createWorkspacePolicy({ cwd: ws, allowRead: [linkedOut] });
    expect((await policy.roots('read')).real).toEqual([ws, outside]);
    expect((await policy.roots('write')).real).toEqual([ws]);
  });
});
