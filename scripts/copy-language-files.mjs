// Part of `npm run build` (after tsc): copies the files language packs ship beside their modules
// (child bootstraps and other non-TypeScript files under src/languages/, e.g.
// python/runtime/child/bootstrap.py) into dist/languages/ at the same relative place, where
// src/languages/pack-file.ts finds them. Each is written to a temporary name and renamed, so a
// reader never sees half a file.

import { copyFileSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src/languages');
const to = join(root, 'dist/languages');

/** TypeScript is compiled by tsc; everything else a pack holds is shipped as it is. */
const COMPILED = /\.(?:ts|mts|cts)$/;

let copied = 0;
for (const entry of readdirSync(from, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || COMPILED.test(entry.name) || entry.name.startsWith('.')) continue;
  if (entry.parentPath.split(/[\\/]/).includes('__pycache__')) continue;
  const source = join(entry.parentPath, entry.name);
  const target = join(to, relative(from, source));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, `${target}.tmp`);
  renameSync(`${target}.tmp`, target);
  copied += 1;
}
if (copied === 0) throw new Error(`no language pack files found under ${from}`);
