// schemas.generated.ts is what the build writes from the contracts; this fails when a contract was
// changed without rebuilding (or the file was edited by hand).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from './all.js';
import { GENERATED_FILE, renderSchemasModule } from './render-schemas.js';
import { BUILTIN_SCHEMAS } from './schemas.generated.js';

const root = path.resolve(import.meta.dirname, '../../..');

describe('schemas.generated.ts', () => {
  it('is exactly what the contracts render to now (else: npm run build)', () => {
    const committed = fs.readFileSync(path.join(root, GENERATED_FILE), 'utf8');
    expect(committed, 'the built-in contracts changed: run `npm run build` to regenerate the schemas').toBe(renderSchemasModule());
  });

  it('has one entry per contract, and nothing else', () => {
    expect(Object.keys(BUILTIN_SCHEMAS).sort()).toEqual(Object.keys(CONTRACTS).sort());
  });

  it('the build regenerates it before compiling', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const build = pkg.scripts['build'] ?? '';
    expect(build.indexOf('scripts/gen-builtin-schemas.mjs')).toBeGreaterThanOrEqual(0);
    expect(build.indexOf('scripts/gen-builtin-schemas.mjs')).toBeLessThan(build.indexOf('tsc'));
  });
});
