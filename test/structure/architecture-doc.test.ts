// docs/architecture.md names files and folders of this repository; each must exist, so the map
// cannot drift from the code without a test saying where.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The repository paths a markdown text names in backticks or as `docs/x.md` words. */
function namedPaths(markdown: string): string[] {
  const found = new Set<string>();
  for (const [, inner] of markdown.matchAll(/`([^`\s]+)`/g)) if (/^(src|docs|test|bench|presets|scripts)\//.test(inner!)) found.add(inner!);
  for (const [word] of markdown.matchAll(/\bdocs\/[\w.-]+\.md\b/g)) found.add(word);
  return [...found].sort();
}

describe('docs/architecture.md', () => {
  const text = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

  it('names only paths that exist', () => {
    const named = namedPaths(text);
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((p) => !fs.existsSync(path.join(root, p)))).toEqual([]);
  });

  it('reads a path out of backticks and bare docs/ words, so a missing one is caught', () => {
    expect(namedPaths('see `src/a.ts` and docs/b.md, not `npm test` or src/c.ts')).toEqual(['docs/b.md', 'src/a.ts']);
  });
});
