import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createContext } from '../context/context.js';
import { defineTool } from './define-tool.js';
import { ToolRuntime } from './tool-runtime.js';

function registry(): ToolRuntime {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  return root.tools;
}

const greet = defineTool({
  name: 'greet',
  description: 'Greets someone.',
  input: z.object({
    name: z.string().min(1).describe('Who to greet.'),
    greeting: z.string().default('Hello'),
    times: z.number().int().min(1).max(3).default(1),
  }),
  output: z.object({ text: z.string(), times: z.number() }),
  examples: [{ name: 'Ada' }],
  execute: (args) => ({ text: `${args.greeting}, ${args.name}!`, times: args.times }),
});

describe('defineTool with zod schemas', () => {
  it('sends the input side as JSON Schema: a defaulted field is optional, no $schema', () => {
    expect(greet.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'Who to greet.' },
        greeting: { type: 'string', default: 'Hello' },
      },
      required: ['name'],
    });
    expect(greet.inputSchema).not.toHaveProperty('$schema');
    expect(greet.outputSchema).toMatchObject({ type: 'object', required: ['text', 'times'], additionalProperties: false });
    expect(Object.isFrozen(greet)).toBe(true);
  });

  it('applies defaults before the body runs', async () => {
    const tools = registry();
    tools.register(greet);
    expect(await tools.execute('greet', { name: 'Ada' })).toMatchObject({
      value: { text: 'Hello, Ada!', times: 1 },
      isError: false,
    });
    expect((await tools.execute('greet', { name: 'Bo', greeting: 'Hi', times: 2 })).value).toEqual({ text: 'Hi, Bo!', times: 2 });
  });

  it('validates with ajv first, then with zod; both fail as INVALID_ARGS with path: message', async () => {
    const tools = registry();
    const seen: unknown[] = [];
    tools.register(
      defineTool({
        name: 'even',
        description: 'Takes an even number.',
        input: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }),
        execute: (args) => {
          seen.push(args.n);
          return null;
        },
      }),
    );
    const wrongType = await tools.execute('even', { n: 'two' });
    expect(wrongType.error?.code).toBe('INVALID_ARGS');
    expect(wrongType.error?.message).toContain('/n: must be number');
    // The refinement has no JSON Schema form: ajv accepts, zod refuses.
    const odd = await tools.execute('even', { n: 3 });
    expect(odd.error?.code).toBe('INVALID_ARGS');
    expect(odd.error?.message).toContain('/n: must be even');
    expect(odd.error?.message).toMatch(/Fix these arguments/);
    expect(seen).toEqual([]);
    expect((await tools.execute('even', { n: 4 })).isError).toBe(false);
    expect(seen).toEqual([4]);
  });

  it('hands the body parsed arguments (transforms and stripped keys) while hooks see what was sent', async () => {
    const root = createContext();
    root.provide('tools', new ToolRuntime(root));
    const sent: unknown[] = [];
    root.on('tools/pre-execute', (call) => void sent.push(call.args));
    root.tools.register(
      defineTool({
        name: 'shout',
        description: 'Upper-cases its text.',
        input: z.object({ text: z.string().transform((t) => t.toUpperCase()) }),
        execute: (args) => args,
      }),
    );
    const result = await root.tools.execute('shout', { text: 'hey', extra: 1 });
    expect(result.value).toEqual({ text: 'HEY' });
    expect(sent).toEqual([{ text: 'hey', extra: 1 }]);
  });

  it('checks the value with the output schema: a mismatch is TOOL_FAILED', async () => {
    const tools = registry();
    tools.register(
      defineTool({
        name: 'liar',
        description: 'Returns the wrong shape.',
        input: z.object({}),
        output: z.object({ count: z.number() }),
        // A body that escapes the static check, as JavaScript plugins can.
        execute: () => ({ count: 'many' }) as unknown as { count: number },
      }),
    );
    const result = await tools.execute('liar', {});
    expect(result.error?.code).toBe('TOOL_FAILED');
    expect(result.error?.message).toContain('breaks its output schema');
    expect(result.error?.message).toContain('/count');
  });

  it('keeps the value as the output schema parses it (extra keys are stripped, as zod does)', async () => {
    const tools = registry();
    tools.register(
      defineTool({
        name: 'wide',
        description: 'Returns more than it declares.',
        input: z.object({}),
        output: z.object({ kept: z.string() }),
        execute: () => ({ kept: 'yes', ...{ dropped: 1 } }),
      }),
    );
    expect((await tools.execute('wide', {})).value).toEqual({ kept: 'yes' });
  });

  it('refuses what JSON Schema cannot carry, and malformed definitions, with CONFIG', () => {
    const base = { name: 'bad', description: 'x', execute: () => null };
    expect(() => defineTool({ ...base, input: z.object({ when: z.date() }) })).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('cannot be expressed as JSON Schema') }),
    );
    expect(() => defineTool({ ...base, input: { type: 'object' } } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('input must be a zod schema') }),
    );
    expect(() => defineTool({ ...base, input: z.object({}), outputSchema: { type: 'string' } } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
    expect(() => defineTool({ ...base } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('inputSchema') }),
    );
  });

  it('registering a zod definition that skipped defineTool is CONFIG saying so', () => {
    const raw = { name: 'raw', description: 'x', input: z.object({}), execute: () => null };
    expect(() => registry().register(raw as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('defineTool') }),
    );
  });

  it('leaves JSON Schema definitions as they were', async () => {
    const tools = registry();
    const tool = defineTool({
      name: 'json',
      description: 'Plain JSON Schema.',
      inputSchema: { type: 'object', properties: { a: { type: 'number', default: 1 } } },
      execute: (args) => args,
    });
    expect(tool).not.toHaveProperty('input');
    tools.register(tool);
    // No parsing schema: a JSON Schema default is documentation, the body gets what was sent.
    expect((await tools.execute('json', {})).value).toEqual({});
    expect(defineTool(greet)).toEqual(greet);
  });
});

