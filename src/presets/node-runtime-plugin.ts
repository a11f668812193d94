// The `node-runtime` row: provides `ptcRuntime`, a Node runtime with the harness's sandbox mode and
// deadline, closed when the row is disposed. Its config may set the runtime's limits and the
// execution mode (`in-memory` keeps one process per conversation; docs/in-memory-mode.md).

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { createNodeRuntime } from '../ptc-runtime-node/index.js';
import type { NodeRuntimeOptions } from '../ptc-runtime-node/index.js';
import './harness-settings.js';

const nodeRuntimeConfig = z
  .strictObject({
    timeout: z.strictObject({ defaultMs: z.number(), minMs: z.number(), maxMs: z.number() }).partial().optional(),
    /** createNodeRuntime's `limits` (memoryMb, maxOutputBytes, ...); it validates names and ranges. */
    limits: z.record(z.string(), z.number()).optional(),
    pool: z.union([z.literal(false), z.strictObject({ size: z.number(), idleMs: z.number(), refill: z.boolean() }).partial()]).optional(),
    processes: z.boolean().optional(),
    /** `stateless` (default) or `in-memory`. */
    execution: z.enum(['stateless', 'in-memory']).optional(),
    /** In-memory mode: a kept process idle this long is ended. */
    memoryIdleMs: z.number().optional(),
  })
  .default({});

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
    const timeout = { ...(settings.timeoutMs !== undefined ? { defaultMs: settings.timeoutMs } : {}), ...config.timeout };
    const pool = settings.runtimePool ?? config.pool;
    const options = {
      sandbox: settings.sandbox,
      ...(Object.keys(timeout).length > 0 ? { timeout } : {}),
      ...(config.limits ? { limits: config.limits } : {}),
      ...(pool !== undefined ? { pool } : {}),
      ...(config.processes !== undefined ? { processes: config.processes } : {}),
      ...(config.execution !== undefined ? { execution: config.execution } : {}),
      ...(config.memoryIdleMs !== undefined ? { memoryIdleMs: config.memoryIdleMs } : {}),
    } as NodeRuntimeOptions;
    const runtime = createNodeRuntime(options);
    ctx.effect(() => () => runtime.close());
    ctx.provide('ptcRuntime', runtime);
  },
};
