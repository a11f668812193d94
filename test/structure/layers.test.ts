// The layers of src/ hold (docs/architecture.md, "Layers"): every folder and root file of src/ is in a
// row of the table, no file imports into a higher layer, and the folders of one layer do not import
// each other in a cycle. Type-only imports (and `declare module` augmentations) count: a type still
// couples the folders (issue 31).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/import-graph.js';
import { checkLayers, layersOfDoc, type AllowedImport } from '../helpers/layer-check.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Imports allowed to break the layers: none. An entry must say why; one that no import needs any
 * more fails the test, so the list can only shrink.
 */
const ALLOWED: readonly AllowedImport[] = [];

describe('the layers of src/', () => {
  const layers = layersOfDoc(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));

  it('reads the table of docs/architecture.md, bottom layer first', () => {
    expect(layers.map((layer) => layer.name)).toEqual(['base', 'kernel', 'runtimes', 'features', 'assembly', 'agent', 'front-ends']);
  });

  it('places every file, imports nothing upward and has no cycle between the folders of a layer', () => {
    const graph = importGraph(path.join(root, 'src'), 'types');
    expect(graph.size).toBeGreaterThan(100);
    const report = checkLayers(graph, layers, root, ALLOWED);
    expect(report.unplaced, 'add the folder to a row of the table in docs/architecture.md ("Layers")').toEqual([]);
    expect(report.upward, 'move the shared piece down a layer, or pass it in from above').toEqual([]);
    expect(report.cycles, 'folders of one layer import each other: move the shared piece down, or pass it in').toEqual([]);
    expect(report.unusedAllowed, 'these allowlist entries are no longer needed: remove them').toEqual([]);
  }, 60_000);

  it('reports an upward import, a cycle in a layer, an unplaced folder and a stale allowance (the check itself)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-layers-'));
    try {
      const write = (name: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      };
      write('src/base.ts', "import type { Low } from './low/low.js';\nexport type Base = Low;\n");
      write('src/low/low.ts', "import { b } from '../b/b.js';\nexport type Low = number;\nexport const a = b;\n");
      write('src/b/b.ts', "export const b = 1;\nexport type B = typeof import('../c/c.js');\n");
      write('src/c/c.ts', "import { b } from '../b/b.js';\nexport const c = b;\n");
      write('src/low/aug.ts', "declare module '../d/d.js' {\n  interface D { x: number }\n}\nexport {};\n");
      write('src/d/d.ts', "import { a } from '../low/low.js';\nexport const d = a;\n");
      write('src/new/n.ts', 'export const n = 1;\n');
      const doc = [
        '# Architecture', '', '## Layers', '', '| layer | folders and files | what it is |', '|---|---|---|',
        '| base | `src/base.ts` | x |', '| low | `src/low/` | x |', '| high | `src/b/`, `src/c/`, `src/d/` | x |', '', '## Services', '',
      ].join('\n');
      const made = layersOfDoc(doc);
      expect(made.map((layer) => layer.name)).toEqual(['base', 'low', 'high']);
      const graph = importGraph(path.join(dir, 'src'), 'types');
      const report = checkLayers(graph, made, dir, [{ from: 'src/d/', to: 'src/x/', reason: 'stale' }]);
      expect(report.unplaced).toEqual([expect.stringContaining('src/new/ has no layer; add it to the table in docs/architecture.md')]);
      expect(report.upward).toEqual([
        'src/base.ts (base) imports src/low/low.ts (low)',
        'src/low/aug.ts (low) imports src/d/d.ts (high)',
        'src/low/low.ts (low) imports src/b/b.ts (high)',
      ]);
      expect(report.cycles).toEqual(['src/b/ <-> src/c/: src/b/b.ts imports src/c/c.ts; src/c/c.ts imports src/b/b.ts']);
      expect(report.unusedAllowed).toEqual(['src/d/ -> src/x/']);
      // Without type-only imports, the base file's and b's type imports and the augmentation are gone, and so is the cycle.
      const runtime = checkLayers(importGraph(path.join(dir, 'src')), made, dir);
      expect(runtime.upward).toEqual(['src/low/low.ts (low) imports src/b/b.ts (high)']);
      expect(runtime.cycles).toEqual([]);
      // An allowance silences exactly its import.
      const allowed = checkLayers(graph, made, dir, [{ from: 'src/low/low.ts', to: 'src/b/', reason: 'test' }]);
      expect(allowed.upward).toEqual(['src/base.ts (base) imports src/low/low.ts (low)', 'src/low/aug.ts (low) imports src/d/d.ts (high)']);
      expect(allowed.unusedAllowed).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
