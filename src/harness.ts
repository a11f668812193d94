// createHarness: a container with the tool registry, a preset's tools, and — for PTC presets — a code
// runtime behind the run_code transport. Everything a CLI command or a library user needs to list,
// render or execute tools.

import path from 'node:path';
import { z } from 'zod';
import { createBashTool } from './builtin-tools/bash.js';
import { createFileTools } from './builtin-tools/index.js';
import { resolveWorkspacePolicy } from './sandbox/workspace-policy.js';
import { createContext, type Context, type Plugin } from './context/context.js';
import { getPreset, DEFAULT_PRESET, type PresetDefinition } from './presets/presets.js';
import { ptcPlugin } from './ptc/plugin.js';
import { createNodeRuntime } from './ptc-runtime-node/index.js';
import type { PtcRuntime, SandboxMode } from './ptc-runtime/types.js';
import { ToolRuntime } from './tools/tool-runtime.js';

export interface HarnessOptions {
  /** The workspace; default: the current directory. */
  readonly cwd?: string;
  /** `ptc` (default) or `standard`. */
  readonly preset?: string;
  /** Sandbox mode of programs and the bash tool (CONTRACT §5); default `auto`. */
  readonly sandbox?: SandboxMode;
  /** Extra paths programs and tools may read. */
  readonly allowRead?: readonly string[];
  /** Extra paths programs and tools may write (and read). */
  readonly allowWrite?: readonly string[];
  /** Allow network from programs and the bash tool. */
  readonly allowNet?: boolean;
  /** Default program deadline in ms (wall time, including awaited tool calls). */
  readonly timeoutMs?: number;
  /** Overlap bound of concurrency-safe sub-calls in a program (default 10; 1 = serial). */
  readonly maxParallelSubCalls?: number;
  /** The code runtime for PTC presets; default: a Node runtime created (and closed) by the harness. */
  readonly runtime?: PtcRuntime;
}

export interface Harness {
  /** The root context: load more plugins with `harness.ctx.plugin(...)`. */
  readonly ctx: Context;
  readonly tools: ToolRuntime;
  readonly cwd: string;
  readonly preset: PresetDefinition;
  /** The code runtime, for PTC presets. */
  readonly runtime: PtcRuntime | undefined;
  /** Disposes every plugin and closes a runtime the harness created. */
  dispose(): Promise<void>;
}

const builtinToolsConfig = z.object({
  cwd: z.string().min(1),
  tools: z.array(z.enum(['bash', 'edit', 'glob', 'grep', 'read', 'write'])),
  sandbox: z.enum(['required', 'auto', 'off']).default('auto'),
  allowRead: z.array(z.string().min(1)).default([]),
  allowWrite: z.array(z.string().min(1)).default([]),
  allowNet: z.boolean().default(false),
});

/** Registers the chosen built-in tools as effects of this plugin. */
export const builtinToolsPlugin: Plugin<z.infer<typeof builtinToolsConfig>> = {
  name: 'builtin-tools',
  inject: ['tools'],
  config: builtinToolsConfig,
  apply(ctx, config) {
    const wanted = new Set(config.tools);
    const policy = resolveWorkspacePolicy({
      cwd: config.cwd,
      allowRead: config.allowRead,
      allowWrite: config.allowWrite,
      network: config.allowNet,
    });
    const files = createFileTools({ policy }).filter((tool) => wanted.has(tool.name as never));
    for (const tool of files) ctx.tools.register(tool);
    if (wanted.has('bash')) {
      ctx.tools.register(
        createBashTool({
          cwd: config.cwd,
          sandbox: config.sandbox,
          allowRead: config.allowRead,
          allowWrite: config.allowWrite,
          network: config.allowNet,
        }),
      );
    }
  },
};

export function createHarness(options: HarnessOptions = {}): Harness {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const preset = getPreset(options.preset ?? DEFAULT_PRESET);
  const allowRead = (options.allowRead ?? []).map((p) => path.resolve(cwd, p));
  const allowWrite = (options.allowWrite ?? []).map((p) => path.resolve(cwd, p));
  const sandbox = options.sandbox ?? 'auto';

  const ctx = createContext();
  ctx.provide('tools', new ToolRuntime(ctx, { mode: preset.mode }));
  ctx.plugin(builtinToolsPlugin, {
    cwd,
    tools: [...preset.tools],
    sandbox,
    allowRead,
    allowWrite,
    allowNet: options.allowNet ?? false,
  });

  let runtime = options.runtime;
  const ownsRuntime = runtime === undefined && preset.mode === 'ptc';
  if (ownsRuntime) {
    runtime = createNodeRuntime({
      sandbox,
      ...(options.timeoutMs !== undefined ? { timeout: { defaultMs: options.timeoutMs } } : {}),
    });
  }
  if (runtime) {
    ctx.provide('ptcRuntime', runtime);
    ctx.plugin(ptcPlugin, {
      cwd,
      ...(options.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: options.maxParallelSubCalls } : {}),
      policy: { allowRead, allowWrite, network: options.allowNet ?? false },
    });
  }

  return {
    ctx,
    tools: ctx.tools,
    cwd,
    preset,
    runtime,
    async dispose() {
      try {
        await ctx.dispose();
      } finally {
        if (ownsRuntime) await runtime?.close();
      }
    },
  };
}
