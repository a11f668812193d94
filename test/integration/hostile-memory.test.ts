// Hostile programs against the memory limit of a run (issue 26, docs/sandbox.md "Memory"): the limit
// covers the program's whole process tree, so 512 MiB held by a `python3` or `node` child of the
// program ends the run as MEMORY_LIMIT, in the Node and the Python runtime alike, and the run's
// `sandbox.memory` names the mechanism. On the code before this, the host's watchdog read the
// program's own process only and each of these runs completed. Each case has a control: the same
// program with the limit raised to 1 GiB completes, so a passing case cannot come from a detector that
// fires on anything. A child the program kills itself (the SIGKILL an OOM kill also gives) is not
// MEMORY_LIMIT. At the launch layer an orphan that left the tree is caught too, a kept process
// (in-memory mode) is not kept past it, and the stale sweep removes a dead host's memory groups.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { waitUntil } from '../helpers/wait-until.js';
import type { RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntimeOptions } from '../../src/languages/typescript/runtime/index.js';
import { createPythonRuntime, type PythonRuntimeOptions } from '../../src/languages/python/runtime/index.js';
import { defaultSandboxEnv, launch as sandboxLaunch, memoryLimitSupport, sweepStaleRunState, type ConfinedProcess } from '../../src/sandbox/index.js';
import { formatOwner, identityOf, type OwnerIdentity } from '../../src/sandbox/owner.js';
import { processChain, residentBytes } from '../../src/sandbox/proc-tree.js';

const root = mkdtempSync(join(tmpdir(), 'ptc-hostile-mem-'));
const workspace = join(root, 'workspace');
mkdirSync(workspace);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Under the limit the tree goes over; the program's own process stays far below it. */
const LOW = { memoryMb: 96, rssLimitMb: 192 } as const;
/** The control: the same programs fit. */
const HIGH = { memoryMb: 96, rssLimitMb: 1024 } as const;

/** A child that makes 512 MiB resident (every page written), holds it a while, then says so. */
const PYTHON_HOG = 'import time\nb = bytes([1]) * (512 << 20)\ntime.sleep(1.5)\nprint("held", len(b) >> 20)';
const NODE_HOG = 'const b = Buffer.alloc(512 << 20, 1); setTimeout(() => console.log("held", b.length >> 20), 1500);';

/** Whether the program sees cgroupfs and the memory hierarchy (where its group's files would be). */
const CGROUP_PROBE = "const fs = require('node:fs');\nreturn ['/sys/fs/cgroup', '/sys/fs/cgroup/memory'].map((p) => fs.existsSync(p) && fs.readdirSync(p).length > 0);";

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function runNode(program: string, options: NodeRuntimeOptions): Promise<RunResult> {
  const rt = createNodeRuntime({ pool: false, ...options });
  closers.push(() => rt.close());
  return rt.run(await rt.resolve({ program, cwd: workspace, timeoutMs: 60_000 }));
}

async function runPython(program: string, options: PythonRuntimeOptions): Promise<RunResult> {
  const rt = createPythonRuntime({ pool: false, ...options });
  closers.push(() => rt.close());
  return rt.run(await rt.resolve({ program, cwd: workspace, timeoutMs: 60_000 }));
}

/** A Node program that runs `command args` to the end and returns how it ended (it survives an OOM kill of it). */
function nodeSpawning(command: string, args: readonly string[]): string {
  return [
    "const { spawnSync } = require('node:child_process');",
    `const r = spawnSync(${JSON.stringify(command)}, ${JSON.stringify(args)}, { encoding: 'utf8' });`,
    'return { status: r.status, signal: r.signal, out: r.stdout.trim() };',
  ].join('\n');
}

/** The same in Python. */
function pythonSpawning(command: string, args: readonly string[]): string {
  return [
    'import subprocess',
    `r = subprocess.run(${JSON.stringify([command, ...args])}, capture_output=True, text=True)`,
    'return {"status": r.returncode, "out": r.stdout.strip()}',
  ].join('\n');
}

const nodeChildren = [
  ['python3', nodeSpawning('python3', ['-c', PYTHON_HOG])],
  ['node', `${nodeSpawning('NODE', ['-e', NODE_HOG]).replace('"NODE"', 'process.execPath')}`],
] as const;

const pythonChildren = [
  ['python3', pythonSpawning('PY', ['-c', PYTHON_HOG]).replace('["PY"', '[__import__("sys").executable')],
  ['node', pythonSpawning('/usr/bin/node', ['-e', NODE_HOG])],
] as const;

