// Large catalogs (docs/large-catalogs.md): the ptc prompt holds a tool index instead of every
// declaration above the limits, and programs reach declarations through the `sdk` binding. The
// catalog is the real tools/list of the official MCP servers (test/fixtures/mcp-catalog.json),
// replicated under several server prefixes to 156 tools; programs run in the real Node runtime.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type Context } from '../../src/context/context.js';
import type { JsonValue } from '../../src/json.js';
import { MAX_DECLARED_SDK_CHARS, MAX_TOOLS_ALWAYS_DECLARED } from '../../src/limits.js';
import { OTHER_TOOLS_GROUP, renderCatalogIndex, toolGroup } from '../../src/ptc/catalog-index.js';
import { ptcPlugin } from '../../src/ptc/plugin.js';
import { renderPtcOnlySection, renderSdkInstructions, renderSdkSection } from '../../src/ptc/prompt-sections.js';
import type { PtcDispatchSettle } from '../../src/ptc/run-code.js';
import { SDK_BINDING_DECLARATION } from '../../src/ptc/sdk-binding.js';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { PtcRuntime } from '../../src/ptc-runtime/types.js';
import { ToolRuntime } from '../../src/tools/tool-runtime.js';
import { defineTool } from '../../src/tools/types.js';
import { compileTs } from '../helpers/compile-ts.js';
import { largeCatalog, realCatalog, type CatalogTool } from '../fixtures/mcp-catalog.js';

