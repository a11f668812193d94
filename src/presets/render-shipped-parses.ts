// Renders shipped-parses.generated.ts (remembered-parses.ts) from the presets/ folder: for each
// shipped preset, its text's SHA-256, the data its YAML stands for and each row's line. Used by
// scripts/gen-remembered-parses.mjs (a `npm run build` step) and by the test that the file is current.

import fs from 'node:fs';
import path from 'node:path';
import { isJsonValue } from '../json.js';
import { presetParseFacts } from './preset-file.js';
import { presetTextDigest } from './remembered-parses.js';
import { SHIPPED_PRESETS_DIR } from './resolve-preset.js';

export const SHIPPED_PARSES_FILE = 'src/presets/shipped-parses.generated.ts';

export function renderShippedParsesModule(dir: string = SHIPPED_PRESETS_DIR): string {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort();
  const entries = files.map((f) => {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const facts = presetParseFacts(text, f);
    // Only plain JSON is remembered as written here (no Infinity, NaN or dates from the YAML).
    if (!isJsonValue(facts.data)) {
      throw new Error(`presets/${f}: its data is not plain JSON; it cannot be remembered`);
    }
    return `  // presets/${f}\n  ${JSON.stringify(presetTextDigest(text))}: ${JSON.stringify(facts)},\n`;
  });
  return (
    `// Written by scripts/gen-remembered-parses.mjs (npm run build) from presets/*.yml; do not edit.\n` +
    `// What each shipped preset's YAML stands for, by the SHA-256 of its text (remembered-parses.ts).\n\n` +
    `export const SHIPPED_PRESET_PARSES = {\n${entries.join('')}} as const;\n`
  );
}
