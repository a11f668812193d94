// Counts what the provider reports for each model response of one run, including cached input
// tokens, which the agent loop's own usage sums leave out: the language model is wrapped with a
// middleware that reads the `finish` part of every stream. docs/eval.md, "Results".

import { wrapLanguageModel, type LanguageModel } from 'ai';

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  responses: number;
}

type ModelObject = Exclude<LanguageModel, string>;

/** Wraps a model; `totals` grows as responses finish. */
export function tapUsage(model: ModelObject): { model: ModelObject; totals: UsageTotals } {
  const totals: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, responses: 0 };
  const wrapped = wrapLanguageModel({
    model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
    middleware: {
      specificationVersion: 'v3',
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type === 'finish') {
                totals.responses++;
                totals.inputTokens += part.usage.inputTokens.total ?? 0;
                totals.outputTokens += part.usage.outputTokens.total ?? 0;
                totals.cachedInputTokens += part.usage.inputTokens.cacheRead ?? 0;
              }
              controller.enqueue(part);
            },
          }),
        );
        return { ...result, stream };
      },
    },
  });
  return { model: wrapped, totals };
}
