// workflow_save registers as vetted in the `workflows` row (src/tools/vetted-schemas.ts: ajv waits for
// its first call); this is the vetting: unvetted, its schemas compile and its example fits them.

import { describe, expect, it } from 'vitest';
import { createContext } from '../context/context.js';
import type { HarnessSettings } from '../harness-settings.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { schemasVetted } from '../tools/vetted-schemas.js';
import { createWorkflowSaveTool, WORKFLOW_SAVE_TOOL_NAME } from './workflow-save.js';

describe('workflow_save', () => {
  it('compiles and its example fits its input schema when registered unvetted', () => {
    const settings = { cwd: '/nonexistent-workspace', policy: { cwd: '/nonexistent-workspace', read: [], write: [], network: false, processes: true }, sandbox: 'off' } as unknown as HarnessSettings;
    const tool = createWorkflowSaveTool(settings);
    expect(schemasVetted(tool)).toBe(false);
    const root = createContext();
    root.provide('tools', new ToolRuntime(root));
    expect(() => root.tools.register(tool)).not.toThrow();
    expect(root.tools.schemas().map((s) => s.name)).toEqual([WORKFLOW_SAVE_TOOL_NAME]);
  });
});
