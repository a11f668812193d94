import { describe, expect, it } from 'vitest';
import { contextPercent, statusLineText } from './status-line.js';
import { formatCostTable, formatTokens, UsageTally } from './usage-tally.js';
import { costOf, modelInfo } from '../llm/model-catalog.js';

describe('status line', () => {
  it('shows preset, model, tokens, cost and context use of a known model', () => {
    const text = statusLineText({
      preset: 'ptc', modelLabel: 'deepseek:deepseek-chat', modelId: 'deepseek-chat',
      inputTokens: 12_345, outputTokens: 678, cost: 0.0037, lastRequestTokens: 13_107, approve: 'writes',
    });
    expect(text).toBe('── preset ptc · deepseek:deepseek-chat · 12k in / 678 out · $0.0037 · context 10% of 131k · approve writes');
  });

  it('leaves out cost and context for a model the catalog does not know', () => {
    const text = statusLineText({ preset: 'minimal', modelLabel: 'openai-compatible:local', modelId: 'local', inputTokens: 10, outputTokens: 2, cost: undefined, lastRequestTokens: 12, approve: 'all' });
    expect(text).toBe('── preset minimal · openai-compatible:local · 10 in / 2 out · approve all');
  });

  it("shows context use against the meter's window (--context-window) for a model the catalog does not know", () => {
    const text = statusLineText({ preset: 'minimal', modelLabel: 'openai-compatible:local', modelId: 'local', inputTokens: 10, outputTokens: 2, cost: undefined, lastRequestTokens: 8_192, contextWindow: 32_768, approve: 'all' });
    expect(text).toBe('── preset minimal · openai-compatible:local · 10 in / 2 out · context 25% of 33k · approve all');
  });

  it('rounds context use to whole percent, at least 1 once anything is used', () => {
    expect(contextPercent(0, 1000)).toBe(0);
    expect(contextPercent(1, 1_000_000)).toBe(1);
    expect(contextPercent(500, 1000)).toBe(50);
  });
});

describe('UsageTally and the /cost table', () => {
  it('sums tokens by model and prices the known ones', () => {
    const tally = new UsageTally();
    tally.add('deepseek:deepseek-chat', 'deepseek-chat', { inputTokens: 1_000_000, outputTokens: 0 });
    tally.add('deepseek:deepseek-chat', 'deepseek-chat', { inputTokens: 0, outputTokens: 1_000_000 });
    expect(tally.rows()).toEqual([{ label: 'deepseek:deepseek-chat', inputTokens: 1_000_000, outputTokens: 1_000_000, cost: 0.28 + 0.42 }]);
    expect(tally.total().cost).toBeCloseTo(0.7);
    tally.add('openai-compatible:local', 'local', { inputTokens: 5, outputTokens: 5 });
    expect(tally.total()).toEqual({ inputTokens: 1_000_005, outputTokens: 1_000_005, cost: undefined });
    const table = formatCostTable(tally);
    expect(table[1]).toMatch(/deepseek:deepseek-chat\s+1\.0M in\s+1\.0M out\s+\$0\.70/);
    expect(table[2]).toMatch(/openai-compatible:local\s+5 in\s+5 out\s+no price known/);
    expect(table[3]).toMatch(/^\s+total/);
  });

  it('says when nothing was used yet', () => {
    expect(formatCostTable(new UsageTally())).toEqual(['No model requests yet in this chat.']);
  });

  it('formats token counts compactly', () => {
    expect([formatTokens(999), formatTokens(1234), formatTokens(56_789), formatTokens(2_500_000)]).toEqual(['999', '1.2k', '57k', '2.5M']);
  });
});

describe('model catalog', () => {
  it('knows exact ids and dated snapshots, and nothing else', () => {
    expect(modelInfo('deepseek-reasoner')?.contextWindow).toBe(131_072);
    expect(modelInfo('claude-sonnet-4-5-20250929')).toEqual(modelInfo('claude-sonnet-4-5'));
    expect(modelInfo('scripted')).toBeUndefined();
    expect(modelInfo('constructor')).toBeUndefined();
    expect(costOf(modelInfo('gpt-4o')!, 1_000_000, 1_000_000)).toBeCloseTo(12.5);
  });
});
