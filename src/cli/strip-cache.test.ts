import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STRIP_CACHE_MAX_CHARS } from './limits.js';
import { readStrip, stripSlot, writeStrip } from './strip-cache.js';

let dir: string;
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-strip-cache-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = () => ({ PTC_HOME: dir });

describe('the strip cache', () => {
  it('gives back the strip of exactly the same source, from $PTC_HOME/cache/strip', () => {
    const slot = stripSlot('const n: number = 1;\nreturn n;\n', env())!;
    expect(slot.file.startsWith(path.join(dir, 'cache', 'strip') + path.sep)).toBe(true);
    expect(readStrip(slot)).toBeUndefined();
    writeStrip(slot, '(async function () {\nconst n         = 1;\nreturn n;\n\n})');
    expect(readStrip(slot)).toBe('(async function () {\nconst n         = 1;\nreturn n;\n\n})');
    expect(readStrip(stripSlot('const n: number = 2;\nreturn n;\n', env())!)).toBeUndefined();
  });

  it('is a miss for a corrupt file, another source or another eraser in the same file', () => {
    const slot = stripSlot('return 1;', env())!;
    writeStrip(slot, '(async function () {\nreturn 1;\n})');
    const entry = JSON.parse(fs.readFileSync(slot.file, 'utf8')) as Record<string, unknown>;
    for (const bad of ['{"format":1,', JSON.stringify({ ...entry, source: 'return 2;' }), JSON.stringify({ ...entry, eraser: 'another build' }), JSON.stringify({ ...entry, code: 7 })]) {
      fs.writeFileSync(slot.file, bad);
      expect(readStrip(slot)).toBeUndefined();
    }
  });

  it('remembers nothing with PTC_NO_OUTPUT_CACHE=1 or for a program past STRIP_CACHE_MAX_CHARS', () => {
    expect(stripSlot('return 1;', { ...env(), PTC_NO_OUTPUT_CACHE: '1' })).toBeUndefined();
    expect(stripSlot(`return ${'1 + '.repeat(STRIP_CACHE_MAX_CHARS / 4)}1;`, env())).toBeUndefined();
  });
});
