import { describe, expect, it } from 'vitest';
import { createContext, type Context } from '../context/context.js';
import { ToolRuntime } from './tool-runtime.js';
import { defineTool, type AnyToolDefinition } from './types.js';

const read = defineTool<{ path: string }, string>({
  name: 'read',
  description: 'Read a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  isConcurrencySafe: true,
  execute: ({ path }) => `contents of ${path}`,
});

/** A stand-in transport: the registry only needs a definition named run_code. */
const transport: AnyToolDefinition = defineTool<{ code: string; description: string }, string>({
  name: 'run_code',
  description: 'Run a program. Arguments: code, description.',
  inputSchema: {
    type: 'object',
    properties: { code: { type: 'string' }, description: { type: 'string' } },
    required: ['code', 'description'],
  },
  execute: ({ code }) => `ran ${code.length} chars`,
});

function setup(mode: 'native' | 'ptc') {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode }));
  root.tools.register(read);
  return { root, tools: root.tools };
}

describe('presentation mode', () => {
  it('native scopes send their visible tools; run_code is unknown there', async () => {
    const { tools } = setup('native');
    tools.provideTransport(transport);
    expect(tools.wireTools().map((t) => t.name)).toEqual(['read']);
    expect((await tools.execute('run_code', { code: 'x', description: 'd' })).error?.code).toBe('UNKNOWN_TOOL');
    expect((await tools.execute('read', { path: 'a' })).value).toBe('contents of a');
  });

  it('ptc scopes send only run_code; schemas() still lists the capabilities', () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    expect(tools.wireTools().map((t) => t.name)).toEqual(['run_code']);
    expect(tools.schemas().map((t) => t.name)).toEqual(['read']);
  });

  it('ptc without a transport fails wire assembly with RUNTIME_UNAVAILABLE; native needs none', () => {
    expect(() => setup('ptc').tools.wireTools()).toThrow(expect.objectContaining({ code: 'RUNTIME_UNAVAILABLE' }));
    expect(setup('native').tools.wireTools().map((t) => t.name)).toEqual(['read']);
  });

  it('rejects an invalid mode with CONFIG', () => {
    const root = createContext();
    expect(() => new ToolRuntime(root, { mode: 'both' as never })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it('presentAs declares the mode of a scope and below; nearest wins; it goes away with the plugin', async () => {
    const { root, tools } = setup('native');
    tools.provideTransport(transport);
    let agent: Context | undefined;
    let inner: Context | undefined;
    const handle = root.plugin({
      name: 'ptc-agent',
      inject: ['tools'],
      apply(ctx) {
        agent = ctx;
        ctx.tools.presentAs('ptc');
        ctx.plugin({ name: 'native-sub', inject: ['tools'], apply: (c) => void ((inner = c), c.tools.presentAs('native')) });
      },
    });
    expect(tools.modeFor(agent)).toBe('ptc');
    expect(tools.modeFor(inner)).toBe('native');
    expect(tools.modeFor()).toBe('native');
    expect(tools.wireTools(agent).map((t) => t.name)).toEqual(['run_code']);
    await handle.dispose();
    expect(tools.modeFor(agent)).toBe('native');
  });

  it('the transport is outside restriction layers', () => {
    const { root, tools } = setup('ptc');
    tools.provideTransport(transport);
    let scope: Context | undefined;
    root.plugin({ name: 'narrow', inject: ['tools'], apply: (ctx) => void ((scope = ctx), ctx.tools.restrict([])) });
    expect(tools.schemas(scope)).toEqual([]);
    expect(tools.wireTools(scope).map((t) => t.name)).toEqual(['run_code']);
  });

  it('refuses a second transport and one with another name', () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    expect(() => tools.provideTransport(transport)).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => setup('ptc').tools.provideTransport({ ...transport, name: 'exec' })).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
  });
});

describe('executor collapse (docs/ptc-mode.md)', () => {
  it('a direct call of a native name in a ptc scope is UNKNOWN_TOOL pointing to run_code, before any hook', async () => {
    const { root, tools } = setup('ptc');
    tools.provideTransport(transport);
    const seen: string[] = [];
    root.on('tools/pre-execute', (call) => void seen.push(`pre ${call.name}`));
    tools.guard((call) => void seen.push(`guard ${call.name}`));
    const result = await tools.execute('read', { path: 'a' });
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.error?.message).toContain('run_code');
    expect(result.error?.message).toContain('tools["read"]');
    expect(seen).toEqual([]);
  });

  it('nested calls (with a parent) reach every visible tool, never run_code itself', async () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    const parent = { id: 'call_9', name: 'run_code' };
    expect((await tools.execute('read', { path: 'b' }, { parent })).value).toBe('contents of b');
    expect((await tools.execute('run_code', { code: 'x', description: 'd' }, { parent })).error?.code).toBe('UNKNOWN_TOOL');
  });

  it('run_code itself traverses the full pipeline: pre-execute can read and block the program', async () => {
    const { root, tools } = setup('ptc');
    tools.provideTransport(transport);
    root.on('tools/pre-execute', (call) =>
      call.name === 'run_code' && JSON.stringify(call.args).includes('rm -rf') ? { block: 'destructive program' } : undefined,
    );
    expect((await tools.execute('run_code', { code: 'return 1', description: 'ok' })).value).toBe('ran 8 chars');
    const blocked = await tools.execute('run_code', { code: 'tools.bash({command:"rm -rf /"})', description: 'no' });
    expect(blocked.error?.code).toBe('PERMISSION_DENIED');
  });

  it('run_code without description is INVALID_ARGS naming the missing argument', async () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    const result = await tools.execute('run_code', { code: 'return 1' });
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('/description');
  });

  it('a collapsed call with non-JSON arguments reports INVALID_ARGS', async () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    expect((await tools.execute('read', { path: Number.POSITIVE_INFINITY })).error?.code).toBe('INVALID_ARGS');
  });

  it('executionMode fails closed for collapsed names and follows the tool for nested calls', () => {
    const { tools } = setup('ptc');
    tools.provideTransport(transport);
    expect(tools.executionMode('read')).toBe('exclusive');
    expect(tools.executionMode('read', { parent: { id: 'p', name: 'run_code' } })).toBe('parallel');
    expect(tools.executionMode('run_code')).toBe('exclusive');
  });
});
