// `npm run build` step (before tsc): writes the YAML parses remembered for what the package ships,
// by the digest of their text: src/presets/shipped-parses.generated.ts (src/presets/remembered-parses.ts)
// and src/skills/shipped-front-matter.generated.ts (src/skills/remembered-front-matter.ts). Run it alone
// with `node --import ./scripts/ts-register.mjs scripts/gen-remembered-parses.mjs`. Writes a file only
// when its text changed, through a temporary file and a rename.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeIfChanged } from './write-if-changed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const presets = await import('../src/presets/render-shipped-parses.ts');
const skills = await import('../src/skills/render-shipped-front-matter.ts');
for (const [file, text] of [
  [presets.SHIPPED_PARSES_FILE, presets.renderShippedParsesModule()],
  [skills.SHIPPED_FRONT_MATTER_FILE, skills.renderShippedFrontMatterModule()],
]) {
  if (writeIfChanged(join(root, file), text)) console.log(`wrote ${file}`);
}
