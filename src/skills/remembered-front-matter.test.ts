// The remembered front matter of the shipped skills: current with skills/ (else: npm run build), and
// a skill read through it is the one the YAML parse gives.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter, parseSkillFile } from './skill-file.js';
import { rememberedFrontMatter } from './remembered-front-matter.js';
import { frontMatterText, renderShippedFrontMatterModule, SHIPPED_FRONT_MATTER_FILE } from './render-shipped-front-matter.js';
import { SHIPPED_SKILLS_DIR } from './skill-layers.js';

const root = path.resolve(import.meta.dirname, '../..');
const shipped = fs.readdirSync(SHIPPED_SKILLS_DIR).filter((n) => fs.existsSync(path.join(SHIPPED_SKILLS_DIR, n, 'SKILL.md')));

describe('shipped-front-matter.generated.ts', () => {
  it('is exactly what skills/ renders to now (else: npm run build)', () => {
    expect(fs.readFileSync(path.join(root, SHIPPED_FRONT_MATTER_FILE), 'utf8')).toBe(renderShippedFrontMatterModule());
  });

  it.each(shipped)('%s: the remembered front matter is the parsed one', (name) => {
    const yamlText = frontMatterText(fs.readFileSync(path.join(SHIPPED_SKILLS_DIR, name, 'SKILL.md'), 'utf8'))!;
    expect(rememberedFrontMatter(yamlText)).toEqual(parseFrontMatter(yamlText));
  });

  it('a changed front matter is parsed and checked as any skill', () => {
    const text = fs.readFileSync(path.join(SHIPPED_SKILLS_DIR, shipped[0]!, 'SKILL.md'), 'utf8');
    const changed = text.replace(/^name: .*$/m, 'name: Not_A_Name');
    expect(rememberedFrontMatter(frontMatterText(changed)!)).toBeUndefined();
    const parsed = parseSkillFile(path.join('/x', shipped[0]!, 'SKILL.md'), changed);
    expect(parsed.skill).toBeUndefined();
    expect(parsed.warnings[0]?.message).toMatch(/Not_A_Name/);
  });
});
