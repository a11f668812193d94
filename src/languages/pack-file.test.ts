import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { packFile } from './pack-file.js';

describe('packFile', () => {
  it('reads a file beside the calling module, once', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pack-file-'));
    const moduleUrl = pathToFileURL(path.join(dir, 'module.js')).href;
    fs.mkdirSync(path.join(dir, 'child'));
    fs.writeFileSync(path.join(dir, 'child/boot.py'), 'print(1)\n');
    expect(packFile(moduleUrl, './child/boot.py')).toBe('print(1)\n');
    // Kept: a child start never reads the disk again, even if the file changes under it.
    fs.writeFileSync(path.join(dir, 'child/boot.py'), 'changed\n');
    expect(packFile(moduleUrl, './child/boot.py')).toBe('print(1)\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a missing file is RUNTIME_UNAVAILABLE naming the path and the rebuild', () => {
    const moduleUrl = pathToFileURL(path.join(os.tmpdir(), 'no-such-pack', 'module.js')).href;
    let thrown: unknown;
    try {
      packFile(moduleUrl, './child/bootstrap.py');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HarnessError);
    expect((thrown as HarnessError).code).toBe('RUNTIME_UNAVAILABLE');
    expect((thrown as Error).message).toContain(path.join(os.tmpdir(), 'no-such-pack', 'child', 'bootstrap.py'));
    expect((thrown as Error).message).toContain('npm run build');
  });

  it('the Python bootstrap ships as a real file the build copies into dist/', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const source = path.join(root, 'src/languages/python/runtime/child/bootstrap.py');
    expect(fs.readFileSync(source, 'utf8')).toMatch(/^asyncio\.run\(_main\(\)\)$/m);
    // dist/ is what the global setup built, copy step included.
    expect(fs.readFileSync(path.join(root, 'dist/languages/python/runtime/child/bootstrap.py'), 'utf8')).toBe(fs.readFileSync(source, 'utf8'));
  });
});
