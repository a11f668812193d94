// One clear line for a failed model call, and whether trying again could help.

import { APICallError, AISDKError, LoadAPIKeyError, RetryError } from 'ai';
import { HarnessError } from '../errors.js';

export interface ModelErrorDescription {
  /** One line for users: what happened and what to check. */
  readonly message: string;
  /** The HTTP status of the failed request, when the server answered. */
  readonly status?: number;
  /** True for failures a later attempt may not hit: HTTP 408, 429 (not an exhausted quota), 5xx, a dropped connection. */
  readonly retryable: boolean;
}

/** What the message may point to; a `ResolvedModel` fits. */
export interface ModelErrorContext {
  /** The variable the key came from, e.g. `DEEPSEEK_API_KEY`. */
  readonly apiKeyVar?: string;
  /** False when no key was sent (a `--base-url` server without `PTC_API_KEY`). */
  readonly hasApiKey?: boolean;
  /** The API root, named when the server cannot be reached. */
  readonly baseUrl?: string;
}

/** Connection failures worth another attempt: the peer dropped us or timed out. */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ConnectionClosed',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Connection failures that are almost always configuration (nothing listening, no such host): fail fast. */
const NETWORK_HINTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing is listening there — is the server running and the port right?',
  ConnectionRefused: 'nothing is listening there — is the server running and the port right?',
  ENOTFOUND: 'the host name does not resolve — check the URL.',
};

const MAX_DETAIL_CHARS = 300;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS - 1)}…` : flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The `code` of the first error in the cause chain that has a string one (Node and undici network codes). */
function findErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (isRecord(current) && !seen.has(current)) {
    seen.add(current);
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

function isAbort(error: unknown): boolean {
  if (error instanceof HarnessError) return error.code === 'ABORTED';
  return isRecord(error) && (error.name === 'AbortError' || error.name === 'ResponseAborted');
}

/** The server's own error text: `{"error":{"message":…}}` (OpenAI, DeepSeek, Anthropic), else the raw body. */
function serverDetail(error: APICallError): string | undefined {
  const fromData = (data: unknown): string | undefined => {
    if (!isRecord(data)) return undefined;
    const inner = data.error;
    if (isRecord(inner) && typeof inner.message === 'string') return inner.message;
    if (typeof inner === 'string') return inner;
    return typeof data.message === 'string' ? data.message : undefined;
  };
  const body = error.responseBody;
  let parsed: unknown;
  if (body !== undefined && body.trim() !== '') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  const text = fromData(error.data) ?? fromData(parsed) ?? (parsed === undefined && body?.trim() ? body : undefined);
  return text !== undefined && text.trim() !== '' ? oneLine(text) : undefined;
}

function errorCodeOf(error: APICallError): string | undefined {
  const pick = (data: unknown): string | undefined => {
    if (!isRecord(data) || !isRecord(data.error)) return undefined;
    const { code, type } = data.error;
    return typeof code === 'string' ? code : typeof type === 'string' ? type : undefined;
  };
  let parsed: unknown;
  try {
    parsed = error.responseBody ? JSON.parse(error.responseBody) : undefined;
  } catch {
    parsed = undefined;
  }
  return pick(error.data) ?? pick(parsed);
}

function where(context: ModelErrorContext, error: APICallError | undefined): string {
  const url = context.baseUrl ?? error?.url;
  if (url === undefined) return 'the model server';
  try {
    return `the model server at ${new URL(url).origin}`;
  } catch {
    return `the model server at ${url}`;
  }
}

function describeNetwork(error: unknown, context: ModelErrorContext, apiError: APICallError | undefined): ModelErrorDescription {
  const code = findErrorCode(error);
  const target = where(context, apiError);
  const hint = code !== undefined ? NETWORK_HINTS[code] : undefined;
  if (hint !== undefined) return { message: `Could not reach ${target} (${code}): ${hint}`, retryable: false };
  const detail = code ?? oneLine(error instanceof Error ? error.message : String(error));
  return {
    message: `The connection to ${target} failed (${detail}).`,
    retryable: code !== undefined && TRANSIENT_NETWORK_CODES.has(code),
  };
}

function describeBrokenAnswer(error: APICallError, context: ModelErrorContext): ModelErrorDescription {
  const code = findErrorCode(error);
  const cause = code ?? oneLine(error.cause instanceof Error ? error.cause.message : error.message);
  return {
    message: `The answer from ${where(context, error)} broke off mid-stream (${cause}).`,
    retryable: code !== undefined && TRANSIENT_NETWORK_CODES.has(code),
  };
}

function keyAdvice(context: ModelErrorContext): string {
  if (context.apiKeyVar === undefined) return 'check the API key.';
  if (context.hasApiKey === false) return `the server wants a key: set ${context.apiKeyVar}.`;
  return `check ${context.apiKeyVar}.`;
}

function describeHttp(error: APICallError, status: number, context: ModelErrorContext): ModelErrorDescription {
  const detail = serverDetail(error);
  const said = detail !== undefined ? `: ${detail}` : '';
  const http = `HTTP ${status}`;
  if (status === 401) {
    return { status, retryable: false, message: `The model server rejected the API key (${http}) — ${keyAdvice(context)}` };
  }
  if (status === 403) {
    return {
      status,
      retryable: false,
      message: `The model server refused the request (${http})${said} — check that the key in ${context.apiKeyVar ?? 'your environment'} may use this model.`,
    };
  }
  if (status === 402) {
    return { status, retryable: false, message: `The model provider reports no credit left (${http})${said} — check the account's balance.` };
  }
  if (status === 404) {
    return {
      status,
      retryable: false,
      message: `The model server answered ${http}${said} — check the model id and the base URL (OpenAI-compatible servers usually end in /v1).`,
    };
  }
  if (status === 429) {
    // OpenAI answers 429 also for an exhausted quota, which no wait fixes.
    if (errorCodeOf(error) === 'insufficient_quota') {
      return { status, retryable: false, message: `The model provider reports the quota is used up (${http})${said} — check the account's plan and billing.` };
    }
    return { status, retryable: true, message: `The model server is rate-limiting requests (${http})${said}.` };
  }
  if (status === 408) return { status, retryable: true, message: `The model server timed out the request (${http})${said}.` };
  if (status >= 500) return { status, retryable: true, message: `The model server failed (${http})${said}.` };
  if (status === 400 || status === 422) {
    return { status, retryable: false, message: `The model server rejected the request (${http})${said}.` };
  }
  return { status, retryable: false, message: `The model server answered ${http}${said}.` };
}

