import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.js';
import { goalFromFlags } from './goal-flags.js';

describe('goalFromFlags', () => {
  it('builds the goal with its budget, the time parsed', () => {
    expect(goalFromFlags({ goal: 'green', goalCheck: 'npm test', maxRounds: 3, maxTokens: 500, maxTime: '2m' })).toEqual({
      goal: { objective: 'green', check: 'npm test', maxRounds: 3, maxTokens: 500, maxTimeMs: 120_000 },
    });
    expect(goalFromFlags({})).toEqual({});
  });

  it('refuses a goal flag without --goal, naming the flag and the fix', () => {
    let caught: unknown;
    try {
      goalFromFlags({ maxRounds: 2 });
    } catch (error) {
      caught = error;
    }
    expect((caught as HarnessError).code).toBe('CONFIG');
    expect((caught as HarnessError).message).toMatch(/--max-rounds only works with --goal.*add --goal/);
  });
});
