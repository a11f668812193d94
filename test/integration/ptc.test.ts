// PTC mode end to end with the real Node runtime: run_code through the registry pipeline, the
// dispatch bridge and pool, settlement, events, deferred contexts. Only the tools here are test-made.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type Context } from '../../src/context/context.js';
import type { JsonValue } from '../../src/json.js';
import { ptcPlugin } from '../../src/ptc/plugin.js';
import { renderPtcOnlySection, renderSdkSection } from '../../src/ptc/prompt-sections.js';
import type { PtcDispatchSettle, PtcDispatchStart } from '../../src/ptc/run-code.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { PtcRuntime } from '../../src/ptc-runtime/types.js';
import { ToolRuntime, type ToolResultEvent } from '../../src/tools/tool-runtime.js';
import { defineTool } from '../../src/tools/types.js';
import { createGrepTool } from '../../src/builtin-tools/grep.js';
import { createReadTool } from '../../src/builtin-tools/read.js';
import { resolveWorkspacePolicy } from '../../src/sandbox/workspace-policy.js';

let workspace: string;
let runtime: PtcRuntime;

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bridge-'));
  runtime = createNodeRuntime({ sandbox: 'auto' });
});
afterAll(async () => {
  await runtime.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

interface Setup {
  root: Context;
  timeline: string[];
  starts: PtcDispatchStart[];
  settles: PtcDispatchSettle[];
  results: ToolResultEvent[];
  run(code: string, options?: { id?: string; signal?: AbortSignal }): ReturnType<ToolRuntime['execute']>;
}

/** A ptc registry with the real runtime and the given extra tools. */
function setup(options: { maxParallelSubCalls?: number; register?: (tools: ToolRuntime, timeline: string[]) => void } = {}): Setup {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
  root.provide('ptcRuntime', runtime);
  const timeline: string[] = [];
  options.register?.(root.tools, timeline);
  root.plugin(ptcPlugin, {
    cwd: workspace,
    ...(options.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: options.maxParallelSubCalls } : {}),
  });
  const starts: PtcDispatchStart[] = [];
  const settles: PtcDispatchSettle[] = [];
  const results: ToolResultEvent[] = [];
  root.on('tool/ptc-dispatch-start', (e) => void starts.push(e));
  root.on('tool/ptc-dispatch', (e) => void settles.push(e));
  root.on('tools/result', (e) => void results.push(e));
  let n = 0;
  return {
    root,
    timeline,
    starts,
    settles,
    results,
    run: (code, o = {}) =>
      root.tools.execute('run_code', { code, description: 'test program' }, { id: o.id ?? `rc${++n}`, ...(o.signal ? { signal: o.signal } : {}) }),
  };
}

const echo = defineTool<{ x: JsonValue }, JsonValue>({
  name: 'echo',
  description: 'Returns its argument.',
  inputSchema: { type: 'object', properties: { x: {} }, required: ['x'] },
  isConcurrencySafe: true,
  execute: ({ x }) => x,
});

/** Parallel calls that finish only once `width` of them run at the same time: overlap or deadline. */
function latchTool(width: number) {
  let active = 0;
  let release: () => void = () => {};
  const opened = new Promise<void>((resolve) => (release = resolve));
  return (timeline: string[]) =>
    defineTool<{ i: number }, number>({
      name: 'slow_read',
      description: 'A read that waits for its siblings.',
      inputSchema: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
      isConcurrencySafe: true,
      async execute({ i }) {
        timeline.push(`start r${i}`);
        if (++active >= width) release();
        await opened;
        active--;
        timeline.push(`end r${i}`);
        return i;
      },
    });
}

function recorderTool(timeline: string[]) {
  return defineTool<{ tag: string }, string>({
    name: 'mutate',
    description: 'An exclusive call.',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    async execute({ tag }) {
      timeline.push(`start ${tag}`);
      await new Promise<void>((resolve) => setImmediate(resolve));
      timeline.push(`end ${tag}`);
      return tag;
    },
  });
}

describe('run_code with the real runtime', () => {
  it('composes tools; success is { logs, result } rendered as logs then the result', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    const result = await s.run(`
      const a = await tools.echo({ x: 1 });
      const b = await tools["echo"]({ x: { y: [a, 2] } });
      console.log('got', a);
      return b;
    `);
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ logs: ['got 1'], result: { y: [1, 2] } });
    expect(result.content).toBe('got 1\n{\n  "y": [\n    1,\n    2\n  ]\n}');
  });

  it('numbers sub-calls <parent>:ptc:<n> in submission order and pairs the events', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    await s.run(`await tools.echo({ x: 'a' }); await Promise.all([tools.echo({ x: 'b' }), tools.echo({ x: 'c' })]);`, { id: 'outer' });
    expect(s.starts.map((e) => [e.id, e.args])).toEqual([
      ['outer:ptc:1', { x: 'a' }],
      ['outer:ptc:2', { x: 'b' }],
      ['outer:ptc:3', { x: 'c' }],
    ]);
    expect(s.settles.map((e) => e.id).sort()).toEqual(['outer:ptc:1', 'outer:ptc:2', 'outer:ptc:3']);
    expect(s.settles.every((e) => e.parentId === 'outer' && e.tool === 'echo' && !e.isError)).toBe(true);
    const subResults = s.results.filter((e) => e.call.parent?.id === 'outer');
    expect(subResults.map((e) => e.call.id).sort()).toEqual(['outer:ptc:1', 'outer:ptc:2', 'outer:ptc:3']);
  });

  it('parallel calls overlap; an exclusive call runs alone; starts follow submission order', async () => {
    const latch = latchTool(3);
    const s = setup({
      register: (tools, timeline) => {
        tools.register(latch(timeline));
        tools.register(recorderTool(timeline));
      },
    });
    const result = await s.run(`
      const first = await Promise.all([tools.slow_read({ i: 1 }), tools.slow_read({ i: 2 }), tools.slow_read({ i: 3 })]);
      const both = await Promise.all([tools.mutate({ tag: 'w1' }), tools.mutate({ tag: 'w2' })]);
      return [first, both];
    `);
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ logs: [], result: [[1, 2, 3], ['w1', 'w2']] });
    const t = s.timeline;
    expect(t.slice(0, 3)).toEqual(['start r1', 'start r2', 'start r3']);
    expect(t.slice(6)).toEqual(['start w1', 'end w1', 'start w2', 'end w2']);
  });

  it('maxParallelSubCalls 1 restores serial dispatch, even for concurrency-safe calls', async () => {
    const s = setup({
      maxParallelSubCalls: 1,
      register: (tools, timeline) =>
        tools.register(
          defineTool<{ i: number }, number>({
            name: 'safe_read',
            description: 'A concurrency-safe call that yields while it runs.',
            inputSchema: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
            isConcurrencySafe: true,
            async execute({ i }) {
              timeline.push(`start ${i}`);
              for (let k = 0; k < 3; k++) await new Promise<void>((resolve) => setImmediate(resolve));
              timeline.push(`end ${i}`);
              return i;
            },
          }),
        ),
    });
    const result = await s.run(`return await Promise.all([1, 2, 3].map((i) => tools.safe_read({ i })));`);
    expect(result.value).toEqual({ logs: [], result: [1, 2, 3] });
    expect(s.timeline).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('a failed sub-call is a ToolCallError in the program, with toolName and the message', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    const result = await s.run(`
      try {
        await tools.echo({ wrong: true });
        return 'no error';
      } catch (e) {
        return { isToolCallError: e instanceof ToolCallError, isError: e instanceof Error, toolName: e.toolName, code: e.code, message: e.message };
      }
    `);
    expect(result.value).toMatchObject({
      result: { isToolCallError: true, isError: true, toolName: 'echo', code: 'INVALID_ARGS' },
    });
    expect(JSON.stringify(result.value)).toContain('is required but missing');
    expect(s.settles[0]).toMatchObject({ tool: 'echo', isError: true });
  });

  it('non-JSON arguments reject that call as INVALID_ARGS before the tool runs', async () => {
    let ran = 0;
    const s = setup({
      register: (tools) =>
        tools.register(defineTool({ name: 'count', description: 'Counts.', inputSchema: {}, execute: () => ++ran })),
    });
    const result = await s.run(`
      const out = [];
      for (const bad of [{ a: undefined }, { n: NaN }, { f: () => 1 }, { n: Infinity }]) {
        try { await tools.count(bad); out.push('ran'); } catch (e) { out.push(e instanceof ToolCallError ? e.message : 'other'); }
      }
      return out;
    `);
    expect(ran).toBe(0);
    const messages = (result.value as { result: string[] }).result;
    expect(messages).toHaveLength(4);
    for (const message of messages) expect(message).toMatch(/INVALID_ARGS|Invalid arguments/);
  });

  it('nothing starts or emits after settlement: 50 calls fired, the program returns at once', async () => {
    let bodies = 0;
    const s = setup({
      register: (tools) =>
        tools.register(
          defineTool({
            name: 'write_note',
            description: 'Exclusive.',
            inputSchema: {},
            async execute() {
              bodies++;
              await new Promise<void>((resolve) => setImmediate(resolve));
              return null;
            },
          }),
        ),
    });
    const events: string[] = [];
    s.root.on('tool/ptc-dispatch-start', (e) => void events.push(`start ${e.id}`));
    s.root.on('tool/ptc-dispatch', (e) => void events.push(`settle ${e.id}`));
    s.root.on('tools/result', (e) => void events.push(`result ${e.call.id}`));
    const result = await s.run(`for (let i = 0; i < 50; i++) void tools.write_note({}); return 'fired';`, { id: 'burst' });
    expect(result.value).toEqual({ logs: [], result: 'fired' });
    const bodiesAtSettle = bodies;
    const eventsAtSettle = events.length;
    // Another complete program run: the event loop has certainly turned many times since.
    await s.run('return 1;', { id: 'after' });
    expect(bodies).toBe(bodiesAtSettle);
    expect(events.slice(eventsAtSettle).every((e) => e.endsWith('after'))).toBe(true);
    // Every start that was emitted is closed by a settle before run_code's own result.
    const burst = events.slice(0, eventsAtSettle);
    const started = burst.filter((e) => e.startsWith('start')).map((e) => e.slice(6));
    const settled = burst.filter((e) => e.startsWith('settle')).map((e) => e.slice(7));
    expect(settled.sort()).toEqual(started.sort());
    expect(burst.at(-1)).toBe('result burst');
  });

  it('deferred contexts come back in dispatch order, also when the program throws', async () => {
    const s = setup({
      register: (tools) =>
        tools.register(
          defineTool<{ tag: string }, string>({
            name: 'note',
            description: 'Defers a context.',
            inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
            isConcurrencySafe: true,
            execute: ({ tag }, exec) => {
              exec.deferContext({ source: 'note', text: tag });
              return tag;
            },
          }),
        ),
    });
    const ok = await s.run(`await tools.note({ tag: 'a' }); await Promise.all([tools.note({ tag: 'b' }), tools.note({ tag: 'c' })]);`);
    expect(ok.deferredContexts?.map((c) => c.text)).toEqual(['a', 'b', 'c']);
    const failed = await s.run(`await tools.note({ tag: 'x' }); await tools.note({ tag: 'y' }); throw new Error('late failure');`);
    expect(failed.error?.code).toBe('EXCEPTION');
    expect(failed.deferredContexts?.map((c) => c.text)).toEqual(['x', 'y']);

    s.root.on('tools/post-execute', (call) => (call.name === 'run_code' ? { block: 'policy' } : undefined));
    const blocked = await s.run(`await tools.note({ tag: 'z' });`);
    expect(blocked.error?.code).toBe('PERMISSION_DENIED');
    expect(blocked.deferredContexts).toBeUndefined();
  });

  it('a call of a tool the SDK lacks says which tool was meant', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    const typo = await s.run(`return await tools.ecoh({ x: 1 });`);
    expect(typo.error?.code).toBe('EXCEPTION');
    expect(typo.error?.message).toContain('tools.ecoh is not a function');
    expect(typo.error?.message).toContain('no tool is named "ecoh". Did you mean "echo"?');
    const far = await s.run(`return await tools["zzzzzz"]({});`);
    expect(far.error?.code).toBe('EXCEPTION');
    expect(far.error?.message).toContain('no tool is named "zzzzzz". The SDK lists the tools.');
    const sdkTypo = await s.run(`return await sdk.serach("echo");`);
    expect(sdkTypo.error?.message).toContain('Did you mean "search"?');
  });

  it('a failing program is a structured error with its code, the model line:column and the logs', async () => {
    const s = setup();
    const result = await s.run(`console.log('before');\nconst x: number = 1;\nthrow new Error('boom at three');`);
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('EXCEPTION');
    expect(result.error?.message).toContain('boom at three');
    expect(result.error?.message).toContain('3:');
    expect(result.content).toContain('before');
  });

  it('pre-execute sees the program text and can block it before it runs', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    s.root.on('tools/pre-execute', (call) =>
      call.name === 'run_code' && String((call.args as { code: string }).code).includes('forbidden') ? { block: 'no' } : undefined,
    );
    const result = await s.run(`await tools.echo({ x: 'forbidden' });`);
    expect(result.error?.code).toBe('PERMISSION_DENIED');
    expect(s.starts).toEqual([]);
  });

  it('outer abort stops the program and its running sub-calls', async () => {
    const controller = new AbortController();
    let aborted = false;
    const s = setup({
      register: (tools) =>
        tools.register(
          defineTool({
            name: 'hang',
            description: 'Waits until aborted.',
            inputSchema: {},
            execute: (_a, exec) =>
              new Promise<null>((_resolve, reject) => {
                exec.signal.addEventListener('abort', () => {
                  aborted = true;
                  reject(new Error('stopped'));
                });
                controller.abort();
              }),
          }),
        ),
    });
    const result = await s.run(`await tools.hang({}); return 'unreachable';`, { signal: controller.signal });
    expect(result.error?.code).toBe('ABORTED');
    expect(aborted).toBe(true);
  });
});

