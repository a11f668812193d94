// The spawner (docs/sandbox.md, "The spawner"): bwrap launches started by a python3 helper instead of
// a fork of the host. Real helper, real bwrap, real programs: the launch path must be the helper's
// (the monitor's parent), and everything the runtime reads from a child (the channel, stderr, the
// exit code or signal) must arrive as it does from a child the host spawned itself. The helper's
// death, and the host's, must take their sandboxes with them.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { BindingFunction } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import { privateRoot, setSpawnerEnabled } from '../../src/sandbox/index.js';
import { ownerTag } from '../../src/sandbox/owner.js';
import { decodeWaitStatus } from '../../src/sandbox/spawner.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const hasPython = existsSync('/usr/bin/python3') || existsSync('/usr/local/bin/python3');
if (!hasPython) process.stdout.write('spawner tests skipped: no python3 at /usr/bin or /usr/local/bin (the host then spawns by itself)\n');
const skip = skipWithoutBwrap || !hasPython;

function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  } catch {
    return undefined;
  }
}

function commOf(pid: number | undefined): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Running, not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe('decodeWaitStatus', () => {
  it('reads an exit code and a terminating signal as Node reports them', () => {
    expect(decodeWaitStatus(0)).toEqual([0, null]);
    expect(decodeWaitStatus(3 << 8)).toEqual([3, null]);
    expect(decodeWaitStatus(9)).toEqual([null, 'SIGKILL']);
    expect(decodeWaitStatus(11 | 0x80)).toEqual([null, 'SIGSEGV']);
  });
});

describe.skipIf(skip)('launches through the spawner', () => {
  let cwd: string;
  let rt: NodeRuntime;
  /** The parent of each launch's bwrap monitor, by launch. */
  const parents: (number | undefined)[] = [];

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'ptc-spawn-ws-'));
    rt = createNodeRuntime({ pool: false, onProcess: (event) => event.type === 'spawn' && parents.push(parentOf(event.pid)) });
    // The helper starts at a process's second launch and is used once it said it runs.
    for (let i = 0; i < 10 && !parents.some((p) => p !== process.pid); i++) {
      await rt.run(await rt.resolve({ program: 'return 1', cwd }));
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    setSpawnerEnabled(true);
    await rt.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const run = async (program: string, started?: () => void) => {
    const before = parents.length;
    const signal: BindingFunction = async () => {
      started?.();
      return null;
    };
    const bindings = started === undefined ? [] : [{ global: 'tools', functions: { started: signal } }];
    const result = await rt.run(await rt.resolve({ program, cwd, bindings }));
    return { result, parent: parents[before] };
  };

  it('starts the sandbox from the python3 helper, not from the host', async () => {
    const { result, parent } = await run('return 40 + 2');
    expect(result.value).toBe(42);
    expect(parent).not.toBe(process.pid);
    expect(commOf(parent)).toBe('python3');
  });

  it('carries the channel, the logs and the real stderr, and reports the exit code', async () => {
    const ok = await run('console.log("a log"); require("node:fs").writeSync(2, "not a log\\n"); return "done"');
    expect(commOf(ok.parent)).toBe('python3');
    expect(ok.result).toMatchObject({ value: 'done', logs: ['a log'] });
    const exited = await run('require("node:fs").writeSync(2, "marker-on-stderr\\n"); process.reallyExit(5);');
    expect(commOf(exited.parent)).toBe('python3');
    expect(exited.result.error?.code).toBe('EXCEPTION');
    expect(exited.result.error?.message).toContain('exit code 5');
    expect(exited.result.error?.message).toContain('marker-on-stderr');
  });

  it('reports a signal that ended the program as a directly spawned child would', async () => {
    const killed = await run('process.kill(process.pid, "SIGSEGV"); await new Promise(() => {});');
    expect(commOf(killed.parent)).toBe('python3');
    expect(killed.result.error?.message).toContain('killed by SIGSEGV');
  });

  it('leaves the program a stdin at its end, as a directly spawned child has', async () => {
    // The bootstrap goes in on stdin; the program's stdin is what is left after it.
    const { result, parent } = await run('return require("node:fs").readFileSync(0).length');
    expect(commOf(parent)).toBe('python3');
    expect(result.value).toBe(0);
  });

  it('drops a connection to its socket that does not name a pending launch, and keeps working', async () => {
    const dirs = readdirSync(privateRoot()).filter((name) => name.startsWith(`spawner-${ownerTag()}-`));
    expect(dirs).toHaveLength(1);
    const path = join(privateRoot(), dirs[0] as string, 's');
    for (const header of [`${'0'.repeat(32)} channel\n`, 'x'.repeat(200)]) {
      const socket = connect(path);
      socket.on('error', () => undefined);
      socket.write(header);
      const closed = await new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 2_000);
      });
      expect(closed).toBe(true);
    }
    const { result, parent } = await run('return "after"');
    expect(result.value).toBe('after');
    expect(commOf(parent)).toBe('python3');
  });

  it('a sandboxed program cannot see or reach the socket', async () => {
    const dir = readdirSync(privateRoot()).find((name) => name.startsWith(`spawner-${ownerTag()}-`)) as string;
    const path = join(privateRoot(), dir, 's');
    const program = `
      const fs = require('node:fs');
      let seen;
      try {
        seen = fs.readdirSync(${JSON.stringify(privateRoot())});
      } catch {
        seen = [];
      }
      const reached = await new Promise((resolve) => {
        const s = require('node:net').connect(${JSON.stringify(path)});
        s.on('connect', () => resolve('connected'));
        s.on('error', (e) => resolve(e.code));
      });
      return { seen, reached };`;
    const { result } = await run(program);
    expect(result.error).toBeUndefined();
    const value = result.value as { seen: string[]; reached: string };
    expect(value.seen).toEqual([]);
    expect(value.reached).not.toBe('connected');
  });

  it('spawns by itself when the spawner is turned off', async () => {
    setSpawnerEnabled(false);
    try {
      const { result, parent } = await run('return 7');
      expect(result.value).toBe(7);
      expect(parent).toBe(process.pid);
    } finally {
      setSpawnerEnabled(true);
    }
  });

  it('when the helper dies, its running sandbox ends, the run fails cleanly, and later launches still work', async () => {
    let running = false;
    const pending = run('await tools.started(); await new Promise(() => {});', () => {
      running = true;
    });
    expect(await until(() => running, 5_000)).toBe(true);
    const monitor = parentsMonitor();
    expect(monitor).toBeDefined();
    const helper = parentOf(monitor as number) as number;
    expect(commOf(helper)).toBe('python3');
    process.kill(helper, 'SIGKILL');
    const { result } = await pending;
    expect(result.error?.code).toBe('EXCEPTION');
    expect(await until(() => !alive(monitor as number), 5_000)).toBe(true);
    const after = await run('return "still fine"');
    expect(after.result.value).toBe('still fine');
  });

  /** The bwrap monitor of the run in progress: the newest python3-parented bwrap. */
  function parentsMonitor(): number | undefined {
    const candidates = readdirPids().filter((pid) => commOf(pid) === 'bwrap' && commOf(parentOf(pid)) === 'python3' && parentOf(parentOf(pid) as number) === process.pid);
    return candidates.sort((a, b) => b - a)[0];
  }
});

function readdirPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function startHost(args: readonly string[]): { host: ReturnType<typeof spawn>; firstLine: Promise<string> } {
  const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
  const host = spawn(process.execPath, ['--import', register, join(root, 'test/fixtures/spawner-host.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  host.stdout?.setEncoding('utf8');
  const firstLine = new Promise<string>((resolve, reject) => {
    host.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.split('\n')[0] as string);
    });
    host.once('exit', () => setImmediate(() => reject(new Error(`the host exited without a report: ${text}`))));
  });
  return { host, firstLine };
}

describe.skipIf(skip)('the helper and the host', () => {
  it('a host killed by SIGKILL takes the helper and every sandbox it started with it', async () => {
    const { host, firstLine } = startHost([]);
    const pids = JSON.parse(await firstLine) as { spawner: number; monitor: number; program: number; cwd: string };
    onTestFinished(() => rmSync(pids.cwd, { recursive: true, force: true }));
    expect(commOf(pids.spawner)).toBe('python3');
    expect(alive(pids.program)).toBe(true);
    host.kill('SIGKILL');
    expect(await until(() => !alive(pids.spawner) && !alive(pids.monitor) && !alive(pids.program), 5_000)).toBe(true);
  }, 30_000);

  it('a host that exits normally leaves no helper and no socket dir behind', async () => {
    const { host, firstLine } = startHost(['exit']);
    const report = JSON.parse(await firstLine) as { spawner?: number; cwd: string };
    onTestFinished(() => rmSync(report.cwd, { recursive: true, force: true }));
    await new Promise((resolve) => (host.exitCode === null ? host.once('exit', resolve) : resolve(undefined)));
    expect(report.spawner).toBeDefined();
    expect(await until(() => !alive(report.spawner as number), 5_000)).toBe(true);
    expect(readdirSync(privateRoot()).filter((name) => name.startsWith(`spawner-${host.pid as number}-`))).toEqual([]);
  }, 30_000);
});
