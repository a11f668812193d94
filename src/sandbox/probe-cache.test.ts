import { chmodSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clearCachedProbe, PROBE_CACHE_FILE, probeCacheKey, readCachedProbe, writeCachedProbe } from './probe-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'ptc-probe-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, PROBE_CACHE_FILE);

describe('probe cache', () => {
  it('keys by boot, binaries and filter', () => {
    const key = probeCacheKey('/usr/bin/bwrap', process.execPath, Buffer.from([1, 2, 3]));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(probeCacheKey('/usr/bin/bwrap', process.execPath, Buffer.from([1, 2, 3]))).toBe(key);
    expect(probeCacheKey('/usr/bin/bwrap', process.execPath, Buffer.from([1, 2, 4]))).not.toBe(key);
    expect(probeCacheKey('/usr/bin/bwrap', process.execPath, undefined)).not.toBe(key);
    expect(probeCacheKey('/nonexistent/bwrap', process.execPath, undefined)).not.toBe(probeCacheKey('/usr/bin/bwrap', process.execPath, undefined));
  });

  it('remembers a success under its key only, and forgets it on request', () => {
    writeCachedProbe('k1', { bwrapPath: '/usr/bin/bwrap', seccomp: true }, dir);
    expect(readCachedProbe('k1', dir)).toEqual({ bwrapPath: '/usr/bin/bwrap', seccomp: true });
    expect(readCachedProbe('k2', dir)).toBeUndefined();
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    clearCachedProbe(dir);
    expect(readCachedProbe('k1', dir)).toBeUndefined();
  });

  it('ignores a file others can write, a symlink and malformed content', () => {
    writeCachedProbe('k1', { bwrapPath: '/usr/bin/bwrap', seccomp: true }, dir);
    chmodSync(file, 0o666);
    expect(readCachedProbe('k1', dir)).toBeUndefined();
    rmSync(file);
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ key: 'k1', bwrapPath: '/usr/bin/bwrap', seccomp: true }), { mode: 0o600 });
    symlinkSync(elsewhere, file);
    expect(readCachedProbe('k1', dir)).toBeUndefined();
    rmSync(file);
    writeFileSync(file, '{"key":"k1","bwrapPath":3,"seccomp":true}', { mode: 0o600 });
    expect(readCachedProbe('k1', dir)).toBeUndefined();
    writeFileSync(file, 'not json', { mode: 0o600 });
    expect(readCachedProbe('k1', dir)).toBeUndefined();
  });
});
