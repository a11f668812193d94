// Hostile programs against the resource bounds of a run (issue 8, docs/sandbox.md): a fork loop meets
// the per-run task cap, TMPDIR is the size-capped tmpfs, a host unix socket in the workspace is out of
// reach while the network is denied, MEMORY_LIMIT cannot be faked, and leftovers of dead hosts are
// swept. Each case would pass through on the code before these bounds existed (see the comments).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { waitUntil } from '../helpers/wait-until.js';
import { createBashTool } from '../../src/builtin-tools/bash.js';
import type { BindingNamespace, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime, type NodeRuntimeOptions } from '../../src/languages/typescript/runtime/index.js';
import { privateRoot, resolveWorkspacePolicy, sweepStaleRunState, taskLimitSupport } from '../../src/sandbox/index.js';
import { formatOwner, identityOf, ownerTag, type OwnerIdentity } from '../../src/sandbox/owner.js';
import { cannotRunCode } from '../helpers/process-state.js';

const root = mkdtempSync(join(tmpdir(), 'ptc-hostile-res-'));
const workspace = join(root, 'workspace');
mkdirSync(workspace);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const runtimes: NodeRuntime[] = [];
function runtime(options: NodeRuntimeOptions = {}): NodeRuntime {
  const rt = createNodeRuntime({ sandbox: 'auto', pool: false, ...options });
  runtimes.push(rt);
  return rt;
}
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close()));
});

async function run(rt: NodeRuntime, program: string, extra: Partial<RunRequest> = {}): Promise<RunResult> {
  return rt.run(await rt.resolve({ program, cwd: workspace, timeoutMs: 60_000, ...extra }));
}

/** Host pids whose command line contains `marker`. */
function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync('true');
  return child.pid as number;
}

// First in the file: the sweep runs once per process, when the first runtime (or launch) starts.
describe('leftovers of dead hosts', () => {
  it('removes run dirs and pids groups whose owner is dead, and keeps those of a live owner', async () => {
    const dead = deadPid();
    const live = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      // Names carry the owner's pid, pid namespace and start time (src/sandbox/owner.ts).
      const self = identityOf(process.pid) as OwnerIdentity;
      const deadTag = formatOwner({ pid: dead, pidNamespace: self.pidNamespace, startTime: self.startTime });
      const liveTag = formatOwner(identityOf(live.pid as number) as OwnerIdentity);
      const deadDir = join(privateRoot(), `run-${deadTag}-stale1`);
      const liveDir = join(privateRoot(), `run-${liveTag}-alive1`);
      mkdirSync(deadDir);
      writeFileSync(join(deadDir, 'left.txt'), 'x');
      mkdirSync(liveDir);
      const groupRoot = taskLimitSupport().root;
      const deadGroup = groupRoot === undefined ? undefined : join(groupRoot, `${deadTag}-0`);
      const liveGroup = groupRoot === undefined ? undefined : join(groupRoot, `${liveTag}-0`);
      if (deadGroup !== undefined && liveGroup !== undefined) {
        mkdirSync(deadGroup);
        mkdirSync(liveGroup);
      }
      runtime();
      // The same promise the runtime started: resolves once the sweep is over.
      await sweepStaleRunState();
      expect(existsSync(deadDir)).toBe(false);
      expect(existsSync(liveDir)).toBe(true);
      if (deadGroup !== undefined && liveGroup !== undefined) {
        expect(existsSync(deadGroup)).toBe(false);
        expect(existsSync(liveGroup)).toBe(true);
        rmdirSync(liveGroup);
      }
      rmSync(liveDir, { recursive: true, force: true });
    } finally {
      live.kill('SIGKILL');
    }
  });
});

