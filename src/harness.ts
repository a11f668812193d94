// createHarness: a container with the tool registry, a preset's tools, and — for PTC presets — a code
// runtime behind the run_code transport. Everything a CLI command or a library user needs to list,
// render or execute tools.

import path from 'node:path';
import { z } from 'zod';
import { createBashTool } from './builtin-tools/bash.js';
import { createFileTools } from './builtin-tools/index.js';
import { resolveWorkspacePolicy, type WorkspacePolicy } from './sandbox/workspace-policy.js';
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
  /** Sandbox mode of programs and the bash tool (docs/sandbox.md); default `auto`. */
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

/** A policy made by resolveWorkspacePolicy (frozen, real paths); passed through as the same object. */
const workspacePolicySchema = z.custom<WorkspacePolicy>(
  (value) => typeof value === 'object' && value !== null && Object.isFrozen(value) && typeof (value as { cwd?: unknown }).cwd === 'string',
  { message: 'policy must come from resolveWorkspacePolicy()' },
);

const builtinToolsConfig = z.object({
  /** The harness's one policy, shared by the file tools, bash and run_code. */
  policy: workspacePolicySchema,
  tools: z.array(z.enum(['bash', 'edit', 'glob', 'grep', 'read', 'write'])),
  sandbox: z.enum(['required', 'auto', 'off']).default('auto'),
});

/** Registers the chosen built-in tools as effects of this plugin. */
export const builtinToolsPlugin: Plugin<z.infer<typeof builtinToolsConfig>> = {
  name: 'builtin-tools',
  inject: ['tools'],
  config: builtinToolsConfig,
  apply(ctx, config) {
    const wanted = new Set(config.tools);
    const { policy } = config;
    const files = createFileTools({ policy }).filter((tool) => wanted.has(tool.name as never));
    for (const tool of files) ctx.tools.register(tool);
    if (wanted.has('bash')) ctx.tools.register(createBashTool({ policy, sandbox: config.sandbox }));
  },
};

export function createHarness(options: HarnessOptions = {}): Harness {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const preset = getPreset(options.preset ?? DEFAULT_PRESET);
  const sandbox = options.sandbox ?? 'auto';
  // THE policy (docs/sandbox.md): resolved once here, the same object for every consumer.
  const policy = resolveWorkspacePolicy({
    cwd,
    ...(options.allowRead === undefined ? {} : { allowRead: options.allowRead }),
    ...(options.allowWrite === undefined ? {} : { allowWrite: options.allowWrite }),
    network: options.allowNet ?? false,
  });

  const ctx = createContext();
  ctx.provide('tools', new ToolRuntime(ctx, { mode: preset.mode }));
  ctx.plugin(builtinToolsPlugin, { policy, tools: [...preset.tools], sandbox });

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
      cwd: policy.cwd,
      ...(options.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: options.maxParallelSubCalls } : {}),
      policy: { allowRead: [...policy.read], allowWrite: [...policy.write], network: policy.network },
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
