// Finds the child bootstrap's JavaScript: the tsc-compiled `child/bootstrap.js` when running from
// dist, else `child/bootstrap.ts` stripped with the same eraser as programs (running from source
// under vitest or a strip loader). The text is fed to the child on stdin, so no file needs to be
// readable inside the sandbox.

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
  cached ??= loadBootstrap();
  return cached;
}

function loadBootstrap(): string {
  const built = fileURLToPath(new URL('./child/bootstrap.js', import.meta.url));
  // tsc marks a file that imports only types as an ES module with an empty `export {};`, which
  // CommonJS cannot parse; it is the one ESM statement the compiled bootstrap has.
  if (existsSync(built)) return readFileSync(built, 'utf8').replace(/^export \{\};$/m, '');
  const source = fileURLToPath(new URL('./child/bootstrap.ts', import.meta.url));
  if (existsSync(source)) return stripTypes(readFileSync(source, 'utf8'));
  throw new RuntimeUnavailableError(`The Node runtime's child bootstrap is missing (looked for ${built} and ${source}).`);
}
