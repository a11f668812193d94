import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeEach, describe, expect, it } from 'vitest';

import { createContext } from '../context/context.js';
import { MAX_EDITOR_LISTING_ENTRIES } from './limits.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolCallResult } from '../tools/types.js';
import { createStrReplaceEditorTool } from './str-replace-editor.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-editor-')));
let ws: string;
let outside: string;
let n = 0;

beforeEach(() => {
  // A fresh workspace per test, so listings and histories never see another test's files.
  ws = join(root, `ws${++n}`);
  outside = join(root, `outside${n}`);
  mkdirSync(ws);
  mkdirSync(outside);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A registry holding one editor instance, as an agent would see it. */
function editor(): (args: Record<string, unknown>) => Promise<ToolCallResult> {
  const ctx = createContext();
  ctx.provide('tools', new ToolRuntime(ctx));
  ctx.tools.register(createStrReplaceEditorTool({ policy: resolveWorkspacePolicy({ cwd: ws }) }));
  return (args) => ctx.tools.execute('str_replace_editor', args);
}

const read = (name: string): string => readFileSync(join(ws, name), 'utf8');

describe('str_replace_editor view', () => {
  it('shows a file with line numbers, whole or a view_range (end -1 = to the end)', async () => {
    writeFileSync(join(ws, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    const call = editor();
    const whole = await call({ command: 'view', path: 'a.txt' });
    expect(whole.isError).toBe(false);
    expect(whole.content).toBe("Here's the result of running `cat -n` on a.txt:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour");
    expect(whole.value).toMatchObject({ command: 'view', path: 'a.txt' });
    const range = await call({ command: 'view', path: join(ws, 'a.txt'), view_range: [2, 3] });
    expect(range.content).toBe("Here's the result of running `cat -n` on a.txt (lines 2-3 of 4):\n     2\ttwo\n     3\tthree");
    const toEnd = await call({ command: 'view', path: 'a.txt', view_range: [3, -1] });
    expect(toEnd.content).toMatch(/\(lines 3-4 of 4\):\n {5}3\tthree\n {5}4\tfour$/);
  });

  it('rejects a view_range outside the file with INVALID_ARGS saying the valid range', async () => {
    writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n');
    const call = editor();
    const beyond = await call({ command: 'view', path: 'a.txt', view_range: [3, 4] });
    expect(beyond.error?.code).toBe('INVALID_ARGS');
    expect(beyond.error?.message).toMatch(/use 1 to 2/);
    const backwards = await call({ command: 'view', path: 'a.txt', view_range: [2, 1] });
    expect(backwards.error?.message).toMatch(/or -1 for the end/);
  });

  it('lists a directory two levels deep, hidden entries skipped, directories marked', async () => {
    mkdirSync(join(ws, 'src/deep/deeper'), { recursive: true });
    mkdirSync(join(ws, '.git'));
    writeFileSync(join(ws, '.git/config'), '');
    writeFileSync(join(ws, '.env'), '');
    writeFileSync(join(ws, 'README.md'), '');
    writeFileSync(join(ws, 'src/main.ts'), '');
    writeFileSync(join(ws, 'src/.hidden'), '');
    writeFileSync(join(ws, 'src/deep/not-shown.ts'), '');
    const call = editor();
    const top = await call({ command: 'view', path: '.' });
    expect(top.content).toBe(
      'Here are the files and directories up to 2 levels deep in ., excluding hidden items:\n' +
        'README.md\nsrc/\nsrc/deep/\nsrc/main.ts',
    );
    const sub = await call({ command: 'view', path: 'src' });
    expect(sub.content.split('\n').slice(1)).toEqual(['src/deep/', 'src/deep/deeper/', 'src/deep/not-shown.ts', 'src/main.ts']);
    expect((await call({ command: 'view', path: 'src', view_range: [1, 2] })).error?.code).toBe('INVALID_ARGS');
  });

  it('stops a huge listing at its bound and says so', async () => {
    mkdirSync(join(ws, 'many'));
    for (let i = 0; i < MAX_EDITOR_LISTING_ENTRIES + 5; i++) writeFileSync(join(ws, 'many', `f${String(i).padStart(5, '0')}`), '');
    const result = await editor()({ command: 'view', path: 'many' });
    const lines = result.content.split('\n');
    expect(lines).toHaveLength(MAX_EDITOR_LISTING_ENTRIES + 2);
    expect(lines.at(-1)).toMatch(/Listing stopped at/);
  });
});

describe('str_replace_editor create', () => {
  it('creates a file with missing parents, and refuses to overwrite an existing one', async () => {
    const call = editor();
    const created = await call({ command: 'create', path: 'new/dir/f.txt', file_text: 'hello\n' });
    expect(created.content).toBe('File created successfully at: new/dir/f.txt');
    expect(read('new/dir/f.txt')).toBe('hello\n');
    const again = await call({ command: 'create', path: 'new/dir/f.txt', file_text: 'other\n' });
    expect(again.error?.code).toBe('TOOL_FAILED');
    expect(again.error?.message).toMatch(/already exists; create does not overwrite/);
    expect(read('new/dir/f.txt')).toBe('hello\n');
  });

  it('reports a missing file_text and arguments of other commands as INVALID_ARGS', async () => {
    const call = editor();
    expect((await call({ command: 'create', path: 'f.txt' })).error).toMatchObject({ code: 'INVALID_ARGS', message: 'create needs file_text.' });
    const stray = await call({ command: 'create', path: 'f.txt', file_text: 'x', old_str: 'y' });
    expect(stray.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringMatching(/create does not take old_str/) });
    expect(existsSync(join(ws, 'f.txt'))).toBe(false);
  });
});

describe('str_replace_editor str_replace', () => {
  it('replaces a unique match and shows a numbered snippet around it', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(ws, 'f.txt'), `${lines.join('\n')}\n`);
    const result = await editor()({ command: 'str_replace', path: 'f.txt', old_str: 'line 6\n', new_str: 'six\nsix and a half\n' });
    expect(result.isError).toBe(false);
    expect(read('f.txt')).toContain('line 5\nsix\nsix and a half\nline 7\n');
    expect(result.content).toBe(
      "The file f.txt has been edited. Here's the result of running `cat -n` on a snippet of f.txt:\n" +
        '     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n     6\tsix\n     7\tsix and a half\n' +
        '     8\tline 7\n     9\tline 8\n    10\tline 9\n    11\tline 10\n' +
        'Review the changes and make sure they are as expected. Edit the file again if necessary.',
    );
  });

  it('deletes old_str when new_str is omitted, and takes `$&` literally', async () => {
    writeFileSync(join(ws, 'f.txt'), 'keep\ndrop me\nkeep too\n');
    const call = editor();
    await call({ command: 'str_replace', path: 'f.txt', old_str: 'drop me\n' });
    expect(read('f.txt')).toBe('keep\nkeep too\n');
    await call({ command: 'str_replace', path: 'f.txt', old_str: 'keep too', new_str: 'cost $& $1' });
    expect(read('f.txt')).toBe('keep\ncost $& $1\n');
  });

  it('refuses a non-unique match, saying how many and on which lines, and changes nothing', async () => {
    writeFileSync(join(ws, 'f.txt'), 'x = 1\ny = 2\nx = 1\nz\nx = 1\n');
    const result = await editor()({ command: 'str_replace', path: 'f.txt', old_str: 'x = 1', new_str: 'x = 9' });
    expect(result.error?.code).toBe('TOOL_FAILED');
    expect(result.error?.message).toMatch(/old_str matches 3 times in f\.txt, starting on lines 1, 3, 5\. Include more surrounding lines/);
    expect(read('f.txt')).toBe('x = 1\ny = 2\nx = 1\nz\nx = 1\n');
  });

  it('refuses a missing match with 0 matches and a hint', async () => {
    writeFileSync(join(ws, 'f.txt'), 'alpha\n');
    const result = await editor()({ command: 'str_replace', path: 'f.txt', old_str: 'beta', new_str: 'gamma' });
    expect(result.error?.code).toBe('TOOL_FAILED');
    expect(result.error?.message).toMatch(/did not appear verbatim in f\.txt \(0 matches\)/);
  });

  it('points at create for a missing file', async () => {
    const result = await editor()({ command: 'str_replace', path: 'nope.txt', old_str: 'a', new_str: 'b' });
    expect(result.error?.message).toMatch(/nope\.txt does not exist\. Use create/);
  });
});

describe('str_replace_editor insert', () => {
  it('inserts at the top (0), in the middle and at the end', async () => {
    writeFileSync(join(ws, 'f.txt'), 'a\nb\n');
    const call = editor();
    const top = await call({ command: 'insert', path: 'f.txt', insert_line: 0, new_str: 'first' });
    expect(read('f.txt')).toBe('first\na\nb\n');
    expect(top.content).toMatch(/snippet of f\.txt:\n {5}1\tfirst\n {5}2\ta\n {5}3\tb\nReview/);
    await call({ command: 'insert', path: 'f.txt', insert_line: 2, new_str: 'mid 1\nmid 2\n' });
    expect(read('f.txt')).toBe('first\na\nmid 1\nmid 2\nb\n');
    await call({ command: 'insert', path: 'f.txt', insert_line: 5, new_str: 'last' });
    expect(read('f.txt')).toBe('first\na\nmid 1\nmid 2\nb\nlast\n');
  });

  it('appends to a file without a final newline and keeps it without one; keeps CRLF', async () => {
    writeFileSync(join(ws, 'f.txt'), 'a\nb');
    const call = editor();
    await call({ command: 'insert', path: 'f.txt', insert_line: 2, new_str: 'c' });
    expect(read('f.txt')).toBe('a\nb\nc');
    writeFileSync(join(ws, 'crlf.txt'), 'a\r\nb\r\n');
    await call({ command: 'insert', path: 'crlf.txt', insert_line: 1, new_str: 'x' });
    expect(read('crlf.txt')).toBe('a\r\nx\r\nb\r\n');
  });

  it('rejects an insert_line beyond the end with the valid choices', async () => {
    writeFileSync(join(ws, 'f.txt'), 'a\nb\n');
    const result = await editor()({ command: 'insert', path: 'f.txt', insert_line: 3, new_str: 'x' });
    expect(result.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringMatching(/has 2 lines\. Use 0 to insert at the top, or 2 to append/) });
    expect((await editor()({ command: 'insert', path: 'f.txt', insert_line: 1 })).error?.message).toBe('insert needs new_str.');
  });
});

