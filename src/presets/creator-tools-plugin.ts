// The `creator-tools` row of the creator preset: harness_inspect, plugin_try and preset_write. They
// need the container and the harness's settings, not only the policy, so they are a row of their own
// rather than entries of the built-in tool catalog (docs/creator.md).

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { createHarnessInspectTool } from './creator-inspect.js';
import { createPluginTryTool } from './creator-plugin-try.js';
import { createPresetWriteTool } from './creator-preset-write.js';
import '../harness-settings.js';
import '../row-kind.js';

export const CREATOR_TOOL_NAMES = ['harness_inspect', 'plugin_try', 'preset_write'] as const;

const creatorToolsConfig = z
  .strictObject({
    tools: z.array(z.enum(CREATOR_TOOL_NAMES)).min(1, 'name at least one tool').default([...CREATOR_TOOL_NAMES]),
  })
  .default({ tools: [...CREATOR_TOOL_NAMES] });

export type CreatorToolsConfig = z.infer<typeof creatorToolsConfig>;

export const creatorToolsPlugin: Plugin<CreatorToolsConfig> = {
  name: 'creator-tools',
  inject: ['tools', 'harness', 'rowKinds'],
  config: creatorToolsConfig,
  apply(ctx, config) {
    const settings = ctx.harness;
    const factories = {
      harness_inspect: () => createHarnessInspectTool({ ctx, settings }),
      plugin_try: () => createPluginTryTool({ ctx, settings }),
      preset_write: () => createPresetWriteTool({ settings, kinds: ctx.rowKinds }),
    };
    for (const name of config.tools) ctx.tools.register(factories[name]());
  },
};
