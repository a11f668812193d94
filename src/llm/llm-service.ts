// The `llm` service (docs/architecture.md, "Services"): the model client a run talks to. The loop
// hands it one request (system prompt, messages rebuilt from the log, wire tools) and gets the
// answer's text, tool calls and usage back, with text deltas streamed as they arrive. The default
// row (`llm`, src/llm/llm-plugin.ts) answers through the AI SDK and the provider named by --model /
// --base-url; a plugin may provide any other client (a scripted one, a proxy, a cache).

import type { ModelMessage } from 'ai';
import type { JsonValue } from '../json.js';
import type { Usage } from '../session/events.js';
import type { ToolSchema } from '../tools/types.js';
import type { ModelErrorContext, ModelErrorDescription } from './model-error.js';
import type { ResolveModelOptions } from './model.js';
import type { RetryPolicy } from './retry.js';

/** One model request of the loop. */
export interface LlmRequest {
  readonly system: string;
  /** The conversation, in the AI SDK's message shape (src/agent/request.ts builds it from the log). */
  readonly messages: readonly ModelMessage[];
  /** The tools the model may call, as they go on the wire; empty for a plain completion (a compaction summary). */
  readonly tools: readonly ToolSchema[];
  readonly signal?: AbortSignal;
}

/** What the caller hears while a request runs. */
export interface ModelCallHooks {
  /** Each text delta, as it arrives. */
  readonly onText?: (delta: string) => void;
  /** Retry policy of the request (429/5xx before any output), for clients that retry. */
  readonly retry?: Partial<RetryPolicy>;
  /** Told before each retry. */
  readonly onRetry?: (info: { attempt: number; delayMs: number; message: string }) => void;
}

export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
}

export interface LlmResponse {
  readonly text: string;
  readonly toolCalls: ModelToolCall[];
  readonly usage: Usage;
  /** Input tokens the provider served from its cache, when it says (the benchmark counts them: docs/eval.md). */
  readonly cachedInputTokens?: number;
  readonly finishReason: string;
}

/** A model a run talks to. */
export interface ModelClient extends ModelErrorContext {
  /** `provider:id`: what `session/start` and the model catalog (context windows) know it by. */
  readonly label: string;
  /** Sends one request; rejects with the provider's error (the loop logs it as `llm/error`). */
  call(request: LlmRequest, hooks?: ModelCallHooks): Promise<LlmResponse>;
  /** One line for a failed call; default: the error's message. */
  describeError?(error: unknown): ModelErrorDescription;
}

/** What a front-end knows of the model it should use: `--model`, `--base-url`, the config file's keys. */
export type ModelSettings = Pick<ResolveModelOptions, 'model' | 'baseUrl' | 'providerBaseUrl' | 'apiKeyVar' | 'env' | 'fetch'>;

/** The `llm` service. */
export interface LlmService {
  /**
   * The model client for these settings. Rejects with CONFIG (exit 2) for a setting that cannot
   * work (unknown provider, missing key), naming the fix.
   */
  open(settings: ModelSettings): Promise<ModelClient>;
}

/** Whether `model` is a model client (rather than an AI SDK language model with a label). */
export function isModelClient(model: object): model is ModelClient {
  return typeof (model as Partial<ModelClient>).call === 'function';
}

declare module '../context/context.js' {
  interface Services {
    llm: LlmService;
  }
}