describe('str_replace_editor undo_edit', () => {
  it('reverts str_replace, insert and create, newest first, per file', async () => {
    writeFileSync(join(ws, 'f.txt'), 'a\nb\n');
    writeFileSync(join(ws, 'g.txt'), 'g\n');
    const call = editor();
    await call({ command: 'str_replace', path: 'f.txt', old_str: 'a', new_str: 'A' });
    await call({ command: 'insert', path: 'f.txt', insert_line: 2, new_str: 'c' });
    await call({ command: 'str_replace', path: 'g.txt', old_str: 'g', new_str: 'G' });
    expect(read('f.txt')).toBe('A\nb\nc\n');
    const undoInsert = await call({ command: 'undo_edit', path: './f.txt' });
    expect(undoInsert.content).toBe("Last edit to f.txt undone successfully. Here's the result of running `cat -n` on f.txt:\n     1\tA\n     2\tb");
    expect(read('f.txt')).toBe('A\nb\n');
    await call({ command: 'undo_edit', path: join(ws, 'f.txt') });
    expect(read('f.txt')).toBe('a\nb\n');
    expect(read('g.txt')).toBe('G\n');
    const none = await call({ command: 'undo_edit', path: 'f.txt' });
    expect(none.error).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringMatching(/^No edit history found for f\.txt/) });

    await call({ command: 'create', path: 'made.txt', file_text: 'new\n' });
    const undoCreate = await call({ command: 'undo_edit', path: 'made.txt' });
    expect(undoCreate.content).toMatch(/it was created by create, so it was removed/);
    expect(existsSync(join(ws, 'made.txt'))).toBe(false);
  });

  it('keeps history per tool instance', async () => {
    writeFileSync(join(ws, 'f.txt'), 'a\n');
    await editor()({ command: 'str_replace', path: 'f.txt', old_str: 'a', new_str: 'b' });
    expect((await editor()({ command: 'undo_edit', path: 'f.txt' })).error?.code).toBe('TOOL_FAILED');
  });
});

