// The built-in catalog's tools register as vetted (src/tools/vetted-schemas.ts): their schemas are
// compiled on first call and their examples not checked at registration. This test is the vetting:
// every catalog tool registers through the full check (compile + examples) and its validators work.

import { describe, expect, it } from 'vitest';
import { createContext } from '../context/context.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../limits.js';
import { withCodeDescription } from '../ptc/plugin.js';
import { createRunCodeTool } from '../ptc/run-code.js';
import type { PtcRuntime } from '../ptc-runtime/types.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { schemasVetted, vetSchemas } from '../tools/vetted-schemas.js';
import { builtinToolNames, BUILTIN_TOOL_CATALOG } from './catalog.js';

const policy = { cwd: '/nonexistent-workspace', read: [], write: [], network: false, processes: true };

function runtime(): ToolRuntime {
  const root = createContext();
  root.provide('tools', new ToolRuntime(root));
  return root.tools;
}

describe('built-in catalog schemas', () => {
  it.each(builtinToolNames())('%s compiles and its examples fit its input schema when registered unvetted', async (name) => {
    const tool = BUILTIN_TOOL_CATALOG[name]!({ policy, sandbox: 'off' });
    try {
      expect(schemasVetted(tool)).toBe(false);
      const tools = runtime();
      expect(() => tools.register(tool)).not.toThrow();
      expect(tools.schemas().map((s) => s.name)).toContain(tool.name);
    } finally {
      if ('dispose' in tool && typeof tool.dispose === 'function') await (tool.dispose as () => Promise<void>).call(tool);
    }
  });

  it.each(['typescript', 'python'] as const)('run_code in %s compiles when installed unvetted', (language) => {
    // Only the runtime's deadline bounds enter the schema; the runtime itself is used when run_code runs.
    const timeout = { defaultMs: DEFAULT_TIMEOUT_MS, minMs: MIN_TIMEOUT_MS, maxMs: MAX_TIMEOUT_MS };
    const tool = createRunCodeTool({ runtime: { language, timeout } as unknown as PtcRuntime, cwd: '/nonexistent-workspace' });
    const tools = runtime();
    expect(() => tools.provideTransport({ ...tool, inputSchema: withCodeDescription(tool.inputSchema, language) })).not.toThrow();
  });

  it('a vetted tool still has its arguments validated at its first call (compiled then)', async () => {
    const tool = vetSchemas(BUILTIN_TOOL_CATALOG['read']!({ policy, sandbox: 'off' }));
    const tools = runtime();
    tools.register(tool);
    const result = await tools.execute('read', { no_such_argument: 1 });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('no_such_argument');
  });
});
