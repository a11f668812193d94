import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MAX_GREP_MATCHES } from './limits.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';
import type { ToolExecContext } from '../tools/types.js';
import { createFileTools } from './index.js';
import { createPathResolver, type OpenedPath, type PathAccess } from './path-resolver.js';

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

function resolverFor(input: Partial<WorkspacePolicyInput> = {}) {
  return createPathResolver({ policy: resolveWorkspacePolicy({ cwd: ws, ...input }) });
}

/** Resolves, records what the caller would see, and closes. */
function look(userPath: string, access: PathAccess, input: Partial<WorkspacePolicyInput> = {}, createParents = false) {
  const opened: OpenedPath = resolverFor(input).resolve(userPath, access, { createParents });
  try {
    return { real: opened.real, display: opened.display, exists: opened.fd !== undefined, isFile: opened.stat?.isFile() ?? false };
  } finally {
    opened.close();
  }
}

function denied(userPath: string, access: PathAccess, input: Partial<WorkspacePolicyInput> = {}) {
  return expect(() => look(userPath, access, input, access === 'write'), userPath);
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('createPathResolver', () => {
  it('resolves relative and absolute paths inside the workspace', () => {
    expect(look('sub/a.txt', 'read')).toEqual({ real: path.join(ws, 'sub', 'a.txt'), display: 'sub/a.txt', exists: true, isFile: true });
    expect(look(path.join(ws, 'sub', '..', 'sub', 'a.txt'), 'write').display).toBe('sub/a.txt');
    expect(look('.', 'read')).toMatchObject({ display: '.', real: ws, exists: true, isFile: false });
  });

  it('resolves a missing file to where it would land, and creates parents only when asked', async () => {
    expect(look('new/deeper/b.txt', 'write')).toMatchObject({ exists: false, real: path.join(ws, 'new', 'deeper', 'b.txt') });
    await expect(fs.stat(path.join(ws, 'new'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(look('new/deeper/b.txt', 'write', {}, true)).toMatchObject({ exists: false, real: path.join(ws, 'new', 'deeper', 'b.txt') });
    expect((await fs.stat(path.join(ws, 'new', 'deeper'))).isDirectory()).toBe(true);
  });

  it('refuses .. escapes and absolute paths outside the roots', () => {
    for (const p of ['../outside/secret.txt', 'sub/../../outside', '/etc/hostname', dir]) {
      denied(p, 'read').toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED' }));
    }
    denied('../outside/new/x.txt', 'write').toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED' }));
  });

  it('refuses symlinks that lead outside, for existing, missing and dangling targets, and creates nothing there', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(ws, 'dangling.txt'));
    for (const p of ['link.txt', 'linkdir/secret.txt', 'linkdir/new/file.txt', 'dangling.txt']) {
      denied(p, 'write').toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED' }));
    }
    denied('link.txt', 'read').toThrow(/symbolic link/);
    denied('linkdir/secret.txt', 'read').toThrow(/symbolic link/);
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  });

  it('follows symlinks that stay inside: a directory in the middle, a relative link with .., a chain', async () => {
    await fs.symlink(path.join(ws, 'sub'), path.join(ws, 'alias'));
    await fs.symlink('../sub/a.txt', path.join(ws, 'sub', 'up.txt'));
    await fs.symlink('alias', path.join(ws, 'alias2'));
    expect(look('alias/a.txt', 'write')).toMatchObject({ real: path.join(ws, 'sub', 'a.txt'), display: 'alias/a.txt' });
    expect(look('sub/up.txt', 'read').real).toBe(path.join(ws, 'sub', 'a.txt'));
    expect(look('alias2/a.txt', 'read').real).toBe(path.join(ws, 'sub', 'a.txt'));
    // A dangling link inside the workspace resolves to where a write would create its target.
    await fs.symlink('sub/later.txt', path.join(ws, 'later'));
    expect(look('later', 'write')).toMatchObject({ exists: false, real: path.join(ws, 'sub', 'later.txt') });
  });

  it('reports a link loop as TOOL_FAILED, not a hang', async () => {
    await fs.symlink('loop-b', path.join(ws, 'loop-a'));
    await fs.symlink('loop-a', path.join(ws, 'loop-b'));
    expect(() => look('loop-a', 'read')).toThrow(expect.objectContaining({ code: 'TOOL_FAILED' }));
  });

  it('accepts the workspace by a symlinked name', async () => {
    const linkedWs = path.join(dir, 'ws-link');
    await fs.symlink(ws, linkedWs);
    expect(look(path.join(linkedWs, 'sub', 'a.txt'), 'read')).toMatchObject({ real: path.join(ws, 'sub', 'a.txt'), exists: true });
    const policy = resolveWorkspacePolicy({ cwd: linkedWs });
    expect(createPathResolver({ policy }).cwd).toBe(ws);
  });

  it('opens a fifo without waiting for a writer', async () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    const result = look('pipe', 'read');
    expect(result).toMatchObject({ exists: true, isFile: false });
  });

  it('widens reads with allowRead but not writes, and names the path, the roots and the flag', () => {
    expect(look(path.join(outside, 'secret.txt'), 'read', { allowRead: [outside] }).display).toBe(path.join(outside, 'secret.txt'));
    denied(path.join(outside, 'secret.txt'), 'write', { allowRead: [outside] }).toThrow(/--allow-write/);
    let error: unknown;
    try {
      look('../outside/secret.txt', 'read');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(String(error)).toContain('../outside/secret.txt');
    expect(String(error)).toContain(ws);
    expect(String(error)).toContain('--allow-read');
  });

  it('widens reads and writes with allowWrite, relative to cwd', () => {
    expect(look('../outside/secret.txt', 'read', { allowWrite: ['../outside'] }).exists).toBe(true);
    expect(look('../outside/new.txt', 'write', { allowWrite: ['../outside'] }).exists).toBe(false);
  });

  it('reports its roots as real paths', async () => {
    const linkedOut = path.join(dir, 'out-link');
    await fs.symlink(outside, linkedOut);
    const resolver = resolverFor({ allowRead: [linkedOut] });
    expect(resolver.roots('read')).toEqual([ws, outside]);
    expect(resolver.roots('write')).toEqual([ws]);
  });

  it('leaks no descriptors over many calls of every file tool, successes and failures alike', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(path.join(ws, 'sub'), path.join(ws, 'alias'));
    await fs.symlink(outside, path.join(ws, 'out'));
    const tools = new Map(createFileTools({ policy: resolveWorkspacePolicy({ cwd: ws }) }).map((tool) => [tool.name, tool]));
    const exec: ToolExecContext = { signal: new AbortController().signal, callId: 't', deferContext() {} };
    const calls: [string, unknown][] = [
      ['read', { path: 'sub/a.txt' }],
      ['read', { path: 'alias/a.txt' }],
      ['read', { path: 'link.txt' }],
      ['read', { path: 'missing/x' }],
      ['read', { path: 'sub' }],
      ['write', { path: 'w/deep/x.txt', content: 'x' }],
      ['write', { path: 'out/x.txt', content: 'x' }],
      ['edit', { path: 'w/deep/x.txt', old_string: 'x', new_string: 'y' }],
      ['edit', { path: 'w/deep/x.txt', old_string: 'y', new_string: 'x' }],
      ['edit', { path: 'nope.txt', old_string: 'a', new_string: 'b' }],
      ['glob', { pattern: '**/*' }],
      ['grep', { pattern: 'a|x' }],
      ['grep', { pattern: 'a', path: 'sub/a.txt' }],
    ];
    // A file with more matching lines than grep returns ends its walk early (the generator's finally runs).
    await fs.writeFile(path.join(ws, 'many.txt'), 'a\n'.repeat(MAX_GREP_MATCHES + 10));
    const runAll = async () => {
      for (const [name, args] of calls) await Promise.resolve(tools.get(name)!.execute(args as never, exec)).catch(() => undefined);
    };
    // One round first: grep's regex worker threads hold descriptors of their own once started.
    await runAll();
    const before = openFds();
    for (let round = 0; round < 100; round++) await runAll();
    expect(openFds()).toBe(before);
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  });
});

describe('extraReadRoots (a session spill directory)', () => {
  it('reads inside the extra root only, never writes there, and widens nothing beside it', async () => {
    const spill = path.join(dir, 'logs', 's.spill');
    await fs.mkdir(spill, { recursive: true });
    await fs.writeFile(path.join(spill, 'call_1.txt'), 'spilled');
    await fs.writeFile(path.join(dir, 'logs', 's.jsonl'), 'log');
    const resolver = resolverFor();
    const extra = { extraReadRoots: [spill] };
    const opened = resolver.resolve(path.join(spill, 'call_1.txt'), 'read', extra);
    expect(opened.real).toBe(path.join(spill, 'call_1.txt'));
    opened.close();
    // Control: without the option the same path is outside the policy.
    expect(() => resolver.resolve(path.join(spill, 'call_1.txt'), 'read')).toThrow(/Permission denied/);
    expect(() => resolver.resolve(path.join(dir, 'logs', 's.jsonl'), 'read', extra)).toThrow(/Permission denied/);
    expect(() => resolver.resolve(`${spill}/../s.jsonl`, 'read', extra)).toThrow(/Permission denied/);
    expect(() => resolver.resolve(path.join(spill, 'new.txt'), 'write', extra)).toThrow(/Permission denied/);
    // A link out of the spill directory leads nowhere new.
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(spill, 'link'));
    expect(() => resolver.resolve(path.join(spill, 'link'), 'read', extra)).toThrow(/Permission denied/);
  });
});
