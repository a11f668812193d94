// The local modules of a plugin file: the file and every file it reaches by static imports that are
// not packages, with one digest over their paths and contents. What a reload compares between turns
// and what versions a re-import (docs/plugin-reload.md, "Detecting a change"). Packages are not
// followed: Node keeps them loaded, and a reload does not re-import them.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { MAX_PLUGIN_GRAPH_FILES } from '../limits.js';
import { isCodeFile, readModuleImports, resolveImport } from './module-imports.js';
import { realOrSelf } from './package-location.js';

export interface PluginGraph {
  /** Real paths: the plugin file first, then what it imports, in discovery order. */
  readonly files: readonly string[];
  /** `sha256` hex over each file's path and content (a missing or unreadable file counts as such). */
  readonly digest: string;
}

/** Reads the plugin file `file` and its local imports; a file that does not parse contributes its text only. */
export function pluginGraph(file: string): PluginGraph {
  const start = realOrSelf(file);
  const files: string[] = [];
  const seen = new Set<string>([start]);
  const hash = createHash('sha256');
  const queue = [start];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    files.push(current);
    let source: Buffer | undefined;
    try {
      source = fs.readFileSync(current);
    } catch {
      source = undefined;
    }
    hash.update(`${current}\0${source === undefined ? 'unreadable' : createHash('sha256').update(source).digest('hex')}\n`);
    if (source === undefined || !isCodeFile(current)) continue;
    for (const specifier of readModuleImports(current, source.toString('utf8')).specifiers) {
      const target = resolveImport(specifier, current);
      if (target.kind !== 'file' || seen.has(target.file) || seen.size >= MAX_PLUGIN_GRAPH_FILES) continue;
      seen.add(target.file);
      queue.push(target.file);
    }
  }
  return { files, digest: hash.digest('hex') };
}
