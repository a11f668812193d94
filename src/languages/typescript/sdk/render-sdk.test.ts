import { describe, expect, test } from 'vitest';
import { compileTs } from '../../../../test/helpers/compile-ts.js';
import type { ToolSchema } from '../../../tools/types.js';
import { renderTypeScriptSdk } from './render-sdk.js';

/** Strips the indentation of the first non-empty line from every line, and the outer blank lines. */
function code(strings: TemplateStringsArray): string {
  // Raw text keeps `\"` and `*\/` as written; only escaped backticks need undoing.
  const lines = strings.raw.join('').replace(/\\`/g, '`').split('\n');
  while (lines[0]?.trim() === '') lines.shift();
  while (lines[lines.length - 1]?.trim() === '') lines.pop();
  const indent = /^ */.exec(lines[0] ?? '')![0].length;
  return `${lines.map((l) => l.slice(indent)).join('\n')}\n`;
}

/** Type-checks a program body against an SDK, the way the model's program is wrapped. */
function check(sdk: string, body: string): string[] {
  return compileTs({ 'sdk.d.ts': sdk, 'main.ts': `async function main() {\n${body}\n}\n` }).diagnostics;
}

const read: ToolSchema = {
  name: 'read',
  description: 'Read a text file.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path relative to the workspace.' },
      offset: { type: 'integer', description: 'First line, from 1.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { content: { type: 'string' }, truncated: { type: 'boolean' } },
    required: ['content', 'truncated'],
  },
};

const myTool: ToolSchema = {
  name: 'my-tool',
  description: 'Does */ things.\nSecond line.',
  inputSchema: { type: 'object', properties: { verbose: { type: 'boolean' } } },
};

