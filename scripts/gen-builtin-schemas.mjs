// `npm run build` step (before tsc): writes src/builtin-tools/contracts/schemas.generated.ts from the
// built-in tools' zod contracts (docs/builtin-tools.md). Run it alone with
// `node --import ./scripts/ts-register.mjs scripts/gen-builtin-schemas.mjs`. Writes only when the text
// changed, through a temporary file and a rename, so a failed run leaves the old file whole.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED_FILE, renderSchemasModule } = await import('../src/builtin-tools/contracts/render-schemas.ts');
const target = join(root, GENERATED_FILE);
const text = renderSchemasModule();
let current;
try {
  current = readFileSync(target, 'utf8');
} catch {
  current = undefined;
}
if (current !== text) {
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
  console.log(`wrote ${GENERATED_FILE}`);
}
