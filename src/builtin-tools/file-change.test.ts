// `tools/file-change` from each file tool, heard on the registry's container: the texts the tool
// held, the path made absolute, nothing for a failed call, a too-large text or a binary file.

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createContext } from '../context/context.js';
import { MAX_FILE_CHANGE_TEXT_BYTES } from './limits.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { createEditTool } from './edit.js';
import type { FileChangeEvent } from './file-change.js';
import { createStrReplaceEditorTool } from './str-replace-editor.js';
import { createWriteTool } from './write.js';

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-file-change-')));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function tools() {
  const ctx = createContext();
  ctx.provide('tools', new ToolRuntime(ctx));
  const options = { policy: resolveWorkspacePolicy({ cwd: ws }) };
  ctx.tools.register(createWriteTool(options));
  ctx.tools.register(createEditTool(options));
  ctx.tools.register(createStrReplaceEditorTool(options));
  const changes: FileChangeEvent[] = [];
  ctx.on('tools/file-change', (event) => void changes.push(event));
  return { run: (name: string, args: Record<string, unknown>) => ctx.tools.execute(name, args, { id: `c${changes.length}` }), changes };
}

describe('tools/file-change', () => {
  it('write, edit and each str_replace_editor command that writes report old and new text', async () => {
    const { run, changes } = tools();
    await run('write', { path: 'f.txt', content: 'one\n' });
    await run('write', { path: 'f.txt', content: 'two\n' });
    await run('edit', { path: 'f.txt', old_string: 'two', new_string: 'three' });
    await run('str_replace_editor', { command: 'create', path: 'g.txt', file_text: 'a\n' });
    await run('str_replace_editor', { command: 'str_replace', path: 'g.txt', old_str: 'a', new_str: 'b' });
    await run('str_replace_editor', { command: 'insert', path: 'g.txt', insert_line: 1, new_str: 'c' });
    await run('str_replace_editor', { command: 'undo_edit', path: 'g.txt' });
    const f = join(ws, 'f.txt');
    const g = join(ws, 'g.txt');
    expect(changes.map(({ path, oldText, newText }) => ({ path, oldText, newText }))).toEqual([
      { path: f, oldText: null, newText: 'one\n' },
      { path: f, oldText: 'one\n', newText: 'two\n' },
      { path: f, oldText: 'two\n', newText: 'three\n' },
      { path: g, oldText: null, newText: 'a\n' },
      { path: g, oldText: 'a\n', newText: 'b\n' },
      { path: g, oldText: 'b\n', newText: 'b\nc\n' },
      { path: g, oldText: 'b\nc\n', newText: 'b\n' },
    ]);
  });

  it('nothing for a failed edit, for a text over the limit, or when the replaced file is binary', async () => {
    const { run, changes } = tools();
    writeFileSync(join(ws, 'bin'), Buffer.from([0, 1, 2]));
    await run('edit', { path: 'missing.txt', old_string: 'a', new_string: 'b' });
    await run('write', { path: 'big.txt', content: 'x'.repeat(MAX_FILE_CHANGE_TEXT_BYTES + 1) });
    await run('write', { path: 'bin', content: 'text now' });
    expect(changes).toEqual([]);
    // Control: the same file, now text, is reported when written again.
    await run('write', { path: 'bin', content: 'again' });
    expect(changes.map(({ oldText, newText }) => ({ oldText, newText }))).toEqual([{ oldText: 'text now', newText: 'again' }]);
  });
});
