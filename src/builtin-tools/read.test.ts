import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DEFAULT_READ_LIMIT_LINES, MAX_LINE_CHARS, MAX_READ_FILE_BYTES } from './limits.js';
import type { ToolExecContext } from '../tools/types.js';
import { createReadTool, type ReadArgs } from './read.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-read-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(ws);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret\n');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const exec: ToolExecContext = { signal: new AbortController().signal, callId: 't1', deferContext() {} };

function read(args: ReadArgs, options: Partial<WorkspacePolicyInput> = {}) {
  const tool = createReadTool({ policy: resolveWorkspacePolicy({ cwd: ws, ...options }) });
  return Promise.resolve(tool.execute(args, exec)).then((value) => ({ value, content: tool.renderContent!(value) }));
}

function lines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
}

describe('read', () => {
  it('returns the raw lines as the value and shows them numbered', async () => {
    await fs.writeFile(path.join(ws, 'a.txt'), 'alpha\nbeta\n');
    const { value, content } = await read({ path: 'a.txt' });
    expect(value).toEqual({
      path: 'a.txt',
      content: 'alpha\nbeta',
      startLine: 1,
      endLine: 2,
      totalLines: 2,
      truncated: false,
    });
    expect(content).toBe('     1\talpha\n     2\tbeta');
  });

  it('counts a last line without a newline and strips CR of CRLF lines', async () => {
    await fs.writeFile(path.join(ws, 'crlf.txt'), 'one\r\ntwo');
    const { value, content } = await read({ path: 'crlf.txt' });
    expect(value.content).toBe('one\ntwo');
    expect(content).toBe('     1\tone\n     2\ttwo');
    expect(value.totalLines).toBe(2);
  });

  it('returns a slice with offset and limit and says where to continue', async () => {
    await fs.writeFile(path.join(ws, 'ten.txt'), lines(10));
    const { value, content } = await read({ path: 'ten.txt', offset: 4, limit: 3 });
    expect(value).toMatchObject({ startLine: 4, endLine: 6, totalLines: 10, truncated: true });
    expect(value.content).toBe('line 4\nline 5\nline 6');
    expect(content).toContain('     4\tline 4\n     5\tline 5\n     6\tline 6');
    expect(content).toContain('offset 7');
    const tail = await read({ path: 'ten.txt', offset: 9 });
    expect(tail.value).toMatchObject({ startLine: 9, endLine: 10, truncated: false });
  });

  it('stops at the default line limit', async () => {
    await fs.writeFile(path.join(ws, 'long.txt'), lines(DEFAULT_READ_LIMIT_LINES + 5));
    const { value } = await read({ path: 'long.txt' });
    expect(value).toMatchObject({ endLine: DEFAULT_READ_LIMIT_LINES, truncated: true });
  });

  it('stops before the output budget when lines are long', async () => {
    await fs.writeFile(path.join(ws, 'wide.txt'), `${'x'.repeat(1000)}\n`.repeat(100));
    const { value } = await read({ path: 'wide.txt' });
    expect(value.truncated).toBe(true);
    expect(value.endLine).toBeLessThan(100);
    expect(value.content.length).toBeLessThanOrEqual(50_000);
  });

  it('shortens very long lines with a marker in the view; the value keeps the raw line', async () => {
    await fs.writeFile(path.join(ws, 'one.txt'), 'y'.repeat(MAX_LINE_CHARS + 10));
    const { value, content } = await read({ path: 'one.txt' });
    expect(content).toContain('10 more characters cut');
    expect(content.length).toBeLessThan(MAX_LINE_CHARS + 60);
    expect(value.content).toBe('y'.repeat(MAX_LINE_CHARS + 10));
  });

  it('reads an empty file', async () => {
    await fs.writeFile(path.join(ws, 'empty.txt'), '');
    const { value, content } = await read({ path: 'empty.txt' });
    expect(value).toMatchObject({ content: '', totalLines: 0, startLine: 1, endLine: 0, truncated: false });
    expect(content).toContain('empty');
  });

  it('fails with TOOL_FAILED for a missing file, suggesting glob', async () => {
    const result = read({ path: 'nope.txt' });
    await expect(result).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(result).rejects.toThrow(/glob/);
  });

  it('fails with TOOL_FAILED for a directory, a binary file, a huge file, and an offset past the end', async () => {
    await fs.mkdir(path.join(ws, 'd'));
    await fs.writeFile(path.join(ws, 'bin.dat'), Buffer.from([0x41, 0x00, 0x42]));
    const huge = await fs.open(path.join(ws, 'huge.txt'), 'w');
    await huge.truncate(MAX_READ_FILE_BYTES + 1);
    await huge.close();
    await fs.writeFile(path.join(ws, 'three.txt'), lines(3));
    const cases: [ReadArgs, RegExp][] = [
      [{ path: 'd' }, /directory/],
      [{ path: 'bin.dat' }, /binary/],
      [{ path: 'huge.txt' }, /grep/],
      [{ path: 'three.txt', offset: 4 }, /beyond the end/],
    ];
    for (const [args, message] of cases) {
      const result = read(args);
      await expect(result, args.path).rejects.toMatchObject({ code: 'TOOL_FAILED' });
      await expect(result, args.path).rejects.toThrow(message);
    }
  });

  it('fails with TOOL_FAILED for a named pipe instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    await expect(read({ path: 'pipe' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });

  it('refuses paths outside the workspace: .. escapes and symlinks', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    for (const p of ['../outside/secret.txt', 'link.txt', 'linkdir/secret.txt', path.join(outside, 'secret.txt')]) {
      await expect(read({ path: p }), p).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
  });

  it('reads outside the workspace when allowRead names the place', async () => {
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    const { value } = await read({ path: 'linkdir/secret.txt' }, { allowRead: [outside] });
    expect(value).toMatchObject({ path: 'linkdir/secret.txt', content: 'secret' });
    const direct = await read({ path: path.join(outside, 'secret.txt') }, { allowRead: [outside] });
    expect(direct.value.path).toBe(path.join(outside, 'secret.txt'));
  });
});
