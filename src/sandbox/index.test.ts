// Mode semantics of planLaunch. The probe result is forced where a test needs "no bwrap"; the rest
// uses the real probe and skips without a usable bwrap (test/helpers/bwrap.ts).

import { fstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { NODE_PERMISSION_ENFORCEMENT, NONE_ENFORCEMENT, overrideSandboxProbe, planLaunch, probeSandbox } from './index.js';
import { runtimeReadPaths } from './runtime-read-paths.js';
import { skipWithoutBwrap } from '../../test/helpers/bwrap.js';
import { buildSandboxFilter, decodeFilter } from './seccomp-filter.js';
import type { LaunchRequest, SandboxPolicy } from './types.js';

let ws: string;
let bootstrap: string;

beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-plan-')));
  bootstrap = join(ws, 'boot.js');
  writeFileSync(bootstrap, '');
});

afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
});

afterEach(() => {
  overrideSandboxProbe(undefined);
});

const NO_BWRAP = { seccomp: false, detail: 'forced by a test' } as const;

function request(overrides: Partial<LaunchRequest> = {}, policy: Partial<SandboxPolicy> = {}): LaunchRequest {
  return {
    kind: 'node',
    command: process.execPath,
    args: ['-e', '0'],
    mode: 'auto',
    firstFreeFd: 4,
    policy: { cwd: ws, read: [], write: [], network: false, processes: true, env: { PATH: '/usr/bin', HOME: ws }, ...policy },
    ...overrides,
  };
}

describe('mode off', () => {
  it('launches the command as given with exactly the policy env and reports nothing enforced', async () => {
    const plan = await planLaunch(request({ mode: 'off', args: ['a', 'b'] }, { env: { ONLY: '1' } }));
    expect(plan.backend).toBe('none');
    expect(plan.enforced).toEqual(NONE_ENFORCEMENT);
    expect(plan.command).toBe(process.execPath);
    expect(plan.args).toEqual(['a', 'b']);
    expect(plan.env).toEqual({ ONLY: '1' });
    expect(plan.cwd).toBe(ws);
    expect(plan.passFds).toEqual([]);
    plan.release();
  });

  it('does not even need the probe: it works when bwrap is unavailable', async () => {
    overrideSandboxProbe(NO_BWRAP);
    expect((await planLaunch(request({ mode: 'off' }))).backend).toBe('none');
  });
});

describe('mode auto', () => {
  it.skipIf(skipWithoutBwrap)('uses bwrap here, enforcing everything', async () => {
    const probe = await probeSandbox();
    expect(probe.bwrapPath).toBeDefined();
    const plan = await planLaunch(request());
    expect(plan.backend).toBe('bwrap');
    expect(plan.command).toBe(probe.bwrapPath);
    expect(plan.enforced).toEqual({ fs: 'full', network: 'full', process: 'full' });
    expect(plan.env).toEqual({});
    // The network is denied, so the seccomp filter carries the unix-socket rule.
    expect(plan.passFds).toHaveLength(1);
    expect(plan.args).toContain('--clearenv');
    plan.release();
    expect(plan.asyncIoDenied).toBe(true);
    // With the network and processes allowed, the filter still denies asynchronous I/O.
    const open = await planLaunch(request({}, { network: true, processes: true }));
    expect(open.passFds).toHaveLength(1);
    expect(decodeFilter(readFileSync(open.passFds[0]!))).toEqual(
      buildSandboxFilter({ denySpawn: false, denyUnixSockets: false, killSignalExitCodes: false, denyAsyncIo: true }),
    );
    expect(open.asyncIoDenied).toBe(true);
    open.release();
  });

  it.skipIf(skipWithoutBwrap)('hands bwrap a fresh seccomp fd at firstFreeFd when processes are denied, closed by release()', async () => {
    const first = await planLaunch(request({ firstFreeFd: 5 }, { processes: false }));
    const second = await planLaunch(request({ firstFreeFd: 5 }, { processes: false }));
    expect(first.passFds).toHaveLength(1);
    expect(second.passFds[0]).not.toBe(first.passFds[0]);
    const at = first.args.indexOf('--seccomp');
    expect(first.args.slice(at, at + 2)).toEqual(['--seccomp', '5']);
    const fd = first.passFds[0]!;
    expect(decodeFilter(readFileSync(fd))).toEqual(buildSandboxFilter({ denySpawn: true, denyUnixSockets: true, killSignalExitCodes: false, denyAsyncIo: true }));
    first.release();
    expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: 'EBADF' }));
    expect(() => first.release()).not.toThrow();
    second.release();
  });

  it.skipIf(skipWithoutBwrap)('makes exit codes truthful only when asked, and says so on the plan', async () => {
    const truthful = await planLaunch(request({ truthfulExit: true }, { network: true }));
    expect(truthful.signalExitCodes).toBe(true);
    expect(decodeFilter(readFileSync(truthful.passFds[0]!))).toEqual(
      buildSandboxFilter({ denySpawn: false, denyUnixSockets: false, killSignalExitCodes: true, denyAsyncIo: true }),
    );
    truthful.release();
    const plain = await planLaunch(request({}, { network: true }));
    expect(plain.signalExitCodes).toBe(false);
    const off = await planLaunch(request({ mode: 'off', truthfulExit: true }));
    expect(off.signalExitCodes).toBe(false);
  });

  it('falls back to node-permission for Node when bwrap is unavailable', async () => {
    overrideSandboxProbe(NO_BWRAP);
    const plan = await planLaunch(request({ args: ['--max-old-space-size=64', bootstrap] }));
    expect(plan.backend).toBe('node-permission');
    expect(plan.enforced).toEqual(NODE_PERMISSION_ENFORCEMENT);
    expect(plan.command).toBe(process.execPath);
    expect(plan.args.slice(-2)).toEqual(['--max-old-space-size=64', bootstrap]);
    expect(plan.args).toContain(`--allow-fs-read=${bootstrap}`);
    expect(plan.args).toContain(`--allow-fs-write=${ws}`);
    expect(plan.env).toEqual({ PATH: '/usr/bin', HOME: ws });
  });

  it('falls back to none for other commands when bwrap is unavailable', async () => {
    overrideSandboxProbe(NO_BWRAP);
    const plan = await planLaunch(request({ kind: 'exec', command: 'bash', args: ['-c', 'true'] }));
    expect(plan.backend).toBe('none');
    expect(plan.enforced).toEqual(NONE_ENFORCEMENT);
  });

  it('reports partial process enforcement when bwrap works but no seccomp filter does', async () => {
    overrideSandboxProbe({ bwrapPath: '/usr/bin/bwrap', seccomp: false, detail: 'forced by a test' });
    const plan = await planLaunch(request({}, { processes: false }));
    expect(plan.enforced).toEqual({ fs: 'full', network: 'full', process: 'partial' });
    expect(plan.passFds).toEqual([]);
    expect(plan.args).not.toContain('--seccomp');
  });
});

