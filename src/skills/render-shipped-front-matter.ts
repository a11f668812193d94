// Renders shipped-front-matter.generated.ts (remembered-front-matter.ts) from the shipped skills: for
// each skills/<name>/SKILL.md, its front matter's SHA-256, values and key lines. Used by
// scripts/gen-remembered-parses.mjs (a `npm run build` step) and by the test that the file is current.

import fs from 'node:fs';
import path from 'node:path';
import { isJsonValue } from '../json.js';
import { parseFrontMatter } from './skill-file.js';
import { frontMatterDigest } from './remembered-front-matter.js';
import { SHIPPED_SKILLS_DIR } from './skill-layers.js';

export const SHIPPED_FRONT_MATTER_FILE = 'src/skills/shipped-front-matter.generated.ts';

/** The front matter text of a SKILL.md (the lines between its `---` lines), or undefined. */
export function frontMatterText(text: string): string | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return undefined;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  return end < 0 ? undefined : lines.slice(1, end).join('\n');
}

export function renderShippedFrontMatterModule(dir: string = SHIPPED_SKILLS_DIR): string {
  const names = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'SKILL.md')))
    .map((e) => e.name)
    .sort();
  const entries = names.map((name) => {
    const yamlText = frontMatterText(fs.readFileSync(path.join(dir, name, 'SKILL.md'), 'utf8'));
    const front = yamlText === undefined ? undefined : parseFrontMatter(yamlText);
    if (yamlText === undefined || front === undefined || 'warning' in front || !isJsonValue(front.values)) {
      throw new Error(`skills/${name}/SKILL.md: its front matter does not parse to plain JSON; fix it`);
    }
    return `  // skills/${name}/SKILL.md\n  ${JSON.stringify(frontMatterDigest(yamlText))}: ${JSON.stringify(front)},\n`;
  });
  return (
    `// Written by scripts/gen-remembered-parses.mjs (npm run build) from skills/*/SKILL.md; do not edit.\n` +
    `// The front matter of each shipped skill, by the SHA-256 of its text (remembered-front-matter.ts).\n\n` +
    `export const SHIPPED_FRONT_MATTER = {\n${entries.join('')}} as const;\n`
  );
}
