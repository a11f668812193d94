import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import type { SessionEvent } from '../session/events.js';
import { budgetLeft, describeBudgetLeft, goalStateOf, parseDuration } from './goal-state.js';

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

const log: SessionEvent[] = [
  { type: 'session/start', ts: at(0), sessionId: 's', preset: 'p', cwd: '/w', model: 'm', mode: 'native' },
  { type: 'goal/set', ts: at(0), objective: 'green tests', check: 'npm test', budget: { maxRounds: 3, maxTokens: 1000, maxTimeMs: 60_000 } },
  { type: 'goal/round', ts: at(1), round: 1, left: { rounds: 3, tokens: 1000, timeMs: 60_000 } },
  { type: 'llm/response', ts: at(3), step: 1, text: '', toolCalls: [], usage: { totalTokens: 100 } },
  { type: 'goal/check', ts: at(5), round: 1, command: 'npm test', exitCode: 1, passed: false, output: 'FAIL' },
  { type: 'goal/round', ts: at(10), round: 2, left: { rounds: 2, tokens: 900, timeMs: 56_000 } },
  { type: 'llm/response', ts: at(12), step: 2, text: '', toolCalls: [], usage: { inputTokens: 30, outputTokens: 20 } },
];

describe('goalStateOf', () => {
  it('reads the open goal, its last round, the tokens and the time of its rounds', () => {
    const state = goalStateOf(log)!;
    expect(state).toMatchObject({ open: true, lastRound: 2, lastCheck: undefined, tokensUsed: 150, timeUsedMs: 6_000 });
    expect(state.spec).toEqual({ objective: 'green tests', check: 'npm test', budget: { maxRounds: 3, maxTokens: 1000, maxTimeMs: 60_000 } });
    // Round 1 alone: its failed check is the latest.
    expect(goalStateOf(log.slice(0, 5))!.lastCheck).toMatchObject({ round: 1, passed: false });
  });

  it('is closed after goal/met or goal/abandoned, and absent without goal/set', () => {
    expect(goalStateOf([...log, { type: 'goal/met', ts: at(20), round: 2, evidence: 'e' }])!.open).toBe(false);
    expect(goalStateOf([...log, { type: 'goal/abandoned', ts: at(20), round: 2, reason: 'max-rounds', message: 'm' }])!.open).toBe(false);
    expect(goalStateOf(log.slice(0, 1))).toBeUndefined();
  });

  it('states what is left of the budget', () => {
    const left = budgetLeft({ maxRounds: 3, maxTokens: 1000, maxTimeMs: 60_000 }, 2, 150, 6_000);
    expect(left).toEqual({ rounds: 2, tokens: 850, timeMs: 54_000 });
    expect(describeBudgetLeft(left)).toBe('2 rounds (this one included), 850 tokens, 54s of time');
  });
});

describe('parseDuration', () => {
  it('takes units, combinations and bare seconds', () => {
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('45')).toBe(45_000);
  });

  it.each(['', '0s', 'soon', '5 minutes', '10x', '-5s'])('refuses %j with CONFIG naming the flag and the forms', (text) => {
    let caught: unknown;
    try {
      parseDuration(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HarnessError);
    expect((caught as HarnessError).code).toBe('CONFIG');
    expect((caught as HarnessError).message).toMatch(/--max-time.*90s, 30m/);
  });
});
