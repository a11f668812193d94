// Node module hooks that let plugin modules be TypeScript: a `.ts`/`.mts` file is stripped with the
// same eraser as programs (amaro, strip-only; src/languages/typescript/runtime/strip.ts) when Node imports it, so
// a plugin's own imports (`ptc-harness`, `zod`, `./helper.ts`) resolve from its location like any
// module's. The hooks run on Node's loader thread, which cannot load this repo's .ts sources, so
// they are plain JavaScript registered as a data: URL — the same under vitest (src/) and dist/.
// docs/presets.md, "Plugin modules".

import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants, Script } from 'node:vm';
import { noteUserCodeImport } from './user-code.js';

/** `import(packageSpecifier(name, fromDir))` resolves a bare package name as if imported from `fromDir`. */
const PACKAGE_SCHEME = 'ptc-plugin-package:';

/** The query parameter that names a plugin file's version: a new value is a new module instance. */
export const PLUGIN_VERSION_PARAM = 'ptc-plugin-version';

const HOOKS_SOURCE = `
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const PACKAGE_SCHEME = ${JSON.stringify(PACKAGE_SCHEME)};
const VERSION_PARAM = ${JSON.stringify(PLUGIN_VERSION_PARAM)};
const TS_FILE = /\\.m?ts$/;
let amaro;

export function initialize(data) {
  amaro = createRequire(data.amaroFrom)('amaro');
}

function isOwnTypeScript(url) {
  return url.startsWith('file:') && TS_FILE.test(url.split(/[?#]/)[0]) && !url.includes('/node_modules/');
}

// A reloaded plugin is imported with a version query; its own local modules (not packages) get the
// same one, so an edited helper beside it loads anew too (docs/plugin-reload.md).
function versioned(result, parentURL) {
  if (!parentURL || !parentURL.startsWith('file:') || !result.url.startsWith('file:') || result.url.includes('/node_modules/')) return result;
  const version = new URL(parentURL).searchParams.get(VERSION_PARAM);
  if (version === null) return result;
  const url = new URL(result.url);
  if (url.searchParams.has(VERSION_PARAM)) return result;
  url.searchParams.set(VERSION_PARAM, version);
  return { ...result, url: url.href };
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith(PACKAGE_SCHEME)) {
    const { name, from } = JSON.parse(decodeURIComponent(specifier.slice(PACKAGE_SCHEME.length)));
    return nextResolve(name, { ...context, parentURL: from });
  }
  try {
    return versioned(await nextResolve(specifier, context), context.parentURL);
  } catch (error) {
    // TypeScript sources import their siblings as './x.js' (NodeNext style); fall back to './x.ts'.
    const parent = context.parentURL;
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && /\\.m?js$/.test(specifier) && parent && isOwnTypeScript(parent)) {
      const url = new URL(specifier.replace(/js$/, 'ts'), parent);
      if (existsSync(fileURLToPath(url))) return versioned({ url: url.href, format: 'module', shortCircuit: true }, parent);
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!isOwnTypeScript(url)) return nextLoad(url, context);
  const source = await readFile(fileURLToPath(url), 'utf8');
  return { format: 'module', source: amaro.transformSync(source, { mode: 'strip-only' }).code, shortCircuit: true };
}
`;

let registered = false;

/** Registers the hooks once per process (Node >= 20.6). */
export function ensureTypeScriptHooks(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOKS_SOURCE)}`, { data: { amaroFrom: import.meta.url } });
}

/** A specifier the hooks resolve as the bare package `name` imported from the directory `fromDir`. */
export function packageSpecifier(name: string, fromDir: string): string {
  const from = pathToFileURL(path.join(fromDir, 'package.json')).href;
  return PACKAGE_SCHEME + encodeURIComponent(JSON.stringify({ name, from }));
}

/** `import()` compiled by V8 itself, outside any bundler's rewriting of this file. */
const directImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;
let contextImport: ((specifier: string) => Promise<unknown>) | undefined;

/**
 * Node's own `import()` with its default loader (and so these hooks). A plain `import()` here would
 * be rewritten by vitest into its module runner and load a user's plugin through vite's pipeline,
 * so tests would not exercise the loader the CLI uses. Where the calling code runs in a vm context
 * without an import callback (vitest again), the import is compiled with Node's main-context
 * loader instead (experimental in Node 20, so only then).
 */
export async function nativeImport(specifier: string): Promise<unknown> {
  noteUserCodeImport(specifier);
  if (contextImport) return contextImport(specifier);
  try {
    return await directImport(specifier);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING') throw error;
  }
  contextImport = new Script('(specifier) => import(specifier)', {
    filename: 'ptc-harness-plugin-import.js',
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }).runInThisContext() as (specifier: string) => Promise<unknown>;
  return contextImport(specifier);
}
