// Part of `npm run build` (after tsc): writes dist/cli/help.json, the `--help` text of every `ptc`
// command as commander renders it (src/cli/help-text.ts), stamped with the build it was made
// from, so `ptc --help` prints it without loading commander (src/cli/fast-start.ts).

import { writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { renderAllHelp, PRECOMPUTED_HELP_WIDTH } = await import(join(root, 'dist/cli/help-text.js'));
const { helpStamp, HELP_FILE } = await import(join(root, 'dist/cli/fast-start.js'));
const file = { stamp: helpStamp(), width: PRECOMPUTED_HELP_WIDTH, texts: await renderAllHelp(PRECOMPUTED_HELP_WIDTH) };
// Atomic: a half-written file would be read as no file, but never leave one.
writeFileSync(`${HELP_FILE}.tmp`, JSON.stringify(file));
renameSync(`${HELP_FILE}.tmp`, HELP_FILE);
