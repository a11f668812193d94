// What an AI SDK tool of the harness returns from `execute`, and what the model reads of it: the
// pipeline's result, and the same text our agent loop sends for a call (docs/ai-sdk.md).

import { capErrorMessage } from '../error-text.js';
import { toErrorInfo, type ErrorInfo } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { DeferredContext, ToolCallResult } from '../tools/types.js';

/** The `execute` output of every harness tool: never thrown, a failure is `isError` with a stable code. */
export interface HarnessToolOutput {
  /** What the model reads: the tool's rendered content, or `Error [CODE]: message` on failure. */
  readonly content: string;
  readonly isError: boolean;
  /** The stable code and message of a failure (CONTRACT §6). */
  readonly error?: ErrorInfo;
  /** The tool's canonical JSON value (run_code: `{ logs, result? }`); absent on failure. */
  readonly value?: JsonValue;
  /** Contexts the call deferred (an MCP server's notes); the model reads them after `content`. */
  readonly deferredContexts?: readonly DeferredContext[];
}

/** What the model reads of a harness tool's output (one of the AI SDK's tool result outputs). */
export interface HarnessModelOutput {
  readonly type: 'text' | 'error-text';
  readonly value: string;
}

/** The pipeline's result as the output (a plain copy: the result itself is frozen). */
export function toolOutputOf(result: ToolCallResult): HarnessToolOutput {
  return {
    content: result.content,
    isError: result.isError,
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    ...(result.value !== undefined ? { value: result.value } : {}),
    ...(result.deferredContexts && result.deferredContexts.length > 0 ? { deferredContexts: result.deferredContexts.map((d) => ({ ...d })) } : {}),
  };
}

/** A throw from the pipeline (a runtime breaking its contract) as a result, as the agent loop maps it. */
export function failureOutput(error: unknown): HarnessToolOutput {
  const info = toErrorInfo(error, 'TOOL_FAILED');
  const message = capErrorMessage(info.message);
  return { content: `Error [${info.code}]: ${message}`, isError: true, error: { code: info.code, message } };
}

/**
 * The model's view: `text`, or `error-text` for a failure, as the agent loop's history sends it
 * (src/agent/request.ts). The loop sends deferred contexts as user messages after the step; a tool of
 * the AI SDK cannot add messages, so they follow the content in the same result.
 */
export function modelOutputOf(output: HarnessToolOutput): HarnessModelOutput {
  const text = [output.content, ...(output.deferredContexts ?? []).map((d) => d.text)].join('\n\n');
  return { type: output.isError ? 'error-text' : 'text', value: text };
}

/** Narrows a tool result's `output` (typed `unknown` by the AI SDK for a tool set keyed by string) to a harness tool's. */
export function isHarnessToolOutput(output: unknown): output is HarnessToolOutput {
  if (typeof output !== 'object' || output === null) return false;
  const candidate = output as { content?: unknown; isError?: unknown };
  return typeof candidate.content === 'string' && typeof candidate.isError === 'boolean';
}
