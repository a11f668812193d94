// Finds the child bootstrap's JavaScript: the tsc-compiled files of `child/` when running from dist,
// else their `.ts` files stripped with the same eraser as programs (running from source under vitest
// or a strip loader). The files are one CommonJS script, concatenated in the order of CHILD_FILES
// (docs/control-channel.md, "The child's side") inside one function scope. The text is fed to the
// child on stdin, so no file needs to be readable inside the sandbox.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RuntimeUnavailableError } from '../../../errors.js';
import { stripTypes } from './strip.js';

let cached: string | undefined;

/**
 * The node arguments that make the child read and evaluate the bootstrap from stdin: as CommonJS,
 * which said `ready` sooner than the same bootstrap as an ES module (docs/control-channel.md).
 */
export const BOOTSTRAP_INPUT_ARGS: readonly string[] = ['--input-type=commonjs', '-'];

/**
 * The script argument (after BOOTSTRAP_INPUT_ARGS) that asks a child started for the pool to warm
 * its run path up before `ready` (child/bootstrap.ts, warmUp).
 */
export const WARM_UP_ARG = 'warm-up';

/**
 * The child's files in script order. The files share one scope, each naming what it uses from the
 * others with `declare`. Function declarations are hoisted, but a `const` or `let` can be read only
 * once its line ran, so a file's top-level code reads only its own names and those of the files
 * before it, and the only top-level calls into other files are bootstrap.ts's last lines, which start
 * the child. Hence: primordials first (captured before any other child code runs), the parts next,
 * bootstrap.ts after them, then in-memory.ts, which defines functions only.
 */
const CHILD_FILES: readonly string[] = ['primordials', 'channel', 'output', 'json-text', 'bindings', 'run-program', 'bootstrap', 'in-memory'];

export function bootstrapSource(): string {
  // Node evaluates a script read from stdin in the global scope, where its top-level functions would
  // become properties of the global object and its let/const names would shadow the program's own
  // globals (a kept program's `const write` would replace the bootstrap's). One function scope keeps
  // every bootstrap name out of the program's reach; what a program should see is installed on
  // globalThis explicitly. Its 'use strict' holds for the whole body as the body's first statement.
  cached ??= ["(function () {\n'use strict';", ...CHILD_FILES.map(loadChildScript), '})();'].join('\n');
  return cached;
}

function loadChildScript(name: string): string {
  const built = fileURLToPath(new URL(`./child/${name}.js`, import.meta.url));
  // tsc marks a file that imports only types as an ES module with an empty `export {};`, and keeps
  // `export` on exported functions and variables; CommonJS can parse neither, and they are the only
  // ESM syntax the compiled child files have.
  if (existsSync(built)) return withoutExports(readFileSync(built, 'utf8'));
  const source = fileURLToPath(new URL(`./child/${name}.ts`, import.meta.url));
  if (existsSync(source)) return withoutExports(stripTypes(readFileSync(source, 'utf8')));
  throw new RuntimeUnavailableError(`The Node runtime's child bootstrap is missing (looked for ${built} and ${source}).`);
}

function withoutExports(text: string): string {
  return text.replace(/^export \{\};$/m, '').replace(/^export (function|async function|const|let) /gm, '$1 ');
}
