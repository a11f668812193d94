// The static imports of a module the host would import (a workspace plugin file, a file of a
// workspace package), and where Node would find each: what the trust digest follows past the files a
// preset names (docs/presets.md, "Trust"). TypeScript is stripped first (the same eraser the plugin
// hooks use), then acorn reads `import`/`export ... from`, `import('literal')` and
// `require('literal')`. A computed specifier cannot be followed: it is reported, not resolved.

import { isBuiltin } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type Node } from 'acorn';
import { stripTypes } from '../languages/typescript/runtime/strip.js';
import { isFile, realOrSelf } from './package-location.js';

/** Files whose imports are read: what Node (with the TypeScript hooks) imports as code. */
const CODE_FILE = /\.(?:[cm]?js|[cm]?ts|jsx)$/;
const TYPESCRIPT_FILE = /\.[cm]?ts$/;

/** Extensions tried after the exact file, and the index files of a directory, in order. */
const PROBE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.json', '.node'];
const INDEX_FILES = PROBE_EXTENSIONS.map((ext) => `index${ext}`);

export interface ModuleImports {
  /** The string specifiers, in source order. */
  readonly specifiers: readonly string[];
  /** `file:line` of each `import(...)`/`require(...)` whose specifier is computed (not followed). */
  readonly computed: readonly string[];
}

export function isCodeFile(file: string): boolean {
  return CODE_FILE.test(file);
}

/** The imports of the module `file`; a file that does not parse has none (Node would not load it either). */
export function readModuleImports(file: string, source: string): ModuleImports {
  let code = source;
  if (TYPESCRIPT_FILE.test(file) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
    try {
      code = stripTypes(source);
    } catch {
      return { specifiers: [], computed: [] };
    }
  }
  let tree: Node | undefined;
  for (const sourceType of ['module', 'script'] as const) {
    try {
      tree = parse(code, {
        ecmaVersion: 'latest',
        sourceType,
        locations: true,
        allowHashBang: true,
        allowReturnOutsideFunction: sourceType === 'script',
        allowAwaitOutsideFunction: true,
        allowImportExportEverywhere: false,
      });
      break;
    } catch {
      // A CommonJS file (top-level return) parses as a script.
    }
  }
  if (tree === undefined) return { specifiers: [], computed: [] };
  const specifiers: string[] = [];
  const computed: string[] = [];
  const visit = (node: Node): void => {
    const n = node as Node & Record<string, unknown>;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration': {
        const value = literal(n['source']);
        if (value !== undefined) specifiers.push(value);
        break;
      }
      case 'ImportExpression': {
        const value = literal(n['source']);
        if (value !== undefined) specifiers.push(value);
        else computed.push(`${file}:${node.loc?.start.line ?? 0}`);
        break;
      }
      case 'CallExpression': {
        const callee = n['callee'] as (Node & { name?: string }) | undefined;
        if (callee?.type === 'Identifier' && callee.name === 'require') {
          const value = literal((n['arguments'] as unknown[])[0]);
          if (value !== undefined) specifiers.push(value);
          else computed.push(`${file}:${node.loc?.start.line ?? 0}`);
        }
        break;
      }
    }
    for (const key of Object.keys(n)) {
      if (key === 'loc') continue;
      const child = n[key];
      if (Array.isArray(child)) {
        for (const item of child) if (isNode(item)) visit(item);
      } else if (isNode(child)) visit(child);
    }
  };
  visit(tree);
  return { specifiers, computed };
}

/** Where a specifier leads: nothing to follow (a builtin, a `#` import), a file, or a bare package. */
export type ResolvedImport =
  | { readonly kind: 'none'; readonly probed: readonly string[] }
  | { readonly kind: 'file'; readonly file: string; readonly probed: readonly string[] }
  | { readonly kind: 'package'; readonly name: string };

/**
 * Resolves `specifier` from the module `fromFile` the way Node (with the hooks) would look for it: the
 * exact file, the hooks' `.js` → `.ts` fallback, then extensions and a directory's index. `probed`
 * are the candidates tried before the hit (or all of them): a file created at one later would take
 * precedence, so the digest records that each is absent.
 */
export function resolveImport(specifier: string, fromFile: string): ResolvedImport {
  if (isBuiltin(specifier) || specifier.startsWith('#') || /^(?:data|https?):/.test(specifier)) return { kind: 'none', probed: [] };
  let base: string;
  if (specifier.startsWith('file:')) {
    try {
      base = fileURLToPath(specifier);
    } catch {
      return { kind: 'none', probed: [] };
    }
  } else if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    base = path.resolve(path.dirname(fromFile), specifier.split(/[?#]/)[0]!);
  } else {
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    return { kind: 'package', name };
  }
  const candidates = [base];
  if (/\.m?js$/.test(base)) candidates.push(base.replace(/js$/, 'ts'));
  candidates.push(...PROBE_EXTENSIONS.map((ext) => base + ext), ...INDEX_FILES.map((index) => path.join(base, index)));
  const probed: string[] = [];
  for (const candidate of candidates) {
    if (isFile(candidate)) return { kind: 'file', file: realOrSelf(candidate), probed };
    probed.push(candidate);
  }
  return { kind: 'none', probed };
}

/**
 * The `node_modules/<name>` directories Node would try for a bare import from `fromDir`, in order,
 * until the first that exists (included last when there is one).
 */
export function packageProbes(name: string, fromDir: string): { tried: string[]; found?: string } {
  const tried: string[] = [];
  let dir = path.resolve(fromDir);
  for (;;) {
    if (path.basename(dir) !== 'node_modules') {
      const candidate = path.join(dir, 'node_modules', name);
      if (isDirectory(candidate)) return { tried, found: candidate };
      tried.push(candidate);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return { tried };
    dir = parent;
  }
}

function literal(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  const n = node as Node & { value?: unknown; expressions?: unknown[]; quasis?: { value: { cooked?: string | null } }[] };
  if (node.type === 'Literal' && typeof n.value === 'string') return n.value;
  if (node.type === 'TemplateLiteral' && n.expressions?.length === 0) return n.quasis?.[0]?.value.cooked ?? undefined;
  return undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
