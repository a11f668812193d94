// The check that decides whether `ptc exec` may run its program on the child exec-speculation.ts
// started on a guess (docs/benchmarks.md, "CLI start-up"). The harness is built as always (config
// files, presets, trust, flags), with the guessed runtime as its `runtime`; the child is used only
// when the node-runtime row would have made exactly that runtime (the same options, compared after
// validation with every default filled in) and run_code's request has exactly the guessed cwd and
// policy. Otherwise the harness and the guessed child are ended and the harness is built again
// without them, as it would have been without any guess: a config, preset or flag that narrows the
// policy is never run under the wider one.

import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import type { Context } from '../context/context.js';
import type { HarnessSettings } from '../harness-settings.js';
import { nodeRuntimePlugin } from '../presets/node-runtime-plugin.js';
import { processRuntimeOptions } from '../ptc/process-runtime-row.js';
import { rowKindOf } from '../row-kind.js';
import { SHIPPED_ROWS } from '../presets/shipped-rows.js';
import { ptcTransportConfig } from '../ptc/transport-config.js';
import { resolveNodeRuntimeOptions, type NodeRuntimeConfig, type NodeRuntimeOptions } from '../languages/typescript/runtime/options.js';
import { writePrediction, type PredictedRequest, type Speculation } from './exec-speculation.js';

export interface ExecHarness {
  readonly harness: Harness;
  /** The ptc scope the program runs in (harness.ptcScope()). */
  readonly scope: Context;
  /** Whether the program runs on the guessed child. */
  readonly speculated: boolean;
  /** Notes what this run asked for as the next guess (call once the result is in). */
  remember(): void;
  /** Disposes the harness and closes the guessed runtime, when it was used. */
  dispose(): Promise<void>;
}

/** The harness of one exec, on the guessed child when it is the right one (see the file comment). */
export async function openExecHarness(options: HarnessOptions, speculation: Speculation | undefined): Promise<ExecHarness> {
  const runtime = speculation?.runtime;
  if (runtime !== undefined) {
    let harness: Harness | undefined;
    try {
      harness = await createHarness({ ...options, runtime });
      const scope = await harness.ptcScope();
      if (scope.get('ptcRuntime') === runtime && sameConfig(intendedRuntime(harness), runtime.config) && sameRequest(requestOf(scope), speculation?.prediction?.request)) {
        return opened(harness, scope, speculation, true, () => runtime.close());
      }
    } catch {
      // Whatever went wrong is left to the ordinary harness below, which reports it as always.
    }
    await harness?.dispose().catch(() => {});
    await runtime.close();
  }
  const harness = await createHarness(options);
  try {
    return opened(harness, await harness.ptcScope(), speculation, false, async () => {});
  } catch (error) {
    await harness.dispose();
    throw error;
  }
}

function opened(harness: Harness, scope: Context, speculation: Speculation | undefined, speculated: boolean, close: () => Promise<void>): ExecHarness {
  return {
    harness,
    scope,
    speculated,
    remember() {
      if (speculation === undefined || speculated) return;
      const runtime = intendedRuntime(harness);
      const request = requestOf(scope);
      // A guess that cannot match (tracing sinks, an unknown row) is not written.
      if (runtime === undefined || request === undefined) return;
      writePrediction(speculation.slot, runtime, request);
    },
    async dispose() {
      try {
        await harness.dispose();
      } finally {
        await close();
      }
    },
  };
}

/**
 * The options the node-runtime row makes the harness's runtime with (node-runtime-plugin.ts), or
 * undefined when that cannot be told: a row that is not shipped (its module may make a runtime of
 * its own), more than one node-runtime row, a config that does not parse.
 */
export function intendedRuntime(harness: Harness): NodeRuntimeOptions | undefined {
  const settings: HarnessSettings | undefined = harness.ctx.get('harness');
  if (settings === undefined || harness.preset.rows.some((row) => rowKindOf(SHIPPED_ROWS, row.name) === undefined)) return undefined;
  const rows = harness.preset.rows.filter((row) => row.name === nodeRuntimePlugin.name);
  if (rows.length > 1 || nodeRuntimePlugin.config === undefined) return undefined;
  // No row: harness.ptcScope() adds one with no config.
  const parsed = nodeRuntimePlugin.config.safeParse(rows[0]?.config ?? {});
  if (!parsed.success) return undefined;
  const { runtime: _given, ...own } = settings;
  return processRuntimeOptions(own, parsed.data);
}

/** cwd and policy of the request primeChild makes (commands.ts), from the scope's settings. */
function requestOf(scope: Context): PredictedRequest | undefined {
  const settings = scope.get('harness');
  if (settings === undefined) return undefined;
  const { cwd, policy } = ptcTransportConfig(settings);
  return policy === undefined ? undefined : { cwd, policy: { allowRead: policy.allowRead ?? [], allowWrite: policy.allowWrite ?? [], network: policy.network ?? false, protect: policy.protect ?? [] } };
}

/** Whether `intended`, validated, is the configuration the guessed runtime was made with. */
function sameConfig(intended: NodeRuntimeOptions | undefined, made: NodeRuntimeConfig): boolean {
  if (intended === undefined) return false;
  let wanted: NodeRuntimeConfig;
  try {
    wanted = resolveNodeRuntimeOptions(intended);
  } catch {
    return false;
  }
  // Functions (a tracing sink) cannot be compared: no guess then.
  if (hasFunction(wanted) || hasFunction(made)) return false;
  return canonical(wanted) === canonical(made);
}

function sameRequest(final: PredictedRequest | undefined, guessed: PredictedRequest | undefined): boolean {
  return final !== undefined && guessed !== undefined && canonical(final) === canonical(guessed);
}

function hasFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasFunction);
}

/** JSON with object keys sorted, `undefined` members dropped: equal for equal values. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