// First in the file: the sweep runs once per process, when the first runtime (or launch) starts.
describe.skipIf(memoryLimitSupport().root === undefined)('leftover memory groups', () => {
  // Old code: the sweep knew the pids and freezer groups only, so a dead host's memory group stayed.
  it('the sweep removes a memory group whose owner is dead and keeps one whose owner lives (control)', async () => {
    const memoryRoot = memoryLimitSupport().root as string;
    const dead = spawnSync('true').pid as number;
    const live = spawn('sleep', ['60'], { stdio: 'ignore' });
    // Groups carry their owner's identity (pid, pid namespace, start time: src/sandbox/owner.ts).
    const self = identityOf(process.pid) as OwnerIdentity;
    const deadGroup = join(memoryRoot, `${formatOwner({ ...self, pid: dead })}-0`);
    await waitUntil('the live owner to be readable', () => identityOf(live.pid as number) !== undefined);
    const liveGroup = join(memoryRoot, `${formatOwner(identityOf(live.pid as number) as OwnerIdentity)}-0`);
    try {
      mkdirSync(deadGroup);
      mkdirSync(liveGroup);
      await sweepStaleRunState();
      expect(existsSync(deadGroup)).toBe(false);
      expect(existsSync(liveGroup)).toBe(true);
    } finally {
      live.kill('SIGKILL');
      for (const group of [deadGroup, liveGroup]) if (existsSync(group)) rmdirSync(group);
    }
  });
});

function expectMemoryLimit(result: RunResult, mechanism: string): void {
  expect(result.error?.code, JSON.stringify(result)).toBe('MEMORY_LIMIT');
  expect(result.error?.message).toMatch(/process tree/);
  expect(result.value).toBeUndefined();
  expect(result.sandbox.memory).toBe(mechanism);
}

function expectHeld(result: RunResult, mechanism: string): void {
  expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  expect(result.value).toMatchObject({ status: 0, out: 'held 512' });
  expect(result.sandbox.memory).toBe(mechanism);
}

describe.skipIf(skipWithoutBwrap)('under bwrap: a memory group over the whole tree', () => {
  const mechanism = memoryLimitSupport().root === undefined ? 'tree-rss' : 'cgroup-v1';

  it('reports the mechanism it uses', async () => {
    const result = await runNode('return 1', { sandbox: 'auto', limits: LOW });
    expect(result.sandbox.backend).toBe('bwrap');
    expect(result.sandbox.memory).toBe(mechanism);
  });

  for (const [name, program] of nodeChildren) {
    // Old code: the watchdog read the Node program's own process, so the child's 512 MiB went unseen.
    it(`Node: 512 MiB held by a ${name} child of the program is MEMORY_LIMIT`, async () => {
      expectMemoryLimit(await runNode(program, { sandbox: 'auto', limits: LOW }), mechanism);
    });

    it(`Node: the same ${name} child completes under a 1 GiB limit (control)`, async () => {
      expectHeld(await runNode(program, { sandbox: 'auto', limits: HIGH }), mechanism);
    });
  }

  for (const [name, program] of pythonChildren) {
    // Old code: the same, for the python3 program process.
    it(`Python: 512 MiB held by a ${name} child of the program is MEMORY_LIMIT`, async () => {
      expectMemoryLimit(await runPython(program, { sandbox: 'auto', limits: LOW }), mechanism);
    });

    it(`Python: the same ${name} child completes under a 1 GiB limit (control)`, async () => {
      expectHeld(await runPython(program, { sandbox: 'auto', limits: HIGH }), mechanism);
    });
  }

  it('in-memory: a kept process whose child goes over is MEMORY_LIMIT and is not kept', async () => {
    const rt = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false, limits: LOW });
    closers.push(() => rt.close());
    const key = {};
    const run = async (program: string) => rt.run(await rt.resolve({ program, cwd: workspace, timeoutMs: 60_000, memoryKey: key }));
    expect((await run('var kept = 41;\nreturn kept + 1;')).value).toBe(42);
    expectMemoryLimit(await run(nodeChildren[0][1]), mechanism);
    const after = await run('return typeof kept;');
    expect(after.value).toBe('undefined');
    expect(after.logs.join('\n')).toMatch(/memory limit/);
  });

  it('a child the program kills with SIGKILL itself is not MEMORY_LIMIT', async () => {
    const result = await runNode(nodeSpawning('sh', ['-c', 'kill -9 $$']), { sandbox: 'auto', limits: LOW });
    expect(result.error).toBeUndefined();
    expect(result.value).toMatchObject({ signal: 'SIGKILL' });
  });

  it('a program cannot reach its memory group from inside the sandbox (control: it can with the sandbox off)', async () => {
    const confined = await runNode(CGROUP_PROBE, { sandbox: 'auto', limits: LOW });
    expect(confined.error).toBeUndefined();
    expect(confined.value).toEqual([false, false]);
    const open = await runNode(CGROUP_PROBE, { sandbox: 'off', limits: LOW });
    expect(open.value).toEqual([true, memoryLimitSupport().root !== undefined]);
  });
});

