// In-memory execution for Node programs (issue 14, docs/in-memory-mode.md) with real sandboxed
// children: top-level names kept across the runs of one conversation, lost (and said so) after a
// kill, never shared across conversations or agent sessions, ended with the session; stateless stays
// the default. The agent loop runs against the scripted model server on loopback.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createNodeRuntime, type ChildProcessEvent, type NodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import { memoryResetNote } from '../../src/ptc-runtime-process/index.js';
import { createSessionWriter } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { alive } from '../helpers/process-state.js';
import { waitUntil } from '../helpers/wait-until.js';

let workspace: string;
let sessionDir: string;
beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-node-mem-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-node-mem-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
});
afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

describe('Node in-memory execution, runtime level', () => {
  let rt: NodeRuntime;
  beforeAll(() => {
    rt = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
  });
  afterAll(() => rt.close());

  const run = async (memoryKey: object, program: string, timeoutMs?: number) =>
    rt.run(await rt.resolve({ program, cwd: workspace, memoryKey, ...(timeoutMs === undefined ? {} : { timeoutMs }) }));

  it('keeps top-level const, let, var, function and class names across two calls of one conversation', async () => {
    const key = {};
    const first = await run(
      key,
      [
        'const base: number = 40;',
        'let count = 0;',
        'for (const n of [1, 2]) count += n;',
        'var { label, parts: [head] } = { label: "x", parts: ["h"] };',
        'function total(): number { return base + count; }',
        'class Box { v: string; constructor(v: string) { this.v = v; } }',
        'return total();',
      ].join('\n'),
    );
    expect(first.error, JSON.stringify(first.error)).toBeUndefined();
    expect(first.value).toBe(43);
    const second = await run(key, 'count += 10;\nreturn [base, count, label, head, total(), new Box("b").v];');
    expect(second.error, JSON.stringify(second.error)).toBeUndefined();
    expect(second.value).toEqual([40, 13, 'x', 'h', 53, 'b']);
    expect(second.logs).toEqual([]);
    // A name can be declared again by a later program (REPL-like), and keeps the program's own positions.
    const third = await run(key, 'const base = 1;\nthrow new Error("at " + base);');
    expect(third.error).toEqual({ code: 'EXCEPTION', message: 'Error: at 1 (program.ts:2:7)' });
    expect((await run(key, 'return base;')).value).toBe(1);
  });

  it("a program's names never meet the bootstrap's: names the child itself uses are the program's own", async () => {
    const key = {};
    // write, send, limits, finished, stringify, onResult: names of the child's own functions and state.
    const first = await run(
      key,
      'const write = (s: string) => "w:" + s;\nlet limits = 3;\nfunction send() { return "mine"; }\nconst finished = "no";\nreturn [write("a"), limits, send(), finished, typeof stringify, typeof onResult];',
    );
    expect(first.error, JSON.stringify(first.error)).toBeUndefined();
    expect(first.value).toEqual(['w:a', 3, 'mine', 'no', 'undefined', 'undefined']);
    // The kept process still works, calls still settle, and the names are still the program's.
    const second = await run(key, 'return [write("b"), limits, send(), finished];');
    expect(second.error, JSON.stringify(second.error)).toBeUndefined();
    expect(second.value).toEqual(['w:b', 3, 'mine', 'no']);
  });

  it('never across conversations: another key starts in another process', async () => {
    const one = {};
    const other = {};
    expect((await run(one, 'const mine = "one"; return mine;')).value).toBe('one');
    const elsewhere = await run(other, 'return typeof mine;');
    expect(elsewhere.value).toBe('undefined');
    expect(elsewhere.logs).toEqual([]);
  });

  it('a timeout kills the memory: the next call starts fresh and says the memory was reset', async () => {
    const key = {};
    expect((await run(key, 'const kept = "yes"; return kept;')).value).toBe('yes');
    const stuck = await run(key, 'while (true) {}', 1_000);
    expect(stuck.error?.code).toBe('TIMEOUT');
    const after = await run(key, 'return typeof kept;');
    expect(after.value).toBe('undefined');
    expect(after.logs).toEqual([memoryResetNote('Node', 'the previous program timed out')]);
    const again = await run(key, 'return typeof kept;');
    expect(again.logs).toEqual([]);
  });

  it('work a program leaves running does not write into the next run', async () => {
    const key = {};
    const first = await run(key, 'setInterval(() => console.log("tick"), 5);\nreturn "started";');
    expect(first.value).toBe('started');
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = await run(key, 'await new Promise((resolve) => setTimeout(resolve, 60));\nreturn "later";');
    expect(second).toMatchObject({ value: 'later', logs: [] });
  });

  it('forget() ends a conversation: its process is killed and its names are gone', async () => {
    const events: ChildProcessEvent[] = [];
    const own = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false, onProcess: (event) => events.push(event) });
    try {
      const key = {};
      const resolveRun = async (program: string) => own.run(await own.resolve({ program, cwd: workspace, memoryKey: key }));
      expect((await resolveRun('const n = 1; return n;')).value).toBe(1);
      expect((await resolveRun('return n + 1;')).value).toBe(2);
      const runs = events.filter((event) => event.type === 'run');
      expect(new Set(runs.map((event) => event.pid)).size).toBe(1);
      const pid = runs[0]!.pid;
      expect(alive(pid)).toBe(true);
      await own.forget(key);
      await waitUntil(`kept process ${pid} to end`, () => !alive(pid));
      expect((await resolveRun('return typeof n;')).value).toBe('undefined');
    } finally {
      await own.close();
    }
  });
});

