import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MAX_GLOB_RESULTS } from './limits.js';
import type { ToolExecContext } from '../tools/types.js';
import { compileGlob, createGlobTool, type GlobArgs } from './glob.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-glob-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(outside);
  const files = [
    'README.md',
    'package.json',
    '.env',
    'src/index.ts',
    'src/util.ts',
    'src/view.tsx',
    'src/deep/nested/x.ts',
    'test/a.test.ts',
    '.git/config',
    'node_modules/dep/index.js',
  ];
  for (const file of files) {
    await fs.mkdir(path.dirname(path.join(ws, file)), { recursive: true });
    await fs.writeFile(path.join(ws, file), file);
  }
  await fs.writeFile(path.join(outside, 'secret.ts'), 'secret');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function execWith(signal = new AbortController().signal): ToolExecContext {
  return { signal, callId: 't1', deferContext() {} };
}

function glob(args: GlobArgs, options: Partial<WorkspacePolicyInput> = {}, exec = execWith()) {
  const tool = createGlobTool({ policy: resolveWorkspacePolicy({ cwd: ws, ...options }) });
  return Promise.resolve(tool.execute(args, exec)).then((value) => ({ value, content: tool.renderContent!(value) }));
}

describe('compileGlob', () => {
  const table: [pattern: string, path: string, matches: boolean][] = [
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['*.ts', '.hidden.ts', true],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['**/*.ts', 'src/a.tsx', false],
    ['src/**', 'src/a/b/c', true],
    ['src/**/x.ts', 'src/x.ts', true],
    ['src/**/x.ts', 'src/a/b/x.ts', true],
    ['src/**/x.ts', 'lib/x.ts', false],
    ['**', 'any/thing', true],
    ['**/**/**/x.ts', 'a/b/c/x.ts', true],
    ['a/**/**/b', 'a/b', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a?c', 'a/c', false],
    ['[ab].txt', 'b.txt', true],
    ['[ab].txt', 'c.txt', false],
    ['[a-c]x', 'bx', true],
    ['[!a-c]x', 'bx', false],
    ['[!a-c]x', 'dx', true],
    ['[^a-c]x', 'dx', true],
    ['[]]x', ']x', true],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['*.{ts,tsx}', 'a.js', false],
    ['{src,test}/**/*.ts', 'test/a.ts', true],
    ['{src,test}/**/*.ts', 'lib/a.ts', false],
    ['a{b,c{d,e}}f', 'acef', true],
    ['a{b}c', 'a{b}c', true],
    ['\\*.md', '*.md', true],
    ['\\*.md', 'x.md', false],
    ['file.(1)+$', 'file.(1)+$', true],
    ['[x', '[x', true],
    ['./src/*.ts', 'src/a.ts', true],
    ['Readme.md', 'README.md', false],
    ['*', 'a/b', false],
  ];
  it.each(table)('%s against %s is %s', (pattern, file, expected) => {
    expect(compileGlob(pattern, 'pattern').matches(file)).toBe(expected);
  });

  it('knows which directories may hold a match', () => {
    const matcher = compileGlob('src/**/*.ts', 'pattern');
    expect(matcher.mayContain('src')).toBe(true);
    expect(matcher.mayContain('src/a/b')).toBe(true);
    expect(matcher.mayContain('lib')).toBe(false);
    expect(compileGlob('*.ts', 'pattern').mayContain('src')).toBe(false);
  });

  it('rejects unusable patterns with INVALID_ARGS', () => {
    for (const pattern of ['/etc/*', '../*.ts', 'a/../../b', '[z-a]', '{a,b}'.repeat(9)]) {
      expect(() => compileGlob(pattern, 'pattern'), pattern).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
    }
  });
});

describe('glob', () => {
  it('finds files at any depth, sorted, relative to the workspace', async () => {
    const { value, content } = await glob({ pattern: '**/*.ts' });
    expect(value).toEqual({
      pattern: '**/*.ts',
      path: '.',
      files: ['src/deep/nested/x.ts', 'src/index.ts', 'src/util.ts', 'test/a.test.ts'],
      offset: 0,
      totalFiles: 4,
      truncated: false,
    });
    expect(content).toBe('src/deep/nested/x.ts\nsrc/index.ts\nsrc/util.ts\ntest/a.test.ts');
  });

  it('searches below path, still reporting paths relative to the workspace', async () => {
    const { value } = await glob({ pattern: '*.ts', path: 'src' });
    expect(value).toMatchObject({ path: 'src', files: ['src/index.ts', 'src/util.ts'] });
  });

  it('includes hidden files but skips .git and node_modules unless the pattern names them', async () => {
    expect((await glob({ pattern: '*' })).value.files).toEqual(['.env', 'README.md', 'package.json']);
    expect((await glob({ pattern: '**/config' })).value.files).toEqual([]);
    expect((await glob({ pattern: '.git/*' })).value.files).toEqual(['.git/config']);
    expect((await glob({ pattern: 'node_modules/**/*.js' })).value.files).toEqual(['node_modules/dep/index.js']);
    expect((await glob({ pattern: '**/*.js', path: 'node_modules' })).value.files).toEqual([
      'node_modules/dep/index.js',
    ]);
  });

  it('says so when nothing matches', async () => {
    const { value, content } = await glob({ pattern: '**/*.rs' });
    expect(value.files).toEqual([]);
    expect(content).toContain('No files');
  });

  it('follows symlinks inside the workspace but not out of it, and survives loops', async () => {
    await fs.symlink(outside, path.join(ws, 'src', 'out'));
    await fs.symlink(path.join(outside, 'secret.ts'), path.join(ws, 'src', 'secret.ts'));
    await fs.symlink(path.join(ws, 'src', 'deep'), path.join(ws, 'test', 'deep-alias'));
    await fs.symlink(ws, path.join(ws, 'src', 'loop'));
    const { value } = await glob({ pattern: '**/x.ts' });
    expect(value.files).toEqual(['src/deep/nested/x.ts', 'test/deep-alias/nested/x.ts']);
    const all = await glob({ pattern: '**/*' });
    expect(all.value.files.some((file) => file.includes('secret'))).toBe(false);
  });

  it('refuses a path outside the workspace unless allowRead opens it', async () => {
    await fs.symlink(outside, path.join(ws, 'out'));
    for (const p of ['..', '../outside', 'out', outside]) {
      await expect(glob({ pattern: '*', path: p }), p).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    const { value } = await glob({ pattern: '*.ts', path: outside }, { allowRead: [outside] });
    expect(value.files).toEqual([path.join(outside, 'secret.ts')]);
  });

  it('fails with TOOL_FAILED when path is missing or a file', async () => {
    await expect(glob({ pattern: '*', path: 'nope' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(glob({ pattern: '*', path: 'README.md' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });

  it('rejects a pattern that climbs out with INVALID_ARGS', async () => {
    await expect(glob({ pattern: '../outside/*' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });

  it('caps the result list, gives the total and pages on with offset', async () => {
    const many = path.join(ws, 'many');
    await fs.mkdir(many);
    for (let i = 0; i <= MAX_GLOB_RESULTS; i++) await fs.writeFile(path.join(many, `f${i}.txt`), '');
    const { value, content } = await glob({ pattern: 'many/*.txt' });
    expect(value.truncated).toBe(true);
    expect(value.files).toHaveLength(MAX_GLOB_RESULTS);
    expect(value.files).toEqual([...value.files].sort());
    expect(value.totalFiles).toBe(MAX_GLOB_RESULTS + 1);
    expect(content).toMatch(/Files 1-1000 of 1001\. Call glob again with offset 1000/);
    const rest = await glob({ pattern: 'many/*.txt', offset: MAX_GLOB_RESULTS });
    expect(rest.value).toMatchObject({ offset: 1000, totalFiles: 1001, truncated: false });
    expect(rest.value.files).toHaveLength(1);
    expect([...value.files, ...rest.value.files].sort()).toEqual(
      Array.from({ length: MAX_GLOB_RESULTS + 1 }, (_, i) => `many/f${i}.txt`).sort(),
    );
  });

  it('stops with ABORTED when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(glob({ pattern: '**/*' }, {}, execWith(controller.signal))).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});

describe('glob and .gitignore', () => {
  beforeEach(async () => {
    const files: Record<string, string> = {
      '.gitignore': 'dist/\n*.log\n!keep.log\n',
      'dist/bundle.ts': '',
      'debug.log': '',
      'keep.log': '',
      'src/.gitignore': '/generated.ts\n',
      'src/generated.ts': '',
      'src/deep/generated.ts': '',
    };
    for (const [name, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(ws, name)), { recursive: true });
      await fs.writeFile(path.join(ws, name), text);
    }
  });

  it('leaves out what .gitignore files exclude, also below a path given inside the workspace', async () => {
    expect((await glob({ pattern: '**/*.{ts,log}' })).value.files).toEqual([
      'keep.log',
      'src/deep/generated.ts',
      'src/deep/nested/x.ts',
      'src/index.ts',
      'src/util.ts',
      'test/a.test.ts',
    ]);
    expect((await glob({ pattern: '**/generated.ts', path: 'src' })).value.files).toEqual(['src/deep/generated.ts']);
  });

  it('lists ignored files and node_modules with no_ignore, and an ignored directory the pattern names', async () => {
    const all = await glob({ pattern: '**/*.{ts,log,js}', no_ignore: true });
    expect(all.value.files).toEqual([
      'debug.log',
      'dist/bundle.ts',
      'keep.log',
      'node_modules/dep/index.js',
      'src/deep/generated.ts',
      'src/deep/nested/x.ts',
      'src/generated.ts',
      'src/index.ts',
      'src/util.ts',
      'test/a.test.ts',
    ]);
    expect((await glob({ pattern: 'dist/*.ts' })).value.files).toEqual(['dist/bundle.ts']);
  });
});
