// The default model client (the `llm` row, src/llm/llm-plugin.ts): one request streamed through the
// AI SDK to the provider src/llm/model.ts resolved, text deltas handed on as they arrive, retried on
// the provider errors that allow it (src/llm/retry.ts). Loaded at the first `open`, so a command that
// never talks to a model (`ptc tools`) never loads the AI SDK.

import { jsonSchema, streamText, tool, type LanguageModel, type ToolSet } from 'ai';
import { checkJson, type JsonValue } from '../json.js';
import { isModelClient, type ModelClient, type LlmResponse, type ModelSettings } from './llm-service.js';
import { describeModelError, type ModelErrorContext } from './model-error.js';
import { resolveModel } from './model.js';
import { SDK_CALL_SETTINGS, withModelRetry } from './retry.js';

/** An AI SDK language model with what error messages should name; a `ResolvedModel` fits. */
export type AiSdkModel = { readonly label: string; readonly model: LanguageModel } & ModelErrorContext;

/** The client for `--model` / `--base-url` settings; CONFIG for settings that cannot work. */
export function openAiSdkClient(settings: ModelSettings): ModelClient {
  return aiSdkClient(resolveModel(settings));
}

/** The client of a run's model: a client as it is, an AI SDK model wrapped. */
export function modelClientOf(model: ModelClient | AiSdkModel): ModelClient {
  return isModelClient(model) ? model : aiSdkClient(model);
}

/** A model client over an AI SDK language model. */
export function aiSdkClient(resolved: AiSdkModel): ModelClient {
  const context: ModelErrorContext = {
    ...(resolved.apiKeyVar !== undefined ? { apiKeyVar: resolved.apiKeyVar } : {}),
    ...(resolved.hasApiKey !== undefined ? { hasApiKey: resolved.hasApiKey } : {}),
    ...(resolved.baseUrl !== undefined ? { baseUrl: resolved.baseUrl } : {}),
    ...(resolved.provider !== undefined ? { provider: resolved.provider } : {}),
  };
  return {
    label: resolved.label,
    ...context,
    describeError: (error) => describeModelError(error, context),
    call: (request, hooks = {}) => {
      const toolSet: ToolSet = {};
      for (const t of request.tools) {
        toolSet[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as Parameters<typeof jsonSchema>[0]) });
      }
      return withModelRetry(
        async ({ markOutputStarted }): Promise<LlmResponse> => {
          const result = streamText({
            model: resolved.model,
            system: request.system,
            messages: [...request.messages],
            ...(request.tools.length > 0 ? { tools: toolSet } : {}),
            ...(request.signal ? { abortSignal: request.signal } : {}),
            ...SDK_CALL_SETTINGS,
            // Without it the SDK prints errors with a stack trace; they are thrown below instead.
            onError: () => {},
          });
          for await (const part of result.fullStream) {
            if (part.type === 'text-delta') {
              markOutputStarted();
              hooks.onText?.(part.text);
            } else if (part.type === 'reasoning-delta' || part.type === 'tool-input-start') {
              markOutputStarted();
            } else if (part.type === 'error') {
              throw part.error;
            }
          }
          const [text, calls, usage, finishReason] = await Promise.all([result.text, result.toolCalls, result.usage, result.finishReason]);
          const cached = usage.inputTokenDetails?.cacheReadTokens;
          return {
            text,
            toolCalls: calls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: asJson(call.input) })),
            usage: {
              ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
              ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
              ...(usage.totalTokens !== undefined ? { totalTokens: usage.totalTokens } : {}),
            },
            ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
            finishReason,
          };
        },
        {
          ...(hooks.retry ? { policy: hooks.retry } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
          context,
          onRetry: (event) => hooks.onRetry?.({ attempt: event.attempt, delayMs: event.delayMs, message: event.description.message }),
        },
      );
    },
  };
}

/** Model-produced input as JSON: invalid tool input arrives as its raw text. */
function asJson(input: unknown): JsonValue {
  if (input === undefined) return {};
  return checkJson(input).ok ? (input as JsonValue) : String(input);
}
