import { describe, expect, it } from 'vitest';
import { settledWithin, withTimeout } from './bounded.js';

describe('bounded waits', () => {
  it('passes a value or an error through when the promise settles in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1_000, 'late')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('refused')), 1_000, 'late')).rejects.toThrow('refused');
    expect(await settledWithin(Promise.reject(new Error('refused')), 1_000)).toBe(true);
  });

  it('gives up on a promise that never settles', async () => {
    const never = new Promise<never>(() => {});
    await expect(withTimeout(never, 10, 'no answer within 10 ms')).rejects.toThrow('no answer within 10 ms');
    expect(await settledWithin(never, 10)).toBe(false);
  });
});
