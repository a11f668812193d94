// The Python runtime behind PTC mode (issue 14): the agent loop with the ptc-python preset against
// the scripted model server on loopback; run_code through the registry with asyncio.gather fan-out
// overlapping in the dispatch pool and exclusive calls alone; ToolCallError caught in Python; the
// in-memory execution mode; language dispatch failures. Only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgent } from '../../src/agent/loop.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createPythonRuntime, memoryResetNote, type PythonRuntime } from '../../src/languages/python/runtime/index.js';
import type { PtcRuntime } from '../../src/ptc-runtime/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { loadPreset } from '../../src/trust/trusted-preset.js';
import { parseProgramLanguage, presetForLanguage, programLanguageOf } from '../../src/presets/python-runtime-plugin.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-py-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-py-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
});
afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

describe('the agent loop with the ptc-python preset', () => {
  let server: ScriptedServer | undefined;
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    await server?.close();
    harness = undefined;
    server = undefined;
  });

  it('runs a Python program the model wrote; the prompt carries the Python SDK and run_code says Python', async () => {
    const program = [
      'import asyncio',
      'a, b = await asyncio.gather(tools.read({"path": "a.txt"}), tools.read({"path": "b.txt"}))',
      'print("read", len(a["content"]) + len(b["content"]), "chars")',
      'return a["content"].strip() + "+" + b["content"].strip()',
    ].join('\n');
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 'py1', name: 'run_code', args: { code: program, description: 'read both' } }]),
      reply.text('alpha+beta it is.'),
    ]);
    harness = await createHarness({ cwd: workspace, preset: 'ptc-python', sandbox: 'auto' });
    const writer = createSessionWriter({ dir: sessionDir });
    const result = await runAgent({
      scope: harness.ctx,
      cwd: workspace,
      preset: 'ptc-python',
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      task: 'Read both files.',
      sink: writer,
      sessionId: writer.sessionId,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    writer.close();
    const { events } = readSession(writer.file);
    expect(result).toMatchObject({ reason: 'completed', text: 'alpha+beta it is.' });
    const first = server.requests[0]!.json as { tools: { function: { name: string; description: string } }[]; messages: { role: string; content: string }[] };
    expect(first.tools.map((t) => t.function.name)).toEqual(['run_code']);
    expect(first.tools[0]!.function.description).toMatch(/^Run a Python program/);
    const system = first.messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain('`code` is the BODY of an async Python function');
    expect(system).toContain('asyncio.gather');
    expect(system).toContain('```python');
    expect(system).toContain('    async def read(self, args: ReadArgs, /) -> ReadOutput:');
    expect(system).not.toContain('declare const tools');
    expect(ofType(events, 'tool/ptc-dispatch-start').map((e) => e.id)).toEqual(['py1:ptc:1', 'py1:ptc:2']);
    const toolResult = ofType(events, 'tool/result')[0]!;
    expect(toolResult).toMatchObject({ id: 'py1', isError: false });
    expect(toolResult.content).toBe('read 9 chars\nalpha+beta');
  });
});

