// V8's code cache for the modules a `ptc` command loads, on Node 22.1+ (module.enableCompileCache):
// a later start reads compiled code instead of compiling a few hundred modules again
// (bench/cli-start.ts measures start-up). Node 20 has no such API, and nothing happens there.
//
// The cache holds code the host runs, so it lives in the user's own `$PTC_HOME/compile-cache`
// (mode 0700), not in the shared temp dir Node picks by default: as safe as the trust store beside
// it (docs/security.md, "Workspace trust"). Node's own NODE_COMPILE_CACHE, when set, wins, and
// NODE_DISABLE_COMPILE_CACHE=1 turns the cache off. It is an optimisation: any failure is ignored.

import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { ptcHome } from '../ptc-home.js';

type EnableCompileCache = (directory?: string) => unknown;

export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function' || env['NODE_DISABLE_COMPILE_CACHE'] === '1') return;
  try {
    if (env['NODE_COMPILE_CACHE']) {
      enable();
      return;
    }
    const dir = path.join(ptcHome({ env }), 'compile-cache');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    enable(dir);
  } catch {
    // No cache: the command runs as it would on Node 20.
  }
}
