// Hostile programs against in-memory execution (issue 26, docs/in-memory-mode.md "What a later run can
// trust"): an earlier program of a kept process must not make tool calls that count as a later run's,
// and must not answer a later run's calls itself. Each run gets its own bindings whose host side
// records every call that reached the host, so "the host saw it" is read from the host, never from the
// program. Controls: the same leftover callback inside its own run does reach the host, and a
// stateless runtime keeps nothing.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BindingNamespace, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import { createPythonRuntime, type PythonRuntime } from '../../src/languages/python/runtime/index.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const workspace = mkdtempSync(join(tmpdir(), 'ptc-hostile-mem-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/**
 * A run's own `tools.note`: records `from` on the host and answers `{ real: from }`; with `holdUntil`,
 * only once that file exists in the workspace.
 */
function recordingTools(calls: string[], holdUntil?: string): BindingNamespace {
  return {
    global: 'tools',
    functions: {
      note: async (args) => {
        const from = (args as { from?: unknown }).from;
        calls.push(String(from));
        if (holdUntil !== undefined) {
          while (!existsSync(join(workspace, holdUntil))) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return { real: String(from) };
      },
    },
    errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
  };
}

interface Recorded {
  readonly result: RunResult;
  /** The calls of this run that reached the host. */
  readonly calls: readonly string[];
}

type Runtime = NodeRuntime | PythonRuntime;

async function runRecorded(rt: Runtime, program: string, memoryKey?: object, holdUntil?: string): Promise<Recorded> {
  const calls: string[] = [];
  const spec = await rt.resolve({ program, cwd: workspace, bindings: [recordingTools(calls, holdUntil)], ...(memoryKey === undefined ? {} : { memoryKey }) });
  const result = await rt.run(spec);
  return { result, calls: [...calls] };
}

const STALE = /^ToolCallError:PERMISSION_DENIED:.*earlier program/;

/** Worker threads run only under bwrap: Node's permission model (the fallback without it) forbids them. */
type LeftoverNeeds = 'workers';

/**
 * For each leftover (code that arms a late tool call): in a later run of the same kept process its
 * call is refused there and never reaches the host; the control: inside its own run it is answered.
 * `laterRun` waits until the leftover has tried, then calls `note` itself and returns both outcomes.
 */
function leftoverCases(runtime: () => Runtime, laterRun: string, armed: string, cases: readonly (readonly [string, string, LeftoverNeeds?])[]): void {
  for (const [name, leftover, needs] of cases) {
    const skip = needs === 'workers' && skipWithoutBwrap;
    it.skipIf(skip)(`${name}: its tool call in a later run is refused in the kept process and never reaches the host`, async () => {
      const key = {};
      const first = await runRecorded(runtime(), `${leftover}\n${armed}`, key);
      expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
      const later = await runRecorded(runtime(), laterRun, key);
      expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
      expect(later.calls).toEqual(['B']);
      const value = later.result.value as { mine: unknown; late: string | null };
      expect(value.mine).toEqual({ real: 'B' });
      expect(value.late).toMatch(STALE);
    });

    it.skipIf(skip)(`${name}, control: inside its own run the same call reaches the host`, async () => {
      const own = await runRecorded(runtime(), `${leftover}\n${laterRun}`, {});
      expect(own.result.error, JSON.stringify(own.result.error)).toBeUndefined();
      expect(own.calls).toContain('A-late');
      expect((own.result.value as { late: string }).late).toMatch(/^answered:/);
    });
  }
}

describe('Node: callbacks that outlive their run', () => {
  let rt: NodeRuntime;
  let stateless: NodeRuntime;
  beforeAll(() => {
    rt = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
    stateless = createNodeRuntime({ sandbox: 'auto', pool: false });
  });
  afterAll(async () => {
    await rt.close();
    await stateless.close();
  });

  // The leftover's outcome goes to a global, so the later program can show what the leftover got.
  const outcome = `(value) => { globalThis.lateOutcome = "answered:" + JSON.stringify(value); }, (e) => { globalThis.lateOutcome = e.name + ":" + e.code + ":" + e.message; }`;
  // An interval from node:timers, which the kept process's timer cleanup never sees.
  const timerLeftover = `const { setInterval: every } = require("node:timers");\nevery(() => { tools.note({ from: "A-late" }).then(${outcome}); }, 10);`;
  const workerLeftover =
    `const { Worker } = require("node:worker_threads");\n` +
    `const worker = new Worker('setInterval(() => require("node:worker_threads").parentPort.postMessage("go"), 20)', { eval: true });\n` +
    `worker.on("message", () => { tools.note({ from: "A-late" }).then(${outcome}); });`;
  // Waits until the leftover has tried its call during this run (its outcome is set), then calls.
  // An fs callback chain (each callback starts the next access) that calls once the later run asks.
  const fsLeftover =
    'const fs = require("node:fs");\n' +
    `const again = () => fs.access(".", () => { if (globalThis.wantLate === true) tools.note({ from: "A-late" }).then(${outcome}); else again(); });\nagain();`;
  const laterRun =
    'globalThis.lateOutcome = undefined;\nglobalThis.wantLate = true;\n' +
    'await new Promise((resolve) => { const poll = () => (globalThis.lateOutcome !== undefined ? resolve(undefined) : setTimeout(poll, 10)); poll(); });\n' +
    'const mine = await tools.note({ from: "B" });\nreturn { mine, late: globalThis.lateOutcome };';
  // Stateless: nothing can set the outcome, so the later run waits a while instead.
  const statelessLaterRun = 'await new Promise((resolve) => setTimeout(resolve, 300));\nconst mine = await tools.note({ from: "B" });\nreturn { mine, late: globalThis.lateOutcome ?? null };';
  // A raw writer starts when the later run creates `flag` and removes it once it wrote: the write
  // lands inside the later run, whatever the machine's load.
  const flagged = (flag: string) =>
    `require("node:fs").writeFileSync(${JSON.stringify(flag)}, "");\n` +
    `await new Promise((resolve) => { const poll = () => (require("node:fs").existsSync(${JSON.stringify(flag)}) ? setTimeout(poll, 10) : resolve(undefined)); poll(); });\n` +
    'const mine = await tools.note({ from: "B" });\nreturn { mine };';
  const whenFlagged = (flag: string, write: string) =>
    `const fs = require("node:fs"); const poll = () => { if (fs.existsSync(${JSON.stringify(flag)})) { ${write}; fs.rmSync(${JSON.stringify(flag)}); } else setTimeout(poll, 10); }; poll();`;

  leftoverCases(() => rt, laterRun, 'return "armed";', [
    ['an interval of node:timers', timerLeftover],
    ['a worker thread whose message reaches a listener of the earlier program', workerLeftover, 'workers'],
    ['an fs callback chain', fsLeftover],
  ]);

  it("an earlier program's leftover that throws or leaves a rejection unhandled does not fail the later run", async () => {
    const key = {};
    const thrower =
      'const { setInterval: every } = require("node:timers");\n' +
      'every(() => { globalThis.lateOutcome = "threw"; Promise.reject(new Error("leftover rejection")); throw new Error("leftover throw"); }, 10);\nreturn "armed";';
    const first = await runRecorded(rt, thrower, key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const later = await runRecorded(rt, laterRun, key);
    expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
    expect(later.result.value).toEqual({ mine: { real: 'B' }, late: 'threw' });
    // Control: the running program's own throw from a callback still fails its run.
    const own = await runRecorded(rt, 'setTimeout(() => { throw new Error("mine"); }, 10);\nawait new Promise(() => undefined);', key);
    expect(own.result.error).toMatchObject({ code: 'EXCEPTION', message: expect.stringContaining('Error: mine') });
  });

  it('control: in stateless mode nothing of an earlier run survives to call anything', async () => {
    const first = await runRecorded(stateless, `${timerLeftover}\nreturn "armed";`);
    expect(first.result.error).toBeUndefined();
    const later = await runRecorded(stateless, statelessLaterRun);
    expect(later.calls).toEqual(['B']);
    expect(later.result.value).toEqual({ mine: { real: 'B' }, late: null });
  });

  const rawCall = 'JSON.stringify({ type: "call", id: 1, global: "tools", member: "note", args: { from: "A-raw" } }) + "\\n"';
  it.skipIf(skipWithoutBwrap)('a worker thread writing a call frame to fd 3 itself: the host refuses it and dispatches nothing for the later run', async () => {
    const key = {};
    const worker = `const { Worker } = require("node:worker_threads");\nnew Worker(${JSON.stringify(whenFlagged('raw-call.flag', `fs.writeSync(3, ${rawCall})`))}, { eval: true });\nreturn "armed";`;
    const first = await runRecorded(rt, worker, key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const later = await runRecorded(rt, flagged('raw-call.flag'), key);
    expect(later.calls).not.toContain('A-raw');
    expect(later.result.error?.code).toBe('PROTOCOL');
    expect(later.result.error?.message).toContain("without the kept process's channel key");
  });

  it("a leftover callback writing a done frame to fd 3: it does not become the later run's outcome", async () => {
    const key = {};
    // node:timers' setTimeout: the kept process ends the global timers' leftovers before a later run.
    const forge = `{\nconst { setTimeout } = require("node:timers");\n${whenFlagged('raw-done.flag', 'fs.writeSync(3, \'{"type":"done","ok":true,"value":"forged"}\\n\')')}\n}\nreturn "armed";`;
    const first = await runRecorded(rt, forge, key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const later = await runRecorded(rt, flagged('raw-done.flag'), key);
    expect(later.result.value).not.toBe('forged');
    expect(later.result.error?.code).toBe('PROTOCOL');
  });

  it('control: in stateless mode the same raw call frame, written during its own run, is dispatched as that run\'s', async () => {
    const own = await runRecorded(stateless, `require("node:fs").writeSync(3, ${rawCall});\nawait new Promise((resolve) => setTimeout(resolve, 200));\nreturn "wrote";`);
    expect(own.result.error, JSON.stringify(own.result.error)).toBeUndefined();
    expect(own.calls).toEqual(['A-raw']);
  });
});

describe("Node: a kept program's patches of the binding path", () => {
  let rt: NodeRuntime;
  beforeAll(() => {
    rt = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
  });
  afterAll(() => rt.close());

  const patches: readonly (readonly [string, string])[] = [
    [
      'globalThis.tools replaced by a read-only fake',
      'Object.defineProperty(globalThis, "tools", { value: Object.freeze({ note: async () => ({ fake: true }) }), writable: false, configurable: false });',
    ],
    [
      'Map.prototype.set answering and swallowing each call',
      'const set = Map.prototype.set;\nMap.prototype.set = function (key, value) {\n  if (value !== null && typeof value === "object" && typeof value.resolve === "function" && "member" in value) { value.resolve({ fake: true }); throw new Error("swallowed"); }\n  return set.call(this, key, value);\n};',
    ],
    [
      "node:vm's Script replaced, so the later program never runs and a fake stands in",
      'require("node:vm").Script = class { runInThisContext() { return () => async () => ({ fake: true }); } };',
    ],
    [
      'vm.Script.prototype.runInThisContext replaced',
      'require("node:vm").Script.prototype.runInThisContext = function () { return () => async () => ({ fake: true }); };',
    ],
    [
      "Buffer.prototype.toString rewriting the host's replies",
      'const toText = Buffer.prototype.toString;\nBuffer.prototype.toString = function (...args) {\n  return toText.apply(this, args).replace(/"ok":true,"value":\\{"real":"[^"]*"\\}/g, \'"ok":true,"value":{"fake":true}\');\n};',
    ],
  ];

  for (const [name, patch] of patches) {
    it(`${name}: the later run's call reaches the host and gets the host's answer`, async () => {
      const key = {};
      const first = await runRecorded(rt, `${patch}\nreturn "patched";`, key);
      expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
      const later = await runRecorded(rt, 'return await tools.note({ from: "B" });', key);
      expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
      expect(later.calls).toEqual(['B']);
      expect(later.result.value).toEqual({ real: 'B' });
    });
  }

  it("the channel's read callback, found through the socket and fed a forged reply by a leftover: the later run gets the host's answer", async () => {
    const key = {};
    // The host holds its reply until the leftover has fed its forgery (it writes the flag after each).
    const inject = [
      '{',
      'const { setInterval: every } = require("node:timers");',
      'every(() => {',
      '  const socket = process._getActiveHandles().find((h) => h && h._handle && h._handle.fd === 3);',
      '  const symbols = Object.getOwnPropertySymbols(socket);',
      '  const buffer = socket[symbols.find((s) => String(s) === "Symbol(kBuffer)")];',
      '  const callback = socket[symbols.find((s) => String(s) === "Symbol(kBufferCb)")];',
      '  callback(buffer.write(\'{"type":"result","id":1,"ok":true,"value":{"fake":true}}\\n\', 0));',
      '  if (globalThis.armed === true) require("node:fs").writeFileSync("injected.flag", "");',
      '}, 10);',
      '}',
      'return "armed";',
    ].join('\n');
    const first = await runRecorded(rt, inject, key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const later = await runRecorded(rt, 'globalThis.armed = true;\nreturn await tools.note({ from: "B" });', key, 'injected.flag');
    expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
    expect(later.calls).toEqual(['B']);
    expect(later.result.value).toEqual({ real: 'B' });
  });

  it('control: an earlier helper the later program calls itself makes that program\'s own calls', async () => {
    const key = {};
    await runRecorded(rt, 'async function helper(from: string) { return tools.note({ from }); }\nreturn "defined";', key);
    const later = await runRecorded(rt, 'return await helper("B-via-helper");', key);
    expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
    expect(later.calls).toEqual(['B-via-helper']);
    expect(later.result.value).toEqual({ real: 'B-via-helper' });
  });
});

describe('Python: callbacks that outlive their run', () => {
  let rt: PythonRuntime;
  let stateless: PythonRuntime;
  beforeAll(() => {
    rt = createPythonRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
    stateless = createPythonRuntime({ sandbox: 'auto', pool: false });
  });
  afterAll(async () => {
    await rt.close();
    await stateless.close();
  });

  const late = [
    'outcome = []',
    'async def late():',
    '    try:',
    '        value = await tools.note({"from": "A-late"})',
    '        outcome.append("answered:%r" % (value,))',
    '    except Exception as error:',
    '        outcome.append("%s:%s:%s" % (type(error).__name__, error.code, error))',
  ].join('\n');
  const callLaterChain = [
    'import asyncio',
    late,
    'loop = asyncio.get_running_loop()',
    'def tick():',
    '    asyncio.ensure_future(late())',
    '    loop.call_later(0.01, tick)',
    'loop.call_later(0.01, tick)',
  ].join('\n');
  const thread = [
    'import asyncio, threading, time',
    late,
    'loop = asyncio.get_running_loop()',
    'def worker():',
    '    while True:',
    '        time.sleep(0.02)',
    '        asyncio.run_coroutine_threadsafe(late(), loop)',
    'threading.Thread(target=worker, daemon=True).start()',
  ].join('\n');
  // Waits until the leftover has tried its call during this run, then calls.
  const laterRun = 'outcome.clear()\nwhile not outcome:\n    await asyncio.sleep(0.01)\nmine = await tools.note({"from": "B"})\nreturn {"mine": mine, "late": outcome[-1]}';
  const statelessLaterRun = 'await asyncio.sleep(0.3)\nmine = await tools.note({"from": "B"})\nreturn {"mine": mine, "late": outcome[-1] if outcome else None}';

  leftoverCases(() => rt, laterRun, 'return "armed"', [
    ['a loop.call_later chain', callLaterChain],
    ['a thread that schedules a coroutine on the loop', thread],
  ]);

  it('control: in stateless mode nothing of an earlier run survives to call anything', async () => {
    const first = await runRecorded(stateless, `${callLaterChain}\nreturn "armed"`);
    expect(first.result.error).toBeUndefined();
    const later = await runRecorded(stateless, `import asyncio\noutcome = []\n${statelessLaterRun}`);
    expect(later.calls).toEqual(['B']);
    expect(later.result.value).toEqual({ mine: { real: 'B' }, late: null });
  });

  it('a thread writing a call frame to fd 3 itself: the host refuses it and dispatches nothing for the later run', async () => {
    const key = {};
    const forge = [
      'import json, os, threading, time',
      'def forge():',
      '    while not os.path.exists("raw-py.flag"):',
      '        time.sleep(0.01)',
      '    os.write(3, (json.dumps({"type": "call", "id": 1, "global": "tools", "member": "note", "args": {"from": "A-raw"}}) + "\\n").encode())',
      '    os.remove("raw-py.flag")',
      'threading.Thread(target=forge, daemon=True).start()',
      'return "armed"',
    ].join('\n');
    const first = await runRecorded(rt, forge, key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const flagged = 'import asyncio\nopen("raw-py.flag", "w").close()\nwhile os.path.exists("raw-py.flag"):\n    await asyncio.sleep(0.01)\nreturn await tools.note({"from": "B"})';
    const later = await runRecorded(rt, flagged, key);
    expect(later.calls).not.toContain('A-raw');
    expect(later.result.error?.code).toBe('PROTOCOL');
  });

  it("a patch of the namespace's class does not answer a later run's calls", async () => {
    const key = {};
    const first = await runRecorded(rt, 'async def fake(*args, **kwargs):\n    return {"fake": True}\ntype(tools).__getattr__ = lambda self, name: fake\nreturn "patched"', key);
    expect(first.result.error, JSON.stringify(first.result.error)).toBeUndefined();
    const later = await runRecorded(rt, 'return await tools.note({"from": "B"})', key);
    expect(later.result.error, JSON.stringify(later.result.error)).toBeUndefined();
    expect(later.calls).toEqual(['B']);
    expect(later.result.value).toEqual({ real: 'B' });
  });

  it("not covered, and visible on the host: a patch of the bootstrap's own functions answers without a call reaching the host", async () => {
    // Python lets kept code reach every object of the process (docs/in-memory-mode.md): this patch
    // wins, and the host's record of the run shows that no call came from it.
    const key = {};
    await runRecorded(rt, 'async def fake(*args, **kwargs):\n    return {"fake": True}\ndef answer(binding, member, args, kwargs):\n    return fake()\ntools.note.__globals__["_call_binding"] = answer\nreturn "patched"', key);
    const later = await runRecorded(rt, 'return await tools.note({"from": "B"})', key);
    expect(later.result.value).toEqual({ fake: true });
    expect(later.calls).toEqual([]);
  });
});
