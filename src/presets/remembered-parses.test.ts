// The remembered parses of the shipped presets: current with presets/ (else: npm run build), and a
// preset read through them is the one the YAML parse gives.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePresetText, parsePresetYaml } from './preset-file.js';
import { rememberedPresetParse } from './remembered-parses.js';
import { renderShippedParsesModule, SHIPPED_PARSES_FILE } from './render-shipped-parses.js';
import { SHIPPED_PRESETS_DIR } from './resolve-preset.js';

const root = path.resolve(import.meta.dirname, '../..');
const shipped = fs.readdirSync(SHIPPED_PRESETS_DIR).filter((f) => f.endsWith('.yml'));

describe('shipped-parses.generated.ts', () => {
  it('is exactly what presets/ renders to now (else: npm run build)', () => {
    expect(fs.readFileSync(path.join(root, SHIPPED_PARSES_FILE), 'utf8')).toBe(renderShippedParsesModule());
  });

  it.each(shipped)('%s reads the same through the remembered parse as through the YAML parser', (name) => {
    const file = path.join('/elsewhere', name);
    const text = fs.readFileSync(path.join(SHIPPED_PRESETS_DIR, name), 'utf8');
    expect(rememberedPresetParse(text)).toBeDefined();
    expect(parsePresetText(text, file)).toEqual(parsePresetYaml(text, file));
  });

  it('remembers nothing for a text one byte off a shipped one, which is parsed and checked as any file', () => {
    const text = fs.readFileSync(path.join(SHIPPED_PRESETS_DIR, 'ptc.yml'), 'utf8');
    expect(rememberedPresetParse(`${text} `)).toBeUndefined();
    expect(() => parsePresetText(`${text}\nextra: 1\n`, '/w/p.yml')).toThrow(/unknown key/);
  });

  it('hands out a copy: changing a row config does not change the next read', () => {
    const text = fs.readFileSync(path.join(SHIPPED_PRESETS_DIR, 'standard.yml'), 'utf8');
    const first = parsePresetText(text, '/w/standard.yml');
    const config = first.rows.find((r) => r.config !== undefined)?.config as Record<string, unknown>;
    config['tampered'] = true;
    expect(parsePresetText(text, '/w/standard.yml')).toEqual(parsePresetYaml(text, '/w/standard.yml'));
  });
});
