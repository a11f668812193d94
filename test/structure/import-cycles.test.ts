// No file of src/ loads itself back through its imports, static or dynamic (issue 31: a cycle makes
// load order matter and hides which layer depends on which; docs/presets.md "Shipped rows" says how
// assembly avoids the one it had).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph } from '../helpers/import-graph.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

describe('the import graph of src/', () => {
  it('has no cycles', () => {
    const graph = importGraph(src);
    expect(graph.size).toBeGreaterThan(100);
    const cycles = cyclesOf(graph).map((cycle) => cycle.map((file) => path.relative(src, file)));
    expect(cycles).toEqual([]);
  }, 60_000);

  it('counts dynamic imports and leaves out type-only ones (a check that can fail)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-imports-'));
    try {
      const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
      write('a.ts', "import { b } from './b.js';\nexport { c } from './c.js';\nexport const a = b;\n");
      write('b.ts', "export const b = 1;\nexport async function later() { return (await import('./a.js')).a; }\n");
      write('c.ts', "import type { a } from './a.js';\nexport type A = typeof import('./a.js');\nexport const c: typeof a = 1;\n");
      const cycles = cyclesOf(importGraph(dir)).map((cycle) => cycle.map((file) => path.basename(file)));
      expect(cycles).toEqual([['a.ts', 'b.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
