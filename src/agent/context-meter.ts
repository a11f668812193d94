// The context meter (docs/compaction.md): how many tokens a request holds against the model's window.
// The estimate is characters / ESTIMATE_CHARS_PER_TOKEN of the request's JSON, raised to the
// provider's own count when the last response reported one: cheap enough to run before every request
// (a tokenizer costs far more, bench numbers in docs/compaction.md), never below what the provider said.

import type { ModelMessage } from 'ai';
import { ConfigError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { DEFAULT_COMPACT_THRESHOLD, ESTIMATE_CHARS_PER_TOKEN } from '../limits.js';
import { modelInfo } from '../llm/model-catalog.js';

/** What a request consists of, as far as its size goes. */
export interface RequestParts {
  readonly system: string;
  readonly toolSchemas: readonly JsonValue[];
  readonly messages: readonly ModelMessage[];
}

/** Tokens of `text` by the meter's rule. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / ESTIMATE_CHARS_PER_TOKEN);
}

/** Estimated tokens of a request: system prompt, tool definitions and messages as JSON. */
export function estimateRequestTokens(parts: RequestParts): number {
  return estimateTextTokens(parts.system) + estimateTextTokens(JSON.stringify(parts.toolSchemas)) + estimateTextTokens(JSON.stringify(parts.messages));
}

/**
 * The provider's count carried forward: when the previous request of estimate `previousEstimate`
 * was reported as `reportedInputTokens`, the next one is at least that plus what was added since.
 */
export function calibratedEstimate(estimate: number, previous: { estimate: number; reportedInputTokens: number } | undefined): number {
  if (previous === undefined) return estimate;
  return Math.max(estimate, previous.reportedInputTokens + (estimate - previous.estimate));
}

/** The window of `modelId`: the override (`--context-window`, `contextWindow`) else the catalog's; undefined when neither knows. */
export function contextWindowOf(modelId: string, override?: number): number | undefined {
  if (override !== undefined) return override;
  return modelInfo(modelId)?.contextWindow;
}

/** Checks a `--context-window` / `contextWindow` value. */
export function checkContextWindow(value: number, origin: string): number {
  if (!Number.isInteger(value) || value < 1024) throw new ConfigError(`${origin} must be a whole number of tokens, at least 1024 (got ${value}); e.g. ${origin} 32768.`);
  return value;
}

/** Checks a `--compact-threshold` / `compactThreshold` value (a fraction of the window). */
export function checkCompactThreshold(value: number | undefined, origin: string): number {
  if (value === undefined) return DEFAULT_COMPACT_THRESHOLD;
  if (!Number.isFinite(value) || value <= 0 || value > 1) throw new ConfigError(`${origin} must be a fraction of the window above 0 and at most 1 (got ${value}); e.g. ${origin} 0.8.`);
  return value;
}
