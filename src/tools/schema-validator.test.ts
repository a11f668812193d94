import { describe, expect, it } from 'vitest';
import { compileTs } from '../../test/helpers/compile-ts.js';
import { renderTypeScriptSdk } from '../languages/index.js';
import { createContext } from '../context/context.js';
import { compileSchema, schemaDialect } from './schema-validator.js';
import { ToolRuntime } from './tool-runtime.js';
import { defineTool } from './types.js';

/** The shape MCP servers send: draft-07 with `definitions`, a `$ref` to them and an `items` tuple. */
const DRAFT_07 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  definitions: {
    unit: { type: 'string', enum: ['metric', 'imperial'] },
  },
  properties: {
    city: { type: 'string', description: 'City name.' },
    units: { $ref: '#/definitions/unit' },
    at: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false, minItems: 2 },
  },
  required: ['city'],
  additionalProperties: false,
};

const weather = defineTool({
  name: 'weather',
  description: 'Weather for a city.',
  inputSchema: DRAFT_07,
  execute: (args) => args,
});

function registry(): ToolRuntime {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  return root.tools;
}

describe('schema dialects', () => {
  it('reads $schema spellings of the supported dialects, and none as 2020-12', () => {
    expect(schemaDialect({}, 'x')).toBe('2020-12');
    expect(schemaDialect(true, 'x')).toBe('2020-12');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }, 'x')).toBe('draft-07');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft-07/schema' }, 'x')).toBe('draft-07');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-06/schema#' }, 'x')).toBe('draft-06');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' }, 'x')).toBe('2019-09');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' }, 'x')).toBe('2020-12');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft/2020-12/schema#' }, 'x')).toBe('2020-12');
  });

  it('a draft-07 tool schema registers and validates in its own dialect (definitions, items tuple)', async () => {
    const tools = registry();
    tools.register(weather);
    expect((await tools.execute('weather', { city: 'Oslo', units: 'metric', at: [59.9, 10.7] })).isError).toBe(false);
    const wrong = await tools.execute('weather', { city: 'Oslo', units: 'kelvin', at: [1, 2, 3] });
    expect(wrong.error?.code).toBe('INVALID_ARGS');
    expect(wrong.error?.message).toContain('/units: must be equal to one of the allowed values: "metric", "imperial"');
    // draft-07 tuple: `items` as an array with `additionalItems: false` bounds the length.
    expect(wrong.error?.message).toContain('/at: must NOT have more than 2 items');
  });

  it('a 2020-12 schema that says so, and a 2019-09 one, register too', () => {
    const tools = registry();
    tools.register({ ...weather, name: 'w2020', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } });
    tools.register({ ...weather, name: 'w2019', inputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' } });
    expect(tools.schemas().map((t) => t.name)).toEqual(['w2019', 'w2020']);
  });

  it('an unknown $schema is CONFIG naming the tool and the supported dialects, not a stack trace', () => {
    const tools = registry();
    for (const $schema of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-schema', 42]) {
      let caught: unknown;
      try {
        tools.register({ ...weather, inputSchema: { $schema, type: 'object' } });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'CONFIG' });
      const message = (caught as Error).message;
      expect(message).toContain('input schema of tool "weather"');
      expect(message).toContain('http://json-schema.org/draft-07/schema#');
      expect(message).toContain('leave $schema out');
    }
    expect(() => tools.register({ ...weather, outputSchema: { $schema: 'urn:nope' } })).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('output schema of tool "weather"') }),
    );
    expect(tools.schemas()).toEqual([]);
  });

  it('compiles the same schema object again (a tool registered in two registries)', () => {
    expect(compileSchema(DRAFT_07, 'a')({ city: 'x' })).toEqual([]);
    expect(compileSchema(DRAFT_07, 'b')({})).toEqual(['/city: is required but missing']);
  });

  it('the SDK renders a draft-07 schema: definitions become helpers, an items array a tuple; it compiles', () => {
    const sdk = renderTypeScriptSdk([{ name: weather.name, description: weather.description, inputSchema: weather.inputSchema }]);
    expect(sdk).toContain('type Weather_unit = "metric" | "imperial";');
    expect(sdk).toContain('units?: Weather_unit;');
    expect(sdk).toContain('at?: [number, number];');
    const program = "async function main() {\n  await tools.weather({ city: 'Oslo', units: 'metric', at: [1, 2] });\n}\n";
    expect(compileTs({ 'sdk.d.ts': sdk, 'main.ts': program }).diagnostics).toEqual([]);
    const wrong = "async function main() {\n  await tools.weather({ city: 'Oslo', units: 'kelvin' });\n}\n";
    expect(compileTs({ 'sdk.d.ts': sdk, 'main.ts': wrong }).diagnostics).not.toEqual([]);
  });
});
