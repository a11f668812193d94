import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { skipWithoutBwrap } from '../../test/helpers/bwrap.js';
import { waitUntil } from '../../test/helpers/wait-until.js';

import { createContext } from '../context/context.js';
import { MAX_BASH_STREAM_BYTES } from './shell-limits.js';
import type { SandboxMode } from '../ptc-runtime/types.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import type { ToolExecContext } from '../tools/types.js';
import {
  createPersistentBashTool,
  type PersistentBashArgs,
  type PersistentBashOutput,
  type PersistentBashTool,
  type PersistentBashToolOptions,
} from './persistent-bash.js';

let root: string;
let ws: string;
let outside: string;
const tools: PersistentBashTool[] = [];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-pbash-')));
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
});

afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function execContext(signal: AbortSignal = new AbortController().signal): ToolExecContext {
  return { signal, callId: 't1', deferContext() {} };
}

function makeTool(given: Partial<Omit<PersistentBashToolOptions, 'policy'>> = {}): PersistentBashTool {
  const tool = createPersistentBashTool({ policy: resolveWorkspacePolicy({ cwd: ws }), sandbox: 'auto', ...given });
  tools.push(tool);
  return tool;
}

function run(tool: PersistentBashTool, args: PersistentBashArgs, signal?: AbortSignal): Promise<PersistentBashOutput> {
  return Promise.resolve(tool.execute(args, execContext(signal)));
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

describe.each<SandboxMode>(['auto', 'off'])('persistent bash (sandbox %s)', (sandbox) => {
  const skip = sandbox === 'auto' && skipWithoutBwrap;

  it.skipIf(skip)('keeps the working directory, an exported variable and a function across calls', async () => {
    const tool = makeTool({ sandbox });
    mkdirSync(join(ws, 'sub'), { recursive: true });
    const first = await run(tool, { command: 'cd sub && export GREETING=hello && shout() { echo "${1^^}!"; }' });
    expect(first).toMatchObject({ exitCode: 0, stdout: '', stderr: '', shell: 'started', shellEnded: false });
    expect(first.sandbox.backend).toBe(sandbox === 'auto' ? 'bwrap' : 'none');
    const second = await run(tool, { command: 'pwd; echo "$GREETING"; shout "$GREETING"; bash -c \'echo "child sees $GREETING"\'' });
    expect(second).toMatchObject({ exitCode: 0, stdout: `${ws}/sub\nhello\nHELLO!\nchild sees hello\n`, shell: 'reused' });
    expect(tool.renderContent!(second)).toBe(`Exit code: 0\nstdout:\n${ws}/sub\nhello\nHELLO!\nchild sees hello`);
  });

  it.skipIf(skip)('reports each exit status and both streams exactly, with or without a final newline', async () => {
    const tool = makeTool({ sandbox });
    expect(await run(tool, { command: 'printf out; printf err >&2; (exit 7)' })).toMatchObject({
      exitCode: 7,
      stdout: 'out',
      stderr: 'err',
      shellEnded: false,
    });
    expect(await run(tool, { command: 'false' })).toMatchObject({ exitCode: 1, stdout: '' });
    expect(await run(tool, { command: 'echo "unterminated' })).toMatchObject({ exitCode: 2, stderr: expect.stringMatching(/unexpected EOF/) });
    // xtrace set by a command traces later commands too, but never the shell's own driver steps.
    expect(await run(tool, { command: 'set -x; echo a' })).toMatchObject({ stdout: 'a\n', stderr: '++ echo a\n' });
    expect(await run(tool, { command: 'echo b' })).toMatchObject({ stdout: 'b\n', stderr: '++ echo b\n' });
    expect(await run(tool, { command: 'set +x; echo c' })).toMatchObject({ stdout: 'c\n', stderr: '++ set +x\n' });
    expect(await run(tool, { command: 'echo d' })).toMatchObject({ stdout: 'd\n', stderr: '' });
    // Output that looks like a marker line is just output: the real marker carries a fresh nonce.
    expect(await run(tool, { command: 'printf "\\n__ptc_end_0123 0\\nafter\\n"' })).toMatchObject({
      exitCode: 0,
      stdout: '\n__ptc_end_0123 0\nafter\n',
    });
  });

  it.skipIf(skip)('gives commands /dev/null as stdin, so a reading command does not hang', async () => {
    const tool = makeTool({ sandbox });
    const value = await run(tool, { command: 'read -r line; echo "read rc=$? [$line]"; cat; echo after-cat' });
    expect(value).toMatchObject({ exitCode: 0, stdout: 'read rc=1 []\nafter-cat\n' });
    expect(await run(tool, { command: 'echo still-here' })).toMatchObject({ stdout: 'still-here\n', shell: 'reused' });
  });

  it.skipIf(skip)('returns while a background job keeps running, and the job survives into the next call', async () => {
    const marker = sleepMarker();
    const tool = makeTool({ sandbox });
    const value = await run(tool, { command: `sleep ${marker} & echo "bg=$!"` });
    expect(value.exitCode).toBe(0);
    expect(value.stdout).toMatch(/^bg=\d+\n$/);
    // The job was forked before the call returned; its exec may come a moment later.
    await waitUntil('the background sleep to run', () => pidsWith(marker).length === 1);
    const jobs = await run(tool, { command: 'kill -0 $! && echo alive' });
    expect(jobs.stdout).toBe('alive\n');
  });

  it.skipIf(skip)("drops what a background job writes after its call returned, and the job keeps running", async () => {
    const marker = sleepMarker();
    const flag = join(ws, `go-${marker}`);
    const tool = makeTool({ sandbox });
    const started = await run(tool, {
      command: `{ while [ ! -e ${flag} ]; do sleep 0.02; done; echo late; echo late >&2; touch ${flag}.wrote; exec sleep ${marker}; } &`,
    });
    expect(started).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    const next = await run(tool, { command: `echo next; touch ${flag}; while [ ! -e ${flag}.wrote ]; do sleep 0.02; done` });
    expect(next).toMatchObject({ exitCode: 0, stdout: 'next\n', stderr: '' });
    // Its output went nowhere, but it was read: the job was not stopped by a full or broken pipe.
    await waitUntil('the job to reach its sleep', () => pidsWith(marker).length === 1);
    expect(await run(tool, { command: 'echo after' })).toMatchObject({ stdout: 'after\n', stderr: '' });
  });

  it.skipIf(skip)('takes a command larger than a pipe holds', async () => {
    const tool = makeTool({ sandbox });
    expect(await run(tool, { command: `x=${'a'.repeat(200_000)}; echo \${#x}` })).toMatchObject({ exitCode: 0, stdout: '200000\n' });
    expect(await run(tool, { command: 'echo "${#x}"' })).toMatchObject({ stdout: '200000\n', shell: 'reused' });
  });

  it.skipIf(skip)('a break or continue in a command finishes its call; only break 2 ends the shell', async () => {
    const tool = makeTool({ sandbox });
    await run(tool, { command: 'KEPT=1' });
    expect(await run(tool, { command: 'echo a; break; echo b' })).toMatchObject({ exitCode: 0, stdout: 'a\n', shellEnded: false });
    expect(await run(tool, { command: 'echo c; continue; echo d' })).toMatchObject({ exitCode: 0, stdout: 'c\n', shellEnded: false });
    expect(await run(tool, { command: 'echo "$KEPT"' })).toMatchObject({ stdout: '1\n', shell: 'reused' });
    expect(await run(tool, { command: 'for i in 1 2; do echo $i; break; done' })).toMatchObject({ stdout: '1\n', shell: 'reused' });
    expect(await run(tool, { command: 'echo e; break 2' })).toMatchObject({ stdout: 'e\n', shellEnded: true });
  });

  it.skipIf(skip)('kills the shell and its processes at the deadline, then starts a fresh shell on the next call', async () => {
    const marker = sleepMarker();
    const tool = makeTool({ sandbox });
    await run(tool, { command: 'export KEPT=1; cd /' });
    const value = await run(tool, { command: `echo before; sleep ${marker} & sleep ${marker}`, timeout_ms: 1_000 });
    expect(value).toMatchObject({ exitCode: null, stdout: 'before\n', timedOut: true, shellEnded: true });
    expect(tool.renderContent!(value)).toMatch(/timed out[\s\S]*fresh shell[\s\S]*state lost/);
    await waitUntil('the sleeps to be gone', () => pidsWith(marker).length === 0);
    const next = await run(tool, { command: 'echo "[${KEPT-}]"; pwd' });
    expect(next).toMatchObject({ exitCode: 0, stdout: `[]\n${ws}\n`, shell: 'restarted', timedOut: false });
    expect(tool.renderContent!(next)).toMatch(/Note: this ran in a fresh shell/);
  });

  it.skipIf(skip)('restarts on request, with or without a command', async () => {
    const marker = sleepMarker();
    const tool = makeTool({ sandbox });
    await run(tool, { command: `export KEPT=1; sleep ${marker} >/dev/null 2>&1 &` });
    // The job was forked before the call returned; its exec may come a moment later.
    await waitUntil('the background sleep to run', () => pidsWith(marker).length === 1);
    const restarted = await run(tool, { restart: true });
    expect(restarted).toMatchObject({ exitCode: null, stdout: '', shell: 'restarted', shellEnded: false });
    expect(tool.renderContent!(restarted)).toMatch(/^Started a fresh shell/);
    expect(pidsWith(marker)).toEqual([]);
    expect(await run(tool, { command: 'echo "[${KEPT-}]"' })).toMatchObject({ stdout: '[]\n', shell: 'reused' });
    await run(tool, { command: 'export KEPT=2' });
    expect(await run(tool, { command: 'echo "[${KEPT-}]"', restart: true })).toMatchObject({ stdout: '[]\n', shell: 'restarted' });
  });

  it.skipIf(skip)('a command that exits the shell ends it; the next call gets a fresh one', async () => {
    const tool = makeTool({ sandbox });
    const value = await run(tool, { command: 'echo bye; exit 3' });
    expect(value).toMatchObject({ exitCode: 3, stdout: 'bye\n', shellEnded: true, timedOut: false });
    expect(tool.renderContent!(value)).toMatch(/ended the shell/);
    expect(await run(tool, { command: 'echo back' })).toMatchObject({ exitCode: 0, stdout: 'back\n', shell: 'restarted' });
  });

  it.skipIf(skip)('keeps the start and end of a flood and says it truncated', async () => {
    const tool = makeTool({ sandbox });
    const value = await run(tool, { command: 'echo START; head -c 200000 /dev/zero | tr "\\0" a; echo; echo END' });
    expect(value.truncated).toBe(true);
    expect(value.stdout.startsWith('START\naaa')).toBe(true);
    expect(value.stdout.endsWith('aaa\nEND\n')).toBe(true);
    expect(Buffer.byteLength(value.stdout)).toBeLessThan(MAX_BASH_STREAM_BYTES + 100);
    expect(tool.renderContent!(value)).toMatch(/Note: output was truncated/);
    expect(await run(tool, { command: 'echo small' })).toMatchObject({ stdout: 'small\n', truncated: false });
  });

  it.skipIf(skip)('kills the tree and throws ABORTED on abort; the next call gets a fresh shell', async () => {
    const marker = sleepMarker();
    const flag = join(ws, `started-${marker}`);
    const tool = makeTool({ sandbox });
    const controller = new AbortController();
    const call = run(tool, { command: `sleep ${marker} & touch ${flag}; wait` }, controller.signal);
    await waitUntil('the command to start', () => existsSync(flag) && pidsWith(marker).length === 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await waitUntil('the background sleep to be gone', () => pidsWith(marker).length === 0);
    expect(await run(tool, { command: 'echo ok' })).toMatchObject({ stdout: 'ok\n', shell: 'restarted' });
  });

  it.skipIf(skip)('dispose leaves no process behind and later calls fail', async () => {
    const marker = sleepMarker();
    const tool = makeTool({ sandbox });
    const value = await run(tool, { command: `sleep ${marker} >/dev/null 2>&1 & setsid sleep ${marker} >/dev/null 2>&1 & echo $$` });
    const shellPid = Number(value.stdout.trim());
    await waitUntil('both sleeps to run', () => pidsWith(marker).length === 2);
    await tool.dispose();
    expect(pidsWith(marker)).toEqual([]);
    if (sandbox === 'off') expect(existsSync(`/proc/${shellPid}`)).toBe(false);
    await expect(run(tool, { command: 'true' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });
});

describe.skipIf(skipWithoutBwrap)('persistent bash under bwrap', () => {
  it('refuses writes outside the workspace and allows them inside', async () => {
    const tool = makeTool();
    const target = join(outside, 'escape.txt');
    const value = await run(tool, { command: `echo x > ${target}; echo "rc=$?"; cd ${ws} && echo y > inside.txt; cat inside.txt` });
    expect(value.sandbox).toEqual({ backend: 'bwrap', enforced: { fs: 'full', network: 'full', process: 'full' } });
    expect(value.stdout).toBe('rc=1\ny\n');
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('y\n');
  });
});

describe('persistent bash through the tool registry', () => {
  function registry(): { runtime: ToolRuntime; tool: PersistentBashTool } {
    const ctx = createContext();
    ctx.provide('tools', new ToolRuntime(ctx));
    const tool = makeTool();
    ctx.tools.register(tool);
    return { runtime: ctx.tools, tool };
  }

  it('is exclusive, wants a command or restart, and rejects bad timeouts with INVALID_ARGS', async () => {
    const { runtime, tool } = registry();
    expect(tool.isConcurrencySafe).toBeUndefined();
    expect((await runtime.execute('bash', {})).error?.code).toBe('INVALID_ARGS');
    expect((await runtime.execute('bash', { command: 'true', timeout_ms: 10 })).error?.code).toBe('INVALID_ARGS');
    const ok = await runtime.execute('bash', { command: 'echo hi' });
    expect(ok.content).toBe('Exit code: 0\nstdout:\nhi');
  });

  it('runs overlapping calls one after the other in the one shell', async () => {
    const { runtime } = registry();
    const results = await Promise.all([
      runtime.execute('bash', { command: 'X=1; echo first' }),
      runtime.execute('bash', { command: 'echo "second X=$X"' }),
    ]);
    expect(results.map((r) => r.content)).toEqual(['Exit code: 0\nstdout:\nfirst', 'Exit code: 0\nstdout:\nsecond X=1']);
  });
});