describe('examples', () => {
  it('an example the input schema rejects is CONFIG at registration', () => {
    const tools = registry();
    const bad = defineTool({
      name: 'bad_example',
      description: 'x',
      input: z.object({ n: z.number() }),
      examples: [{ n: 1 }, { n: 'one' as unknown as number }],
      execute: () => null,
    });
    expect(() => tools.register(bad)).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(/examples\[1\][\s\S]*\/n: must be number/) }),
    );
    expect(tools.schemas()).toEqual([]);
  });

  it('an example only the zod refinement rejects is CONFIG too', () => {
    const tools = registry();
    const bad = defineTool({
      name: 'even_example',
      description: 'x',
      input: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }),
      examples: [{ n: 3 }],
      execute: () => null,
    });
    expect(() => tools.register(bad)).toThrow(expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('must be even') }));
  });

  it('a JSON Schema tool checks its examples the same way', () => {
    const tools = registry();
    const tool = defineTool<{ path: string }>({
      name: 'open',
      description: 'x',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      examples: [{ path: 'a.txt' }],
      execute: () => null,
    });
    tools.register(tool);
    expect(() => tools.register({ ...tool, name: 'open2', examples: [{}] })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => tools.register({ ...tool, name: 'open3', examples: 'a.txt' as never })).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });
});

describe('the package root', () => {
  it('exports defineTool with the zod it reads, so a plugin needs one import', async () => {
    const root = await import('../index.js');
    const tool = root.defineTool({
      name: 'from_root',
      description: 'x',
      input: root.z.object({ n: root.z.number().default(2) }),
      execute: (args) => args.n * 2,
    });
    const tools = registry();
    tools.register(tool);
    expect((await tools.execute('from_root', {})).value).toBe(4);
    const toolsEntry = await import('../exports/tools.js');
    expect(toolsEntry.schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }, 'x')).toBe('draft-07');
  });
});
