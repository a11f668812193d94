// Reads a file a language pack ships beside its modules (a child bootstrap such as
// python/runtime/child/bootstrap.py). Such files are real source files under src/languages/ that the
// build copies into dist/ at the same place (scripts/copy-language-files.mjs), so a module finds
// them next to itself whether it runs from src/ (tests, a strip loader) or from the built package.
// Their text is fed to the child on stdin, so no file needs to be readable inside the sandbox.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RuntimeUnavailableError } from '../errors.js';

const cache = new Map<string, string>();

/**
 * The text of `relative` beside the module at `moduleUrl` (its `import.meta.url`), read once and kept.
 * A file that is missing is RUNTIME_UNAVAILABLE naming where it was looked for (a build without the
 * copy step).
 */
export function packFile(moduleUrl: string, relative: string): string {
  const file = fileURLToPath(new URL(relative, moduleUrl));
  const known = cache.get(file);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new RuntimeUnavailableError(
      `A language pack's file is missing: ${file} (${reason}). Rebuild the package with \`npm run build\`, which copies src/languages/**/*.py and other pack files into dist/.`,
    );
  }
  cache.set(file, text);
  return text;
}
