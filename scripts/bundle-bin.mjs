// Part of `npm run build` (last): bundles the `ptc` bin, dist/cli/main.js and what it imports
// statically (src/cli/start.ts, the quick answers), into the CommonJS file dist/cli/ptc.cjs, and the
// two dynamic imports of its quick path into their own files beside it: ptc-output-cache.cjs
// (`ptc tools`, `ptc sdk`) and ptc-client.cjs (the exec server's client, with node:net, which only
// it needs), and what both use into a third (ptc-fnv1a.cjs). Node starts a CommonJS file with no
// imports of its own several milliseconds sooner than an ES module graph (docs/benchmarks.md, "CLI
// start-up"). Every other module stays where tsc wrote it: a dynamic import() of one (run-cli.js,
// commander, ...) stays an import() in the bundle, so the command modules, and the classes they
// throw and catch, exist once.
//
// Two checks keep the bundle honest, and fail the build:
// - no npm package is bundled (the bin must load no package before it knows it needs one);
// - only modules directly in dist/cli use import.meta: in the bundle it is the bundle's own URL,
//   which is right only for a module that lived beside it.

import { chmodSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliDir = join(root, 'dist', 'cli');
const out = join(cliDir, 'ptc.cjs');
const tmp = join(cliDir, '.bin-tmp');
/** The dynamic imports that are part of the bin's quick path, and so bundled too. */
const BUNDLED_DYNAMIC = new Set([join(cliDir, 'output-cache.js'), join(cliDir, 'exec-server', 'client.js')]);

const bundled = [];
const keepOut = {
  name: 'ptc-bin',
  resolveId(source, importer, extra) {
    if (source.startsWith('node:')) return { id: source, external: true };
    if (importer === undefined) return null;
    if (!source.startsWith('.')) {
      if (extra.kind === 'dynamic-import') return { id: source, external: true };
      this.error(`${relative(root, importer)} imports the package ${source} statically: the bin must not bundle npm packages; import it dynamically`);
    }
    const target = resolve(dirname(importer), source);
    if (extra.kind === 'dynamic-import' && !BUNDLED_DYNAMIC.has(target)) {
      const rel = relative(cliDir, target);
      return { id: rel.startsWith('.') ? rel : `./${rel}`, external: true };
    }
    return null;
  },
  transform(code, id) {
    bundled.push(relative(root, id));
    if (dirname(id) !== cliDir && code.includes('import.meta')) {
      this.error(`${relative(root, id)} uses import.meta but is not directly in dist/cli: in the bundled bin it would name dist/cli/ptc.cjs; take the directory from fast-start.js (CLI_DIR)`);
    }
    return null;
  },
};

rmSync(tmp, { recursive: true, force: true });
await build({
  input: join(cliDir, 'main.js'),
  platform: 'node',
  logLevel: 'warn',
  plugins: [keepOut],
  write: true,
  output: { dir: tmp, format: 'cjs', entryFileNames: 'ptc.cjs', chunkFileNames: 'ptc-[name].cjs' },
});
// Atomic per file, the bin last: a build stopped halfway leaves the previous bin, or a whole new one.
const chunks = readdirSync(tmp).filter((name) => name !== 'ptc.cjs');
for (const name of chunks) renameSync(join(tmp, name), join(cliDir, name));
chmodSync(join(tmp, 'ptc.cjs'), 0o755);
renameSync(join(tmp, 'ptc.cjs'), out);
rmSync(tmp, { recursive: true, force: true });
console.log(`dist/cli/ptc.cjs: the bin, ${bundled.length} modules bundled (with ${chunks.join(', ')})`);
