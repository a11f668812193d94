import { describe, expect, it } from 'vitest';
import { renderUnifiedDiff } from './diff-render.js';

describe('renderUnifiedDiff', () => {
  it('shows a change as a unified diff with headers and one hunk', () => {
    const lines = renderUnifiedDiff('src/a.ts', 'one\ntwo\nthree\n', 'one\n2\nthree\n');
    expect(lines).toEqual(['--- a/src/a.ts', '+++ b/src/a.ts', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
  });

  it('shows a new file against /dev/null', () => {
    expect(renderUnifiedDiff('b.txt', null, 'beta\n')).toEqual(['--- /dev/null', '+++ b/b.txt', '@@ -0,0 +1,1 @@', '+beta']);
  });

  it('escapes control characters of the texts and the path', () => {
    const lines = renderUnifiedDiff('x\u001b[2J.txt', 'a\n', 'a\u001b[31m\rb\n');
    expect(lines.join('\n')).not.toMatch(/[\u001b\r]/);
    expect(lines).toContain('+a\\u001b[31m\\u000db');
    expect(lines[0]).toBe('--- a/x\\u001b[2J.txt');
  });

  it('colours added and removed lines when asked', () => {
    const lines = renderUnifiedDiff('a', 'x\n', 'y\n', { color: true });
    expect(lines).toContain('\u001b[31m-x\u001b[39m');
    expect(lines).toContain('\u001b[32m+y\u001b[39m');
  });

  it('cuts a long diff and says how much is left', () => {
    const after = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const lines = renderUnifiedDiff('big', null, after, { maxLines: 10 });
    expect(lines).toHaveLength(2 + 10 + 1);
    expect(lines.at(-1)).toMatch(/41 more diff lines not shown/);
  });

  it('says so when nothing changed', () => {
    expect(renderUnifiedDiff('a', 'same\n', 'same\n')).toEqual(['(a: no change)']);
  });
});
