import { beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Context } from '../context/context.js';
import type { JsonValue } from '../json.js';
import { ToolRuntime, type ToolCall, type ToolResultEvent } from './tool-runtime.js';
import { defineTool, type ToolCallRef } from './types.js';

const echo = defineTool<{ text: string }, { echoed: string }>({
  name: 'echo',
  description: 'Echo the text back.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
  isConcurrencySafe: true,
  execute: ({ text }) => ({ echoed: text }),
});

const plain = defineTool<Record<string, never>, string>({
  name: 'plain',
  description: 'Returns a string.',
  inputSchema: { type: 'object' },
  execute: () => 'just text',
});

function setup(): { root: Context; tools: ToolRuntime; results: ToolResultEvent[] } {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  const results: ToolResultEvent[] = [];
  root.on('tools/result', (event) => void results.push(event));
  return { root, tools: root.tools, results };
}

describe('registration and visibility', () => {
  it('lists visible tools sorted by name, with their schemas', () => {
    const { tools } = setup();
    tools.register(plain);
    tools.register(echo);
    expect(tools.schemas().map((t) => t.name)).toEqual(['echo', 'plain']);
    expect(tools.schemas()[0]).toEqual({
      name: 'echo',
      description: echo.description,
      inputSchema: echo.inputSchema,
      outputSchema: echo.outputSchema,
    });
  });

  it('rejects duplicate names and the reserved run_code with CONFIG', () => {
    const { tools } = setup();
    tools.register(echo);
    expect(() => tools.register(echo)).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => tools.register({ ...plain, name: 'run_code' })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it('rejects an input schema ajv cannot compile with CONFIG', () => {
    const { tools } = setup();
    expect(() => tools.register({ ...plain, name: 'bad', inputSchema: { type: 'no-such-type' } })).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
  });

  it('removes a tool when the registering plugin is disposed', async () => {
    const { root, tools } = setup();
    const handle = root.plugin({ name: 'echo-plugin', inject: ['tools'], apply: (ctx) => void ctx.tools.register(echo) });
    expect(tools.schemas().map((t) => t.name)).toEqual(['echo']);
    await handle.dispose();
    expect(tools.schemas()).toEqual([]);
    expect((await tools.execute('echo', { text: 'x' })).error?.code).toBe('UNKNOWN_TOOL');
  });

  it('restrict applies to the restricting scope and below, and goes away with it', async () => {
    const { root, tools } = setup();
    tools.register(echo);
    tools.register(plain);
    let agent: Context | undefined;
    let child: Context | undefined;
    const handle = root.plugin({
      name: 'agent',
      inject: ['tools'],
      apply(ctx) {
        agent = ctx;
        ctx.tools.restrict(['plain']);
        ctx.plugin({ name: 'child', apply: (c) => void (child = c) });
      },
    });
    expect(tools.schemas(agent).map((t) => t.name)).toEqual(['plain']);
    expect(tools.schemas(child).map((t) => t.name)).toEqual(['plain']);
    expect(tools.schemas().map((t) => t.name)).toEqual(['echo', 'plain']);
    const hidden = await tools.execute('echo', { text: 'x' }, { scope: agent });
    expect(hidden.error?.code).toBe('UNKNOWN_TOOL');
    expect(hidden.error?.message).toContain('"plain"');
    await handle.dispose();
    expect(tools.schemas(agent).map((t) => t.name)).toEqual(['echo', 'plain']);
  });

  it('layers narrow monotonically: a predicate and an allowlist both apply', () => {
    const { root, tools } = setup();
    tools.register(echo);
    tools.register(plain);
    let scope: Context | undefined;
    root.plugin({
      name: 'narrow',
      inject: ['tools'],
      apply(ctx) {
        scope = ctx;
        ctx.tools.restrict(['echo', 'plain']);
        ctx.tools.restrict((t) => t.name !== 'echo');
      },
    });
    expect(tools.schemas(scope).map((t) => t.name)).toEqual(['plain']);
  });

  it('executionMode is parallel only for a visible concurrency-safe tool', () => {
    const { tools } = setup();
    tools.register(echo);
    tools.register(plain);
    expect(tools.executionMode('echo')).toBe('parallel');
    expect(tools.executionMode('plain')).toBe('exclusive');
    expect(tools.executionMode('nope')).toBe('exclusive');
  });
});

describe('the execution pipeline', () => {
  let env: ReturnType<typeof setup>;
  beforeEach(() => {
    env = setup();
    env.tools.register(echo);
    env.tools.register(plain);
  });

  it('runs the hooks in order and reports an immutable result', async () => {
    const order: string[] = [];
    const { root, tools, results } = env;
    root.on('tools/pre-execute', (call) => void order.push(`pre:${call.name}`));
    tools.guard((call) => void order.push(`guard:${call.name}`));
    root.on('tools/execute', async (call, next) => {
      order.push('around:before');
      const value = await next();
      order.push('around:after');
      return value;
    });
    root.on('tools/post-execute', (_call, result) => void order.push(`post:${result.content.length}`));
    root.on('tools/result', () => void order.push('result'));

    const result = await tools.execute('echo', { text: 'hi' }, { id: 'c1' });
    expect(result).toEqual({ value: { echoed: 'hi' }, content: '{\n  "echoed": "hi"\n}', isError: false });
    expect(order).toEqual(['pre:echo', 'guard:echo', 'around:before', 'around:after', 'post:20', 'result']);
    expect(results).toHaveLength(1);
    expect(results[0]!.call.id).toBe('c1');
    expect(Object.isFrozen(results[0]!.result)).toBe(true);
    expect(Object.isFrozen(results[0]!.result.value)).toBe(true);
    expect(Object.isFrozen(results[0]!.call.args)).toBe(true);
  });

  it('hands hooks a deep frozen copy of the arguments and keeps the tool\'s value its own', async () => {
    const kept: JsonValue[] = [];
    const returned = { nested: { list: [1, { deep: true }] } };
    env.tools.register(
      defineTool<{ nested: JsonValue }, JsonValue>({
        name: 'keep',
        description: 'Keeps its arguments.',
        inputSchema: { type: 'object' },
        execute: (args) => {
          kept.push(args as unknown as JsonValue);
          return returned;
        },
      }),
    );
    const args = JSON.parse('{"nested":{"list":[1,{"deep":true}]},"__proto__":{"polluted":true}}') as JsonValue;
    const result = await env.tools.execute('keep', args);
    const seen = env.results[0]!.call.args as { nested: { list: [number, { deep: boolean }] } };
    expect(seen).toEqual(args);
    expect(seen).not.toBe(args);
    expect(Object.isFrozen(seen.nested.list[1])).toBe(true);
    expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(seen, '__proto__')).toBe(true);
    expect((seen as { polluted?: unknown }).polluted).toBeUndefined();
    expect(kept[0]).toEqual(args);
    expect(result.value).toEqual(returned);
    expect(result.value).not.toBe(returned);
    expect(Object.isFrozen(returned.nested)).toBe(false);
    expect(Object.isFrozen((result.value as typeof returned).nested.list)).toBe(true);
  });

  it('renders strings raw', async () => {
    expect(await env.tools.execute('plain', {})).toEqual({ value: 'just text', content: 'just text', isError: false });
  });

  it('UNKNOWN_TOOL suggests nothing for a name far from every tool', async () => {
    const result = await env.tools.execute('zzzzzz', {});
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.error?.message).not.toContain('Did you mean');
  });

  it('UNKNOWN_TOOL names the available tools; no hook sees the call', async () => {
    let preCalls = 0;
    env.root.on('tools/pre-execute', () => void preCalls++);
    const result = await env.tools.execute('ehco', { text: 'x' });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.error?.message).toContain('"echo", "plain"');
    expect(result.error?.message).toContain('Unknown tool "ehco". Did you mean "echo"?');
    expect(preCalls).toBe(0);
    expect(env.results[0]!.result.error?.code).toBe('UNKNOWN_TOOL');
  });

  it('INVALID_ARGS lists path: message and says how to fix the call', async () => {
    let ran = false;
    env.root.on('tools/pre-execute', () => void (ran = true));
    const result = await env.tools.execute('echo', { text: 5, extra: true });
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('/text: must be string');
    expect(result.error?.message).toContain('unknown property "extra"');
    expect(result.error?.message).toMatch(/Fix these arguments/);
    expect(ran).toBe(false);
    const missing = await env.tools.execute('echo', {});
    expect(missing.error?.message).toContain('/text: is required but missing');
  });

  it.each([
    ['undefined inside', { text: undefined }],
    ['a non-finite number', { text: 'x', n: Number.NaN }],
    ['a function', { text: 'x', f: () => 1 }],
    ['a cycle', (() => { const o: Record<string, unknown> = { text: 'x' }; o.self = o; return o; })()],
  ])('INVALID_ARGS for non-JSON arguments: %s', async (_label, args) => {
    const result = await env.tools.execute('echo', args);
    expect(result.error?.code).toBe('INVALID_ARGS');
  });

  it('a pre-execute listener can read the arguments and block with a reason', async () => {
    let seen: JsonValue | undefined;
    env.root.on('tools/pre-execute', (call) => {
      seen = call.args;
      return { block: 'not today' };
    });
    const result = await env.tools.execute('echo', { text: 'secret' });
    expect(seen).toEqual({ text: 'secret' });
    expect(result.error).toEqual({ code: 'PERMISSION_DENIED', message: 'The call to "echo" was blocked: not today' });
  });

  it('a guard can deny; later guards and the body do not run', async () => {
    let later = false;
    let bodyRan = false;
    env.root.on('tools/execute', async (_c, next) => {
      bodyRan = true;
      return next();
    });
    env.tools.guard(() => 'outside the policy');
    env.tools.guard(() => void (later = true));
    const result = await env.tools.execute('echo', { text: 'x' });
    expect(result.error?.code).toBe('PERMISSION_DENIED');
    expect(result.error?.message).toContain('outside the policy');
    expect(later).toBe(false);
    expect(bodyRan).toBe(false);
  });

  it('a guard answering through a thenable is awaited, and one throwing at once fails the call closed', async () => {
    // A thenable that is not a Promise: its denial arrives only once it is awaited.
    const later: PromiseLike<string> = { then: (resolve) => Promise.resolve('decided later').then(resolve) };
    const stop = env.tools.guard(() => later as unknown as Promise<string>);
    const denied = await env.tools.execute('echo', { text: 'x' });
    expect(denied.error).toEqual({ code: 'PERMISSION_DENIED', message: 'The call to "echo" was denied: decided later' });
    stop();
    env.tools.guard(() => {
      throw new Error('policy store offline');
    });
    const failed = await env.tools.execute('echo', { text: 'x' });
    expect(failed.error).toEqual({ code: 'TOOL_FAILED', message: 'A guard hook failed: policy store offline' });
  });

  it('a post-execute listener throwing at once fails the call closed; with none the value comes through', async () => {
    const ok = await env.tools.execute('echo', { text: 'x' });
    expect(ok.value).toEqual({ echoed: 'x' });
    env.root.on('tools/post-execute', () => {
      throw new Error('audit sink full');
    });
    const failed = await env.tools.execute('echo', { text: 'x' });
    expect(failed.error).toEqual({ code: 'TOOL_FAILED', message: 'A tools/post-execute hook failed: audit sink full' });
  });

  it('a guard registered by a plugin applies only to calls in its scope', async () => {
    let scope: Context | undefined;
    env.root.plugin({
      name: 'strict-agent',
      inject: ['tools'],
      apply(ctx) {
        scope = ctx;
        ctx.tools.guard(() => 'no');
      },
    });
    expect((await env.tools.execute('echo', { text: 'x' })).isError).toBe(false);
    expect((await env.tools.execute('echo', { text: 'x' }, { scope })).error?.code).toBe('PERMISSION_DENIED');
  });

  it('tools/execute middleware can replace the value the body produced', async () => {
    env.root.on('tools/execute', async (call, next) => {
      const value = await next();
      return call.name === 'echo' ? { echoed: `wrapped ${JSON.stringify(value)}` } : value;
    });
    const result = await env.tools.execute('echo', { text: 'a' });
    expect(result.value).toEqual({ echoed: 'wrapped {"echoed":"a"}' });
  });

  it('post-execute can replace the content or block the result (dropping deferred contexts)', async () => {
    const deferring = defineTool<Record<string, never>, string>({
      name: 'deferring',
      description: 'Defers a context.',
      inputSchema: { type: 'object' },
      execute: (_a, exec) => {
        exec.deferContext({ source: 'test', text: 'remember this' });
        return 'ok';
      },
    });
    env.tools.register(deferring);
    expect(await env.tools.execute('deferring', {})).toEqual({
      value: 'ok',
      content: 'ok',
      isError: false,
      deferredContexts: [{ source: 'test', text: 'remember this' }],
    });

    const off = env.root.on('tools/post-execute', (call) => (call.name === 'plain' ? { content: 'replaced' } : undefined));
    expect((await env.tools.execute('plain', {})).content).toBe('replaced');
    await off();

    env.root.on('tools/post-execute', () => ({ block: 'leaks secrets' }));
    const blocked = await env.tools.execute('deferring', {});
    expect(blocked.error?.code).toBe('PERMISSION_DENIED');
    expect(blocked.deferredContexts).toBeUndefined();
    expect(blocked.value).toBeUndefined();
  });

  it('finalizeContent has the last word, after post-execute', async () => {
    env.tools.register(
      defineTool<Record<string, never>, string>({
        name: 'final',
        description: 'Finalizes.',
        inputSchema: { type: 'object' },
        execute: () => 'body',
        finalizeContent: (result) => `${result.content} [final]`,
      }),
    );
    env.root.on('tools/post-execute', () => ({ content: 'post' }));
    expect((await env.tools.execute('final', {})).content).toBe('post [final]');
  });

  it('a throwing tool gives TOOL_FAILED with its message; a HarnessError keeps its code', async () => {
    const { PermissionDeniedError } = await import('../errors.js');
    env.tools.register(
      defineTool<{ how: string }, string>({
        name: 'thrower',
        description: 'Throws.',
        inputSchema: { type: 'object', properties: { how: { type: 'string' } }, required: ['how'] },
        execute: ({ how }) => {
          if (how === 'denied') throw new PermissionDeniedError('outside the workspace');
          throw new Error('disk on fire');
        },
      }),
    );
    expect((await env.tools.execute('thrower', { how: 'plain' })).error).toEqual({ code: 'TOOL_FAILED', message: 'disk on fire' });
    expect((await env.tools.execute('thrower', { how: 'denied' })).error?.code).toBe('PERMISSION_DENIED');
  });

  it('a value that breaks the output schema or is not JSON gives TOOL_FAILED', async () => {
    env.tools.register(
      defineTool({
        name: 'liar',
        description: 'Returns the wrong shape.',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', required: ['n'] },
        execute: () => ({ m: 1 }),
      }),
    );
    env.tools.register(
      defineTool({
        name: 'nonjson',
        description: 'Returns a Map.',
        inputSchema: { type: 'object' },
        execute: () => new Map() as unknown as JsonValue,
      }),
    );
    expect((await env.tools.execute('liar', {})).error?.code).toBe('TOOL_FAILED');
    expect((await env.tools.execute('nonjson', {})).error?.code).toBe('TOOL_FAILED');
  });

  it('a throwing hook fails the call closed instead of escaping', async () => {
    env.root.on('tools/pre-execute', () => {
      throw new Error('hook bug');
    });
    const result = await env.tools.execute('echo', { text: 'x' });
    expect(result.error?.code).toBe('TOOL_FAILED');
    expect(result.error?.message).toContain('hook bug');
  });

  it('ABORTED before dispatch: an already-aborted signal runs nothing', async () => {
    let preCalls = 0;
    env.root.on('tools/pre-execute', () => void preCalls++);
    const result = await env.tools.execute('echo', { text: 'x' }, { signal: AbortSignal.abort() });
    expect(result.error?.code).toBe('ABORTED');
    expect(preCalls).toBe(0);
  });

  it('ABORTED when the signal fires while the body runs', async () => {
    const controller = new AbortController();
    env.tools.register(
      defineTool<Record<string, never>, string>({
        name: 'waiter',
        description: 'Waits for abort.',
        inputSchema: { type: 'object' },
        execute: (_a, exec) =>
          new Promise<string>((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')));
            controller.abort();
          }),
      }),
    );
    const result = await env.tools.execute('waiter', {}, { signal: controller.signal });
    expect(result.error?.code).toBe('ABORTED');
  });

  it('carries the parent token to every hook and to the tool body', async () => {
    const parent: ToolCallRef = { id: 'outer_1', name: 'run_code' };
    const seen: (ToolCallRef | undefined)[] = [];
    const record = (call: ToolCall) => void seen.push(call.parent);
    env.root.on('tools/pre-execute', record);
    env.tools.guard(record);
    env.root.on('tools/execute', async (call, next) => {
      record(call);
      return next();
    });
    env.root.on('tools/post-execute', record);
    env.root.on('tools/result', (e) => record(e.call));
    env.tools.register(
      defineTool<Record<string, never>, string>({
        name: 'nested',
        description: 'Reports its parent.',
        inputSchema: { type: 'object' },
        execute: (_a, exec) => `${exec.parent?.id}/${exec.callId}`,
      }),
    );
    const result = await env.tools.execute('nested', {}, { parent, id: 'outer_1:ptc:1' });
    expect(result.value).toBe('outer_1/outer_1:ptc:1');
    expect(seen).toEqual([parent, parent, parent, parent, parent]);
  });

  it('the tool body cannot mutate the caller arguments or observers\' view', async () => {
    env.tools.register(
      defineTool<{ list: number[] }, number>({
        name: 'mutator',
        description: 'Tries to mutate its args.',
        inputSchema: { type: 'object', properties: { list: { type: 'array' } } },
        execute: (args) => {
          args.list.push(4);
          return args.list.length;
        },
      }),
    );
    const mine = { list: [1, 2, 3] };
    const result = await env.tools.execute('mutator', mine);
    expect(result.error?.code).toBe('TOOL_FAILED');
    expect(mine.list).toEqual([1, 2, 3]);
  });
});
