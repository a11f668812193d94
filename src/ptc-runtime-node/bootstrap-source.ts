// Finds the child bootstrap's JavaScript: the tsc-compiled `child/bootstrap.js` and
// `child/in-memory.js` when running from dist, else the `.ts` files stripped with the same eraser as
// programs (running from source under vitest or a strip loader). The two are one script: the
// in-memory part is appended (it defines functions only, which the bootstrap calls). The text is fed
// to the child on stdin, so no file needs to be readable inside the sandbox.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RuntimeUnavailableError } from '../errors.js';
import { stripTypes } from './strip.js';

let cached: string | undefined;

/**
 * The node arguments that make the child read and evaluate the bootstrap from stdin: as CommonJS,
 * which said `ready` sooner than the same bootstrap as an ES module (docs/control-channel.md).
 */
export const BOOTSTRAP_INPUT_ARGS: readonly string[] = ['--input-type=commonjs', '-'];

export function bootstrapSource(): string {
  cached ??= `${loadChildScript('bootstrap')}\n${loadChildScript('in-memory')}`;
  return cached;
}

function loadChildScript(name: string): string {
  const built = fileURLToPath(new URL(`./child/${name}.js`, import.meta.url));
  // tsc marks a file that imports only types as an ES module with an empty `export {};`, and keeps
  // `export` on exported functions; CommonJS can parse neither, and they are the only ESM syntax the
  // compiled child files have.
  if (existsSync(built)) return withoutExports(readFileSync(built, 'utf8'));
  const source = fileURLToPath(new URL(`./child/${name}.ts`, import.meta.url));
  if (existsSync(source)) return withoutExports(stripTypes(readFileSync(source, 'utf8')));
  throw new RuntimeUnavailableError(`The Node runtime's child bootstrap is missing (looked for ${built} and ${source}).`);
}

function withoutExports(text: string): string {
  return text.replace(/^export \{\};$/m, '').replace(/^export (function|async function) /gm, '$1 ');
}