describe('str_replace_editor and the policy', () => {
  it('refuses paths outside the workspace with PERMISSION_DENIED, for every command', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    symlinkSync(outside, join(ws, 'link'));
    const call = editor();
    const attempts: Record<string, unknown>[] = [
      { command: 'view', path: join(outside, 'secret.txt') },
      { command: 'view', path: outside },
      { command: 'view', path: 'link/secret.txt' },
      { command: 'create', path: join(outside, 'new.txt'), file_text: 'x' },
      { command: 'create', path: 'link/new.txt', file_text: 'x' },
      { command: 'str_replace', path: '../' + `outside${n}/secret.txt`, old_str: 'secret', new_str: 'changed' },
      { command: 'insert', path: 'link/secret.txt', insert_line: 0, new_str: 'x' },
      { command: 'undo_edit', path: join(outside, 'secret.txt') },
    ];
    for (const args of attempts) {
      const result = await call(args);
      expect(result.error?.code, JSON.stringify(args)).toBe('PERMISSION_DENIED');
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('is exclusive and rejects an unknown command through the schema', async () => {
    const tool = createStrReplaceEditorTool({ policy: resolveWorkspacePolicy({ cwd: ws }) });
    expect(tool.isConcurrencySafe).toBeUndefined();
    expect((await editor()({ command: 'delete', path: 'f.txt' })).error?.code).toBe('INVALID_ARGS');
  });
});
