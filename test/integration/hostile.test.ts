// Hostile programs (issue 3): each must end with its typed error code (or, where the attack simply has
// no effect, with the program's own value) AND leave the host healthy: no process of that run alive,
// nothing in its process group, and a trivial run on the same runtime still succeeds. The sandbox
// cases run under `auto`; they need an OS backend (bwrap) and skip, saying why, without one.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapRequired } from '../helpers/bwrap.js';
import { cannotRunCode } from '../helpers/process-state.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startConnectionCounter, type ConnectionCounter } from '../helpers/connection-counter.js';
import type { BindingFunction, BindingNamespace, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type ChildProcessEvent, type NodeRuntime, type NodeRuntimeOptions } from '../../src/languages/typescript/runtime/index.js';

const root = mkdtempSync(join(tmpdir(), 'ptc-hostile-'));
const workspace = join(root, 'workspace');
const outside = join(root, 'outside');
const SECRET = 'TOP-SECRET-7f3a9c';
const secretFile = join(outside, 'secret.txt');
mkdirSync(workspace);
mkdirSync(outside);
writeFileSync(secretFile, SECRET);
symlinkSync(secretFile, join(workspace, 'link-to-secret'));
symlinkSync(outside, join(workspace, 'link-to-outside'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const events: ChildProcessEvent[] = [];
const LIMITS = {
  maxOutputBytes: 64 * 1024,
  maxProgramBytes: 16 * 1024,
  maxFrameBytes: 256 * 1024,
  maxPendingCalls: 16,
  memoryMb: 64,
  rssLimitMb: 256,
} as const;

function createRuntime(options: NodeRuntimeOptions = {}): NodeRuntime {
  return createNodeRuntime({ sandbox: 'auto', pool: { size: 1 }, limits: LIMITS, onProcess: (event) => events.push(event), ...options });
}

let rt: NodeRuntime;
let noProcesses: NodeRuntime;
/** Why the OS-confinement cases cannot run here, or undefined when bwrap confines the program. */
let confinementMissing: string | undefined;

beforeAll(async () => {
  rt = createRuntime();
  noProcesses = createRuntime({ processes: false, pool: false });
  const probe = await rt.run(await rt.resolve({ program: 'return 1', cwd: workspace }));
  if (probe.sandbox.backend !== 'bwrap' && !bwrapRequired) {
    confinementMissing = `sandbox 'auto' chose "${probe.sandbox.backend}", not bwrap (install bubblewrap to run these cases)`;
  }
});
afterAll(async () => {
  await rt.close();
  await noProcesses.close();
});

function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  const fields = stat(pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X';
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter(alive);
}

/**
 * Processes that can still run code (not dead, not frozen to die on their thaw) whose command line
 * contains `marker` (for descendants that left the process group).
 */
function processesWith(marker: string): number[] {
  return livePids().filter((pid) => {
    try {
      return !cannotRunCode(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

interface Outcome {
  readonly result: RunResult;
  readonly processes: readonly ChildProcessEvent[];
}

async function attempt(request: Partial<RunRequest> & { program: string }, runtime: NodeRuntime = rt): Promise<Outcome> {
  const before = events.length;
  const result = await runtime.run(await runtime.resolve({ cwd: workspace, timeoutMs: 5_000, ...request }));
  return { result, processes: events.slice(before).filter((event) => event.type === 'run') };
}

/**
 * No program code can run after the result: the program's own process is dead, or inside the kernel's
 * exit path with its address space dropped, when run() resolves (under bwrap that holds for every task
 * of the pid namespace: docs/runtime-lifecycle.md, "Settling"). The spawned
 * process (bwrap's monitor, outside the namespace, running no program code) and its group are reaped
 * after the result, within a bound. A trivial program still runs on the same runtime.
 */
async function expectHealthy(outcome: Outcome, runtime: NodeRuntime = rt): Promise<void> {
  expect(outcome.processes.length).toBeGreaterThan(0);
  for (const event of outcome.processes) {
    if (event.programPid !== undefined) expect(cannotRunCode(event.programPid), `program pid ${event.programPid}`).toBe(true);
  }
  for (const event of outcome.processes) {
    await waitUntil(`spawned pid ${event.pid} to be reaped`, () => !alive(event.pid));
    await waitUntil(`process group ${event.pid} to be empty`, () => livePids().every((pid) => Number(stat(pid)?.[2]) !== event.pid));
  }
  const after = await runtime.run(await runtime.resolve({ program: 'return 6 * 7', cwd: workspace }));
  expect(after.error).toBeUndefined();
  expect(after.value).toBe(42);
}

function expectCode(outcome: Outcome, code: string): void {
  expect(outcome.result.error?.code, JSON.stringify(outcome.result.error)).toBe(code);
}

function expectNoSecret(outcome: Outcome): void {
  expect(JSON.stringify(outcome.result)).not.toContain(SECRET);
}

/** A case that needs the OS sandbox: skipped with the reason printed when bwrap is not in use. */
function confined(name: string, body: () => Promise<void>): void {
  it(name, async (context) => {
    if (confinementMissing !== undefined) {
      console.warn(`skipping "${name}": ${confinementMissing}`);
      context.skip();
    }
    await body();
  });
}

const FOREVER = 'await new Promise(() => {});';

describe('hostile programs: file system', () => {
  confined('reads a file outside the policy by its plain path', async () => {
    const outcome = await attempt({ program: `return require("node:fs").readFileSync(${JSON.stringify(secretFile)}, "utf8");` });
    expectCode(outcome, 'EXCEPTION');
    expectNoSecret(outcome);
    await expectHealthy(outcome);
  });

  confined('reads outside through ".." from the workspace', async () => {
    const outcome = await attempt({ program: 'return require("node:fs").readFileSync(process.cwd() + "/../outside/secret.txt", "utf8");' });
    expectCode(outcome, 'EXCEPTION');
    expectNoSecret(outcome);
    await expectHealthy(outcome);
  });

  confined('reads outside through a symlink that already exists in the workspace', async () => {
    const outcome = await attempt({
      program: [
        'const fs = require("node:fs");',
        'const found = [];',
        'for (const path of ["link-to-secret", "link-to-outside/secret.txt"]) {',
        '  try { found.push(fs.readFileSync(path, "utf8")); } catch (e) { found.push(e.code); }',
        '}',
        'if (found.some((x) => x.length > 12)) return found;',
        'throw new Error(found.join(","));',
      ].join('\n'),
    });
    expectCode(outcome, 'EXCEPTION');
    expectNoSecret(outcome);
    await expectHealthy(outcome);
  });

  confined('reads outside through /proc/self/root and /proc/1/root', async () => {
    const outcome = await attempt({
      program: [
        'const fs = require("node:fs");',
        `for (const path of ["/proc/self/root${secretFile}", "/proc/1/root${secretFile}", "/proc/" + process.ppid + "/root${secretFile}"]) {`,
        '  try { return fs.readFileSync(path, "utf8"); } catch {}',
        '}',
        'throw new Error("nothing readable");',
      ].join('\n'),
    });
    expectCode(outcome, 'EXCEPTION');
    expectNoSecret(outcome);
    await expectHealthy(outcome);
  });

  confined("reads the host user's home directory", async () => {
    const outcome = await attempt({ program: `return require("node:fs").readdirSync(${JSON.stringify(homedir())});` });
    expectCode(outcome, 'EXCEPTION');
    await expectHealthy(outcome);
  });

  confined('writes outside the policy', async () => {
    const target = join(outside, 'pwned.txt');
    const outcome = await attempt({ program: `require("node:fs").writeFileSync(${JSON.stringify(target)}, "pwned");\nreturn "written";` });
    expectCode(outcome, 'EXCEPTION');
    expect(existsSync(target)).toBe(false);
    await expectHealthy(outcome);
  });

  confined('writes outside through a symlinked directory in the workspace', async () => {
    const outcome = await attempt({ program: 'require("node:fs").writeFileSync("link-to-outside/pwned2.txt", "pwned");\nreturn "written";' });
    expectCode(outcome, 'EXCEPTION');
    expect(existsSync(join(outside, 'pwned2.txt'))).toBe(false);
    await expectHealthy(outcome);
  });
});

describe('hostile programs: environment, network, processes', () => {
  it('cannot see secrets from the host environment', async () => {
    process.env['PTC_HOSTILE_SECRET'] = SECRET;
    try {
      const outcome = await attempt({
        program: [
          'const fs = require("node:fs");',
          'const seen = [JSON.stringify(process.env)];',
          'let pids = [];',
          'try { pids = fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)); } catch {}',
          'for (const pid of pids) {',
          '  try { seen.push(fs.readFileSync(`/proc/${pid}/environ`, "utf8")); } catch {}',
          '}',
          'return seen;',
        ].join('\n'),
      });
      expect(outcome.result.error).toBeUndefined();
      const [ownEnv] = outcome.result.value as string[];
      expect(ownEnv).not.toContain(SECRET);
      // Without a pid namespace the host's own /proc/<pid>/environ is readable to a root program.
      if (confinementMissing === undefined) expectNoSecret(outcome);
      await expectHealthy(outcome);
    } finally {
      delete process.env['PTC_HOSTILE_SECRET'];
    }
  });

  describe('network', () => {
    let listener: ConnectionCounter;
    let port = 0;
    beforeAll(async () => {
      listener = await startConnectionCounter();
      port = listener.port;
    });
    afterAll(() => listener.close());

    confined('cannot reach a loopback server with fetch or a raw socket', async () => {
      const outcome = await attempt({
        program: [
          `try { await fetch("http://127.0.0.1:${port}/"); } catch (e) { console.log("fetch: " + e.message); }`,
          'const net = require("node:net");',
          `await new Promise((resolve, reject) => { const s = net.connect(${port}, "127.0.0.1", resolve); s.on("error", reject); });`,
          'return "connected";',
        ].join('\n'),
      });
      expectCode(outcome, 'EXCEPTION');
      expect(listener.connections()).toBe(0);
      await expectHealthy(outcome);
    });
  });

  confined('cannot spawn when processes are denied', async () => {
    const outcome = await attempt(
      { program: 'const out = require("node:child_process").execFileSync("/bin/echo", ["spawned"], { encoding: "utf8" });\nreturn out;' },
      noProcesses,
    );
    expectCode(outcome, 'EXCEPTION');
    expect(outcome.result.error?.message).toMatch(/EPERM|EACCES|ENOSYS/);
    await expectHealthy(outcome, noProcesses);
  });

  confined('a spawned child cannot read outside the policy either', async () => {
    const outcome = await attempt({
      program: `return require("node:child_process").execFileSync("/bin/cat", [${JSON.stringify(secretFile)}], { encoding: "utf8", stdio: "pipe" });`,
    });
    expectCode(outcome, 'EXCEPTION');
    expectNoSecret(outcome);
    await expectHealthy(outcome);
  });

  confined('a fork bomb ends at the deadline with every process gone', async () => {
    const marker = '971531';
    const outcome = await attempt({
      program: [
        'const { spawn } = require("node:child_process");',
        // A doubling tree 7 levels deep (about 255 shells, each ending in a long sleep).
        `spawn("/bin/sh", ["-c", 'f() { if [ "$1" -gt 0 ]; then f $(($1 - 1)) & f $(($1 - 1)) & fi; exec sleep ${marker}; }; f 7'], { stdio: "ignore" });`,
        FOREVER,
      ].join('\n'),
      timeoutMs: 1_500,
    });
    expectCode(outcome, 'TIMEOUT');
    expect(processesWith(`sleep\0${marker}`)).toEqual([]);
    await expectHealthy(outcome);
  });

  confined('setsid double-fork orphans do not outlive the run', async () => {
    const marker = '982641';
    const outcome = await attempt({
      program: [
        'const { spawn } = require("node:child_process");',
        `const child = spawn("/usr/bin/setsid", ["/bin/sh", "-c", "(sleep ${marker} &) ; (setsid sleep ${marker} &) ; sleep ${marker}"], { detached: true, stdio: "ignore" });`,
        'child.unref();',
        // Wait until the three orphans really exist, so the check below cannot pass vacuously.
        'const fs = require("node:fs");',
        `const count = () => fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).filter((p) => { try { return fs.readFileSync("/proc/" + p + "/cmdline", "utf8") === "sleep\\0${marker}\\0"; } catch { return false; } }).length;`,
        'for (let i = 0; i < 500 && count() < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));',
        'return count();',
      ].join('\n'),
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toBe(3);
    expect(processesWith(`sleep\0${marker}`)).toEqual([]);
    await expectHealthy(outcome);
  });

  confined('process.kill(process.ppid) does not reach the host', async () => {
    const outcome = await attempt({
      program: 'const target = process.ppid;\nprocess.kill(target, "SIGKILL");\nawait new Promise((r) => setTimeout(r, 20));\nreturn target;',
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).not.toBe(process.pid);
    await expectHealthy(outcome);
  });
});

describe('hostile programs: forged control frames', () => {
  const writeFd3 = (text: string) => `require("node:fs").writeSync(3, ${JSON.stringify(text)});`;
  const echo: BindingFunction = async (args) => args;
  let recorded = 0;
  const record: BindingFunction = async () => {
    recorded++;
    return null;
  };
  const hang: BindingFunction = (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(null)));
  const bindings: BindingNamespace[] = [{ global: 'tools', functions: { echo, record, hang }, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }];

  it.each([
    ['invalid JSON', writeFd3('this is not json\n')],
    ['a JSON array', writeFd3('[1,2,3]\n')],
    ['an unknown frame type', writeFd3('{"type":"shell","cmd":"id"}\n')],
    ['a call to an unknown binding', writeFd3('{"type":"call","id":1,"global":"tools","member":"rm -rf","args":{}}\n')],
    ['a call to an unknown global', writeFd3('{"type":"call","id":1,"global":"process","member":"exit","args":{}}\n')],
    ['an unknown call id', writeFd3('{"type":"call","id":999,"global":"tools","member":"echo","args":{}}\n')],
    ['a duplicate call id', `await tools.echo({});\n${writeFd3('{"type":"call","id":1,"global":"tools","member":"echo","args":{}}\n')}`],
    ['a second ready frame', writeFd3('{"type":"ready"}\n')],
    ['a done frame with a host-only code', writeFd3('{"type":"done","ok":false,"error":{"code":"TIMEOUT","message":"fake"}}\n')],
    ['a frame with extra fields', writeFd3('{"type":"log","stream":"stdout","text":"x","admin":true}\n')],
    ['an oversize frame that never ends', `${writeFd3('{"type":"log","stream":"stdout","text":"')}\nconst chunk = "x".repeat(65536);\nfor (let i = 0; i < 8; i++) require("node:fs").writeSync(3, chunk);`],
    [
      'more calls in flight than allowed',
      `for (let id = 1; id <= ${LIMITS.maxPendingCalls + 1}; id++) require("node:fs").writeSync(3, JSON.stringify({ type: "call", id, global: "tools", member: "hang", args: {} }) + "\\n");`,
    ],
  ])('%s fails the run with PROTOCOL', async (_name, program) => {
    const outcome = await attempt({ program: `${program}\n${FOREVER}`, bindings });
    expectCode(outcome, 'PROTOCOL');
    await expectHealthy(outcome);
  });

  it('frames after completion are ignored', async () => {
    recorded = 0;
    const outcome = await attempt({
      program: [
        'setImmediate(() => {',
        `  ${writeFd3('{"type":"done","ok":true,"value":"forged"}\n')}`,
        `  ${writeFd3('{"type":"call","id":1,"global":"tools","member":"record","args":{}}\n')}`,
        `  ${writeFd3('garbage\n')}`,
        '});',
        'return "real";',
      ].join('\n'),
      bindings,
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toBe('real');
    expect(recorded).toBe(0);
    await expectHealthy(outcome);
  });

  it('binding calls after the program settles are never dispatched, and running ones are aborted', async () => {
    recorded = 0;
    let hangSignal: AbortSignal | undefined;
    const watch: BindingFunction = (_args, { signal }) => {
      hangSignal = signal;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(null)));
    };
    const outcome = await attempt({
      program: 'tools.watch({});\nsetTimeout(() => tools.record({}), 0);\nsetImmediate(() => tools.record({}));\nreturn "settled";',
      bindings: [{ global: 'tools', functions: { record, watch } }],
    });
    expect(outcome.result.value).toBe('settled');
    expect(recorded).toBe(0);
    expect(hangSignal?.aborted).toBe(true);
    await expectHealthy(outcome);
  });

  it('tampering with JSON and console cannot forge the bootstrap frames', async () => {
    const outcome = await attempt({
      program: [
        'JSON.stringify = () => \'{"type":"done","ok":true,"value":"forged"}\';',
        'JSON.parse = () => ({ type: "result", id: 1, ok: true, value: "forged" });',
        'const got = await tools.echo({ real: true });',
        'return got;',
      ].join('\n'),
      bindings,
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toEqual({ real: true });
    await expectHealthy(outcome);
  });

  it('a "__proto__" key in call arguments does not pollute the host', async () => {
    let received: unknown;
    const keep: BindingFunction = async (args) => {
      received = args;
      return 'ok';
    };
    const outcome = await attempt({
      program: 'return await tools.keep(JSON.parse(\'{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}\'));',
      bindings: [{ global: 'tools', functions: { keep } }],
    });
    expect(outcome.result.value).toBe('ok');
    expect(Object.keys(received as object).sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
    await expectHealthy(outcome);
  });

  it('closing the control channel ends the run', async () => {
    const outcome = await attempt({ program: 'require("node:fs").closeSync(3);\nawait new Promise((r) => setTimeout(r, 50));\nreturn 1;' });
    expectCode(outcome, 'EXCEPTION');
    await expectHealthy(outcome);
  });
});

describe('hostile programs: resources', () => {
  it('an output flood through console ends with OUTPUT_LIMIT and a fitting prefix of logs', async () => {
    const outcome = await attempt({ program: 'for (;;) console.log("x".repeat(1000));' });
    expectCode(outcome, 'OUTPUT_LIMIT');
    const bytes = outcome.result.logs.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    expect(bytes).toBeLessThanOrEqual(LIMITS.maxOutputBytes);
    expect(outcome.result.logs.length).toBeGreaterThan(0);
    await expectHealthy(outcome);
  });

  it('a raw stdout flood without newlines ends with OUTPUT_LIMIT', async () => {
    const outcome = await attempt({ program: 'for (;;) process.stdout.write("y".repeat(4096));' });
    expectCode(outcome, 'OUTPUT_LIMIT');
    await expectHealthy(outcome);
  });

  it('a flood of forged empty log frames ends with OUTPUT_LIMIT', async () => {
    const outcome = await attempt({
      program: [
        'const fs = require("node:fs");',
        'const frames = Buffer.from(\'{"type":"log","stream":"stdout","text":""}\\n\'.repeat(1000));',
        'for (;;) {',
        '  for (let off = 0; off < frames.length; ) {',
        '    try { off += fs.writeSync(3, frames, off); } catch (e) { if (e.code !== "EAGAIN") throw e; await new Promise((r) => setImmediate(r)); }',
        '  }',
        '}',
      ].join('\n'),
    });
    expectCode(outcome, 'OUTPUT_LIMIT');
    expect(outcome.result.logs.length).toBeLessThanOrEqual(LIMITS.maxOutputBytes);
    await expectHealthy(outcome);
  });

  it('one giant log line ends with OUTPUT_LIMIT', async () => {
    const outcome = await attempt({ program: 'console.log("z".repeat(10 * 1024 * 1024));\nreturn 1;' });
    expectCode(outcome, 'OUTPUT_LIMIT');
    await expectHealthy(outcome);
  });

  it('flooding the real stdout fd never blocks the run', async () => {
    // fd 1 is non-blocking (as for any Node process with piped stdout): retry on EAGAIN, which only
    // succeeds while the host keeps draining the pipe; otherwise the run would end at its deadline.
    const outcome = await attempt({
      program: [
        'const fs = require("node:fs");',
        'const chunk = Buffer.alloc(65536, 119);',
        'for (let i = 0; i < 256; i++) {',
        '  for (let off = 0; off < chunk.length; ) {',
        '    try { off += fs.writeSync(1, chunk, off); } catch (e) { if (e.code !== "EAGAIN") throw e; await new Promise((r) => setImmediate(r)); }',
        '  }',
        '}',
        'return "flooded";',
      ].join('\n'),
    });
    expect(outcome.result.error).toBeUndefined();
    expect(outcome.result.value).toBe('flooded');
    await expectHealthy(outcome);
  });

  it('while(true){} ends with TIMEOUT', async () => {
    const outcome = await attempt({ program: 'while (true) {}', timeoutMs: 500 });
    expectCode(outcome, 'TIMEOUT');
    await expectHealthy(outcome);
  });

  it('a heap bomb ends with MEMORY_LIMIT', async () => {
    const outcome = await attempt({ program: 'const a = [];\nfor (;;) a.push({ n: Math.random(), s: "s" + Math.random() });', timeoutMs: 20_000 });
    expectCode(outcome, 'MEMORY_LIMIT');
    await expectHealthy(outcome);
  });

  it('a Buffer bomb (outside the V8 heap) ends with MEMORY_LIMIT', async () => {
    const outcome = await attempt({ program: 'const a = [];\nfor (;;) a.push(Buffer.alloc(8 << 20, 1));', timeoutMs: 20_000 });
    expectCode(outcome, 'MEMORY_LIMIT');
    await expectHealthy(outcome);
  });

  it('aborting mid-run ends with ABORTED', async () => {
    const controller = new AbortController();
    const started: BindingFunction = async () => {
      controller.abort();
      return null;
    };
    const outcome = await attempt({ program: 'await tools.started({});\nwhile (true) {}', bindings: [{ global: 'tools', functions: { started } }], signal: controller.signal });
    expectCode(outcome, 'ABORTED');
    await expectHealthy(outcome);
  });

  it.each(['process.exit(0);', 'process.kill(process.pid, "SIGKILL");'])('%s ends with EXCEPTION', async (program) => {
    const outcome = await attempt({ program: `${program}\n${FOREVER}` });
    expectCode(outcome, 'EXCEPTION');
    await expectHealthy(outcome);
  });
});

describe('hostile programs: sanity of the suite', () => {
  it('uses the spawned pids the runtime reports', () => {
    expect(events.some((event) => event.type === 'run' && event.programPid !== undefined)).toBe(true);
  });

  it('runs with bwrap where bubblewrap is installed', () => {
    let hasBwrap = false;
    try {
      execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
      hasBwrap = true;
    } catch {
      hasBwrap = false;
    }
    if (hasBwrap) expect(confinementMissing).toBeUndefined();
  });
});
