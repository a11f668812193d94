import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { skipWithoutBwrap } from '../../test/helpers/bwrap.js';
import { waitUntil } from '../../test/helpers/wait-until.js';
import { startConnectionCounter, type ConnectionCounter } from '../../test/helpers/connection-counter.js';

import { createContext } from '../context/context.js';
import { MAX_BASH_STREAM_BYTES } from './shell-limits.js';
import type { SandboxMode } from '../ptc-runtime/types.js';
import { overrideSandboxProbe, resolveWorkspacePolicy, type WorkspacePolicyInput } from '../sandbox/index.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolExecContext } from '../tools/types.js';
import { createBashTool, type BashArgs, type BashOutput, type BashToolOptions } from './bash.js';


let root: string;
let ws: string;
let outside: string;
let listener: ConnectionCounter;
let port: number;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-bash-')));
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  listener = await startConnectionCounter();
  port = listener.port;
});

afterAll(async () => {
  await listener.close();
  rmSync(root, { recursive: true, force: true });
});

afterEach(() => {
  overrideSandboxProbe(undefined);
});

function execContext(signal: AbortSignal = new AbortController().signal): ToolExecContext {
  return { signal, callId: 't1', deferContext() {} };
}

/** Test options: the tool's own plus the policy widenings, resolved into one policy like createHarness does. */
type TestOptions = Partial<Omit<BashToolOptions, 'policy'>> & Omit<WorkspacePolicyInput, 'cwd'>;

function options(given: TestOptions = {}): BashToolOptions {
  const { allowRead, allowWrite, network, processes, ...rest } = given;
  const policy = resolveWorkspacePolicy({
    cwd: ws,
    ...(allowRead === undefined ? {} : { allowRead }),
    ...(allowWrite === undefined ? {} : { allowWrite }),
    ...(network === undefined ? {} : { network }),
    ...(processes === undefined ? {} : { processes }),
  });
  return { policy, sandbox: 'auto', ...rest };
}

async function bash(args: BashArgs, given: TestOptions = {}, signal?: AbortSignal): Promise<BashOutput> {
  const tool = createBashTool(options(given));
  return tool.execute(args, execContext(signal));
}

/** Host pids whose argv contains `marker`. */
function pidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const sleepMarker = (): string => `${1000 + Math.floor(Math.random() * 1000)}.${randomBytes(3).readUIntBE(0, 3)}`;

describe.each<SandboxMode>(['auto', 'off'])('bash (sandbox %s)', (sandbox) => {
  const expectedBackend = sandbox === 'auto' ? 'bwrap' : 'none';

  it.skipIf(sandbox === 'auto' && skipWithoutBwrap)('returns the exit code and both streams, and reports the sandbox', async () => {
    const tool = createBashTool(options({ sandbox }));
    const value = await tool.execute({ command: 'echo out; echo err >&2; exit 3' }, execContext());
    expect(value).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false, truncated: false });
    expect(value.sandbox.backend).toBe(expectedBackend);
    expect(tool.renderContent!(value)).toBe('Exit code: 3\nstdout:\nout\nstderr:\nerr');
  });

  it('runs in the workspace with only the sandbox environment', async () => {
    process.env.PTC_BASH_TEST_SECRET = 'bash-secret';
    try {
      const value = await bash({ command: 'pwd; echo "[$PTC_BASH_TEST_SECRET]" "$HOME"' }, { sandbox });
      expect(value.stdout).toBe(`${ws}\n[] ${ws}\n`);
    } finally {
      delete process.env.PTC_BASH_TEST_SECRET;
    }
  });

  it('keeps the start and end of a flood and says it truncated', async () => {
    const tool = createBashTool(options({ sandbox }));
    const value = await tool.execute({ command: 'echo START; head -c 200000 /dev/zero | tr "\\0" a; echo; echo END' }, execContext());
    expect(value.truncated).toBe(true);
    expect(value.stdout.startsWith('START\naaa')).toBe(true);
    expect(value.stdout.endsWith('aaa\nEND\n')).toBe(true);
    expect(value.stdout).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(Buffer.byteLength(value.stdout)).toBeLessThan(MAX_BASH_STREAM_BYTES + 100);
    expect(tool.renderContent!(value)).toMatch(/Note: output was truncated/);
  });

  it('kills the whole tree at the deadline (a `sleep & wait` is gone afterwards)', async () => {
    const marker = sleepMarker();
    const tool = createBashTool(options({ sandbox }));
    const value = await tool.execute({ command: `sleep ${marker} & echo started; wait`, timeout_ms: 2_000 }, execContext());
    expect(value.stdout).toBe('started\n');
    expect(value.timedOut).toBe(true);
    expect(value.exitCode).toBeNull();
    expect(value.signal).toBe('SIGKILL');
    expect(tool.renderContent!(value)).toMatch(/timed out/);
    await waitUntil('the background sleep to be gone', () => pidsWith(marker).length === 0);
  });

  // Before spawnConfined, bash killed only its process group: without bwrap the setsid child survived.
  it('kills a setsid child that left the process group, with or without a pid namespace', async () => {
    const marker = sleepMarker();
    const tool = createBashTool(options({ sandbox }));
    const value = await tool.execute({ command: `setsid sleep ${marker} & echo started; wait`, timeout_ms: 1_000 }, execContext());
    expect(value.stdout).toBe('started\n');
    expect(value.timedOut).toBe(true);
    expect(pidsWith(marker)).toEqual([]);
  });

  it('takes background jobs down with the command when it exits', async () => {
    const marker = sleepMarker();
    const value = await bash({ command: `sleep ${marker} >/dev/null 2>&1 & echo left` }, { sandbox });
    expect(value).toMatchObject({ exitCode: 0, stdout: 'left\n', timedOut: false });
    await waitUntil('the background sleep to be gone', () => pidsWith(marker).length === 0);
  });

  it('kills the tree and throws ABORTED when the call is aborted', async () => {
    const marker = sleepMarker();
    const flag = join(ws, `started-${marker}`);
    const controller = new AbortController();
    const call = bash({ command: `sleep ${marker} & touch ${flag}; wait` }, { sandbox }, controller.signal);
    await waitUntil('the command to start', () => existsSync(flag) && pidsWith(marker).length === 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await waitUntil('the background sleep to be gone', () => pidsWith(marker).length === 0);
  });
});

