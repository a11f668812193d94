import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envFingerprint, fingerprintOf, originalFs } from './output-cache.js';

let dir: string;
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-output-cache-unit-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('fingerprintOf', () => {
  it('tells a file by its content, an absent path, and a directory by kind or, listed, by its entries', () => {
    const file = path.join(dir, 'a.yml');
    expect(fingerprintOf(file, 'entry', originalFs)).toBe('absent');
    fs.writeFileSync(file, 'one');
    const one = fingerprintOf(file, 'entry', originalFs);
    fs.writeFileSync(file, 'two'); // same size, maybe the same mtime: the content decides
    expect(fingerprintOf(file, 'entry', originalFs)).not.toBe(one);

    const asEntry = fingerprintOf(dir, 'entry', originalFs);
    const listed = fingerprintOf(dir, 'list', originalFs);
    fs.writeFileSync(path.join(dir, 'b.yml'), '');
    expect(fingerprintOf(dir, 'entry', originalFs)).toBe(asEntry);
    expect(fingerprintOf(dir, 'list', originalFs)).not.toBe(listed);
  });

  it('follows a link and notes its target', () => {
    fs.writeFileSync(path.join(dir, 'x'), 'x');
    fs.writeFileSync(path.join(dir, 'y'), 'x');
    fs.symlinkSync('x', path.join(dir, 'link'));
    const before = fingerprintOf(path.join(dir, 'link'), 'entry', originalFs);
    fs.rmSync(path.join(dir, 'link'));
    fs.symlinkSync('y', path.join(dir, 'link'));
    expect(fingerprintOf(path.join(dir, 'link'), 'entry', originalFs)).not.toBe(before);
  });
});

describe('envFingerprint', () => {
  it('keeps a plain variable as it is and a secret-looking one only as a digest', () => {
    expect(envFingerprint('PTC_PRESET', 'standard')).toBe('=standard');
    expect(envFingerprint('PTC_PRESET', undefined)).toBeNull();
    const secret = envFingerprint('BRAVE_API_KEY', 'sk-very-secret');
    expect(secret).not.toContain('sk-very-secret');
    expect(envFingerprint('BRAVE_API_KEY', 'sk-very-secret')).toBe(secret);
    expect(envFingerprint('BRAVE_API_KEY', 'sk-other')).not.toBe(secret);
  });
});