let workspace: string;
let runtime: PtcRuntime;

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-large-catalog-'));
  runtime = createNodeRuntime({ sandbox: 'auto' });
});
afterAll(async () => {
  await runtime.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

/** The catalog's tools in a ptc registry; get-sum and echo really answer, the rest refuse. */
function registry(catalog: readonly CatalogTool[]): Context {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
  root.provide('ptcRuntime', runtime);
  for (const tool of catalog) {
    root.tools.register(
      defineTool<Record<string, JsonValue>, JsonValue>({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
        isConcurrencySafe: tool.readOnly,
        execute: (args) => {
          if (tool.name.endsWith('__get-sum')) return (args['a'] as number) + (args['b'] as number);
          if (tool.name.endsWith('__echo')) return `Echo: ${String(args['message'])}`;
          throw new Error(`${tool.name} is not wired in this test`);
        },
      }),
    );
  }
  root.plugin(ptcPlugin, { cwd: workspace });
  return root;
}

const isIndexed = (section: string) => section.includes('## Tool index');

describe('the ptc prompt of a large catalog', () => {
  it('keeps full declarations for 20 tools, even when they are long', () => {
    const twenty = realCatalog().slice(0, MAX_TOOLS_ALWAYS_DECLARED);
    const section = renderSdkSection(registry(twenty).tools);
    expect(isIndexed(section)).toBe(false);
    expect(section).toContain('interface ToolArgsMap');
    const long = twenty.map((t) => ({ ...t, description: `${t.description} ${'More detail. '.repeat(120)}` }));
    const longSection = renderSdkInstructions(long);
    expect(longSection.length).toBeGreaterThan(MAX_DECLARED_SDK_CHARS);
    expect(isIndexed(longSection)).toBe(false);
  });

  it('keeps declarations for the 36 real tools (under both limits) and indexes the 156-tool catalog', () => {
    expect(isIndexed(renderSdkInstructions(realCatalog()))).toBe(false);
    const section = renderSdkSection(registry(largeCatalog()).tools);
    expect(isIndexed(section)).toBe(true);
    expect(section).not.toContain('interface ToolArgsMap');
    expect(section).toContain(SDK_BINDING_DECLARATION);
    expect(section).toContain('- memory__read_graph() — Read the entire knowledge graph');
    expect(section).toContain('- filesystem__read_text_file({ path, tail?, head? }) — Read the complete contents of a file from the file system as text.');
    // The ptc-only section names the tools of a declared catalog, and refers to the index otherwise.
    const ptcOnly = renderPtcOnlySection(registry(largeCatalog()).tools);
    expect(ptcOnly).toContain('(every tool of the tool index)');
    expect(ptcOnly).not.toContain('memory__read_graph');
    expect(renderPtcOnlySection(registry(realCatalog()).tools)).toContain('`memory__read_graph`');
  });

  it('is byte-stable whatever the registration order, and pinned', async () => {
    const catalog = largeCatalog();
    const section = renderSdkInstructions(catalog);
    expect(renderSdkInstructions([...catalog].reverse())).toBe(section);
    await expect(`${section}\n`).toMatchFileSnapshot('../snapshots/large-catalog.sdk-section.md');
  });

  it('groups tools by server, other tools first, each tool once under its own group', () => {
    const builtin = { name: 'read', description: 'Reads a file. Long text.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
    const index = renderCatalogIndex([...largeCatalog(), builtin]);
    const headings = index.split('\n').filter((l) => l.startsWith('### '));
    expect(headings[0]).toBe('### Other tools (1)');
    const servers = headings.slice(1).map((h) => /^### Server (\S+) /.exec(h)?.[1]);
    expect(servers).toEqual([...servers].sort());
    expect(servers).toHaveLength(13);
    let group = '';
    const lines = index.split('\n');
    for (const line of lines) {
      if (line.startsWith('### Other')) group = OTHER_TOOLS_GROUP;
      else if (line.startsWith('### Server ')) group = line.split(' ')[2]!;
      else if (line.startsWith('- ')) expect(toolGroup(line.slice(2).split('(')[0]!)).toBe(group);
    }
    expect(lines.filter((l) => l.startsWith('- '))).toHaveLength(157);
    expect(index).toContain('- read({ path }) — Reads a file.');
  });
});

describe('the sdk binding inside programs', () => {
  let n = 0;
  function run(root: Context, code: string) {
    return root.tools.execute('run_code', { code, description: 'test program' }, { id: `rc${++n}` });
  }

  it('describe returns declarations from the SDK renderer that compile with a program using them', async () => {
    const root = registry(largeCatalog());
    const settles: PtcDispatchSettle[] = [];
    root.on('tool/ptc-dispatch', (e) => void settles.push(e));
    const result = await run(root, 'return await sdk.describe(["memory__open_nodes", "docs__read_text_file"]);');
    expect(result.isError).toBe(false);
    const value = result.value as { result: string };
    const declarations = value.result;
    expect(declarations).toContain('"memory__open_nodes"(args: ToolArgsMap["memory__open_nodes"]): Promise<ToolOutputMap["memory__open_nodes"]>;');
    expect(declarations).toContain('"docs__read_text_file"');
    expect(declarations).not.toContain('memory__read_graph');
    const program = [
      'async function main() {',
      '  const graph = await tools.memory__open_nodes({ names: ["a"] });',
      '  const text = await tools.docs__read_text_file({ path: "README.md", head: 3 });',
      '  return [graph, text];',
      '}',
      'void main;',
    ].join('\n');
    expect(compileTs({ 'sdk.d.ts': declarations, 'main.ts': program }).diagnostics).toEqual([]);
    const wrong = program.replace('names: ["a"]', 'names: "a"');
    expect(compileTs({ 'sdk.d.ts': declarations, 'main.ts': wrong }).diagnostics).not.toEqual([]);
    expect(settles).toEqual([]);
  });

  it('search ranks tools, sdk calls are not dispatches, and an undescribed tool is callable', async () => {
    const root = registry(largeCatalog());
    const settles: PtcDispatchSettle[] = [];
    root.on('tool/ptc-dispatch', (e) => void settles.push(e));
    const result = await run(
      root,
      `
      const hits = await sdk.search({ query: "read text file", limit: 3 });
      const byString = await sdk.search("knowledge graph entities");
      const sum = await tools["demo__get-sum"]({ a: 2, b: 3 });
      return { hits, top: byString.slice(0, 2).map((h) => h.name), count: byString.length, sum };
      `,
    );
    expect(result.isError).toBe(false);
    const value = (result.value as { result: { hits: { name: string; signature: string; summary: string }[]; top: string[]; count: number; sum: number } }).result;
    expect(value.hits).toHaveLength(3);
    expect(value.hits[0]).toEqual({
      name: 'docs__read_text_file',
      group: 'docs',
      signature: '({ path, tail?, head? })',
      summary: 'Read the complete contents of a file from the file system as text.',
    });
    expect(value.hits.every((h) => h.name.endsWith('__read_text_file'))).toBe(true);
    expect(value.count).toBe(10);
    expect(value.top.every((n) => /__(create|delete)_entities$/.test(n))).toBe(true);
    expect(value.sum).toBe(5);
    expect(settles.map((s) => s.tool)).toEqual(['demo__get-sum']);
  });

  it('bad sdk calls reject with SdkError and a stable code the program can catch', async () => {
    const root = registry(largeCatalog());
    const result = await run(
      root,
      `
      const out = [];
      for (const call of [() => sdk.describe("memory__nope"), () => sdk.describe([]), () => sdk.search({ query: "x", limit: 0 })]) {
        try { await call(); out.push("resolved"); }
        catch (e) { out.push([e instanceof SdkError, e.method, e.code, e.message.slice(0, 80)]); }
      }
      return out;
      `,
    );
    expect(result.isError).toBe(false);
    const out = (result.value as { result: [boolean, string, string, string][] }).result;
    expect(out.map(([isSdkError, method, code]) => [isSdkError, method, code])).toEqual([
      [true, 'describe', 'UNKNOWN_TOOL'],
      [true, 'describe', 'INVALID_ARGS'],
      [true, 'search', 'INVALID_ARGS'],
    ]);
    expect(out[0]![3]).toContain('memory__nope');
  });

  it('search takes (query, { limit }) as well as ({ query, limit }); other shapes are INVALID_ARGS', async () => {
    const root = registry(largeCatalog());
    const result = await run(
      root,
      `
      const positional = await sdk.search("read text file", { limit: 2 });
      const object = await sdk.search({ query: "read text file", limit: 2 });
      const out = [];
      for (const call of [() => sdk.search("x", 5), () => sdk.search("x", { query: "y" }), () => sdk.search("x", {}, {}), () => sdk.describe("a", "b")]) {
        try { await call(); out.push("resolved"); }
        catch (e) { out.push([e instanceof SdkError, e.method, e.code, e.message]); }
      }
      return { positional: positional.map((h) => h.name), object: object.map((h) => h.name), out };
      `,
    );
    expect(result.isError).toBe(false);
    const value = (result.value as { result: { positional: string[]; object: string[]; out: [boolean, string, string, string][] } }).result;
    expect(value.positional).toHaveLength(2);
    expect(value.positional).toEqual(value.object);
    expect(value.out.map(([isSdkError, method, code]) => [isSdkError, method, code])).toEqual([
      [true, 'search', 'INVALID_ARGS'],
      [true, 'search', 'INVALID_ARGS'],
      [true, 'search', 'INVALID_ARGS'],
      [true, 'describe', 'INVALID_ARGS'],
    ]);
    expect(value.out[0]![3]).toContain('sdk.search("read file", { limit: 5 })');
    expect(value.out[3]![3]).toContain('takes one argument');
  });

  it('the argument list is built without running a setter the program put on Array.prototype', async () => {
    const root = registry(largeCatalog());
    const result = await run(
      root,
      `
      let ran = false;
      Object.defineProperty(Array.prototype, "0", { set() { ran = true; }, configurable: true });
      const probe = []; probe[0] = 1;
      const control = ran;
      ran = false;
      const hits = await sdk.search("read text file", { limit: 1 });
      return { control, duringCall: ran, names: hits.map((h) => h.name) };
      `,
    );
    expect(result.isError).toBe(false);
    // The control: an ordinary index assignment does run the setter, so the detector sees one.
    expect((result.value as { result: { control: boolean; duringCall: boolean; names: string[] } }).result).toEqual({
      control: true,
      duringCall: false,
      names: ['docs__read_text_file'],
    });
  });
});
