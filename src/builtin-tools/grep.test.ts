import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES, MAX_LINE_CHARS } from './limits.js';
import type { ToolExecContext } from '../tools/types.js';
import { createGrepTool, type GrepArgs } from './grep.js';
import { sharedRegexWorkerPool } from './regex-worker-pool.js';
import { resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';

let dir: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-grep-')));
  ws = path.join(dir, 'ws');
  outside = path.join(dir, 'outside');
  await fs.mkdir(path.join(ws, 'src', 'lib'), { recursive: true });
  await fs.mkdir(path.join(ws, 'node_modules', 'dep'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(ws, 'src', 'a.ts'), 'import x from "y";\nfunction loadConfig() {}\n');
  await fs.writeFile(path.join(ws, 'src', 'lib', 'b.ts'), 'export const LOAD = 1;\nfunction load() {}\n');
  await fs.writeFile(path.join(ws, 'notes.md'), 'load the truck\r\n');
  await fs.writeFile(path.join(ws, 'node_modules', 'dep', 'index.js'), 'function load() {}\n');
  await fs.writeFile(path.join(outside, 'secret.ts'), 'function load() {}\n');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function execWith(signal = new AbortController().signal): ToolExecContext {
  return { signal, callId: 't1', deferContext() {} };
}

function grep(args: GrepArgs, options: Partial<WorkspacePolicyInput> = {}, exec = execWith()) {
  const tool = createGrepTool({ policy: resolveWorkspacePolicy({ cwd: ws, ...options }) });
  return Promise.resolve(tool.execute(args, exec)).then((value) => ({ value, content: tool.renderContent!(value) }));
}

describe('grep', () => {
  it('finds matching lines with path and line number', async () => {
    const { value, content } = await grep({ pattern: 'function\\s+load' });
    expect(value).toEqual({
      pattern: 'function\\s+load',
      path: '.',
      matches: [
        { path: 'src/a.ts', line: 2, text: 'function loadConfig() {}' },
        { path: 'src/lib/b.ts', line: 2, text: 'function load() {}' },
      ],
      offset: 0,
      totalMatches: 2,
      truncated: false,
      filesWithMatches: 2,
      filesSearched: 3,
      filesSkipped: 0,
    });
    expect(content).toBe('src/a.ts:2:function loadConfig() {}\nsrc/lib/b.ts:2:function load() {}');
  });

  it('matches case-insensitively with ignore_case and strips CR', async () => {
    const { value } = await grep({ pattern: '^load|LOAD =', ignore_case: true });
    expect(value.matches.map((m) => `${m.path}:${m.line}:${m.text}`)).toEqual([
      'notes.md:1:load the truck',
      'src/lib/b.ts:1:export const LOAD = 1;',
    ]);
  });

  it('filters files by name or by path with glob', async () => {
    const byName = await grep({ pattern: 'load', glob: '*.md' });
    expect(byName.value.matches.map((m) => m.path)).toEqual(['notes.md']);
    const byPath = await grep({ pattern: 'load', glob: 'src/lib/*.ts' });
    expect(byPath.value.matches.map((m) => m.path)).toEqual(['src/lib/b.ts']);
    const modules = await grep({ pattern: 'load', glob: 'node_modules/**/*.js' });
    expect(modules.value.matches.map((m) => m.path)).toEqual(['node_modules/dep/index.js']);
  });

  it('searches a directory or a single file given as path', async () => {
    expect((await grep({ pattern: 'load', path: 'src/lib' })).value.matches).toHaveLength(1);
    const single = await grep({ pattern: 'import', path: 'src/a.ts' });
    expect(single.value).toMatchObject({ path: 'src/a.ts', filesSearched: 1, matches: [{ path: 'src/a.ts', line: 1 }] });
  });

  it('says so when nothing matches', async () => {
    const { value, content } = await grep({ pattern: 'nothing-here' });
    expect(value.matches).toEqual([]);
    expect(content).toContain('No matches');
  });

  it('skips binary and oversized files and notes them', async () => {
    await fs.writeFile(path.join(ws, 'blob.bin'), Buffer.concat([Buffer.from('load'), Buffer.from([0])]));
    const big = await fs.open(path.join(ws, 'big.txt'), 'w');
    await big.write('load\n');
    await big.truncate(MAX_GREP_FILE_BYTES + 1);
    await big.close();
    const { value, content } = await grep({ pattern: 'load', path: '.', glob: '*.{bin,txt}' });
    expect(value).toMatchObject({ matches: [], filesSearched: 0, filesSkipped: 2 });
    expect(content).toContain('Skipped 2');
  });

  it('shortens very long matching lines', async () => {
    await fs.writeFile(path.join(ws, 'wide.txt'), `load${'z'.repeat(MAX_LINE_CHARS)}\n`);
    const { value } = await grep({ pattern: 'load', glob: 'wide.txt' });
    expect(value.matches[0]?.text).toContain('more characters cut');
  });

  it('caps the matches, gives the total and notes how to page on', async () => {
    await fs.writeFile(path.join(ws, 'many.txt'), 'hit\n'.repeat(MAX_GREP_MATCHES + 5));
    const { value, content } = await grep({ pattern: 'hit' });
    expect(value.truncated).toBe(true);
    expect(value.matches).toHaveLength(MAX_GREP_MATCHES);
    expect(value.totalMatches).toBe(MAX_GREP_MATCHES + 5);
    expect(content).toMatch(/Matches 1-500 of 505 \(in 1 file\)\. Call grep again with offset 500/);
    const next = await grep({ pattern: 'hit', offset: MAX_GREP_MATCHES });
    expect(next.value).toMatchObject({ offset: 500, totalMatches: 505, truncated: false });
    expect(next.value.matches.map((m) => m.line)).toEqual([501, 502, 503, 504, 505]);
    const past = await grep({ pattern: 'hit', offset: 600 });
    expect(past.value.matches).toEqual([]);
    expect(past.content).toMatch(/No matches from offset 600.*has 505/);
  });

  it('rejects an invalid regular expression with INVALID_ARGS and says how to escape', async () => {
    const result = grep({ pattern: 'load(' });
    await expect(result).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    await expect(result).rejects.toThrow(/backslash/);
  });

  it('does not search through symlinks that lead out of the workspace', async () => {
    await fs.symlink(outside, path.join(ws, 'src', 'out'));
    await fs.symlink(path.join(outside, 'secret.ts'), path.join(ws, 'src', 'secret.ts'));
    const { value } = await grep({ pattern: 'load' });
    expect(value.matches.some((m) => m.path.includes('secret') || m.path.includes('out/'))).toBe(false);
    for (const p of ['src/out', 'src/secret.ts', '../outside', outside]) {
      await expect(grep({ pattern: 'load', path: p }), p).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    }
  });

  it('searches through symlinks that stay inside the workspace (a linked file is handed to the worker opened)', async () => {
    await fs.symlink(path.join(ws, 'src', 'a.ts'), path.join(ws, 'alias.ts'));
    await fs.symlink(path.join(ws, 'src', 'lib'), path.join(ws, 'linked-lib'));
    const { value } = await grep({ pattern: 'function\\s+load' });
    expect(value.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['alias.ts:2', 'linked-lib/b.ts:2', 'src/a.ts:2', 'src/lib/b.ts:2']);
    expect(value.filesSearched).toBe(5);
  });

  it('searches outside the workspace when allowRead opens it', async () => {
    const { value } = await grep({ pattern: 'load', path: outside }, { allowRead: [outside] });
    expect(value.matches).toEqual([{ path: path.join(outside, 'secret.ts'), line: 1, text: 'function load() {}' }]);
  });

  it('fails with TOOL_FAILED for a missing path', async () => {
    await expect(grep({ pattern: 'x', path: 'nope' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });

  it('stops with ABORTED when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(grep({ pattern: 'load' }, {}, execWith(controller.signal))).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await expect(grep({ pattern: 'load', path: 'notes.md' }, {}, execWith(controller.signal))).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});

describe('grep with a catastrophic pattern', () => {
  it('ends as TIMEOUT at its time limit while the host and other grep calls keep running', async () => {
    // 40 a's and a b: (a+)+$ backtracks about 2^40 steps on this line, hours on one core.
    await fs.writeFile(path.join(ws, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const policy = resolveWorkspacePolicy({ cwd: ws });
    const slow = createGrepTool({ policy, timeoutMs: 1_500 });
    const normal = createGrepTool({ policy });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const catastrophic = Promise.resolve(slow.execute({ pattern: '(a+)+$', path: 'evil.txt' }, execWith())).then(
        () => undefined,
        (error: unknown) => error,
      );
      // While it backtracks in its worker, other searches finish and the event loop keeps ticking.
      const others = await Promise.all([1, 2, 3].map(() => normal.execute({ pattern: 'function\\s+load' }, execWith())));
      for (const other of others) expect(other.matches.map((m) => m.path)).toEqual(['src/a.ts', 'src/lib/b.ts']);
      expect(await catastrophic).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/nested quantifiers/) });
      expect(ticks).toBeGreaterThan(10);
    } finally {
      clearInterval(ticker);
    }
  });

  it('ends as ABORTED when its call is aborted mid-match', async () => {
    await fs.writeFile(path.join(ws, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const controller = new AbortController();
    const tool = createGrepTool({ policy: resolveWorkspacePolicy({ cwd: ws }) });
    const call = Promise.resolve(tool.execute({ pattern: '(a+)+$', path: 'evil.txt' }, execWith(controller.signal)));
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('searches every file past the page, so the totals are exact', async () => {
    for (let i = 0; i < 3; i++) {
      await fs.writeFile(path.join(ws, `many-${i}.txt`), 'hit\n'.repeat(MAX_GREP_MATCHES));
    }
    const { value } = await grep({ pattern: '^hit$', glob: 'many-*.txt' });
    expect(value.truncated).toBe(true);
    expect(value.matches).toHaveLength(MAX_GREP_MATCHES);
    expect(value.matches.every((m) => m.path === 'many-0.txt')).toBe(true);
    expect(value).toMatchObject({ totalMatches: 3 * MAX_GREP_MATCHES, filesWithMatches: 3, filesSearched: 3 });
  });
});

describe('grep and .gitignore', () => {
  beforeEach(async () => {
    const files: Record<string, string> = {
      '.gitignore': 'build/\n*.log\n!keep.log\n/top-only.txt\n',
      'build/out.ts': 'load\n',
      'src/build/deep.ts': 'load\n',
      'debug.log': 'load\n',
      'keep.log': 'load\n',
      'top-only.txt': 'load\n',
      'src/top-only.txt': 'load\n',
      'src/.gitignore': 'gen/\n!lib/b.ts\nlib/*.ts\n',
      'src/gen/x.ts': 'load\n',
      'src/lib/c.ts': 'load\n',
    };
    for (const [name, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(ws, name)), { recursive: true });
      await fs.writeFile(path.join(ws, name), text);
    }
  });

  const paths = (value: { matches: { path: string }[] }) => [...new Set(value.matches.map((m) => m.path))];

  it('skips what .gitignore files exclude (nested files, negation, directory-only and anchored patterns)', async () => {
    const { value } = await grep({ pattern: 'load' });
    // In src/.gitignore `lib/*.ts` comes after `!lib/b.ts`, so the later line wins and b.ts is ignored too.
    expect(paths(value)).toEqual(['keep.log', 'notes.md', 'src/a.ts', 'src/top-only.txt']);
  });

  it('applies the .gitignore files above a path given inside the workspace', async () => {
    const { value } = await grep({ pattern: 'load', path: 'src' });
    expect(paths(value)).toEqual(['src/a.ts', 'src/top-only.txt']);
  });

  it('searches ignored files and node_modules with no_ignore, never .git', async () => {
    await fs.mkdir(path.join(ws, '.git'));
    await fs.writeFile(path.join(ws, '.git', 'HEAD'), 'load\n');
    const { value } = await grep({ pattern: 'load', no_ignore: true });
    expect(paths(value)).toEqual([
      'build/out.ts',
      'debug.log',
      'keep.log',
      'node_modules/dep/index.js',
      'notes.md',
      'src/a.ts',
      'src/build/deep.ts',
      'src/gen/x.ts',
      'src/lib/b.ts',
      'src/lib/c.ts',
      'src/top-only.txt',
      'top-only.txt',
    ]);
  });

  it('enters an ignored directory the glob names, as it does node_modules', async () => {
    const { value } = await grep({ pattern: 'load', glob: 'build/*.ts' });
    expect(paths(value)).toEqual(['build/out.ts']);
  });
});

describe('grep over many files', () => {
  /** What grep computed on the host before the worker threads: the reference every page must equal. */
  async function reference(pattern: RegExp, files: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const file of files) {
      const text = new TextDecoder().decode(await fs.readFile(path.join(ws, file)));
      const lines = text === '' ? [] : text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      lines.forEach((line, i) => {
        const stripped = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (pattern.test(stripped)) out.push(`${file}:${i + 1}:${stripped}`);
      });
    }
    return out;
  }

  it('pages through every match of 700 files in several batches, in file order, with exact totals', async () => {
    await fs.rm(path.join(ws, 'src'), { recursive: true });
    await fs.rm(path.join(ws, 'notes.md'));
    const names: string[] = [];
    for (let d = 0; d < 7; d++) {
      await fs.mkdir(path.join(ws, `d${d}`));
      for (let f = 0; f < 100; f++) {
        const name = `d${d}/f${String(f).padStart(3, '0')}.txt`;
        names.push(name);
        const hits = (d * 100 + f) % 5;
        await fs.writeFile(path.join(ws, name), Array.from({ length: 6 }, (_, i) => (i < hits ? `hit ${d}.${f}.${i}` : 'miss')).join('\n'));
      }
    }
    const expected = await reference(/hit/, names.sort());
    const seen: string[] = [];
    for (let offset = 0; ; ) {
      const { value } = await grep({ pattern: 'hit', offset, limit: 137 });
      expect(value.totalMatches).toBe(expected.length);
      expect(value.filesSearched).toBe(700);
      seen.push(...value.matches.map((m) => `${m.path}:${m.line}:${m.text}`));
      offset += value.matches.length;
      if (!value.truncated) break;
    }
    expect(seen).toEqual(expected);
  });

  it('finds exactly the lines a per-line RegExp finds, for patterns searched over whole texts and per line', async () => {
    const texts: Record<string, string> = {
      'crlf.txt': 'one\r\ntwo\r\n\r\nthree',
      'lone-cr.txt': 'a\rb\nab\r\n',
      'bom.txt': '\uFEFFfirst line\nsecond\n',
      'unicode.txt': 'Ünïcödé λ\n😀 emoji\nplain\n',
      'empty.txt': '',
      'blank-lines.txt': '\n\n\nx\n\n',
      'no-final-newline.txt': 'TODO: a\nlast TODO',
      'spaces.txt': 'a b\na\nb\n  \n',
    };
    await fs.rm(path.join(ws, 'src'), { recursive: true });
    await fs.rm(path.join(ws, 'notes.md'));
    for (const [name, text] of Object.entries(texts)) await fs.writeFile(path.join(ws, name), text);
    const patterns = ['^$', '^', '$', '.$', 'TODO', 'b$', '^a', '\\r', 'a\\s*b', 'a[^x]b', '(?<=a)b', 'a(?!b)', '\\bb', 'λ|\\u{1F600}', '^first', 'e$'];
    for (const pattern of patterns) {
      const { value } = await grep({ pattern });
      const expected = await reference(new RegExp(pattern), Object.keys(texts).sort());
      expect({ pattern, found: value.matches.map((m) => `${m.path}:${m.line}:${m.text}`) }).toEqual({ pattern, found: expected });
    }
  });

  it('leaves no descriptor open after searches that finish, time out mid-search or are aborted', async () => {
    for (let d = 0; d < 4; d++) {
      await fs.mkdir(path.join(ws, `many${d}`));
      for (let f = 0; f < 300; f++) await fs.writeFile(path.join(ws, `many${d}`, `f${f}.txt`), `${'a'.repeat(28)}b\nload\n`);
    }
    // Each worker thread holds a few descriptors of its own (its event loop): count with none alive.
    const open = async () => {
      await sharedRegexWorkerPool().close();
      return (await fs.readdir('/proc/self/fd')).length;
    };
    await grep({ pattern: 'load' });
    const before = await open();
    const policy = resolveWorkspacePolicy({ cwd: ws });
    for (let i = 0; i < 3; i++) {
      expect((await grep({ pattern: 'load' })).value.totalMatches).toBe(1203);
      const slow = createGrepTool({ policy, timeoutMs: 300 });
      await expect(Promise.resolve(slow.execute({ pattern: '(a+)+$' }, execWith()))).rejects.toMatchObject({ code: 'TIMEOUT' });
      const controller = new AbortController();
      const call = Promise.resolve(createGrepTool({ policy }).execute({ pattern: '(a+)+$' }, execWith(controller.signal)));
      setTimeout(() => controller.abort(), 100);
      await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    }
    expect(await open()).toBe(before);
  });
});
