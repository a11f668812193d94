// The type strip of a `ptc exec` program, remembered by its whole source (docs/benchmarks.md, "CLI
// start-up"): loading the eraser (amaro, a WebAssembly module compiled at load) is a quarter of a
// second of CPU on a second thread, for a result that depends only on the source and the eraser. A
// hit needs the same source, compared whole (no hash to trust), and the same eraser files (path,
// size, time); the code is then still compiled by stripProgram before any child sees it. The files
// live in `$PTC_HOME/cache/strip` (mode 0700); a corrupt or foreign one is a miss, and
// PTC_NO_OUTPUT_CACHE=1 turns it off with the other CLI caches.

import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { ptcHome } from '../ptc-home.js';
import { pruneCacheDir, writeCacheFile } from './cache-files.js';
import { STRIP_CACHE_MAX_CHARS, STRIP_CACHE_MAX_ENTRIES } from './limits.js';
import { cacheFileName } from './output-cache.js';

const FORMAT = 1;

type Env = Readonly<Record<string, string | undefined>>;

interface StripEntry {
  readonly format: number;
  readonly eraser: string;
  readonly source: string;
  readonly code: string;
}

export interface StripSlot {
  readonly file: string;
  readonly eraser: string;
  readonly source: string;
}

/** Where the strip of `source` is kept; undefined when remembering is off or the program is too large. */
export function stripSlot(source: string, env: Env = process.env): StripSlot | undefined {
  if (env['PTC_NO_OUTPUT_CACHE'] === '1' || source.length > STRIP_CACHE_MAX_CHARS / 2) return undefined;
  const eraser = eraserStamp();
  if (eraser === undefined) return undefined;
  return { file: path.join(ptcHome({ env }), 'cache', 'strip', cacheFileName(`${eraser}\n${source}`)), eraser, source };
}

/** The remembered strip, or undefined when there is none for exactly this source and eraser. */
export function readStrip({ file, eraser, source }: StripSlot): string | undefined {
  let entry: unknown;
  try {
    if (fs.statSync(file).size > STRIP_CACHE_MAX_CHARS * 4) return undefined;
    entry = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Partial<StripEntry>;
  return e.format === FORMAT && e.eraser === eraser && e.source === source && typeof e.code === 'string' ? e.code : undefined;
}

export function writeStrip({ file, eraser, source }: StripSlot, code: string): void {
  if (source.length + code.length > STRIP_CACHE_MAX_CHARS) return;
  const entry: StripEntry = { format: FORMAT, eraser, source, code };
  writeCacheFile(file, JSON.stringify(entry));
  pruneCacheDir(path.dirname(file), STRIP_CACHE_MAX_ENTRIES);
}

/** The eraser's identity: its resolved files with size and modification time (an update rewrites them). */
function eraserStamp(): string | undefined {
  try {
    const entry = module.createRequire(import.meta.url).resolve('amaro');
    return [entry, path.join(path.dirname(entry), 'internal.js'), path.join(path.dirname(entry), '..', 'package.json')]
      .map((file) => {
        const s = fs.statSync(file);
        return `${file}:${s.size}:${s.mtimeMs}`;
      })
      .join('\n');
  } catch {
    return undefined;
  }
}