/**
 * Turns a failed model call (AI SDK `APICallError`, `RetryError`, a network or abort error, anything)
 * into one line for users plus whether it is worth retrying. Never throws.
 */
export function describeModelError(error: unknown, context: ModelErrorContext = {}): ModelErrorDescription {
  const unwrapped = RetryError.isInstance(error) ? error.lastError : error;
  if (isAbort(unwrapped)) return { message: 'The model call was aborted.', retryable: false };
  if (isRecord(unwrapped) && unwrapped.name === 'TimeoutError') return { message: 'The model call timed out.', retryable: false };
  if (APICallError.isInstance(unwrapped)) {
    const status = unwrapped.statusCode;
    if (status === undefined) return describeNetwork(unwrapped, context, unwrapped);
    // A 2xx here means the answer started and then broke (a torn stream, an unreadable chunk).
    if (status < 300) return describeBrokenAnswer(unwrapped, context);
    return describeHttp(unwrapped, status, context);
  }
  if (LoadAPIKeyError.isInstance(unwrapped)) return { message: oneLine(unwrapped.message), retryable: false };
  if (AISDKError.isInstance(unwrapped)) {
    return { message: `The model server sent a response that could not be used: ${oneLine(unwrapped.message)}`, retryable: false };
  }
  const code = findErrorCode(unwrapped);
  if (code !== undefined && (TRANSIENT_NETWORK_CODES.has(code) || Object.hasOwn(NETWORK_HINTS, code))) {
    return describeNetwork(unwrapped, context, undefined);
  }
  if (unwrapped instanceof Error) return { message: oneLine(unwrapped.message || unwrapped.name), retryable: false };
  return { message: oneLine(String(unwrapped)), retryable: false };
}
