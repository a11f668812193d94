// The status line printed after each turn, before the prompt (docs/chat.md, "Status line"): preset,
// model, tokens in/out of this chat, cost when the model's price is known, and how much of the
// model's context window the last request filled. Printed as an ordinary line on stderr, so it never
// fights readline for the prompt row.

import { modelInfo } from '../llm/model-catalog.js';
import { formatCost, formatTokens } from './usage-tally.js';

export interface StatusLineInput {
  readonly preset: string;
  /** `provider:id`. */
  readonly modelLabel: string;
  /** The model id without its provider (the catalog's key). */
  readonly modelId: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cost: number | undefined;
  /** Prompt plus answer tokens of the latest model request; undefined before the first. */
  readonly lastRequestTokens: number | undefined;
  /** The window the meter used (docs/compaction.md); default the catalog's for `modelId`. */
  readonly contextWindow?: number;
  /** The approval mode. */
  readonly approve: string;
}

/** The status line's text (no colour, no newline). */
export function statusLineText(input: StatusLineInput): string {
  const parts = [`preset ${input.preset}`, input.modelLabel, `${formatTokens(input.inputTokens)} in / ${formatTokens(input.outputTokens)} out`];
  if (input.cost !== undefined) parts.push(formatCost(input.cost));
  const window = input.contextWindow ?? modelInfo(input.modelId)?.contextWindow;
  if (window !== undefined && input.lastRequestTokens !== undefined) {
    parts.push(`context ${contextPercent(input.lastRequestTokens, window)}% of ${formatTokens(window)}`);
  }
  parts.push(`approve ${input.approve}`);
  return `── ${parts.join(' · ')}`;
}

/** Whole percent, at least 1 once anything is used (0% would read as empty). */
export function contextPercent(tokens: number, window: number): number {
  if (tokens <= 0) return 0;
  return Math.max(1, Math.round((tokens / window) * 100));
}