describe('stateless stays the default', () => {
  it('a Node runtime without options is stateless and rejects a memory key; names never survive a run', async () => {
    const rt = createNodeRuntime({ sandbox: 'auto', pool: false });
    try {
      expect(rt.execution).toBe('stateless');
      await expect(rt.resolve({ program: 'return 1', cwd: workspace, memoryKey: {} })).rejects.toMatchObject({ code: 'CONFIG' });
      await rt.run(await rt.resolve({ program: 'globalThis.leak = 1; const kept = 2; return kept;', cwd: workspace }));
      expect((await rt.run(await rt.resolve({ program: 'return [typeof leak, typeof kept];', cwd: workspace }))).value).toEqual(['undefined', 'undefined']);
    } finally {
      await rt.close();
    }
  });

  it('the ptc preset says each run starts fresh; an in-memory node-runtime row says memory is kept', async () => {
    const stateless = await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto' });
    const file = path.join(workspace, 'node-memory.yml');
    fs.writeFileSync(
      file,
      'description: in-memory\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: node-runtime\n    config: { execution: in-memory }\n  - name: tool-presentation\n    config: { mode: ptc }\n',
    );
    const kept = await createHarness({ cwd: workspace, preset: file, sandbox: 'auto' });
    try {
      expect(stateless.runtime?.execution).toBe('stateless');
      expect(stateless.tools.wireTools(await stateless.ptcScope())[0]!.description).toContain('each run starts with fresh state');
      expect(kept.runtime?.execution).toBe('in-memory');
      expect(kept.tools.wireTools(await kept.ptcScope())[0]!.description).toContain('top-level names persist');
      const call = async (h: Harness, code: string) => h.tools.execute('run_code', { code, description: 'memory' }, { scope: await h.ptcScope() });
      await call(stateless, 'const text = "x"; return text;');
      expect((await call(stateless, 'return typeof text;')).value).toEqual({ logs: [], result: 'undefined' });
      await call(kept, 'const text = (await tools.read({ path: "a.txt" })).content;');
      expect((await call(kept, 'return text.trim();')).value).toEqual({ logs: [], result: 'alpha' });
    } finally {
      await stateless.dispose();
      await kept.dispose();
    }
  });
});

describe('the agent loop with an in-memory Node runtime', () => {
  let server: ScriptedServer | undefined;
  let harness: Harness | undefined;
  let runtime: NodeRuntime | undefined;
  afterEach(async () => {
    await harness?.dispose();
    await runtime?.close();
    await server?.close();
    harness = undefined;
    runtime = undefined;
    server = undefined;
  });

  it('keeps names between the run_code calls of one session, never into the next session, and ends the process with the session', async () => {
    const events: ChildProcessEvent[] = [];
    runtime = createNodeRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false, onProcess: (event) => events.push(event) });
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 'a1', name: 'run_code', args: { code: 'const secret = "s1";\nreturn "set";', description: 'set' } }]),
      reply.toolCalls([{ id: 'a2', name: 'run_code', args: { code: 'return secret;', description: 'get' } }]),
      reply.text('first session done'),
      reply.toolCalls([{ id: 'b1', name: 'run_code', args: { code: 'return typeof secret;', description: 'look' } }]),
      reply.text('second session done'),
    ]);
    harness = await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto', runtime });
    const agentRun = async (task: string) => {
      const writer = createSessionWriter({ dir: sessionDir });
      try {
        return await runAgent({
          scope: harness!.ctx,
          cwd: workspace,
          preset: 'ptc',
          model: resolveModel({ baseUrl: server!.baseUrl, model: 'scripted', env: {} }),
          task,
          sink: writer,
          sessionId: writer.sessionId,
          retry: { baseDelayMs: 1, maxDelayMs: 5 },
        });
      } finally {
        writer.close();
      }
    };
    const toolMessages = (index: number) =>
      (server!.requests[index]!.json as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

    expect(await agentRun('Set and read a secret.')).toMatchObject({ reason: 'completed', text: 'first session done' });
    const system = (server.requests[0]!.json as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain('Memory is kept between runs of this conversation');
    expect(toolMessages(2).at(-1)).toContain('s1');
    const firstPids = [...new Set(events.filter((event) => event.type === 'run').map((event) => event.pid))];
    expect(firstPids).toHaveLength(1);
    await waitUntil('the first session\'s kept process to end with the session', () => !alive(firstPids[0]!));

    expect(await agentRun('Look for the secret.')).toMatchObject({ reason: 'completed', text: 'second session done' });
    expect(toolMessages(4).at(-1)).toContain('undefined');
    expect(toolMessages(4).at(-1)).not.toContain('memory reset');
  });
});
