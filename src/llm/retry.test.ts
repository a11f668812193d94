import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { AbortedError } from '../errors.js';
import { LLM_MAX_RETRIES, LLM_RETRY_BASE_MS, LLM_RETRY_MAX_MS } from '../limits.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, withModelRetry, type RetryEvent } from './retry.js';

function httpError(statusCode: number, responseHeaders?: Record<string, string>): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1:1/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    ...(responseHeaders !== undefined ? { responseHeaders } : {}),
  });
}

const FAST = { baseDelayMs: 0, maxDelayMs: 0 };

describe('retryDelayMs', () => {
  const policy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000 };

  it('doubles from the base and stops at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, httpError(500), policy))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('honours retry-after seconds, retry-after-ms and an HTTP date, capped at the maximum', () => {
    expect(retryDelayMs(1, httpError(429, { 'retry-after': '3' }), policy)).toBe(3000);
    expect(retryDelayMs(1, httpError(429, { 'retry-after': '0' }), policy)).toBe(0);
    expect(retryDelayMs(1, httpError(429, { 'retry-after': '120' }), policy)).toBe(8000);
    expect(retryDelayMs(1, httpError(429, { 'retry-after-ms': '250', 'retry-after': '9' }), policy)).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryDelayMs(1, httpError(503, { 'retry-after': 'Wed, 01 Jan 2025 00:00:02 GMT' }), policy, now)).toBe(2000);
    expect(retryDelayMs(2, httpError(503, { 'retry-after': 'soon' }), policy)).toBe(1000);
  });

  it('uses the named limits by default', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxRetries: LLM_MAX_RETRIES, baseDelayMs: LLM_RETRY_BASE_MS, maxDelayMs: LLM_RETRY_MAX_MS });
  });
});

describe('withModelRetry', () => {
  it('returns the first success', async () => {
    const attempts: number[] = [];
    const value = await withModelRetry(async ({ attempt }) => {
      attempts.push(attempt);
      if (attempt < 3) throw httpError(attempt === 1 ? 503 : 429);
      return 'ok';
    }, { policy: FAST });
    expect(value).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('stops after maxRetries and rethrows the last error unchanged', async () => {
    const errors = [httpError(500), httpError(502), httpError(503), httpError(504), httpError(500)];
    let calls = 0;
    const thrown = await withModelRetry(async () => {
      throw errors[calls++];
    }, { policy: FAST }).catch((error: unknown) => error);
    expect(calls).toBe(LLM_MAX_RETRIES + 1);
    expect(thrown).toBe(errors[LLM_MAX_RETRIES]);
  });

  it.each([400, 401, 403, 404, 422])('does not retry HTTP %i', async (status) => {
    let calls = 0;
    await expect(
      withModelRetry(async () => {
        calls++;
        throw httpError(status);
      }, { policy: FAST }),
    ).rejects.toMatchObject({ statusCode: status });
    expect(calls).toBe(1);
  });

  it('does not retry an error that is not a model call failure', async () => {
    let calls = 0;
    await expect(
      withModelRetry(async () => {
        calls++;
        throw new TypeError('bug in the caller');
      }, { policy: FAST }),
    ).rejects.toThrow('bug in the caller');
    expect(calls).toBe(1);
  });

  it('does not retry once the attempt marked output as started', async () => {
    let calls = 0;
    await expect(
      withModelRetry(async ({ markOutputStarted }) => {
        calls++;
        markOutputStarted();
        throw httpError(500);
      }, { policy: FAST }),
    ).rejects.toMatchObject({ statusCode: 500 });
    expect(calls).toBe(1);
  });

  it('reports each retry with its delay and description', async () => {
    const events: RetryEvent[] = [];
    await withModelRetry(async ({ attempt }) => {
      if (attempt === 1) throw httpError(429, { 'retry-after': '0' });
      return undefined;
    }, { policy: { baseDelayMs: 5, maxDelayMs: 5 }, onRetry: (event) => events.push(event) });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, delayMs: 0, description: { status: 429, retryable: true } });
  });

  it('does not start when the signal is already aborted', async () => {
    let calls = 0;
    const controller = new AbortController();
    controller.abort();
    await expect(withModelRetry(async () => calls++, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(calls).toBe(0);
  });

  it('rejects a policy that is not a non-negative integer', async () => {
    await expect(withModelRetry(async () => 1, { policy: { maxRetries: -1 } })).rejects.toThrow(RangeError);
    await expect(withModelRetry(async () => 1, { policy: { baseDelayMs: 0.5 } })).rejects.toThrow(RangeError);
  });
});
