// The package's entries (docs/library-api.md): the root stays small, every subpath in package.json
// has its source here, and every entry loads.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }> };

/** The source of each package entry: `./dist/x/y.js` is built from `src/x/y.ts`. */
const entries = Object.entries(manifest.exports).map(([subpath, target]) => ({
  subpath,
  source: path.join(root, target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
}));

/** The names (values and types) a module exports, as a library user's compiler sees them. */
function exportedNames(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([...files], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      return [file, checker.getExportsOfModule(symbol).map((s) => s.name)];
    }),
  );
}

/** A bound on what a newcomer reads in the root entry (issue 31: "aim under 80 names"). */
const ROOT_NAME_LIMIT = 80;

describe('the package entries', () => {
  it('build every subpath from a source file here, and every entry file in src/exports/ is a subpath', () => {
    for (const entry of entries) expect(fs.existsSync(entry.source), `${entry.subpath} -> ${entry.source}`).toBe(true);
    const exported = new Set(entries.map((e) => e.source));
    const files = fs.readdirSync(path.join(root, 'src/exports')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    for (const file of files) expect(exported.has(path.join(root, 'src/exports', file)), file).toBe(true);
    for (const [, target] of Object.entries(manifest.exports)) expect(target.types).toBe(target.import.replace(/\.js$/, '.d.ts'));
  });

  it(`keep the root under ${ROOT_NAME_LIMIT} names, each subpath non-empty`, () => {
    const names = exportedNames(entries.map((e) => e.source));
    const rootEntry = entries.find((e) => e.subpath === '.')!;
    const rootNames = names.get(rootEntry.source)!;
    expect(rootNames.length).toBeGreaterThan(20);
    expect(rootNames.length).toBeLessThan(ROOT_NAME_LIMIT);
    for (const entry of entries) expect(names.get(entry.source)!.length, entry.subpath).toBeGreaterThan(0);
  }, 60_000);

  it.each(entries.map((e) => [e.subpath, e.source] as const))('load: %s', async (_subpath, source) => {
    const loaded = (await import(source)) as Record<string, unknown>;
    expect(Object.values(loaded).some((value) => typeof value === 'function' || typeof value === 'object')).toBe(true);
  }, 60_000);
});
