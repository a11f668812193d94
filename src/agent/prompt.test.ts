import { describe, expect, it } from 'vitest';
import { createContext, type Context } from '../context/context.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { defineTool } from '../tools/types.js';
import { assemblePrompt, renderSystemPrompt, type PromptAssembly } from './prompt.js';

const tool = (name: string) =>
  defineTool<Record<string, never>, string>({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' }, execute: () => name });

const transport = defineTool<{ code: string; description: string }, string>({
  name: 'run_code',
  description: 'Run a program. Arguments: code, description.',
  inputSchema: { type: 'object', properties: { code: { type: 'string' }, description: { type: 'string' } }, required: ['code', 'description'] },
  execute: () => '',
});

function scope(mode: 'native' | 'ptc'): Context {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root, { mode }));
  for (const name of ['read', 'grep', 'bash']) root.tools.register(tool(name));
  root.tools.provideTransport(transport);
  return root;
}

describe('prompt assembly', () => {
  it('native: the visible tools on the wire, no SDK sections', async () => {
    const assembly = await assemblePrompt({ scope: scope('native'), step: 1, cwd: '/w' });
    expect(assembly.tools.map((t) => t.name)).toEqual(['bash', 'grep', 'read']);
    expect(assembly.sections.map((s) => s.id)).toEqual(['base', 'workspace']);
    expect(renderSystemPrompt(assembly)).not.toContain('declare const tools');
  });

  it('ptc: only run_code on the wire; tools:sdk and tools:ptc-only in the system prompt', async () => {
    const assembly = await assemblePrompt({ scope: scope('ptc'), step: 1, cwd: '/w' });
    expect(assembly.tools.map((t) => t.name)).toEqual(['run_code']);
    expect(assembly.sections.map((s) => s.id)).toEqual(['base', 'tools:sdk', 'tools:ptc-only', 'workspace']);
    const system = renderSystemPrompt(assembly);
    expect(system).toContain('declare const tools');
    expect(system.indexOf('tools:sdk')).toBe(-1);
    expect(system.indexOf('## Calling tools with run_code')).toBeLessThan(system.indexOf('## Tools are reachable only inside run_code'));
  });

  it('toolOrder puts named wire tools first', async () => {
    const assembly = await assemblePrompt({ scope: scope('native'), step: 1, cwd: '/w', toolOrder: ['read', 'bash'] });
    expect(assembly.tools.map((t) => t.name)).toEqual(['read', 'bash', 'grep']);
  });

  it('a toolOrder naming native tools fails ptc assembly with CONFIG naming them', async () => {
    await expect(assemblePrompt({ scope: scope('ptc'), step: 1, cwd: '/w', toolOrder: ['read', 'run_code', 'grep'] })).rejects.toMatchObject({
      code: 'CONFIG',
      message: expect.stringMatching(/"read", "grep"/),
    });
    const ok = await assemblePrompt({ scope: scope('ptc'), step: 1, cwd: '/w', toolOrder: ['run_code'] });
    expect(ok.tools.map((t) => t.name)).toEqual(['run_code']);
  });

  it('ptc assembly without a runtime fails with RUNTIME_UNAVAILABLE', async () => {
    const root = createContext();
    root.provide('tools', new ToolRuntime(root, { mode: 'ptc' }));
    await expect(assemblePrompt({ scope: root, step: 1, cwd: '/w' })).rejects.toMatchObject({ code: 'RUNTIME_UNAVAILABLE' });
  });

  it('waterfall listeners may add, remove or replace sections and tools; the result is final', async () => {
    const root = scope('ptc');
    const seen: number[] = [];
    root.on('system-prompt/assemble', (assembly: PromptAssembly, info) => {
      seen.push(info.step);
      return {
        sections: [...assembly.sections.filter((s) => s.id !== 'tools:ptc-only'), { id: 'house-rules', order: 150, text: 'Be brief.' }],
        tools: assembly.tools,
      };
    });
    root.on('system-prompt/assemble', (assembly: PromptAssembly) => ({ ...assembly, tools: [] }));
    const assembly = await assemblePrompt({ scope: root, step: 3, cwd: '/w' });
    expect(seen).toEqual([3]);
    expect(assembly.sections.map((s) => s.id)).toEqual(['base', 'tools:sdk', 'workspace', 'house-rules']);
    expect(assembly.tools).toEqual([]);
    const system = renderSystemPrompt(assembly);
    expect(system.indexOf('Be brief.')).toBeGreaterThan(system.indexOf('declare const tools'));
    expect(system.indexOf('Be brief.')).toBeLessThan(system.indexOf('## Workspace'));
  });
});
