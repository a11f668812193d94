// One model request of the agent loop (docs/sessions.md): the system prompt, the rebuilt messages and
// the wire tools streamed through the AI SDK, text deltas handed on as they arrive, retried on the
// provider errors that allow it (src/llm/retry.ts); the answer's text, tool calls and usage.

import { jsonSchema, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { checkJson, type JsonValue } from '../json.js';
import { SDK_CALL_SETTINGS, withModelRetry } from '../llm/index.js';
import type { Usage } from '../session/events.js';
import type { ToolSchema } from '../tools/types.js';
import type { AgentRunOptions } from './loop.js';

export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: { id: string; name: string; args: JsonValue }[];
  readonly usage: Usage;
  readonly finishReason: string;
}

export async function callModel(
  options: AgentRunOptions,
  system: string,
  messages: ModelMessage[],
  wireTools: readonly ToolSchema[],
): Promise<ModelResponse> {
  const toolSet: ToolSet = {};
  for (const t of wireTools) {
    toolSet[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as Parameters<typeof jsonSchema>[0]) });
  }
  return withModelRetry(
    async ({ markOutputStarted }) => {
      const result = streamText({
        model: options.model.model,
        system,
        messages,
        ...(wireTools.length > 0 ? { tools: toolSet } : {}),
        ...(options.signal ? { abortSignal: options.signal } : {}),
        ...SDK_CALL_SETTINGS,
        // Without it the SDK prints errors with a stack trace; they are thrown below instead.
        onError: () => {},
      });
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          markOutputStarted();
          options.onText?.(part.text);
        } else if (part.type === 'reasoning-delta' || part.type === 'tool-input-start') {
          markOutputStarted();
        } else if (part.type === 'error') {
          throw part.error;
        }
      }
      const [text, calls, usage, finishReason] = await Promise.all([result.text, result.toolCalls, result.usage, result.finishReason]);
      return {
        text,
        toolCalls: calls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: asJson(call.input) })),
        usage: {
          ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
          ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
          ...(usage.totalTokens !== undefined ? { totalTokens: usage.totalTokens } : {}),
        },
        finishReason,
      };
    },
    {
      ...(options.retry ? { policy: options.retry } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      context: options.model,
      onRetry: (event) => options.onRetry?.({ attempt: event.attempt, delayMs: event.delayMs, message: event.description.message }),
    },
  );
}

/** Model-produced input as JSON: invalid tool input arrives as its raw text. */
function asJson(input: unknown): JsonValue {
  if (input === undefined) return {};
  return checkJson(input).ok ? (input as JsonValue) : String(input);
}
