// A tool list as AI SDK tools: a harness of its own with no preset rows, the tools registered on it,
// presented through run_code (default) or natively. The harness gives the list the same sandbox
// policy, pipeline and runtime as any preset's tools (docs/ai-sdk.md).

import path from 'node:path';
import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { ConfigError } from '../errors.js';
import { RESERVED_TOOL_NAMES, type PresentationMode } from '../tools/tool-runtime.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { createAiSdkTools, type AiSdkToolkit } from './harness-tools.js';

export interface ToolListOptions extends Omit<HarnessOptions, 'preset' | 'plugins' | 'runtime'> {
  /** Default `ptc`: one run_code tool whose programs call the list as `tools.<name>(args)`. */
  readonly mode?: PresentationMode;
  /** Overlap bound of concurrency-safe calls of one step (default 10). */
  readonly maxParallelToolCalls?: number;
}

/** A toolkit that owns its harness: dispose it to end the runtime's warm children. */
export interface OwnedAiSdkToolkit extends AiSdkToolkit {
  readonly harness: Harness;
  dispose(): Promise<void>;
}

/** Registers `defs` on a new harness (duplicate or reserved names reject with CONFIG) and returns its tools. */
export async function createAiSdkToolsFromList(defs: readonly AnyToolDefinition[], options: ToolListOptions = {}): Promise<OwnedAiSdkToolkit> {
  checkNames(defs);
  const { mode = 'ptc', maxParallelToolCalls, ...harnessOptions } = options;
  const cwd = path.resolve(harnessOptions.cwd ?? process.cwd());
  const harness = await createHarness({
    ...harnessOptions,
    cwd,
    preset: { name: 'ai-sdk-tools', description: 'The tools handed to createAiSdkToolsFromList.', file: path.join(cwd, 'ai-sdk-tools'), rows: [] },
  });
  try {
    const handle = harness.ctx.plugin({
      name: 'ai-sdk-tool-list',
      inject: ['tools'],
      apply(ctx) {
        for (const def of defs) ctx.tools.register(def);
      },
    });
    if ((await handle.settled()) !== 'active') throw handle.error;
    const toolkit = await createAiSdkTools(harness, { mode, ...(maxParallelToolCalls !== undefined ? { maxParallelToolCalls } : {}) });
    return { ...toolkit, harness, dispose: () => harness.dispose() };
  } catch (error) {
    await harness.dispose().catch(() => {});
    throw error;
  }
}

/** The registry would refuse these too; checked first so nothing is assembled for a list that cannot load. */
function checkNames(defs: readonly AnyToolDefinition[]): void {
  const seen = new Set<string>();
  for (const { name } of defs) {
    if (RESERVED_TOOL_NAMES.has(name)) throw new ConfigError(`Tool name "${name}" is reserved for the PTC transport; rename the tool in the list.`);
    if (seen.has(name)) throw new ConfigError(`The list has two tools named "${name}"; tool names must be unique: rename or drop one.`);
    seen.add(name);
  }
}