describe.skipIf(skipWithoutBwrap)('bash under bwrap', () => {
  it('refuses writes outside the workspace and allows them inside', async () => {
    const target = join(outside, 'escape.txt');
    const value = await bash({ command: `echo x > ${target}; echo "rc=$?"; echo y > inside.txt; cat inside.txt` });
    expect(value.sandbox).toEqual({ backend: 'bwrap', enforced: { fs: 'full', network: 'full', process: 'full' } });
    expect(value.stdout).toBe('rc=1\ny\n');
    expect(value.stderr).toMatch(/No such file or directory|Read-only file system/);
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('y\n');
  });

  it('writes where allowWrite permits', async () => {
    const extra = join(root, 'extra');
    mkdirSync(extra, { recursive: true });
    const value = await bash({ command: `echo ok > ${join(extra, 'f.txt')}` }, { allowWrite: [extra] });
    expect(value.exitCode).toBe(0);
    expect(readFileSync(join(extra, 'f.txt'), 'utf8')).toBe('ok\n');
  });

  it('denies network: a loopback server sees no connection', async () => {
    const before = listener.connections();
    const value = await bash({ command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected` });
    expect(value.exitCode).not.toBe(0);
    expect(value.stdout).toBe('');
    expect(listener.connections()).toBe(before);
  });

  it('allows network when the options say so (control)', async () => {
    const before = listener.connections();
    const value = await bash({ command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected` }, { network: true });
    expect(value.stdout).toBe('connected\n');
    await waitUntil('the server to count the connection', () => listener.connections() === before + 1);
  });

  it('cannot read /etc/shadow or files outside the policy', async () => {
    const value = await bash({ command: `cat /etc/shadow ${JSON.stringify(join(outside))}/* 2>&1; ls ~ >/dev/null; echo done` });
    expect(value.stdout).toMatch(/No such file or directory[\s\S]*done\n$/);
  });
});

describe('createBashTool options', () => {
  it('rejects out-of-range limits and an unknown sandbox mode with CONFIG', () => {
    expect(() => createBashTool(options({ sandbox: 'auto', timeoutMs: 5 }))).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => createBashTool(options({ sandbox: 'auto', maxStreamBytes: 0 }))).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => createBashTool(options({ sandbox: 'strict' as SandboxMode }))).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it('is exclusive (not concurrency-safe) and advertises its own default deadline', () => {
    const tool = createBashTool(options({ sandbox: 'auto', timeoutMs: 5_000 }));
    expect(tool.isConcurrencySafe).toBeUndefined();
    expect(JSON.stringify(tool.inputSchema)).toContain('default 5000');
  });
});

describe('bash through the tool registry', () => {
  function registry(given: TestOptions = {}): ToolRuntime {
    const ctx = createContext();
    ctx.provide('tools', new ToolRuntime(ctx));
    ctx.tools.register(createBashTool(options(given)));
    return ctx.tools;
  }

  it('validates timeout_ms bounds (INVALID_ARGS) and renders successful calls', async () => {
    const tools = registry();
    expect((await tools.execute('bash', { command: 'true', timeout_ms: 10 })).error?.code).toBe('INVALID_ARGS');
    expect((await tools.execute('bash', { command: 'true', timeout_ms: 10_000_000 })).error?.code).toBe('INVALID_ARGS');
    const ok = await tools.execute('bash', { command: 'echo hi', description: 'say hi' });
    expect(ok.isError).toBe(false);
    expect(ok.content).toBe('Exit code: 0\nstdout:\nhi');
  });

  it('fails with SANDBOX_UNAVAILABLE in required mode without bwrap', async () => {
    overrideSandboxProbe({ seccomp: false, detail: 'forced by a test' });
    const result = await registry({ sandbox: 'required' }).execute('bash', { command: 'true' });
    expect(result.error?.code).toBe('SANDBOX_UNAVAILABLE');
  });

  it('falls back to an unconfined shell in auto mode without bwrap, and says so', async () => {
    overrideSandboxProbe({ seccomp: false, detail: 'forced by a test' });
    const result = await registry().execute('bash', { command: 'echo hi' });
    expect(result.value).toMatchObject({ stdout: 'hi\n', sandbox: { backend: 'none' } });
  });

  it('throws ABORTED without starting anything when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await registry().execute('bash', { command: `touch ${join(ws, 'never')}` }, { signal: controller.signal });
    expect(result.error?.code).toBe('ABORTED');
    expect(existsSync(join(ws, 'never'))).toBe(false);
  });
});
