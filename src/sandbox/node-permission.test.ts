import { describe, expect, it } from 'vitest';

import type { HostLayout } from './bwrap.js';
import { buildNodePermissionArgs, nodePermissionFlag } from './node-permission.js';

const layout: HostLayout = {
  rootLinks: [{ path: '/bin', target: 'usr/bin' }],
  rootBinds: [{ path: '/lib64', source: '/lib64' }],
  etc: ['/etc/passwd', '/etc/ssl/certs'],
  nodeInstall: '/opt/node',
};

describe('buildNodePermissionArgs', () => {
  const flags = buildNodePermissionArgs({
    layout,
    paths: { cwd: '/w', read: ['/r,with,commas'], write: ['/out'] },
    runtimeRead: ['/opt/boot/child.js'],
    permissionFlag: '--experimental-permission',
  });

  it('turns the model on first and silences its warning', () => {
    expect(flags[0]).toBe('--experimental-permission');
    expect(flags).toContain('--no-warnings');
  });

  it('reads what bwrap shows plus cwd, the runtime files and the policy paths, one flag per path', () => {
    const reads = flags.filter((f) => f.startsWith('--allow-fs-read=')).map((f) => f.slice('--allow-fs-read='.length));
    expect(reads).toEqual([
      '/usr',
      '/lib64',
      '/etc/passwd',
      '/etc/ssl/certs',
      '/opt/node',
      '/opt/boot/child.js',
      '/w',
      '/r,with,commas',
      '/out',
    ]);
  });

  it('writes only cwd and the write paths', () => {
    const writes = flags.filter((f) => f.startsWith('--allow-fs-write=')).map((f) => f.slice('--allow-fs-write='.length));
    expect(writes).toEqual(['/w', '/out']);
  });

  it('a read-only workspace writes only the private dirs', () => {
    const readOnly = buildNodePermissionArgs({
      layout,
      paths: { cwd: '/w', read: ['/out'], write: ['/tmp/ptc-run-1'], cwdReadOnly: true },
      runtimeRead: [],
      permissionFlag: '--permission',
    });
    const writes = readOnly.filter((f) => f.startsWith('--allow-fs-write=')).map((f) => f.slice('--allow-fs-write='.length));
    expect(writes).toEqual(['/tmp/ptc-run-1']);
    expect(readOnly).toContain('--allow-fs-read=/w');
  });

  it('never allows child processes, workers, addons or WASI', () => {
    for (const flag of ['--allow-child-process', '--allow-worker', '--allow-addons', '--allow-wasi']) {
      expect(flags.some((f) => f.startsWith(flag))).toBe(false);
    }
  });
});

describe('nodePermissionFlag', () => {
  it('names the flag this Node accepts', () => {
    expect(process.allowedNodeEnvironmentFlags.has(nodePermissionFlag())).toBe(true);
  });
});
