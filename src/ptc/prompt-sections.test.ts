import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installApprovals } from '../approvals/approvals.js';
import { createBashTool } from '../builtin-tools/bash.js';
import { createContext } from '../context/context.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { defineTool, type AnyToolDefinition } from '../tools/types.js';
import { renderSdkInstructions, renderSdkSection } from './prompt-sections.js';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-prompt-sections-'));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

function ptcTools(...defs: AnyToolDefinition[]): ToolRuntime {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
  for (const def of defs) root.tools.register(def);
  return root.tools;
}

/** The JSON of the example call in a section, parsed. */
function exampleCall(section: string): { code: string; description: string } | undefined {
  const match = /Example: a complete `run_code` call that wraps ([^:]+):\n\n```json\n([\s\S]*?)\n```/.exec(section);
  return match ? (JSON.parse(match[2]!) as { code: string; description: string }) : undefined;
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  input: z.object({ word: z.string(), lang: z.string().default('en') }),
  examples: [{ word: 'harness' }, { word: 'Geschirr', lang: 'de' }],
  execute: (args) => args.word,
});

const plain = defineTool({
  name: 'another-tool',
  description: 'No examples.',
  input: z.object({}),
  execute: () => null,
});

describe('the example call in the tools:sdk section', () => {
  it('comes from the built-in bash example, as before: a complete run_code call', () => {
    const bash = createBashTool({ policy: resolveWorkspacePolicy({ cwd: workspace }), sandbox: 'off' });
    const section = renderSdkSection(ptcTools(bash));
    expect(section).toContain('Example: a complete `run_code` call that wraps bash:');
    expect(exampleCall(section)).toEqual({
      code: 'const result = await tools.bash({ command: "ls -la", description: "List the workspace" });\nreturn result;',
      description: 'List the workspace',
    });
  });

  it("comes from the first visible tool, by name, that has examples: that tool's first example", () => {
    const bash = createBashTool({ policy: resolveWorkspacePolicy({ cwd: workspace }), sandbox: 'off' });
    const section = renderSdkSection(ptcTools(bash, lookup, plain));
    // "another-tool" sorts first but has no examples; "bash" comes before "lookup".
    expect(section).toContain('call that wraps bash:');
    const withoutBash = renderSdkSection(ptcTools(plain, lookup));
    expect(withoutBash).toContain('call that wraps lookup:');
    expect(exampleCall(withoutBash)).toEqual({
      code: 'const result = await tools.lookup({ word: "harness" });\nreturn result;',
      description: 'Call lookup',
    });
  });

  it('quotes a tool name that is not an identifier, and is byte-stable', () => {
    const dashed = defineTool({ ...lookup, name: 'look-up' });
    const tools = ptcTools(dashed);
    const section = renderSdkSection(tools);
    expect(exampleCall(section)?.code).toBe('const result = await tools["look-up"]({ word: "harness" });\nreturn result;');
    expect(renderSdkSection(tools)).toBe(section);
  });

  it('is left out when no visible tool has examples, or when asked for none', () => {
    expect(renderSdkSection(ptcTools(plain))).not.toContain('Example:');
    expect(renderSdkInstructions(ptcTools(lookup).schemas())).not.toContain('Example:');
    expect(renderSdkInstructions([], { tool: 'x', args: { a: [1, null, { 'b-c': true }] } })).toContain(
      '"code": "const result = await tools.x({ a: [1, null, { \\"b-c\\": true }] });\\nreturn result;"',
    );
  });

  it('an invalid example never reaches the prompt: registration refuses it with CONFIG', () => {
    const bad = defineTool({ ...lookup, name: 'bad', examples: [{ word: 7 as unknown as string }] });
    expect(() => ptcTools(bad)).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });
});

describe('the Python flavour of the tools:sdk section', () => {
  it('follows the language asked for: Python instructions, the Python SDK and the example call in Python', () => {
    const bash = createBashTool({ policy: resolveWorkspacePolicy({ cwd: workspace }), sandbox: 'off' });
    const tools = ptcTools(bash, lookup);
    const section = renderSdkSection(tools, undefined, { language: 'python' });
    expect(section).toContain('`code` is the BODY of an async Python function');
    expect(section).toContain('asyncio.gather');
    expect(section).toContain('`ToolCallError`, whose `tool_name`');
    expect(section).toContain('```python\n# The tools of this session');
    expect(section).not.toContain('Promise.all');
    expect(exampleCall(section)?.code).toBe('result = await tools.bash({"command": "ls -la", "description": "List the workspace"})\nreturn result');
    expect(renderSdkSection(tools, undefined, { language: 'python' })).toBe(section);
  });

  it('quotes a name that is not a Python identifier in the example, and says which memory mode is active', () => {
    const keyword = defineTool({ ...lookup, name: 'import' });
    const section = renderSdkSection(ptcTools(keyword), undefined, { language: 'python', execution: 'in-memory' });
    expect(exampleCall(section)?.code).toBe('result = await tools["import"]({"word": "harness"})\nreturn result');
    expect(section).toContain('Memory is kept between runs of this conversation');
    expect(section).not.toContain('Each run starts with fresh state');
    expect(renderSdkSection(ptcTools(keyword), undefined, { language: 'python' })).toContain('Each run starts with fresh state');
  });

  it('defaults to the TypeScript flavour without a runtime', () => {
    const section = renderSdkSection(ptcTools(lookup));
    expect(section).toContain('`code` is the BODY of an async TypeScript function');
    expect(section).toContain('```ts');
  });
});

describe('the approvals line (docs/approvals.md, "Programs")', () => {
  it('tells the model that programs may see a read-only workspace while a person approves changes, and only then', async () => {
    const root = createContext();
    root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
    root.tools.register(lookup);
    const line = /may find the workspace read-only .*EROFS/;
    expect(renderSdkSection(root.tools, root)).not.toMatch(line);
    const never = installApprovals(root, { policy: 'never' });
    expect(renderSdkSection(root.tools, root)).not.toMatch(line);
    await never();
    const writes = installApprovals(root, { policy: 'writes' });
    expect(renderSdkSection(root.tools, root)).toMatch(line);
    await writes();
    expect(renderSdkSection(root.tools, root)).not.toMatch(line);
  });
});
