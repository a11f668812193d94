// Where a package row's package is on disk, found the way Node finds a bare import: the first
// `node_modules/<name>` walking up from a directory. Used to tell whether a package would come from
// a workspace (docs/presets.md, "Trust") and to hash its manifest and entry into the trust digest.

import fs from 'node:fs';
import path from 'node:path';

export interface PackageLocation {
  /** The package directory, symlinks resolved (Node imports from the real path too). */
  readonly dir: string;
  /** `<dir>/package.json`, when there is one. */
  readonly manifest?: string;
  /** The module `import` would load, when the manifest names it plainly (else `index.js` if present). */
  readonly entry?: string;
}

/** The package `name` as imported from `fromDir`, or undefined when no `node_modules` on the way up has it. */
export function findPackage(name: string, fromDir: string): PackageLocation | undefined {
  let dir = path.resolve(fromDir);
  for (;;) {
    if (path.basename(dir) !== 'node_modules') {
      const candidate = path.join(dir, 'node_modules', name);
      const real = realDirectory(candidate);
      if (real !== undefined) return describe(real);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether `file` is `dir` or inside it (both taken as real paths where they exist). */
export function isInside(file: string, dir: string): boolean {
  const relative = path.relative(realOrSelf(dir), realOrSelf(file));
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

export function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function realDirectory(candidate: string): string | undefined {
  try {
    const real = fs.realpathSync(candidate);
    return fs.statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function describe(dir: string): PackageLocation {
  const manifest = path.join(dir, 'package.json');
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  } catch {
    const index = path.join(dir, 'index.js');
    return { dir, ...(fs.existsSync(manifest) ? { manifest } : {}), ...(isFile(index) ? { entry: index } : {}) };
  }
  const target = entryOf(json);
  const entry = target === undefined ? undefined : path.resolve(dir, target);
  // An entry outside the package directory is not followed (the manifest is still hashed).
  return { dir, manifest, ...(entry !== undefined && isInside(entry, dir) && isFile(entry) ? { entry } : {}) };
}

/** `exports` (a string, or `.` with import/node/default conditions), else `module`, else `main`, else index.js. */
function entryOf(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { exports, module, main } = json as { exports?: unknown; module?: unknown; main?: unknown };
  if (exports !== undefined) {
    const root = typeof exports === 'object' && exports !== null && '.' in exports ? (exports as Record<string, unknown>)['.'] : exports;
    return condition(root, 0);
  }
  if (typeof module === 'string') return module;
  if (typeof main === 'string') return main;
  return 'index.js';
}

function condition(value: unknown, depth: number): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 4) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['import', 'node', 'default']) {
    if (key in record) return condition(record[key], depth + 1);
  }
  return undefined;
}

/** True for an existing regular file (after links). */
export function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
