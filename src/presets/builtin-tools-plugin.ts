// The `builtin-tools` row: registers the named tools of the catalog (src/builtin-tools/catalog.ts)
// as effects of the row, built on the harness's one policy.

import { z } from 'zod';
import { builtinToolNames, BUILTIN_TOOL_CATALOG, isBuiltinToolName } from '../builtin-tools/catalog.js';
import type { Plugin } from '../context/context.js';
import { vetSchemas } from '../tools/vetted-schemas.js';
import '../harness-settings.js';

const builtinToolsConfig = z.strictObject({
  tools: z
    .array(z.string())
    .min(1, 'name at least one tool')
    .superRefine((names, check) => {
      names.forEach((name, i) => {
        if (!isBuiltinToolName(name)) {
          check.addIssue({ code: 'custom', path: [i], message: `unknown built-in tool ${JSON.stringify(name)}; known: ${builtinToolNames().join(', ')}` });
        } else if (names.indexOf(name) !== i) {
          check.addIssue({ code: 'custom', path: [i], message: `${JSON.stringify(name)} is listed twice` });
        }
      });
    }),
});

export type BuiltinToolsConfig = z.infer<typeof builtinToolsConfig>;

export const builtinToolsPlugin: Plugin<BuiltinToolsConfig> = {
  name: 'builtin-tools',
  inject: ['tools', 'harness'],
  config: builtinToolsConfig,
  apply(ctx, config) {
    const { policy, sandbox, webSearch } = ctx.harness;
    for (const name of config.tools) {
      const tool = BUILTIN_TOOL_CATALOG[name]!({ policy, sandbox, ...(webSearch !== undefined ? { webSearch } : {}) });
      // A tool that owns a process (the persistent bash) ends it with the row.
      if ('dispose' in tool && typeof tool.dispose === 'function') {
        const dispose = tool.dispose as () => Promise<void>;
        ctx.effect(() => () => dispose.call(tool));
      }
      // The catalog's schemas and examples are checked by src/builtin-tools/catalog-schemas.test.ts.
      ctx.tools.register(vetSchemas(tool));
    }
  },
};
