// `npm run build` step (before tsc): writes src/builtin-tools/contracts/schemas.generated.ts from the
// built-in tools' zod contracts (docs/builtin-tools.md). Run it alone with
// `node --import ./scripts/ts-register.mjs scripts/gen-builtin-schemas.mjs`. Writes only when the text
// changed, through a temporary file and a rename, so a failed run leaves the old file whole.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeIfChanged } from './write-if-changed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED_FILE, renderSchemasModule } = await import('../src/builtin-tools/contracts/render-schemas.ts');
if (writeIfChanged(join(root, GENERATED_FILE), renderSchemasModule())) console.log(`wrote ${GENERATED_FILE}`);
