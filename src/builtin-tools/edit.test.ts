import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { ToolExecContext } from '../tools/types.js';
import { createEditTool, type EditArgs } from './edit.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-edit-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(ws);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(ws, 'code.ts'), 'let a = 1;\nlet b = 1;\nlet c = 1;\nconst d = 2;\n');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const exec: ToolExecContext = { signal: new AbortController().signal, callId: 't1', deferContext() {} };

function edit(args: EditArgs, options: Partial<WorkspacePolicyInput> = {}) {
  const tool = createEditTool({ policy: resolveWorkspacePolicy({ cwd: ws, ...options }) });
  return Promise.resolve(tool.execute(args, exec)).then((value) => ({ value, content: tool.renderContent!(value) }));
}

const codeFile = () => fs.readFile(path.join(ws, 'code.ts'), 'utf8');

describe('edit', () => {
  it('replaces a unique match', async () => {
    const { value, content } = await edit({ path: 'code.ts', old_string: 'const d = 2;', new_string: 'const d = 3;' });
    expect(value).toEqual({ path: 'code.ts', replacements: 1 });
    expect(content).toContain('1 replacement');
    expect(await codeFile()).toBe('let a = 1;\nlet b = 1;\nlet c = 1;\nconst d = 3;\n');
    expect(await fs.readdir(ws)).toEqual(['code.ts']);
  });

  it('fails with TOOL_FAILED on no match, pointing at read and whitespace', async () => {
    const result = edit({ path: 'code.ts', old_string: 'const  d = 2;', new_string: 'x' });
    await expect(result).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(result).rejects.toThrow(/0 matches.*[Rr]ead|[Rr]ead.*0 matches/s);
    expect(await codeFile()).toContain('const d = 2;');
  });

  it('fails with TOOL_FAILED on several matches, saying how many, and changes nothing', async () => {
    const result = edit({ path: 'code.ts', old_string: ' = 1;', new_string: ' = 5;' });
    await expect(result).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(result).rejects.toThrow(/3 times.*replace_all/);
    expect(await codeFile()).toBe('let a = 1;\nlet b = 1;\nlet c = 1;\nconst d = 2;\n');
  });

  it('replaces every match with replace_all', async () => {
    const { value } = await edit({ path: 'code.ts', old_string: ' = 1;', new_string: ' = 5;', replace_all: true });
    expect(value.replacements).toBe(3);
    expect(await codeFile()).toBe('let a = 5;\nlet b = 5;\nlet c = 5;\nconst d = 2;\n');
  });

  it('inserts new_string literally, $ patterns included', async () => {
    await edit({ path: 'code.ts', old_string: 'const d = 2;', new_string: "const d = '$&$1$$';" });
    expect(await codeFile()).toContain("const d = '$&$1$$';");
  });

  it('rejects identical old_string and new_string with INVALID_ARGS', async () => {
    await expect(edit({ path: 'code.ts', old_string: 'a', new_string: 'a' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
    });
  });

  it('hints at CRLF line endings when a multi-line old_string does not match', async () => {
    await fs.writeFile(path.join(ws, 'win.txt'), 'one\r\ntwo\r\n');
    const result = edit({ path: 'win.txt', old_string: 'one\ntwo', new_string: 'x' });
    await expect(result).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(result).rejects.toThrow(/CRLF/);
    const { value } = await edit({ path: 'win.txt', old_string: 'one\r\ntwo', new_string: 'x' });
    expect(value.replacements).toBe(1);
    expect(await fs.readFile(path.join(ws, 'win.txt'), 'utf8')).toBe('x\r\n');
  });

  it('keeps the file mode', async () => {
    await fs.chmod(path.join(ws, 'code.ts'), 0o700);
    await edit({ path: 'code.ts', old_string: 'const d', new_string: 'let d' });
    expect((await fs.stat(path.join(ws, 'code.ts'))).mode & 0o777).toBe(0o700);
  });

  it('fails with TOOL_FAILED for a missing file, a directory and a binary file', async () => {
    await fs.mkdir(path.join(ws, 'd'));
    await fs.writeFile(path.join(ws, 'bin.dat'), Buffer.from([0x61, 0x00, 0x62]));
    for (const p of ['missing.ts', 'd', 'bin.dat']) {
      await expect(edit({ path: p, old_string: 'a', new_string: 'b' }), p).rejects.toMatchObject({
        code: 'TOOL_FAILED',
      });
    }
    expect(await fs.readFile(path.join(ws, 'bin.dat'))).toEqual(Buffer.from([0x61, 0x00, 0x62]));
  });

  it('refuses to edit a file that is not valid UTF-8', async () => {
    await fs.writeFile(path.join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await expect(edit({ path: 'latin1.txt', old_string: 'caf', new_string: 'CAF' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
    });
  });

  it('refuses .. escapes, symlinks out, and files only readable by allowRead', async () => {
    await fs.writeFile(path.join(outside, 'target.txt'), 'secret');
    await fs.symlink(path.join(outside, 'target.txt'), path.join(ws, 'link.txt'));
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    const attempts: [string, Partial<WorkspacePolicyInput>][] = [
      ['../outside/target.txt', {}],
      ['link.txt', {}],
      ['linkdir/target.txt', {}],
      [path.join(outside, 'target.txt'), { allowRead: [outside] }],
    ];
    for (const [p, options] of attempts) {
      await expect(edit({ path: p, old_string: 'secret', new_string: 'x' }, options), p).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      });
    }
    expect(await fs.readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('secret');
    const { value } = await edit(
      { path: path.join(outside, 'target.txt'), old_string: 'secret', new_string: 'x' },
      { allowWrite: [outside] },
    );
    expect(value.replacements).toBe(1);
  });
});
