// The `node-runtime` row: provides `ptcRuntime`, a Node runtime with the harness's sandbox mode and
// deadline, closed when the row is disposed. Its config may set the runtime's limits and the
// execution mode (`in-memory` keeps one process per conversation; docs/in-memory-mode.md).

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { createNodeRuntime } from '../languages/typescript/runtime/index.js';
import type { NodeRuntimeOptions } from '../languages/typescript/runtime/index.js';
import '../harness-settings.js';
import { processRuntimeOptions, processRuntimeRowFields } from '../ptc/process-runtime-row.js';

const nodeRuntimeConfig = z.strictObject(processRuntimeRowFields).default({});

export type NodeRuntimeRowConfig = z.infer<typeof nodeRuntimeConfig>;

export const nodeRuntimePlugin: Plugin<NodeRuntimeRowConfig> = {
  name: 'node-runtime',
  inject: ['harness'],
  config: nodeRuntimeConfig,
  apply(ctx, config) {
    const settings = ctx.harness;
    if (settings.runtime) {
      // The library user's runtime: theirs to close.
      ctx.provide('ptcRuntime', settings.runtime);
      return;
    }
    const options: NodeRuntimeOptions = processRuntimeOptions(settings, config);
    const runtime = createNodeRuntime(options);
    ctx.effect(() => () => runtime.close());
    ctx.provide('ptcRuntime', runtime);
  },
};
