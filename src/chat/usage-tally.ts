// Tokens and cost of the model requests one `ptc chat` process made, by model: what the status line
// and `/cost` show (docs/chat.md). Cost only for models the catalog prices.

import { costOf, modelInfo } from '../llm/model-catalog.js';

export interface ModelUsage {
  /** `provider:id`, as the chat names the model. */
  readonly label: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD; undefined when the catalog has no price for the model. */
  readonly cost: number | undefined;
}

export class UsageTally {
  private readonly byLabel = new Map<string, { modelId: string; inputTokens: number; outputTokens: number }>();

  /** Adds one turn's usage of the model `label` (whose id without provider is `modelId`). */
  add(label: string, modelId: string, usage: { readonly inputTokens: number; readonly outputTokens: number }): void {
    const row = this.byLabel.get(label) ?? { modelId, inputTokens: 0, outputTokens: 0 };
    row.inputTokens += usage.inputTokens;
    row.outputTokens += usage.outputTokens;
    this.byLabel.set(label, row);
  }

  /** One row per model used, in first-use order. */
  rows(): ModelUsage[] {
    return [...this.byLabel].map(([label, row]) => {
      const info = modelInfo(row.modelId);
      return { label, inputTokens: row.inputTokens, outputTokens: row.outputTokens, cost: info === undefined ? undefined : costOf(info, row.inputTokens, row.outputTokens) };
    });
  }

  /** Sums over every model; cost undefined when any model used has no price (a partial sum would mislead). */
  total(): { inputTokens: number; outputTokens: number; cost: number | undefined } {
    const rows = this.rows();
    const sum = (f: (r: ModelUsage) => number) => rows.reduce((n, r) => n + f(r), 0);
    const priced = rows.every((r) => r.cost !== undefined);
    return { inputTokens: sum((r) => r.inputTokens), outputTokens: sum((r) => r.outputTokens), cost: priced && rows.length > 0 ? sum((r) => r.cost ?? 0) : undefined };
  }
}

/** `1234` → `1.2k`, `2500000` → `2.5M`: token counts for one line. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** USD with enough digits to see a cent's fraction: `$0.0031`, `$1.24`. */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** The `/cost` table: one line per model, and a total when more than one was used. */
export function formatCostTable(tally: UsageTally): string[] {
  const rows = tally.rows();
  if (rows.length === 0) return ['No model requests yet in this chat.'];
  const line = (label: string, input: number, output: number, cost: number | undefined) =>
    `  ${label.padEnd(32)} ${formatTokens(input).padStart(7)} in ${formatTokens(output).padStart(7)} out  ${cost === undefined ? 'no price known' : formatCost(cost)}`;
  const lines = ['Tokens and cost of this chat, by model:', ...rows.map((r) => line(r.label, r.inputTokens, r.outputTokens, r.cost))];
  if (rows.length > 1) {
    const t = tally.total();
    lines.push(line('total', t.inputTokens, t.outputTokens, t.cost));
  }
  return lines;
}
