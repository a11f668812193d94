// One model request of the agent loop (docs/sessions.md): the system prompt, the rebuilt messages and
// the wire tools handed to the run's model client (the `llm` service, src/llm/llm-service.ts; the
// default streams through the AI SDK, src/llm/ai-sdk-client.ts), text deltas passed on as they arrive.

import type { ModelMessage } from 'ai';
import type { LlmResponse, ModelClient } from '../llm/llm-service.js';
import type { ToolSchema } from '../tools/types.js';
import type { AgentRunOptions } from './loop.js';

export type { LlmResponse as ModelResponse } from '../llm/llm-service.js';

export function callModel(
  options: AgentRunOptions,
  client: ModelClient,
  system: string,
  messages: ModelMessage[],
  wireTools: readonly ToolSchema[],
): Promise<LlmResponse> {
  return client.call(
    { system, messages, tools: wireTools, ...(options.signal ? { signal: options.signal } : {}) },
    {
      ...(options.onText ? { onText: options.onText } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    },
  );
}
