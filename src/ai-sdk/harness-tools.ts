// A harness as AI SDK tools (docs/ai-sdk.md): the scope's wire tools — run_code with the SDK in its
// description in ptc mode, every visible tool with its JSON schema in native mode — whose `execute`
// runs the call through the registry pipeline (approvals, hooks, events) exactly as the agent loop
// runs a native call: the same call order and exclusive/parallel scheduling, the same result text.

import { jsonSchema, tool, type Tool } from 'ai';
import type { Context } from '../context/context.js';
import { ConfigError } from '../errors.js';
import type { Harness } from '../harness.js';
import { DispatchPool, DEFAULT_MAX_PARALLEL_SUB_CALLS } from '../ptc/dispatch-pool.js';
import { renderPtcOnlySection, renderSdkSection } from '../ptc/prompt-sections.js';
import { RUN_CODE_TOOL_NAME, type PresentationMode } from '../tools/tool-runtime.js';
import type { ToolSchema } from '../tools/types.js';
import { failureOutput, modelOutputOf, toolOutputOf, type HarnessToolOutput } from './tool-output.js';

/** One harness tool as the AI SDK takes it; `execute` never throws for a tool failure. */
export type HarnessAiTool = Tool<unknown, HarnessToolOutput>;

export interface AiSdkToolsOptions {
  /**
   * How the tools reach the model; default the harness's (its preset's) mode. `ptc` on a native
   * harness runs programs in `harness.ptcScope()`; `native` on a ptc harness offers the tools directly.
   */
  readonly mode?: PresentationMode;
  /** Overlap bound of concurrency-safe calls of one step (default 10), as the agent loop's. */
  readonly maxParallelToolCalls?: number;
}

export interface AiSdkToolkit {
  /** Pass as `tools` to generateText/streamText. */
  readonly tools: Record<string, HarnessAiTool>;
  /**
   * Text for your system prompt, or '' (native mode): in ptc mode, that the other tool names exist
   * only inside programs. The SDK itself is in run_code's description.
   */
  readonly instructions: string;
  readonly mode: PresentationMode;
  /** The scope whose tools, hooks and approvals apply (install approvals here or on the harness root). */
  readonly scope: Context;
}

/** The wire description of run_code names the system prompt as the SDK's place; here it follows below. */
const SDK_PLACE = 'the SDK of the system prompt';

// Pipeline call ids `ai-sdk:<n>:<toolCallId>`: unique in the process even when a model (or two
// generateText runs) reuses a toolCallId, so program sub-calls (`<id>:ptc:<k>`) never mix.
let calls = 0;

/** The harness's tools (or a scope's: e.g. `await harness.ptcScope()`) as AI SDK v6 tools. */
export async function createAiSdkTools(source: Harness | Context, options: AiSdkToolsOptions = {}): Promise<AiSdkToolkit> {
  const scope = await scopeFor(source, options.mode);
  const tools = scope.tools;
  const mode = tools.modeFor(scope);
  // One pool for every call through this toolkit: exclusive calls (writes) never overlap, as in the loop.
  const pool = new DispatchPool(options.maxParallelToolCalls ?? DEFAULT_MAX_PARALLEL_SUB_CALLS);
  const out: Record<string, HarnessAiTool> = {};
  for (const wire of tools.wireTools(scope)) {
    out[wire.name] = tool<unknown, HarnessToolOutput>({
      description: mode === 'ptc' && wire.name === RUN_CODE_TOOL_NAME ? runCodeDescription(wire, scope) : wire.description,
      // No validate: the pipeline validates, so a bad call is its INVALID_ARGS result, as in the loop.
      inputSchema: jsonSchema(wire.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input, { toolCallId, abortSignal }) => {
        const id = `ai-sdk:${++calls}:${toolCallId}`;
        const signal = abortSignal ?? new AbortController().signal;
        try {
          // The AI SDK's signal goes to the call, not to the pool: a long-lived pool would keep a
          // listener on every signal it followed until it settles (src/ptc/dispatch-pool.ts).
          const result = await pool.submit(tools.executionMode(wire.name, { scope }), () =>
            tools.execute(wire.name, input, { scope, id, signal }),
          );
          return toolOutputOf(result);
        } catch (error) {
          return failureOutput(error);
        }
      },
      toModelOutput: ({ output }) => modelOutputOf(output),
    });
  }
  return { tools: out, instructions: renderPtcOnlySection(tools, scope), mode, scope };
}

function runCodeDescription(wire: ToolSchema, scope: Context): string {
  const lead = wire.description.includes(SDK_PLACE) ? wire.description.replace(SDK_PLACE, 'the SDK below') : wire.description;
  return `${lead}\n\n${renderSdkSection(scope.tools, scope)}`;
}

async function scopeFor(source: Harness | Context, mode: PresentationMode | undefined): Promise<Context> {
  const harness = 'ptcScope' in source ? source : undefined;
  const scope = harness ? harness.ctx : (source as Context);
  if (mode === undefined || scope.tools.modeFor(scope) === mode) return scope;
  if (mode === 'ptc') {
    if (harness) return harness.ptcScope();
    throw new ConfigError('mode "ptc" over a native scope needs its harness: pass the harness (or `await harness.ptcScope()`) instead of the scope.');
  }
  return nativeScope(scope);
}

const nativeScopes = new WeakMap<Context, Promise<Context>>();

/** One child scope per scope that presents its tools natively, opened once (as harness.ptcScope()). */
function nativeScope(scope: Context): Promise<Context> {
  let opened = nativeScopes.get(scope);
  if (!opened) {
    opened = openNativeScope(scope);
    nativeScopes.set(scope, opened);
  }
  return opened;
}

async function openNativeScope(scope: Context): Promise<Context> {
  let child: Context | undefined;
  const handle = scope.plugin({
    name: 'ai-sdk-native-scope',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.presentAs('native');
      child = ctx;
    },
  });
  if ((await handle.settled()) !== 'active' || !child) {
    throw new ConfigError(`Cannot open a native scope over the harness's tools: ${handle.error instanceof Error ? handle.error.message : String(handle.error)}`);
  }
  return child;
}
