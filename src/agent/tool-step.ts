// The tool calls of one model step (docs/ptc-mode.md): each logged as `tool/call`, run through the
// registry's pipeline in a rolling pool on its classifier (concurrency-safe calls overlap, the others
// run alone), a large result spilled to a file, then logged as `tool/result`; results in call order.

import { capErrorMessage } from '../error-text.js';
import { toErrorInfo } from '../errors.js';
import { DispatchPool, DEFAULT_MAX_PARALLEL_SUB_CALLS } from '../ptc/dispatch-pool.js';
import type { SessionEventInput } from '../session/events.js';
import type { SpillStore } from '../tools/spill.js';
import { spillToolResult } from '../tools/spill-preview.js';
import type { ToolCallResult } from '../tools/types.js';
import type { AgentRunOptions } from './loop.js';
import type { ModelResponse } from './model-call.js';

/** Runs a step's calls through a rolling pool; resolves with the results in call order. */
export async function runToolCalls(
  options: AgentRunOptions,
  calls: ModelResponse['toolCalls'],
  record: (event: SessionEventInput) => void,
  subCalls: Map<string, number>,
  spill: SpillStore,
): Promise<ToolCallResult[]> {
  const { scope } = options;
  const tools = scope.tools;
  const pool = new DispatchPool(options.maxParallelToolCalls ?? DEFAULT_MAX_PARALLEL_SUB_CALLS);
  const signal = options.signal ?? new AbortController().signal;
  return Promise.all(
    calls.map(async (call) => {
      record({ type: 'tool/call', id: call.id, name: call.name, args: call.args });
      const started = Date.now();
      const result = await pool
        .submit(
          tools.executionMode(call.name, { scope }),
          (poolSignal) => {
            options.onProgress?.({ kind: 'tool-start', id: call.id, name: call.name, args: call.args });
            return tools.execute(call.name, call.args, { signal: poolSignal, scope, id: call.id, spill });
          },
          [signal],
        )
        // The pipeline resolves every tool failure as a result; should anything still throw (a runtime
        // that breaks its contract), the call ends as an error result so its tool/result is logged and
        // the model hears of it, instead of the step failing as if the model had.
        .catch((error: unknown): ToolCallResult => {
          const info = toErrorInfo(error, 'TOOL_FAILED');
          const message = capErrorMessage(info.message);
          return { content: `Error [${info.code}]: ${message}`, isError: true, error: { code: info.code, message } };
        })
        .then((raw) => spillToolResult(raw, spill, call.id));
      record({
        type: 'tool/result',
        id: call.id,
        name: call.name,
        content: result.content,
        isError: result.isError,
        ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
        ...(result.spill ? { spill: { path: result.spill.path, bytes: result.spill.bytes, totalBytes: result.spill.totalBytes } } : {}),
      });
      options.onProgress?.({
        kind: 'tool-end',
        id: call.id,
        name: call.name,
        ms: Date.now() - started,
        isError: result.isError,
        subCalls: subCalls.get(call.id) ?? 0,
        content: result.content,
      });
      return result;
    }),
  );
}
