import { describe, expect, it } from 'vitest';

import { IgnoreStack, parseGitignore } from './gitignore.js';

const ROOT = [
  '# comment',
  '*.log',
  '!keep.log',
  'build/',
  '/dist',
  'docs/*.md',
  '**/tmp/cache',
  'a/**/z',
  'out/**',
  'foo\\ ',
  '\\#hash',
  '[abc]x.txt',
  'name?',
  'trailing   ',
  '',
].join('\n');
const SUB = 'generated/\r\n!important.log\r\n/local\r\n';

// Each row was checked against `git check-ignore --no-index` with the same two files (a directory is
// given as one; git answers for a path below it through the parent).
const table: [path: string, isDirectory: boolean, ignored: boolean][] = [
  ['x.log', false, true],
  ['keep.log', false, false],
  ['sub/y.log', false, true],
  ['sub/important.log', false, false],
  ['build', true, true],
  ['build', false, false],
  ['src/build', true, true],
  ['dist', true, true],
  ['dist', false, true],
  ['src/dist', true, false],
  ['docs/a.md', false, true],
  ['docs/deep/a.md', false, false],
  ['src/docs/a.md', false, false],
  ['tmp/cache', false, true],
  ['x/tmp/cache', true, true],
  ['a/z', false, true],
  ['a/b/c/z', false, true],
  ['out', true, false],
  ['out/x', false, true],
  ['foo ', false, true],
  ['foo', false, false],
  ['#hash', false, true],
  ['ax.txt', false, true],
  ['dx.txt', false, false],
  ['name1', false, true],
  ['name12', false, false],
  ['trailing', false, true],
  ['sub/generated', true, true],
  ['sub/generated', false, false],
  ['sub/local', false, true],
  ['sub/x/local', false, false],
  ['local', false, false],
];

describe('gitignore rules', () => {
  const stack = IgnoreStack.empty.with(parseGitignore(ROOT, '')).with(parseGitignore(SUB, 'sub'));
  it.each(table)('%s (directory: %s) ignored: %s', (path, isDirectory, ignored) => {
    expect(stack.ignores(path, isDirectory)).toBe(ignored);
  });

  it('lets a deeper file override a shallower one, and the last matching line win within a file', () => {
    const outer = IgnoreStack.empty.with(parseGitignore('*.gen\n', ''));
    expect(outer.ignores('lib/a.gen', false)).toBe(true);
    const inner = outer.with(parseGitignore('!a.gen\n', 'lib'));
    expect(inner.ignores('lib/a.gen', false)).toBe(false);
    expect(inner.ignores('b.gen', false)).toBe(true);
    const lastWins = IgnoreStack.empty.with(parseGitignore('!x\nx\n', ''));
    expect(lastWins.ignores('x', false)).toBe(true);
  });

  it('anchors a pattern with a slash to the directory of its file', () => {
    const stack = IgnoreStack.empty.with(parseGitignore('/only-here\nsrc/gen\n', 'pkg'));
    expect(stack.ignores('pkg/only-here', false)).toBe(true);
    expect(stack.ignores('pkg/deeper/only-here', false)).toBe(false);
    expect(stack.ignores('only-here', false)).toBe(false);
    expect(stack.ignores('pkg/src/gen', true)).toBe(true);
    expect(stack.ignores('pkg/x/src/gen', true)).toBe(false);
  });

  it('ignores comments, blank lines, a broken class and a file without rules', () => {
    const file = parseGitignore('# a\n\n   \n[z-a]\n', '');
    expect(file.rules).toHaveLength(0);
    expect(IgnoreStack.empty.with(file)).toBe(IgnoreStack.empty);
  });

  it('never lets a wildcard or class match a slash', () => {
    const stack = IgnoreStack.empty.with(parseGitignore('a*b\nc?d\ne[/]f\n', ''));
    expect(stack.ignores('a/b', false)).toBe(false);
    expect(stack.ignores('x/axxb', false)).toBe(true);
    expect(stack.ignores('c/d', false)).toBe(false);
  });
});
