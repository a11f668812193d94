// The model service: provider resolution, the retry policy of a model call, and readable model errors.

export {
  DEFAULT_MODEL,
  resolveModel,
  type ProviderName,
  type ResolvedLanguageModel,
  type ResolvedModel,
  type ResolveModelOptions,
} from './model.js';
export { describeModelError, type ModelErrorContext, type ModelErrorDescription } from './model-error.js';
export {
  DEFAULT_RETRY_POLICY,
  SDK_CALL_SETTINGS,
  retryDelayMs,
  withModelRetry,
  type ModelAttempt,
  type ModelRetryOptions,
  type RetryEvent,
  type RetryPolicy,
} from './retry.js';
