// Counts what the provider reports for each model response of one run, including cached input
// tokens, which the agent loop's own usage sums leave out: the run's model client is wrapped, and
// every answer's usage added up (compaction summaries included). docs/eval.md, "Results".

import type { ModelClient } from '../llm/llm-service.js';

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  responses: number;
}

/** Wraps a model client; `totals` grows as responses arrive. */
export function tapUsage(client: ModelClient): { model: ModelClient; totals: UsageTotals } {
  const totals: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, responses: 0 };
  const model: ModelClient = {
    ...client,
    call: async (request, hooks) => {
      const response = await client.call(request, hooks);
      totals.responses++;
      totals.inputTokens += response.usage.inputTokens ?? 0;
      totals.outputTokens += response.usage.outputTokens ?? 0;
      totals.cachedInputTokens += response.cachedInputTokens ?? 0;
      return response;
    },
  };
  return { model, totals };
}
