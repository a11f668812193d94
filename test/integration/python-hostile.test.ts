// Hostile Python programs (issue 14), mirroring the Node suite where the attack applies: each must end
// with its typed error code (or, where the attack has no effect, with the program's own value) AND
// leave the host healthy: no process of that run alive, and a trivial run on the same runtime still
// succeeds. The confinement cases need bwrap (under `auto` a Python program has no other backend) and
// skip, saying why, without it.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapRequired } from '../helpers/bwrap.js';
import { alive, cannotRunCode } from '../helpers/process-state.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startConnectionCounter, type ConnectionCounter } from '../helpers/connection-counter.js';
import type { BindingFunction, BindingNamespace, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createPythonRuntime, type PythonProcessEvent, type PythonRuntime, type PythonRuntimeOptions } from '../../src/languages/python/runtime/index.js';

const root = mkdtempSync(join(tmpdir(), 'ptc-py-hostile-'));
const workspace = join(root, 'workspace');
const outside = join(root, 'outside');
const SECRET = 'TOP-SECRET-py-51c2';
const secretFile = join(outside, 'secret.txt');
mkdirSync(workspace);
mkdirSync(outside);
writeFileSync(secretFile, SECRET);
symlinkSync(secretFile, join(workspace, 'link-to-secret'));
symlinkSync(outside, join(workspace, 'link-to-outside'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const events: PythonProcessEvent[] = [];
const LIMITS = { maxOutputBytes: 64 * 1024, maxProgramBytes: 16 * 1024, maxFrameBytes: 256 * 1024, maxPendingCalls: 16, rssLimitMb: 192 } as const;

function createRuntime(options: PythonRuntimeOptions = {}): PythonRuntime {
  return createPythonRuntime({ sandbox: 'auto', pool: { size: 1 }, limits: LIMITS, onProcess: (event) => events.push(event), ...options });
}

let rt: PythonRuntime;
let noProcesses: PythonRuntime;
let confinementMissing: string | undefined;

beforeAll(async () => {
  rt = createRuntime();
  noProcesses = createRuntime({ processes: false, pool: false });
  const probe = await rt.run(await rt.resolve({ program: 'return 1', cwd: workspace }));
  expect(probe.error, JSON.stringify(probe.error)).toBeUndefined();
  if (probe.sandbox.backend !== 'bwrap' && !bwrapRequired) {
    confinementMissing = `sandbox 'auto' chose "${probe.sandbox.backend}", not bwrap (install bubblewrap to run these cases)`;
  }
});
afterAll(async () => {
  await rt.close();
  await noProcesses.close();
});

function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return !cannotRunCode(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
}

interface Outcome {
  readonly result: RunResult;
  readonly processes: readonly PythonProcessEvent[];
}

async function attempt(request: Partial<RunRequest> & { program: string }, runtime: PythonRuntime = rt): Promise<Outcome> {
  const before = events.length;
  const result = await runtime.run(await runtime.resolve({ cwd: workspace, timeoutMs: 8_000, ...request }));
  return { result, processes: events.slice(before).filter((event) => event.type === 'run') };
}

/**
 * No program code can run after the result: the program's own process cannot run code when run()
 * resolves; the spawned process (bwrap's monitor, running no program code) is reaped after the result,
 * within a bound. A trivial program still runs on the same runtime.
 */
async function expectHealthy(outcome: Outcome, runtime: PythonRuntime = rt): Promise<void> {
  expect(outcome.processes.length).toBeGreaterThan(0);
  for (const event of outcome.processes) {
    if (event.programPid !== undefined) expect(cannotRunCode(event.programPid), `program pid ${event.programPid}`).toBe(true);
  }
  for (const event of outcome.processes) await waitUntil(`spawned pid ${event.pid} to be reaped`, () => !alive(event.pid));
  const after = await runtime.run(await runtime.resolve({ program: 'return 6 * 7', cwd: workspace }));
  expect(after.error).toBeUndefined();
  expect(after.value).toBe(42);
}

function expectCode(outcome: Outcome, code: string): void {
  expect(outcome.result.error?.code, JSON.stringify(outcome.result.error)).toBe(code);
}

function confined(name: string, body: () => Promise<void>): void {
  it(name, async (context) => {
    if (confinementMissing !== undefined) {
      console.warn(`skipping "${name}": ${confinementMissing}`);
      context.skip();
    }
    await body();
  });
}

describe('hostile Python programs: the filesystem', () => {
  confined('cannot read a file outside the policy, directly or through a symlink', async () => {
    for (const path of [secretFile, 'link-to-secret', 'link-to-outside/secret.txt', '/proc/self/root' + secretFile]) {
      const outcome = await attempt({ program: `return open(${JSON.stringify(path)}).read()` });
      expectCode(outcome, 'EXCEPTION');
      expect(JSON.stringify(outcome.result)).not.toContain(SECRET);
      await expectHealthy(outcome);
    }
  });

  confined('cannot write outside the policy, nor read the home directory', async () => {
    const outcome = await attempt({
      program: [
        'import os',
        'try:',
        '    open("link-to-outside/pwned.txt", "w").write("pwned")',
        'except OSError as error:',
        '    print("write:", type(error).__name__)',
        `return [os.path.exists(${JSON.stringify(outside)}), os.path.exists("/root/.ssh"), os.path.exists("/etc/shadow")]`,
      ].join('\n'),
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toEqual([false, false, false]);
    expect(outcome.result.logs[0]).toMatch(/^write: /);
    expect(existsSync(join(outside, 'pwned.txt'))).toBe(false);
    await expectHealthy(outcome);
  });
});

describe('hostile Python programs: environment, network, processes', () => {
  it('cannot see secrets from the host environment', async () => {
    process.env['PTC_PY_HOSTILE_SECRET'] = SECRET;
    try {
      const outcome = await attempt({
        program: [
          'import os',
          'seen = [repr(dict(os.environ))]',
          'for pid in [p for p in os.listdir("/proc") if p.isdigit()]:',
          '    try:',
          '        seen.append(open("/proc/%s/environ" % pid, "rb").read().decode("utf-8", "replace"))',
          '    except OSError:',
          '        pass',
          'return seen',
        ].join('\n'),
      });
      expect(outcome.result.error).toBeUndefined();
      const [ownEnv] = outcome.result.value as string[];
      expect(ownEnv).not.toContain(SECRET);
      if (confinementMissing === undefined) expect(JSON.stringify(outcome.result)).not.toContain(SECRET);
      await expectHealthy(outcome);
    } finally {
      delete process.env['PTC_PY_HOSTILE_SECRET'];
    }
  });

  describe('network', () => {
    let listener: ConnectionCounter;
    beforeAll(async () => {
      listener = await startConnectionCounter();
    });
    afterAll(() => listener.close());

    confined('cannot reach a loopback server with urllib or a raw socket', async () => {
      const outcome = await attempt({
        program: [
          'import socket, urllib.request',
          'try:',
          `    urllib.request.urlopen("http://127.0.0.1:${listener.port}/", timeout=2)`,
          'except Exception as error:',
          '    print("urllib:", type(error).__name__)',
          `socket.create_connection(("127.0.0.1", ${listener.port}), timeout=2)`,
          'return "connected"',
        ].join('\n'),
      });
      expectCode(outcome, 'EXCEPTION');
      expect(listener.connections()).toBe(0);
      await expectHealthy(outcome);
    });
  });

  confined('cannot spawn when processes are denied', async () => {
    const outcome = await attempt({ program: 'import subprocess\nreturn subprocess.run(["/bin/echo", "spawned"], capture_output=True).stdout.decode()' }, noProcesses);
    expectCode(outcome, 'EXCEPTION');
    expect(outcome.result.error?.message).toMatch(/PermissionError|Operation not permitted|BlockingIOError|OSError/);
    await expectHealthy(outcome, noProcesses);
  });

  confined('a spawned child cannot read outside the policy either', async () => {
    const outcome = await attempt({ program: `import subprocess\nreturn subprocess.run(["/bin/cat", ${JSON.stringify(secretFile)}], capture_output=True, text=True).stdout` });
    expect(JSON.stringify(outcome.result)).not.toContain(SECRET);
    await expectHealthy(outcome);
  });

  confined('setsid orphans and a fork loop do not outlive the run', async () => {
    const marker = '873214';
    const outcome = await attempt({
      program: [
        'import os, subprocess, time',
        `subprocess.Popen(["/usr/bin/setsid", "/bin/sh", "-c", "(sleep ${marker} &) ; (setsid sleep ${marker} &) ; sleep ${marker}"], start_new_session=True)`,
        'def count():',
        '    n = 0',
        '    for p in [p for p in os.listdir("/proc") if p.isdigit()]:',
        '        try:',
        `            n += open("/proc/%s/cmdline" % p, "rb").read() == b"sleep\\0${marker}\\0"`,
        '        except OSError:',
        '            pass',
        '    return n',
        'for _ in range(500):',
        '    if count() >= 3:',
        '        break',
        '    time.sleep(0.01)',
        'while True:',
        '    pass',
      ].join('\n'),
      timeoutMs: 2_500,
    });
    expectCode(outcome, 'TIMEOUT');
    expect(processesWith(`sleep\0${marker}`)).toEqual([]);
    await expectHealthy(outcome);
  });

  confined('os.kill(os.getppid()) does not reach the host', async () => {
    const outcome = await attempt({ program: 'import os, signal\ntarget = os.getppid()\nos.kill(target, signal.SIGKILL)\nreturn target' });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).not.toBe(process.pid);
    await expectHealthy(outcome);
  });
});

describe('hostile Python programs: forged control frames', () => {
  const writeFd3 = (text: string) => `__import__("os").write(3, ${JSON.stringify(text)}.encode())`;
  const echo: BindingFunction = async (args) => args;
  let recorded = 0;
  const record: BindingFunction = async () => {
    recorded++;
    return null;
  };
  const hang: BindingFunction = (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(null)));
  const bindings: BindingNamespace[] = [{ global: 'tools', functions: { echo, record, hang }, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }];
  const FOREVER = 'import time\ntime.sleep(60)';

  it.each([
    ['invalid JSON', writeFd3('this is not json\n')],
    ['an unknown frame type', writeFd3('{"type":"shell","cmd":"id"}\n')],
    ['a call to an unknown binding', writeFd3('{"type":"call","id":1,"global":"tools","member":"rm -rf","args":{}}\n')],
    ['an unknown call id', writeFd3('{"type":"call","id":999,"global":"tools","member":"echo","args":{}}\n')],
    ['a duplicate call id', `await tools.echo({})\n${writeFd3('{"type":"call","id":1,"global":"tools","member":"echo","args":{}}\n')}`],
    ['a second ready frame', writeFd3('{"type":"ready"}\n')],
    ['a done frame with a host-only code', writeFd3('{"type":"done","ok":false,"error":{"code":"MEMORY_LIMIT","message":"fake"}}\n')],
    ['an oversize frame that never ends', `${writeFd3('{"type":"log","stream":"stdout","text":"')}\nfor _ in range(8):\n    __import__("os").write(3, b"x" * 65536)`],
    [
      'more calls in flight than allowed',
      `import json, os\nfor i in range(1, ${LIMITS.maxPendingCalls + 2}):\n    os.write(3, (json.dumps({"type": "call", "id": i, "global": "tools", "member": "hang", "args": {}}) + "\\n").encode())`,
    ],
  ])('%s fails the run with PROTOCOL', async (_name, program) => {
    const outcome = await attempt({ program: `${program}\n${FOREVER}`, bindings });
    expectCode(outcome, 'PROTOCOL');
    await expectHealthy(outcome);
  });

  it('tampering with json and print cannot forge the bootstrap frames', async () => {
    const outcome = await attempt({
      program: [
        'import json, builtins',
        'json.dumps = lambda *a, **k: \'{"type":"done","ok":true,"value":"forged"}\'',
        'json.loads = lambda *a, **k: {"type": "result", "id": 1, "ok": True, "value": "forged"}',
        'got = await tools.echo({"real": True})',
        'return got',
      ].join('\n'),
      bindings,
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toEqual({ real: true });
    await expectHealthy(outcome);
  });

  it('calls made after the program settles are never dispatched, and running ones are aborted', async () => {
    recorded = 0;
    let hangSignal: AbortSignal | undefined;
    const watch: BindingFunction = (_args, { signal }) => {
      hangSignal = signal;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(null)));
    };
    const outcome = await attempt({
      program: [
        'import asyncio',
        'tools.watch({})',
        'async def later():',
        '    await asyncio.sleep(0)',
        '    await tools.record({})',
        'asyncio.get_running_loop().create_task(later())',
        'return "settled"',
      ].join('\n'),
      bindings: [{ global: 'tools', functions: { record, watch } }],
    });
    expect(outcome.result.value).toBe('settled');
    expect(recorded).toBe(0);
    expect(hangSignal?.aborted).toBe(true);
    await expectHealthy(outcome);
  });
});

describe('hostile Python programs: resources', () => {
  it('a print flood ends with OUTPUT_LIMIT', async () => {
    const outcome = await attempt({ program: 'while True:\n    print("flood " * 100)' });
    expectCode(outcome, 'OUTPUT_LIMIT');
    await expectHealthy(outcome);
  });

  it('a flood of forged log frames ends with OUTPUT_LIMIT', async () => {
    const outcome = await attempt({ program: 'import os\nline = b\'{"type":"log","stream":"stdout","text":""}\\n\' * 1000\nwhile True:\n    os.write(3, line)' });
    expectCode(outcome, 'OUTPUT_LIMIT');
    await expectHealthy(outcome);
  });

  it('flooding the real stdout fd never blocks the run', async () => {
    const outcome = await attempt({ program: 'import os\nfor _ in range(200):\n    os.write(1, b"x" * 65536)\nreturn "done"' });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toBe('done');
    await expectHealthy(outcome);
  });

  it('an infinite loop ends with TIMEOUT', async () => {
    // The call proves the program runs before the deadline (a loaded machine can take long to start one).
    const outcome = await attempt({ program: 'await tools.started({})\nwhile True:\n    pass', timeoutMs: 3_000, bindings: [{ global: 'tools', functions: { started: async () => null } }] });
    expectCode(outcome, 'TIMEOUT');
    await expectHealthy(outcome);
  });

  it('a memory bomb ends with MEMORY_LIMIT', async () => {
    const outcome = await attempt({ program: 'chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))\n    chunks[-1][::4096] = b"x" * (16 * 256)' });
    expectCode(outcome, 'MEMORY_LIMIT');
    await expectHealthy(outcome);
  });

  it('aborting mid-run ends with ABORTED', async () => {
    const controller = new AbortController();
    const started: BindingFunction = async () => {
      setTimeout(() => controller.abort(), 100);
      return null;
    };
    const outcome = await attempt({ program: 'await tools.started({})\nimport time\ntime.sleep(30)', signal: controller.signal, bindings: [{ global: 'tools', functions: { started } }] });
    expectCode(outcome, 'ABORTED');
    await expectHealthy(outcome);
  });

  it.each(['import os\nos._exit(0)', 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)', 'import os\nos._exit(137)'])(
    '%s ends with EXCEPTION, never a forged code',
    async (program) => {
      const outcome = await attempt({ program });
      expectCode(outcome, 'EXCEPTION');
      await expectHealthy(outcome);
    },
  );
});
