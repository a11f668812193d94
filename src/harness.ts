// createHarness: a container with the tool registry and a tool set, ready to list, render or execute.
// Presets (standard / ptc / minimal / creator) will choose the tool set; today it is the file tools.

import path from 'node:path';
import { z } from 'zod';
import { createFileTools } from './builtin-tools/index.js';
import { createContext, type Context, type Plugin } from './context/context.js';
import { ToolRuntime } from './tools/tool-runtime.js';

export interface HarnessOptions {
  /** The workspace; default: the current directory. */
  readonly cwd?: string;
  /** Extra paths the file tools may read. */
  readonly allowRead?: readonly string[];
  /** Extra paths the file tools may write (and read). */
  readonly allowWrite?: readonly string[];
}

export interface Harness {
  /** The root context: load more plugins with `harness.ctx.plugin(...)`. */
  readonly ctx: Context;
  readonly tools: ToolRuntime;
  readonly cwd: string;
  /** Disposes every plugin and the registry. */
  dispose(): Promise<void>;
}

const fileToolsConfig = z.object({
  cwd: z.string().min(1),
  allowRead: z.array(z.string().min(1)).default([]),
  allowWrite: z.array(z.string().min(1)).default([]),
});

/** Registers the workspace file tools (read, write, edit, glob, grep) as effects of this plugin. */
export const fileToolsPlugin: Plugin<z.infer<typeof fileToolsConfig>> = {
  name: 'builtin-file-tools',
  inject: ['tools'],
  config: fileToolsConfig,
  apply(ctx, config) {
    for (const tool of createFileTools(config)) ctx.tools.register(tool);
  },
};

export function createHarness(options: HarnessOptions = {}): Harness {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const ctx = createContext();
  ctx.provide('tools', new ToolRuntime(ctx));
  ctx.plugin(fileToolsPlugin, {
    cwd,
    allowRead: (options.allowRead ?? []).map((p) => path.resolve(cwd, p)),
    allowWrite: (options.allowWrite ?? []).map((p) => path.resolve(cwd, p)),
  });
  return { ctx, tools: ctx.tools, cwd, dispose: () => ctx.dispose() };
}
