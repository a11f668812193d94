// The sandbox is reached only through its index (docs/sandbox-launch.md): every import in src/ and
// bench/ from outside src/sandbox/ that lands in src/sandbox/ names index.js, and the sandbox's own
// files import nothing of the project but errors.ts and limits.ts, and never each other in a cycle.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sandboxDir = join(repo, 'src', 'sandbox');

/** Static imports and re-exports (`from '...'`), side-effect imports and dynamic `import('...')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The repo-relative files `file` imports by relative specifier (extension-less, `.js` read as `.ts`). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1] as string;
    if (!spec.startsWith('.')) continue;
    out.push(resolve(dirname(file), spec).replace(/\.(js|ts)$/, ''));
  }
  return out;
}

function inSandbox(path: string): boolean {
  return path === sandboxDir || path.startsWith(sandboxDir + sep);
}

/**
 * The index, and host-only.ts: the exec server's client reads where the host-only root is before
 * anything else loads (docs/exec-server.md), and the index is the whole sandbox to compile.
 */
const ENTRY_POINTS = new Set([join(sandboxDir, 'index'), join(sandboxDir, 'host-only')]);

describe('the sandbox public surface', () => {
  it('is (with host-only.ts) the only way into src/sandbox/ from the rest of src/ and bench/', () => {
    const offenders: string[] = [];
    const files = [...sourceFiles(join(repo, 'src')), ...sourceFiles(join(repo, 'bench'))].filter((file) => !inSandbox(file));
    for (const file of files) {
      for (const target of relativeImports(file)) {
        if (inSandbox(target) && !ENTRY_POINTS.has(target)) {
          offenders.push(`${relative(repo, file)} imports ${relative(repo, target)}`);
        }
      }
    }
    // Checked on a file that does: the scan would see a deep import if there were one.
    expect(relativeImports(join(repo, 'src', 'sandbox', 'launch.ts'))).toContain(join(sandboxDir, 'plan-launch'));
    expect(offenders, 'import these from src/sandbox/index.js instead (docs/sandbox-launch.md)').toEqual([]);
  });

  it('imports nothing of the project but errors and limits, and has no import cycle', () => {
    const files = sourceFiles(sandboxDir).filter((file) => !file.endsWith('.test.ts'));
    const allowedOutside = new Set([join(repo, 'src', 'errors'), join(repo, 'src', 'limits')]);
    const graph = new Map<string, string[]>();
    const outside: string[] = [];
    for (const file of files) {
      const key = file.replace(/\.ts$/, '');
      const targets = relativeImports(file);
      for (const target of targets) if (!inSandbox(target) && !allowedOutside.has(target)) outside.push(`${relative(repo, file)} imports ${relative(repo, target)}`);
      graph.set(key, targets.filter(inSandbox));
    }
    expect(outside).toEqual([]);
    expect(findCycle(graph)?.map((path) => relative(repo, path))).toBeUndefined();
  });

  it('finds a cycle where there is one (the check itself)', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['a', ['b']], ['b', []]]))).toBeUndefined();
  });
});

/** One import cycle of `graph` (file -> the files it imports), as its path; undefined when it has none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}
