// The retry policy of a model call: retry a whole attempt (e.g. one `streamText` step) while nothing
// has reached the user yet; once output started, a retry would repeat it, so the error stands.

import { APICallError, RetryError } from 'ai';
import { AbortedError } from '../errors.js';
import { LLM_MAX_RETRIES, LLM_RETRY_BASE_MS, LLM_RETRY_MAX_MS } from '../limits.js';
import { describeModelError, type ModelErrorContext, type ModelErrorDescription } from './model-error.js';

export interface RetryPolicy {
  /** Attempts after the first; 0 disables retrying. */
  readonly maxRetries: number;
  /** The wait before the first retry; it doubles for each further one. */
  readonly baseDelayMs: number;
  /** The longest wait, also the cap on a server's `retry-after`. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: LLM_MAX_RETRIES,
  baseDelayMs: LLM_RETRY_BASE_MS,
  maxDelayMs: LLM_RETRY_MAX_MS,
};

/**
 * Spread into every `streamText`/`generateText` call run under `withModelRetry`: the SDK's own retry
 * loop (2 retries, 2 s doubling, `retry-after` up to 60 s) would otherwise nest inside ours.
 */
export const SDK_CALL_SETTINGS = { maxRetries: 0 } as const;

export interface ModelAttempt {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Call as soon as anything of this attempt reached the user (text, reasoning, a tool call): no retry after that. */
  markOutputStarted(): void;
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** How long the wrapper waits before the next attempt. */
  readonly delayMs: number;
  readonly error: unknown;
  readonly description: ModelErrorDescription;
}

export interface ModelRetryOptions {
  /** Overrides of DEFAULT_RETRY_POLICY (tests use tiny delays). */
  policy?: Partial<RetryPolicy>;
  /** Aborting stops waiting and prevents further attempts; the wrapper then throws `AbortedError`. */
  signal?: AbortSignal;
  /** Called before each wait, e.g. to print "retrying in 1 s (HTTP 503)". */
  onRetry?: (event: RetryEvent) => void;
  /** Lets error descriptions name the key variable and endpoint; a `ResolvedModel` fits. */
  context?: ModelErrorContext;
}

function validatedPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`retry policy ${name} must be a non-negative integer, got ${value}`);
  }
  return policy;
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** The server's requested wait in ms (`retry-after-ms`, `retry-after` seconds or HTTP date), if any. */
function requestedDelayMs(error: unknown, now: number): number | undefined {
  const source = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(source)) return undefined;
  const headers = source.responseHeaders;
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headerValue(headers, 'retry-after')?.trim();
  if (after === undefined || after === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1-based): the server's `retry-after` when it sent one,
 * else `baseDelayMs * 2^(retry-1)`; never more than `maxDelayMs`.
 */
export function retryDelayMs(retry: number, error: unknown, policy: RetryPolicy = DEFAULT_RETRY_POLICY, now = Date.now()): number {
  const requested = requestedDelayMs(error, now);
  const backoff = policy.baseDelayMs * 2 ** Math.max(0, retry - 1);
  return Math.round(Math.min(policy.maxDelayMs, requested ?? backoff));
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError('The model call was aborted.'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortedError('The model call was aborted.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `run` and repeats it after a retryable failure (see `describeModelError`) with bounded
 * exponential backoff, unless the attempt called `markOutputStarted()` or the signal was aborted.
 * The last error is rethrown unchanged; an abort seen between attempts throws `AbortedError`.
 */
export async function withModelRetry<T>(run: (attempt: ModelAttempt) => Promise<T>, options: ModelRetryOptions = {}): Promise<T> {
  const policy = validatedPolicy(options.policy);
  const { signal } = options;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new AbortedError('The model call was aborted.');
    let outputStarted = false;
    try {
      return await run({
        attempt,
        markOutputStarted: () => {
          outputStarted = true;
        },
      });
    } catch (error) {
      const description = describeModelError(error, options.context);
      const retriesUsed = attempt - 1;
      if (!description.retryable || outputStarted || signal?.aborted || retriesUsed >= policy.maxRetries) throw error;
      const delayMs = retryDelayMs(attempt, error, policy);
      options.onRetry?.({ attempt, delayMs, error, description });
      await wait(delayMs, signal);
    }
  }
}
