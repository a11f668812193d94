// What the `node-runtime` and `python-runtime` rows share: the config fields of a process runtime
// (docs/presets.md) and how they combine with the harness's settings into the runtime's options.

import { z } from 'zod';
import type { ProcessRuntimeOptions } from '../ptc-runtime-process/options.js';
import type { HarnessSettings } from '../harness-settings.js';

/** The config fields both runtime rows take; a row adds its own beside them. */
export const processRuntimeRowFields = {
  timeout: z.strictObject({ defaultMs: z.number(), minMs: z.number(), maxMs: z.number() }).partial().optional(),
  /** The runtime's `limits` (memoryMb, maxOutputBytes, ...); the runtime validates names and ranges. */
  limits: z.record(z.string(), z.number()).optional(),
  pool: z
    .union([z.literal(false), z.strictObject({ size: z.number(), maxSize: z.number(), idleMs: z.number(), refill: z.boolean() }).partial()])
    .optional(),
  processes: z.boolean().optional(),
  /** `stateless` (default) or `in-memory`. */
  execution: z.enum(['stateless', 'in-memory']).optional(),
  /** In-memory mode: a kept process idle this long is ended. */
  memoryIdleMs: z.number().optional(),
};

const processRuntimeRowConfig = z.strictObject(processRuntimeRowFields);
export type ProcessRuntimeRowConfig = z.infer<typeof processRuntimeRowConfig>;

/**
 * The shared runtime options of a row: the harness's sandbox mode, its deadline (a ceiling: see timeoutOf), and the caller's pool (a one-shot `ptc exec` starts exactly one child) over the row's.
 */
export function processRuntimeOptions(settings: HarnessSettings, config: ProcessRuntimeRowConfig): ProcessRuntimeOptions {
  const timeout = timeoutOf(settings.timeoutMs, config.timeout);
  const pool = settings.runtimePool ?? config.pool;
  return {
    sandbox: settings.sandbox,
    ...(Object.keys(timeout).length > 0 ? { timeout } : {}),
    ...(config.limits ? { limits: config.limits } : {}),
    ...(pool !== undefined ? { pool } : {}),
    ...(config.processes !== undefined ? { processes: config.processes } : {}),
    ...(config.execution !== undefined ? { execution: config.execution } : {}),
    ...(config.memoryIdleMs !== undefined ? { memoryIdleMs: config.memoryIdleMs } : {}),
  } as ProcessRuntimeOptions;
}

/**
 * The runtime's timeout bounds. The caller's `--timeout` is both the default deadline and the
 * ceiling: no row's config and no run_code `timeoutMs` can raise it (docs/security.md, "Limits that
 * hold"). A row may still lower the ceiling or set a shorter default, as before.
 */
export function timeoutOf(
  timeoutMs: number | undefined,
  row: ProcessRuntimeRowConfig['timeout'],
): { defaultMs?: number; minMs?: number; maxMs?: number } {
  if (timeoutMs === undefined) return { ...row };
  const maxMs = Math.min(row?.maxMs ?? timeoutMs, timeoutMs);
  return { ...row, defaultMs: Math.min(row?.defaultMs ?? timeoutMs, maxMs), maxMs };
}
