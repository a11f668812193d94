import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { checkJson } from '../json.js';
import type { ToolExecContext } from '../tools/types.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import { createFileTools } from './index.js';

let ws: string;

beforeEach(async () => {
  ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'ptc-tools-')));
  await fs.writeFile(path.join(ws, 'a.txt'), 'hello\nworld\n');
});

afterEach(async () => {
  await fs.rm(ws, { recursive: true, force: true });
});

const exec: ToolExecContext = { signal: new AbortController().signal, callId: 't1', deferContext() {} };

/** Every `properties` entry in a schema, however deep, with the path to it. */
function properties(schema: unknown, at = ''): [string, Record<string, unknown>][] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>).map(
    ([key, value]): [string, Record<string, unknown>] => [`${at}/${key}`, value],
  );
  return [...own, ...own.flatMap(([key, value]) => properties(value, key)), ...properties(node.items, `${at}[]`)];
}

describe('createFileTools', () => {
  const tools = createFileTools({ policy: { cwd: '/nonexistent-workspace', read: [], write: [], network: false, processes: true } });

  it('returns the five file tools sorted by name', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['edit', 'glob', 'grep', 'read', 'write']);
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.isConcurrencySafe === true]))).toEqual({
      edit: false,
      glob: true,
      grep: true,
      read: true,
      write: false,
    });
  });

  it('gives every tool strict, fully described input and output schemas that ajv compiles', () => {
    const ajv = new Ajv2020({ strict: true });
    for (const tool of tools) {
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
      for (const [where, property] of [...properties(tool.inputSchema), ...properties(tool.outputSchema)]) {
        expect(typeof property.description, `${tool.name} ${where}`).toBe('string');
      }
      ajv.compile(tool.inputSchema as object);
      ajv.compile(tool.outputSchema as object);
    }
  });

  it('returns values that are JSON and match each output schema', async () => {
    const ajv = new Ajv2020({ strict: true });
    const byName = new Map(createFileTools({ policy: resolveWorkspacePolicy({ cwd: ws }) }).map((tool) => [tool.name, tool]));
    const calls: [string, unknown][] = [
      ['read', { path: 'a.txt' }],
      ['grep', { pattern: 'world' }],
      ['glob', { pattern: '*.txt' }],
      ['edit', { path: 'a.txt', old_string: 'world', new_string: 'there' }],
      ['write', { path: 'b.txt', content: 'b' }],
    ];
    for (const [name, args] of calls) {
      const tool = byName.get(name)!;
      expect(ajv.validate(tool.inputSchema as object, args), name).toBe(true);
      const value = await tool.execute(args as never, exec);
      expect(checkJson(value), name).toEqual({ ok: true });
      expect(ajv.validate(tool.outputSchema as object, value), `${name}: ${ajv.errorsText()}`).toBe(true);
      expect(typeof tool.renderContent?.(value as never), name).toBe('string');
    }
  });
});