const tree: ToolSchema = {
  name: 'tree',
  description: 'Walks a tree.',
  inputSchema: {
    type: 'object',
    properties: { root: { $ref: '#/$defs/Node' }, parent: { $ref: '#' } },
    required: ['root'],
    $defs: {
      Node: {
        description: 'One node.',
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        required: ['name', 'children'],
      },
    },
  },
  outputSchema: {
    type: 'array',
    items: { $ref: '#/$defs/Node' },
    $defs: { Node: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
};

describe('renderTypeScriptSdk text', () => {
  test('two small tools', () => {
    expect(renderTypeScriptSdk([read, myTool])).toBe(code`
      type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

      interface ToolArgsMap {
        "my-tool": {
          verbose?: boolean;
        };
        "read": {
          /** Path relative to the workspace. */
          path: string;
          /** First line, from 1. */
          offset?: number;
        };
      }

      interface ToolOutputMap {
        "my-tool": JsonValue;
        "read": {
          content: string;
          truncated: boolean;
        };
      }

      /** A failed tool call rejects with this error; \`message\` says why. */
      declare class ToolCallError extends Error {
        /** The name of the tool whose call failed. */
        readonly toolName: string;
        /** The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL". */
        readonly code: string;
      }

      declare const tools: {
        /**
         * Does *\/ things.
         * Second line.
         */
        "my-tool"(args?: ToolArgsMap["my-tool"]): Promise<ToolOutputMap["my-tool"]>;
        /** Read a text file. */
        "read"(args: ToolArgsMap["read"]): Promise<ToolOutputMap["read"]>;
      };
    `);
  });

  test('helpers from $defs are named per tool and per schema; a root that "#" reaches is an alias', () => {
    const sdk = renderTypeScriptSdk([tree]);
    expect(sdk).toContain(code`
      type TreeArgs = {
        root: Tree_Node;
        parent?: TreeArgs;
      };

      type TreeOutput_Node = {
        path: string;
      };

      /** One node. */
      type Tree_Node = {
        name: string;
        children: Tree_Node[];
      };

      interface ToolArgsMap {
        "tree": TreeArgs;
      }

      interface ToolOutputMap {
        "tree": TreeOutput_Node[];
      }
    `);
  });

  test('no tools', () => {
    expect(renderTypeScriptSdk([])).toBe(code`
      type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

      interface ToolArgsMap {}

      interface ToolOutputMap {}

      /** A failed tool call rejects with this error; \`message\` says why. */
      declare class ToolCallError extends Error {
        /** The name of the tool whose call failed. */
        readonly toolName: string;
        /** The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL". */
        readonly code: string;
      }

      declare const tools: {};
    `);
  });

  test('tools are sorted by code units, not by locale', () => {
    const names = ['b', 'é', 'B', 'a-b', '_', 'a', 'Z'];
    const sdk = renderTypeScriptSdk(names.map((name) => ({ name, description: '', inputSchema: {} })));
    const order = [...sdk.matchAll(/^ {2}("[^"]*")\(/gm)].map((m) => JSON.parse(m[1]!) as string);
    expect(order).toEqual(['B', 'Z', '_', 'a', 'a-b', 'b', 'é']);
  });

  test('byte-stable across renders and independent of input order', () => {
    const tools = [read, myTool, tree, ...hostileTools()];
    const first = renderTypeScriptSdk(tools);
    expect(renderTypeScriptSdk(tools)).toBe(first);
    expect(renderTypeScriptSdk([...tools].reverse())).toBe(first);
    for (let shift = 1; shift < tools.length; shift++) {
      expect(renderTypeScriptSdk([...tools.slice(shift), ...tools.slice(0, shift)])).toBe(first);
    }
  });

  test('args are optional only when nothing is required', () => {
    const sdk = renderTypeScriptSdk([
      { name: 'none', description: '', inputSchema: { type: 'object' } },
      { name: 'empty-required', description: '', inputSchema: { type: 'object', properties: {}, required: [] } },
      { name: 'some', description: '', inputSchema: { type: 'object', properties: { a: {} }, required: ['a'] } },
      { name: 'union', description: '', inputSchema: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
      { name: 'anything', description: '', inputSchema: true },
    ]);
    expect(sdk).toContain('"none"(args?: ');
    expect(sdk).toContain('"empty-required"(args?: ');
    expect(sdk).toContain('"some"(args: ');
    expect(sdk).toContain('"union"(args: ');
    expect(sdk).toContain('"anything"(args: ');
  });

  test('tools whose names sanitize alike get distinct helper prefixes', () => {
    const node = (type: string) => ({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      required: ['node'],
      $defs: { Node: { type: 'object', properties: { x: { type } }, required: ['x'] } },
    });
    const sdk = renderTypeScriptSdk([
      { name: 'a_b', description: '', inputSchema: node('string') },
      { name: 'a-b', description: '', inputSchema: node('number') },
      { name: 'AB', description: '', inputSchema: node('boolean') },
    ]);
    expect(sdk).toContain('type AB_Node = {\n  x: boolean;\n};');
    expect(sdk).toContain('type AB2_Node = {\n  x: number;\n};');
    expect(sdk).toContain('type AB3_Node = {\n  x: string;\n};');
    const body = [
      'await tools["a-b"]({ node: { x: 1 } });',
      'await tools.a_b({ node: { x: "s" } });',
      'await tools.AB({ node: { x: true } });',
    ].join('\n');
    expect(check(sdk, body)).toEqual([]);
    expect(check(sdk, 'await tools["a-b"]({ node: { x: "wrong" } });').join('\n')).toMatch(/TS2322/);
  });

  test('duplicate names do not crash; one entry is kept whatever the input order', () => {
    const one: ToolSchema = { name: 'dup', description: 'one', inputSchema: { type: 'object' } };
    const two: ToolSchema = { name: 'dup', description: 'two', inputSchema: { type: 'string' } };
    const sdk = renderTypeScriptSdk([two, one]);
    expect(sdk).toBe(renderTypeScriptSdk([one, two]));
    expect(sdk.match(/"dup"\(/g)).toHaveLength(1);
    expect(check(sdk, 'await tools.dup();')).toEqual([]);
  });
});

/** Names a registry might receive from an MCP server. */
function hostileTools(): ToolSchema[] {
  const names = [
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'then',
    'my "quoted" tool',
    'ends */ here',
    '读取文件',
    'line\u2028break',
    'back\\slash',
    '',
    '123',
    'tools',
    'ToolCallError',
    'JsonValue',
    'Promise',
  ];
  return names.map((name) => ({
    name,
    description: `Tool ${name} */ with\rodd\u2029text`,
    inputSchema: {
      type: 'object',
      properties: { value: { $ref: '#/$defs/V' } },
      required: ['value'],
      $defs: { V: { type: 'string' } },
    },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  }));
}

describe('renderTypeScriptSdk compiles', () => {
  const sdk = renderTypeScriptSdk([read, myTool, tree]);

  test('the SDK alone compiles', () => {
    expect(compileTs({ 'sdk.d.ts': sdk }).diagnostics).toEqual([]);
  });

  test('a program calling every tool correctly', () => {
    const body = `
      const file = await tools.read({ path: "src/a.ts", offset: 1 });
      const text: string = file.content;
      const cut: boolean = file.truncated;
      const any = await tools["my-tool"]();
      await tools["my-tool"]({ verbose: true });
      const nodes = await tools.tree({ root: { name: "r", children: [{ name: "c", children: [] }] } });
      const paths: string[] = nodes.map((n) => n.path);
      await tools.tree({ root: { name: "r", children: [] }, parent: { root: { name: "p", children: [] } } });
      try {
        await tools.read({ path: "missing" });
      } catch (e) {
        if (e instanceof ToolCallError) {
          const who: string = e.toolName;
          const why: string = e.message;
          return { who, why };
        }
        throw e;
      }
      return { text, cut, any, paths };
    `;
    expect(check(sdk, body)).toEqual([]);
  });

  test('a wrong argument type is reported on the property', () => {
    const diagnostics = check(sdk, 'await tools.read({ path: 42 });');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^main\.ts\(2,20\): TS2322: Type 'number' is not assignable to type 'string'/);
    // The related information names the property and where the SDK declares it.
    expect(diagnostics[0]).toMatch(/sdk\.d\.ts\(\d+,\d+\): The expected type comes from property 'path'/);
  });

  test('unknown properties, missing arguments, unknown tools and misused results are errors', () => {
    expect(check(sdk, 'await tools.read({ path: "a", limit: 3 });').join('\n')).toMatch(/'limit' does not exist/);
    expect(check(sdk, 'await tools.read();').join('\n')).toMatch(/TS2554/);
    expect(check(sdk, 'await tools.nope({});').join('\n')).toMatch(/'nope' does not exist/);
    expect(check(sdk, 'const r = await tools.read({ path: "a" }); r.missing;').join('\n')).toMatch(
      /'missing' does not exist/,
    );
    expect(check(sdk, 'await tools.tree({ root: { name: "r", children: [{ name: 1 }] } });').length).toBeGreaterThan(0);
  });

  test('tools without an output schema return JsonValue, which must be narrowed', () => {
    expect(check(sdk, 'const v = await tools["my-tool"](); v.toUpperCase();').length).toBeGreaterThan(0);
    expect(check(sdk, 'const v = await tools["my-tool"](); if (typeof v === "string") v.toUpperCase();')).toEqual([]);
  });

  test('every hostile name is callable through its quoted key', () => {
    const tools = hostileTools();
    const hostile = renderTypeScriptSdk(tools);
    const body = tools
      .map((t, i) => `const r${i}: boolean = (await tools[${JSON.stringify(t.name)}]({ value: "v" })).ok;`)
      .join('\n');
    expect(check(hostile, body)).toEqual([]);
    expect(check(hostile, 'await tools["__proto__"]({ value: 1 });').join('\n')).toMatch(/TS2322/);
  });
});

describe('renderTypeScriptSdk never produces invalid TypeScript', () => {
  test('schemas that refer to themselves, garbage and booleans as input and output', () => {
    const schemas: unknown[] = [
      { $ref: '#' },
      { anyOf: [{ $ref: '#' }, { type: 'string' }] },
      { allOf: [{ $ref: '#' }, { type: 'object', properties: { x: { $ref: '#' } } }] },
      { type: 'object', additionalProperties: { $ref: '#' } },
      { type: 'array', items: { $ref: '#' } },
      { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: { anyOf: [{ $ref: '#' }, { $ref: '#/$defs/A' }] } } },
      { $defs: { A: { $ref: '#' } }, $ref: '#/$defs/A' },
      true,
      false,
      42,
      null,
      [],
      { type: 'nope', properties: 3 },
      JSON.parse('{"type":"object","properties":{"__proto__":{"$ref":"#"}},"required":["__proto__"]}'),
    ];
    const tools = schemas.map((schema, i) => ({
      name: `t${i}`,
      description: '',
      inputSchema: schema,
      outputSchema: schema,
    })) as unknown as ToolSchema[];
    const sdk = renderTypeScriptSdk(tools);
    expect(compileTs({ 'sdk.d.ts': sdk }).diagnostics).toEqual([]);
    expect(sdk).toContain('"t0": unknown;');
    // An interface member cannot refer to itself through an array; the alias can.
    expect(sdk).toContain('type T4Args = T4Args[];');
    expect(sdk).toContain('"t4": T4Args;');
  });
});
