// The ptc plugin: once a code runtime (`ctx.ptcRuntime`) and the registry exist, installs the
// run_code transport. Which scopes present tools through it is the registry's mode (config or presentAs).

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { createRunCodeTool } from './run-code.js';

const ptcConfig = z.object({
  /** The workspace programs run in (absolute). */
  cwd: z.string().min(1),
  maxParallelSubCalls: z.number().int().min(1).max(1000).optional(),
  policy: z
    .object({
      allowRead: z.array(z.string()).optional(),
      allowWrite: z.array(z.string()).optional(),
      network: z.boolean().optional(),
    })
    .optional(),
});

export type PtcPluginConfig = z.infer<typeof ptcConfig>;

export const ptcPlugin: Plugin<PtcPluginConfig> = {
  name: 'ptc',
  inject: ['tools', 'ptcRuntime'],
  config: ptcConfig,
  apply(ctx, config) {
    ctx.tools.provideTransport(
      createRunCodeTool({
        runtime: ctx.ptcRuntime,
        cwd: config.cwd,
        ...(config.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: config.maxParallelSubCalls } : {}),
        ...(config.policy ? { policy: config.policy } : {}),
      }),
    );
  },
};