describe('mode required', () => {
  it.skipIf(skipWithoutBwrap)('uses bwrap when it works', async () => {
    expect((await planLaunch(request({ mode: 'required' }))).backend).toBe('bwrap');
  });

  it('refuses with SANDBOX_UNAVAILABLE, naming the fix, when bwrap is unavailable', async () => {
    overrideSandboxProbe(NO_BWRAP);
    for (const kind of ['node', 'exec'] as const) {
      const refusal = planLaunch(request({ mode: 'required', kind }));
      await expect(refusal).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
      await expect(refusal).rejects.toThrow(/apt-get install bubblewrap[\s\S]*--sandbox auto/);
    }
  });
});

describe('request validation', () => {
  it('rejects a bad env entry, a low firstFreeFd and a missing cwd with CONFIG', async () => {
    await expect(planLaunch(request({}, { env: { 'A=B': 'x' } }))).rejects.toMatchObject({ code: 'CONFIG' });
    await expect(planLaunch(request({ firstFreeFd: 2 }))).rejects.toMatchObject({ code: 'CONFIG' });
    await expect(planLaunch(request({}, { cwd: join(ws, 'missing') }))).rejects.toMatchObject({ code: 'CONFIG' });
  });
});

describe('runtimeReadPaths', () => {
  it('finds the entry script and preloads of a Node command line, never scripts of -e', () => {
    expect(runtimeReadPaths({ kind: 'node', args: ['--max-old-space-size=64', bootstrap, 'x'] })).toEqual([bootstrap]);
    expect(runtimeReadPaths({ kind: 'node', args: ['--import', bootstrap, '-e', '0'] })).toEqual([bootstrap]);
    expect(runtimeReadPaths({ kind: 'node', args: [`--require=${bootstrap}`] })).toEqual([bootstrap]);
    expect(runtimeReadPaths({ kind: 'node', args: ['-e', bootstrap] })).toEqual([]);
    expect(runtimeReadPaths({ kind: 'node', args: ['relative.js'] })).toEqual([]);
    expect(runtimeReadPaths({ kind: 'node', args: [join(ws, 'missing.js')] })).toEqual([]);
  });

  it('never scans exec arguments (they may carry model text) but keeps explicit paths', () => {
    expect(runtimeReadPaths({ kind: 'exec', args: [bootstrap] })).toEqual([]);
    expect(runtimeReadPaths({ kind: 'exec', args: [], runtimeReadPaths: [bootstrap] })).toEqual([bootstrap]);
  });
});
