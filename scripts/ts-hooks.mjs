// Module hooks that run this repo's .ts sources with the same eraser the runtime uses (amaro,
// strip-only): a `./x.js` import falls back to `./x.ts` when only the source exists.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const amaro = createRequire(import.meta.url)('amaro');

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const parent = context.parentURL;
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.endsWith('.js') && parent?.startsWith('file:')) {
      const url = new URL(specifier.replace(/\.js$/, '.ts'), parent);
      if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true };
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && url.endsWith('.ts') && !url.includes('/node_modules/')) {
    const source = await readFile(fileURLToPath(url), 'utf8');
    return { format: 'module', source: amaro.transformSync(source, { mode: 'strip-only' }).code, shortCircuit: true };
  }
  return nextLoad(url, context);
}
