// The import graph of src/: which source file loads which, by static imports and exports and by
// dynamic `import('./x.js')`. The run-time graph leaves out what erases at build (`import type`,
// `export type`, `typeof import(...)`); the coupling graph keeps it, and `declare module` augmentations
// too (a type still ties the files).
// Structure tests read them (test/structure/).

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Source files under `dir` (not tests, not declaration files, not the browser client of the UI). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full.endsWith(path.join('ui', 'client'))) continue;
      out.push(...sourceFiles(full));
    } else if (/\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) out.push(full);
  }
  return out.sort();
}

/** What a graph counts: `runtime` what loads at run time, `types` type-only imports as well. */
export type ImportKinds = 'runtime' | 'types';

/** The relative specifiers a file loads at run time (with `types`, also those it imports types from). */
export function runtimeImports(file: string, kinds: ImportKinds = 'runtime'): string[] {
  const types = kinds === 'types';
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (types || !node.importClause?.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (types || !node.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteral(first)) found.push(first.text);
    } else if (types && ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) found.push(argument.literal.text);
    } else if (types && ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      // `declare module './x.js' { ... }` adds to x's types: a tie to x like an import of it.
      found.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((spec) => spec.startsWith('.'));
}

/** Every source file under `dir` -> the source files it loads (with `types`, or imports types from). */
export function importGraph(dir: string, kinds: ImportKinds = 'runtime'): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const targets = runtimeImports(file, kinds)
      .map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'))
      .filter((target) => fs.existsSync(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles of the graph: its strongly connected components of more than one file (or a file importing itself). */
export function cyclesOf(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (;;) {
        const w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return cycles;
}