describe('run_code under the Python runtime, through the registry', () => {
  let harness: Harness;
  let live = 0;
  let peak = 0;
  const order: string[] = [];
  const slow = (name: string, concurrent: boolean) =>
    defineTool({
      name,
      description: `${name}: waits a little and reports how many calls were running with it.`,
      input: z.object({ i: z.number() }),
      isConcurrencySafe: concurrent,
      execute: async ({ i }) => {
        live++;
        peak = Math.max(peak, live);
        order.push(`${name}:${i}:start`);
        await new Promise((resolve) => setTimeout(resolve, 60));
        order.push(`${name}:${i}:end`);
        live--;
        return i;
      },
    });

  beforeAll(async () => {
    harness = await createHarness({ cwd: workspace, preset: 'ptc-python', sandbox: 'auto' });
    harness.tools.register(slow('look', true));
    harness.tools.register(slow('change', false));
    harness.tools.register(
      defineTool({ name: 'my-tool', description: 'Dashed name.', input: z.object({ from: z.string() }), isConcurrencySafe: true, execute: ({ from }) => `got ${from}` }),
    );
  });
  afterAll(() => harness.dispose());

  async function runCode(code: string) {
    const scope = await harness.ptcScope();
    return harness.tools.execute('run_code', { code, description: 'test' }, { scope });
  }

  it('overlaps concurrency-safe calls under asyncio.gather in the pool', async () => {
    peak = 0;
    const result = await runCode('import asyncio\nreturn await asyncio.gather(*(tools.look({"i": i}) for i in range(5)))');
    expect(result.isError, result.content).toBe(false);
    expect(result.value).toEqual({ logs: [], result: [0, 1, 2, 3, 4] });
    expect(peak).toBeGreaterThan(1);
  });

  it('runs exclusive calls alone, in submission order, even under asyncio.gather', async () => {
    peak = 0;
    order.length = 0;
    const result = await runCode('import asyncio\nreturn await asyncio.gather(tools.change({"i": 1}), tools.change({"i": 2}), tools.change({"i": 3}))');
    expect(result.isError, result.content).toBe(false);
    expect(peak).toBe(1);
    expect(order).toEqual(['change:1:start', 'change:1:end', 'change:2:start', 'change:2:end', 'change:3:start', 'change:3:end']);
  });

  it('a failed call raises ToolCallError with tool_name and code, which the program catches', async () => {
    const result = await runCode(
      [
        'try:',
        '    await tools.read({"path": "missing.txt"})',
        'except ToolCallError as error:',
        '    return [error.tool_name, error.code, "missing.txt" in str(error)]',
      ].join('\n'),
    );
    expect(result.isError, result.content).toBe(false);
    expect((result.value as { result: unknown }).result).toEqual(['read', expect.any(String), true]);
    const invalid = await runCode('try:\n    await tools.look({"i": "x"})\nexcept ToolCallError as error:\n    return error.code');
    expect((invalid.value as { result: unknown }).result).toBe('INVALID_ARGS');
  });

  it('sdk.describe answers with Python declarations, the notation the program is written in', async () => {
    const result = await runCode('return await sdk.describe(["look", "my-tool"])');
    expect(result.isError, result.content).toBe(false);
    const text = (result.value as { result: string }).result;
    expect(text).toContain('class LookArgs(TypedDict');
    expect(text).toContain('async def look(self, args: LookArgs, /)');
    expect(text).toContain('"my-tool"');
    expect(text).not.toMatch(/declare const tools|interface LookArgs/);
  });

  it('sdk.search takes (query), (query, {limit}), (query, limit=N) and one dict, and refuses other shapes', async () => {
    const forms = ['sdk.search("look")', 'sdk.search("look", {"limit": 1})', 'sdk.search("look", limit=1)', 'sdk.search(query="look", limit=1)', 'sdk.search({"query": "look", "limit": 1})'];
    for (const form of forms) {
      const result = await runCode(`hits = await ${form}\nreturn [hit["name"] for hit in hits]`);
      expect(result.isError, `${form}: ${result.content}`).toBe(false);
      const names = (result.value as { result: string[] }).result;
      expect(names[0], form).toBe('look');
      if (form.includes('1')) expect(names, form).toHaveLength(1);
    }
    const wrong = await runCode('try:\n    await sdk.search("look", 5)\nexcept SdkError as error:\n    return [error.code, str(error)]');
    const [code, message] = (wrong.value as { result: [string, string] }).result;
    expect(code).toBe('INVALID_ARGS');
    expect(message).toContain('sdk.search("read file", { limit: 5 })');
  });

  it('reaches a name that is not an identifier, with a key that is a Python keyword', async () => {
    const result = await runCode('return await tools["my-tool"]({"from": "py"})');
    expect((result.value as { result: unknown }).result).toBe('got py');
  });

  it('reports a SyntaxError at the line and column of the program', async () => {
    const result = await runCode('x = 1\nif x\n    return x');
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('EXCEPTION');
    expect(result.content).toMatch(/SyntaxError: .*\(program\.py:2:5\)/);
  });

  it('a returned value that is not JSON is INVALID_OUTPUT', async () => {
    const result = await runCode('return {"when": __import__("datetime").date(2026, 1, 1)}');
    expect(result.error?.code).toBe('INVALID_OUTPUT');
    expect(result.content).toContain('/when');
  });
});