// The launch layer, with an orphan: the hog is started in the background by a shell that exits, so it
// is reparented to the namespace's init and is no longer below the program at all.
describe.skipIf(skipWithoutBwrap)('a launch under bwrap whose grandchild leaves the tree', () => {
  const MIB = 1024 * 1024;
  let confined: ConfinedProcess | undefined;
  afterEach(async () => {
    confined?.killTree();
    await confined?.waitGone();
    confined = undefined;
  });

  /** The program starts the hog once told to on stdin, after the host recorded the chain (as a runtime does at `ready`). */
  async function launch(memoryLimitBytes?: number): Promise<{ launched: ConfinedProcess; program: number }> {
    const hog = `(python3 -c '${PYTHON_HOG.replace('1.5', '30')}' &)`;
    const script = `process.stdin.once('data', () => { require('node:child_process').spawnSync('sh', ['-c', ${JSON.stringify(hog)}]); }); setInterval(() => {}, 1000);`;
    const { process: launched } = await sandboxLaunch({
      command: { kind: 'node', command: process.execPath, args: ['-e', script] },
      policy: { cwd: workspace, read: [], write: [], network: false, processes: true, env: defaultSandboxEnv(workspace) },
      mode: 'required',
      stdio: ['pipe', 'ignore', 'ignore'],
      ...(memoryLimitBytes === undefined ? {} : { limits: { memoryLimitBytes } }),
    });
    confined = launched;
    await waitUntil('the chain to reach the program', () => processChain(launched.pid as number).length >= 3);
    const program = launched.recordChain()[2] as number;
    launched.child.stdin?.write('go\n');
    return { launched, program };
  }

  // Without the group (the tree-rss mechanism): the old watchdog's number, the program's own RSS, stays
  // small while the tree's sum sees the orphan's 512 MiB.
  it("without a memory group the tree sum counts the orphan, which the program's own RSS does not", async () => {
    const { launched, program } = await launch();
    expect(launched.memoryGroup).toBeUndefined();
    await waitUntil('the tree to hold 512 MiB', () => launched.treeResidentBytes().bytes > 512 * MIB);
    expect(residentBytes(program)).toBeLessThan(192 * MIB);
  });

  it.skipIf(memoryLimitSupport().root === undefined)('with a 192 MiB memory group the orphan is born in it and OOM-killed there', async () => {
    const { launched } = await launch(192 * MIB);
    const group = launched.memoryGroup;
    expect(group).toBeDefined();
    await waitUntil('an OOM kill in the group', () => (group?.oomKills() ?? 0) > 0);
    // The victim was the hog: once it is gone the tree is back to the program alone.
    await waitUntil('the OOM-killed hog to be gone', () => launched.treeResidentBytes().bytes < 192 * MIB);
  });
});

describe('without bwrap: the tree-wide RSS watchdog', () => {
  it('reports tree-rss', async () => {
    const result = await runNode('return 1', { sandbox: 'off', limits: LOW });
    expect(result.sandbox.memory).toBe('tree-rss');
  });

  // Old code: the same blind spot, with the host as the program's parent.
  it('Node: 512 MiB held by a python3 child of the program is MEMORY_LIMIT', async () => {
    expectMemoryLimit(await runNode(nodeChildren[0][1], { sandbox: 'off', limits: LOW }), 'tree-rss');
  });

  it('Node: the same child completes under a 1 GiB limit (control)', async () => {
    expectHeld(await runNode(nodeChildren[0][1], { sandbox: 'off', limits: HIGH }), 'tree-rss');
  });

  it('Python: 512 MiB held by a node child of the program is MEMORY_LIMIT', async () => {
    expectMemoryLimit(await runPython(pythonChildren[1][1], { sandbox: 'off', limits: LOW }), 'tree-rss');
  });

  it('Python: the same child completes under a 1 GiB limit (control)', async () => {
    expectHeld(await runPython(pythonChildren[1][1], { sandbox: 'off', limits: HIGH }), 'tree-rss');
  });
});
