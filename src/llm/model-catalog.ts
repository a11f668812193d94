// Known models' context windows and list prices, for the chat's status line and `/cost`
// (docs/chat.md, "Status line"). A plain lookup by model id: a model not listed has no window and
// no price, and the chat then shows tokens only. Prices are USD per million tokens as the providers
// list them (input at the uncached rate); a proxy or a discount may charge otherwise.

export interface ModelInfo {
  /** The provider whose API serves it under this id (`--model provider:id`). */
  readonly provider: 'deepseek' | 'openai' | 'anthropic';
  /** Tokens of prompt plus answer the model accepts. */
  readonly contextWindow: number;
  /** USD per million input tokens. */
  readonly inputPerMillion: number;
  /** USD per million output tokens. */
  readonly outputPerMillion: number;
}

const CATALOG: Readonly<Record<string, ModelInfo>> = {
  'deepseek-chat': { provider: 'deepseek', contextWindow: 131_072, inputPerMillion: 0.28, outputPerMillion: 0.42 },
  'deepseek-reasoner': { provider: 'deepseek', contextWindow: 131_072, inputPerMillion: 0.28, outputPerMillion: 0.42 },
  'gpt-4o': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-4.1': { provider: 'openai', contextWindow: 1_047_576, inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { provider: 'openai', contextWindow: 1_047_576, inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { provider: 'openai', contextWindow: 1_047_576, inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-5': { provider: 'openai', contextWindow: 400_000, inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { provider: 'openai', contextWindow: 400_000, inputPerMillion: 0.25, outputPerMillion: 2 },
  o3: { provider: 'openai', contextWindow: 200_000, inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { provider: 'openai', contextWindow: 200_000, inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'claude-opus-4-5': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 5, outputPerMillion: 25 },
  'claude-opus-4-1': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 15, outputPerMillion: 75 },
  'claude-sonnet-4-5': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 3, outputPerMillion: 15 },
  'claude-sonnet-4-0': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 3, outputPerMillion: 15 },
  'claude-haiku-4-5': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 1, outputPerMillion: 5 },
};

/** The models the catalog knows as `provider:id` (for completion), in table order. */
export const KNOWN_MODELS: readonly string[] = Object.entries(CATALOG).map(([id, info]) => `${info.provider}:${id}`);

/**
 * What the catalog knows of `modelId` (the id without its provider): an exact entry, else the entry
 * it is a dated snapshot of (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`); undefined otherwise.
 */
export function modelInfo(modelId: string): ModelInfo | undefined {
  const snapshot = /^(.+?)-(?:\d{8}|\d{4}-\d{2}-\d{2})$/.exec(modelId);
  for (const id of [modelId, snapshot?.[1]]) {
    // Own keys only: `constructor` is no model.
    if (id !== undefined && Object.hasOwn(CATALOG, id)) return CATALOG[id];
  }
  return undefined;
}

/** USD for `inputTokens` and `outputTokens` of `info`'s model. */
export function costOf(info: ModelInfo, inputTokens: number, outputTokens: number): number {
  return (inputTokens * info.inputPerMillion + outputTokens * info.outputPerMillion) / 1_000_000;
}