describe('a hostile program against grep', () => {
  it('a catastrophic pattern ends as TIMEOUT at grep\'s limit while the program\'s other calls and the host keep running', async () => {
    fs.writeFileSync(path.join(workspace, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    fs.writeFileSync(path.join(workspace, 'ok.txt'), 'fine\n');
    const policy = resolveWorkspacePolicy({ cwd: workspace });
    const s = setup({
      register: (tools) => {
        tools.register(createGrepTool({ policy, timeoutMs: 1_500 }));
        tools.register(createReadTool({ policy }));
      },
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const result = await s.run(`
        const evil = tools.grep({ pattern: '(a+)+$', path: 'evil.txt' }).then(() => 'matched', (e) => e.code);
        const reads = [];
        for (let i = 0; i < 5; i++) reads.push((await tools.read({ path: 'ok.txt' })).content);
        return { evil: await evil, reads };
      `);
      expect(result.error).toBeUndefined();
      expect(result.value).toEqual({ logs: [], result: { evil: 'TIMEOUT', reads: ['fine', 'fine', 'fine', 'fine', 'fine'] } });
      expect(ticks).toBeGreaterThan(10);
    } finally {
      clearInterval(ticker);
    }
  });
});

describe('prompt sections', () => {
  it('render only in ptc scopes, byte-stable, and are pinned', async () => {
    const s = setup({ register: (tools) => tools.register(echo) });
    const sdk = renderSdkSection(s.root.tools);
    expect(renderSdkSection(s.root.tools)).toBe(sdk);
    await expect(`${sdk}\n\n${renderPtcOnlySection(s.root.tools)}\n`).toMatchFileSnapshot('../snapshots/ptc-sections.echo.md');
    let nativeScope: Context | undefined;
    s.root.plugin({ name: 'native', inject: ['tools'], apply: (ctx) => void ((nativeScope = ctx), ctx.tools.presentAs('native')) });
    expect(renderSdkSection(s.root.tools, nativeScope)).toBe('');
    expect(renderPtcOnlySection(s.root.tools, nativeScope)).toBe('');
  });
});