describe('in-memory execution', () => {
  function inMemory(): PtcRuntime {
    return createPythonRuntime({ sandbox: 'auto', execution: 'in-memory', pool: false });
  }

  it('keeps a top-level name across two calls of one conversation, never across conversations', async () => {
    const rt = inMemory();
    try {
      const one = {};
      const other = {};
      const run = async (memoryKey: object, program: string) => rt.run(await rt.resolve({ program, cwd: workspace, memoryKey }));
      const first = await run(one, 'import json\ncounter = 41\ndef bump():\n    global counter\n    counter += 1\n    return counter\nreturn "set"');
      expect(first.error).toBeUndefined();
      const second = await run(one, 'return [bump(), json.dumps(counter)]');
      expect(second.error, JSON.stringify(second.error)).toBeUndefined();
      expect(second.value).toEqual([42, '42']);
      const elsewhere = await run(other, 'return "counter" in globals()');
      expect(elsewhere.value).toBe(false);
      const stateless = createPythonRuntime({ sandbox: 'auto', pool: false });
      try {
        await expect(stateless.resolve({ program: 'return 1', cwd: workspace, memoryKey: one })).rejects.toMatchObject({ code: 'CONFIG' });
      } finally {
        await stateless.close();
      }
    } finally {
      await rt.close();
    }
  });

  it('after a kill (timeout) the next call starts fresh and says the memory was reset', async () => {
    const rt = inMemory();
    try {
      const key = {};
      const run = async (program: string, timeoutMs?: number) =>
        rt.run(await rt.resolve({ program, cwd: workspace, memoryKey: key, ...(timeoutMs === undefined ? {} : { timeoutMs }) }));
      expect((await run('kept = "yes"\nreturn kept')).value).toBe('yes');
      const stuck = await run('while True:\n    pass', 1_500);
      expect(stuck.error?.code).toBe('TIMEOUT');
      const after = await run('return "kept" in globals()');
      expect(after.value).toBe(false);
      expect(after.logs).toEqual([memoryResetNote('the previous program timed out')]);
      const again = await run('return "kept" in globals()');
      expect(again.logs).toEqual([]);
    } finally {
      await rt.close();
    }
  });

  it('through the preset row: two run_code calls of one harness share names, a second harness does not', async () => {
    const file = path.join(workspace, 'memory.yml');
    fs.writeFileSync(
      file,
      'description: in-memory\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n  - name: python-runtime\n    config: { execution: in-memory }\n  - name: tool-presentation\n    config: { mode: ptc }\n',
    );
    const first = await createHarness({ cwd: workspace, preset: file, sandbox: 'auto' });
    const second = await createHarness({ cwd: workspace, preset: file, sandbox: 'auto' });
    try {
      const call = async (h: Harness, code: string) => h.tools.execute('run_code', { code, description: 'memory' }, { scope: await h.ptcScope() });
      await call(first, 'text = (await tools.read({"path": "a.txt"}))["content"]');
      expect((await call(first, 'return text.strip()')).value).toEqual({ logs: [], result: 'alpha' });
      const other = await call(second, 'return text');
      expect(other.error?.code).toBe('EXCEPTION');
      expect(other.content).toContain("NameError: name 'text' is not defined");
      const description = first.tools.wireTools(await first.ptcScope())[0]!.description;
      expect(description).toContain('top-level names persist');
    } finally {
      await first.dispose();
      await second.dispose();
    }
  });
});

describe('choosing the language of a preset (ptc exec file.py, --lang py)', () => {
  it('swaps the node-runtime row for python-runtime, keeping its config, and the SDK follows', async () => {
    expect(programLanguageOf('job.py')).toBe('python');
    expect(programLanguageOf('job.ts')).toBe('typescript');
    expect(parseProgramLanguage('py')).toBe('python');
    expect(parseProgramLanguage('rb')).toBeUndefined();
    const ptc = loadPreset('ptc', { workspace, env: {} });
    const python = presetForLanguage({ ...ptc, rows: ptc.rows.map((row) => (row.name === 'node-runtime' ? { ...row, config: { limits: { maxOutputBytes: 4096 } } } : row)) }, 'python');
    expect(python.rows.map((row) => row.name)).toEqual(['builtin-tools', 'skills', 'workflows', 'python-runtime', 'tool-presentation', 'llm', 'sessions', 'logger', 'loop']);
    expect(python.rows[3]!.config).toEqual({ limits: { maxOutputBytes: 4096 } });
    const harness = await createHarness({ cwd: workspace, preset: python, sandbox: 'auto' });
    try {
      expect(harness.runtime?.language).toBe('python');
      const out = await harness.tools.execute('run_code', { code: 'print("x" * 5000)', description: 'flood' }, { scope: await harness.ptcScope() });
      expect(out.error?.code).toBe('OUTPUT_LIMIT');
    } finally {
      await harness.dispose();
    }
    expect(presetForLanguage(python, 'typescript').rows[3]!.name).toBe('node-runtime');
  });
});

describe('a one-shot Python run (ptc exec file.py)', () => {
  it('the harness pool option reaches the python-runtime row: one child, no refill', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'ptc-python', sandbox: 'auto', runtimePool: { size: 1, refill: false } });
    try {
      expect((harness.runtime as PythonRuntime).config.pool).toMatchObject({ size: 1, refill: false });
      const out = await harness.tools.execute('run_code', { code: 'return 6 * 7', description: 'one' }, { scope: await harness.ptcScope() });
      expect((out.value as { result: unknown }).result).toBe(42);
    } finally {
      await harness.dispose();
    }
  });
});

describe('language dispatch failures', () => {
  it('a runtime whose language has no SDK renderer fails assembly naming the row', async () => {
    const base = createPythonRuntime({ pool: false });
    const runtime = { ...base, language: 'cobol' } as unknown as PtcRuntime;
    try {
      await expect(createHarness({ cwd: workspace, preset: 'ptc', runtime })).rejects.toMatchObject({
        code: 'CONFIG',
        message: expect.stringMatching(/row 5 `tool-presentation` failed: .*"cobol" has no SDK renderer/),
      });
    } finally {
      await base.close();
    }
  });

  it('a missing python3 is RUNTIME_UNAVAILABLE naming what to install', async () => {
    const rt = createPythonRuntime({ pythonPath: '/nonexistent/python3', pool: false });
    try {
      const result = await rt.run(await rt.resolve({ program: 'return 1', cwd: workspace }));
      expect(result.error?.code).toBe('RUNTIME_UNAVAILABLE');
      expect(result.error?.message).toContain('apt-get install python3');
    } finally {
      await rt.close();
    }
  });
});
