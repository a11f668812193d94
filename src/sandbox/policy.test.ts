import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { defaultSandboxEnv, isWithin, policyKey, resolvePolicyPaths } from './policy.js';
import type { SandboxPolicy } from './types.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-policy-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const base: SandboxPolicy = {
  cwd: '/w',
  read: ['/a', '/b'],
  write: ['/c'],
  network: false,
  processes: true,
  env: { PATH: '/usr/bin', HOME: '/w' },
};

describe('policyKey', () => {
  it('ignores the order and duplicates of paths and env entries', () => {
    expect(policyKey({ ...base, read: ['/b', '/a', '/a'], env: { HOME: '/w', PATH: '/usr/bin' } })).toBe(policyKey(base));
  });

  it('differs whenever something fixed at spawn differs', () => {
    const key = policyKey(base);
    for (const other of [
      { ...base, cwd: '/x' },
      { ...base, read: ['/a'] },
      { ...base, write: [] },
      { ...base, network: true },
      { ...base, processes: false },
      { ...base, env: { ...base.env, LANG: 'C.UTF-8' } },
      { ...base, env: { ...base.env, HOME: '/elsewhere' } },
    ]) {
      expect(policyKey(other)).not.toBe(key);
    }
  });
});

describe('resolvePolicyPaths', () => {
  it('resolves symlinks to real paths, skips missing paths and drops paths a writable one covers', () => {
    const ws = join(root, 'ws');
    const data = join(root, 'data');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    mkdirSync(join(data, 'inner'), { recursive: true });
    symlinkSync(data, join(root, 'data-link'));
    const resolved = resolvePolicyPaths({
      cwd: ws,
      read: [join(root, 'data-link'), join(root, 'missing'), join(ws, 'sub'), join(data, 'inner')],
      write: [join(data, 'inner'), join(ws, 'sub')],
    });
    expect(resolved).toEqual({ cwd: ws, read: [data], write: [join(data, 'inner')] });
  });

  it('rejects a missing cwd and relative paths as caller misuse (CONFIG)', () => {
    expect(() => resolvePolicyPaths({ cwd: join(root, 'nope'), read: [], write: [] })).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
    expect(() => resolvePolicyPaths({ cwd: 'rel', read: [], write: [] })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => resolvePolicyPaths({ cwd: root, read: ['rel'], write: [] })).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
  });
});

describe('defaultSandboxEnv', () => {
  it('holds only what a process needs, nothing from the host environment', () => {
    const env = defaultSandboxEnv('/w');
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'TMPDIR']);
    expect(env.HOME).toBe('/w');
    expect(env.TMPDIR).toBe('/tmp');
    expect(env.PATH?.split(':')).toContain('/usr/bin');
    expect(defaultSandboxEnv('/w', { tmpDir: '/w/.tmp' }).TMPDIR).toBe('/w/.tmp');
  });
});

describe('isWithin', () => {
  it('matches whole path components only', () => {
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/a', '/a/b')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});