describe.skipIf(skipWithoutBwrap)('resource bounds under bwrap', () => {
  const server: { instance?: Server; connections: number; path: string } = { connections: 0, path: join(workspace, 'host.sock') };

  beforeAll(async () => {
    const instance = createServer((socket) => {
      server.connections++;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => instance.listen(server.path, resolve));
    server.instance = instance;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.instance?.close(() => resolve()) ?? resolve());
  });

  // Old code: no pids group, so the loop reaches its own bound of 1,500 children and `code` is null.
  it.skipIf(taskLimitSupport().mechanism === 'none')('a fork loop meets the per-run task cap (EAGAIN), ends cleanly and leaves nothing alive', async () => {
    const marker = '31.4159';
    const rt = runtime({ limits: { maxTasks: 64 } });
    const result = await run(
      rt,
      `const { spawn } = require('node:child_process');
      // Start libuv's thread pool before the cap is reached (its threads count as tasks too).
      await require('node:fs/promises').readFile('/etc/hostname').catch(() => undefined);
      let started = 0;
      let code = null;
      for (let i = 0; i < 1500; i++) {
        const child = spawn('sleep', ['${marker}'], { stdio: 'ignore' });
        if (child.pid === undefined) {
          code = await new Promise((resolve) => child.once('error', (error) => resolve(error.code)));
          break;
        }
        child.on('error', () => undefined);
        started++;
      }
      return { started, code };`,
    );
    expect(result.sandbox.backend).toBe('bwrap');
    expect(result.error).toBeUndefined();
    const value = result.value as { started: number; code: string | null };
    expect(value.code).toBe('EAGAIN');
    expect(value.started).toBeGreaterThan(0);
    expect(value.started).toBeLessThan(64);
    // Nothing of the run can run code when it settles (dead, or frozen to die on its thaw); its pids
    // group is removed by the cleanup after it.
    expect(pidsWith(`sleep\0${marker}`).filter((pid) => !cannotRunCode(pid))).toEqual([]);
    const groupRoot = taskLimitSupport().root as string;
    await waitUntil('the run\'s pids group to be removed', () => readdirSync(groupRoot).filter((name) => name.startsWith(`${ownerTag()}-`)).length === 0);
    // The host is healthy: the next run works.
    expect((await run(rt, 'return 1 + 1')).value).toBe(2);
  });

  // Old code: TMPDIR was a host dir (ptc-run-XXXXXX) with no cap, so all 12 MiB went in.
  it('puts TMPDIR on the capped tmpfs: writing past the cap fails with ENOSPC, and no host temp dir exists', async () => {
    const rt = runtime({ limits: { tmpMaxBytes: 8 * 1024 * 1024 } });
    const hostDirs = (): string[] => readdirSync(privateRoot()).filter((name) => name.startsWith(`run-${ownerTag()}-`));
    const probe: BindingNamespace = { global: 'host', functions: { runDirs: async () => hostDirs() } };
    const result = await run(
      rt,
      `const fs = require('node:fs');
      const file = require('node:path').join(process.env.TMPDIR, 'fill.bin');
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let written = 0;
      let code = null;
      try {
        for (let i = 0; i < 12; i++) { fs.appendFileSync(file, chunk); written++; }
      } catch (error) { code = error.code; }
      return { tmpdir: process.env.TMPDIR, written, code, hostDirs: await host.runDirs() };`,
      { bindings: [probe] },
    );
    expect(result.error).toBeUndefined();
    const value = result.value as { tmpdir: string; written: number; code: string | null; hostDirs: string[] };
    expect(value.tmpdir).toBe('/tmp');
    expect(value.code).toBe('ENOSPC');
    expect(value.written).toBeLessThan(9);
    expect(value.hostDirs).toEqual([]);
  });

  const connectProgram = (path: string): string =>
    `return await new Promise((resolve) => {
      const socket = require('node:net').connect(${JSON.stringify(path)});
      socket.on('data', (data) => { resolve({ connected: true, data: String(data) }); socket.destroy(); });
      socket.on('error', (error) => resolve({ connected: false, code: error.code }));
    });`;

  // Old code: the socket file is in the bound workspace, so the program connected and read the greeting.
  it('keeps a host unix socket in the workspace unreachable from a program while the network is denied', async () => {
    const before = server.connections;
    const result = await run(runtime(), connectProgram(server.path));
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ connected: false, code: 'EACCES' });
    expect(server.connections).toBe(before);
  });

  it('lets a program reach it when the network is allowed (control)', async () => {
    const before = server.connections;
    const result = await run(runtime(), connectProgram(server.path), { policy: { network: true } });
    expect(result.value).toEqual({ connected: true, data: 'hello from the host\n' });
    await waitUntil('the host server to count the connection', () => server.connections === before + 1);
  });

  it('keeps it unreachable from the bash tool too, while bash, pipes and child processes still work', async () => {
    const before = server.connections;
    const tool = createBashTool({ policy: resolveWorkspacePolicy({ cwd: workspace }), sandbox: 'auto' });
    const script = `const s = require('net').connect(${JSON.stringify(server.path)}); s.on('data', (d) => { console.log('got ' + d); s.destroy(); }); s.on('error', (e) => console.log('error ' + e.code));`;
    const value = await tool.execute(
      { command: `echo start | cat; node -e ${shellQuote(script)}; (sleep 0.01 &); wait; echo end` },
      { signal: new AbortController().signal, callId: 'b1', deferContext() {} },
    );
    expect(value.sandbox.backend).toBe('bwrap');
    expect(value.stdout).toBe('start\nerror EACCES\nend\n');
    expect(server.connections).toBe(before);
  });
});

describe('MEMORY_LIMIT needs a real out-of-memory abort', () => {
  const limits = { memoryMb: 64, rssLimitMb: 256 } as const;
  const fakeOom =
    `require('node:fs').writeSync(2, '<--- Last few GCs --->\\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n');`;

  for (const sandbox of ['auto', 'off'] as const) {
    describe.skipIf(sandbox === 'auto' && skipWithoutBwrap)(`sandbox ${sandbox}`, () => {
      // Old code: exit code 134 (what bwrap reports for SIGABRT) and the OOM text each meant MEMORY_LIMIT.
      it('process.exit(134) is not MEMORY_LIMIT', async () => {
        const result = await run(runtime({ sandbox, limits }), 'process.exit(134)');
        expect(result.error?.code).toBe('EXCEPTION');
      });

      it('fake V8 out-of-memory text on fd 2 plus exit(134) is not MEMORY_LIMIT', async () => {
        const result = await run(runtime({ sandbox, limits }), `${fakeOom}\nprocess.exit(134)`);
        expect(result.error?.code).toBe('EXCEPTION');
      });

      it('fake text plus a real SIGABRT the program sent itself is not MEMORY_LIMIT', async () => {
        const result = await run(runtime({ sandbox, limits }), `${fakeOom}\nprocess.kill(process.pid, 'SIGABRT')`);
        expect(result.error?.code).toBe('EXCEPTION');
      });

      it('a real heap bomb still is MEMORY_LIMIT', async () => {
        const result = await run(runtime({ sandbox, limits }), 'const a = [];\nfor (;;) a.push({ n: Math.random(), s: "x" + Math.random() });');
        expect(result.error?.code).toBe('MEMORY_LIMIT');
      });
    });
  }
});

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
