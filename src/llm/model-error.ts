// One clear line for a failed model call, and whether trying again could help.

import { APICallError, AISDKError, LoadAPIKeyError, RetryError } from 'ai';
import { HarnessError } from '../errors.js';
import { MAX_DETAIL_CHARS } from './limits.js';

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
  /** `openai-compatible` when the URL came from `--base-url`; says which flag moves it. */
  readonly provider?: string;
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

/** Connection failures that are almost always configuration (nothing listening, no such host, a bad certificate): fail fast. */
const REFUSED = 'nothing is listening there — is the server running and the port right?';
const BAD_CERTIFICATE = 'the TLS certificate was not accepted — check the URL (https to the right host), or the server\'s certificate.';
const NETWORK_HINTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: REFUSED,
  ConnectionRefused: REFUSED,
  ENOTFOUND: 'the host name does not resolve (DNS) — check the URL.',
  EHOSTUNREACH: 'no route to that host — check the URL and the network.',
  ENETUNREACH: 'the network is unreachable — check the connection.',
  EPROTO: 'the TLS handshake failed — is it an http:// server addressed as https://?',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the TLS handshake failed — is it an http:// server addressed as https://?',
  CERT_HAS_EXPIRED: BAD_CERTIFICATE,
  DEPTH_ZERO_SELF_SIGNED_CERT: BAD_CERTIFICATE,
  SELF_SIGNED_CERT_IN_CHAIN: BAD_CERTIFICATE,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: BAD_CERTIFICATE,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: BAD_CERTIFICATE,
  ERR_TLS_CERT_ALTNAME_INVALID: BAD_CERTIFICATE,
};

/** What the transient codes mean, for the message (the code alone says little to most users). */
const TRANSIENT_MEANING: Readonly<Record<string, string>> = {
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  ECONNRESET: 'connection reset',
  EAI_AGAIN: 'DNS lookup failed for now',
};

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

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

function where(context: ModelErrorContext, error: APICallError | undefined): string {
  const url = context.baseUrl ?? error?.url;
  if (url === undefined) return 'the model server';
  try {
    const parsed = new URL(url);
    // The port always shown: "nothing is listening" is about a host *and* a port.
    const port = parsed.port || DEFAULT_PORTS[parsed.protocol] || '';
    return `the model server at ${parsed.protocol}//${parsed.hostname}${port !== '' ? `:${port}` : ''}`;
  } catch {
    return `the model server at ${url}`;
  }
}

/** The innermost message of the cause chain: undici's `fetch failed` says nothing, its cause does. */
function innermostMessage(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  let message: string | undefined;
  while (isRecord(current) && !seen.has(current)) {
    seen.add(current);
    if (typeof current.message === 'string' && current.message.trim() !== '') message = current.message;
    current = current.cause;
  }
  return message;
}

/** Which flag moves the URL: `--base-url` for an OpenAI-compatible server, else the provider in `--model`. */
function urlFix(context: ModelErrorContext): string {
  if (context.provider === 'openai-compatible') return 'Change the URL with --base-url <url>.';
  if (context.provider !== undefined) return 'Check the network, or choose another model with --model <provider>:<id> (or --base-url <url> for an OpenAI-compatible server).';
  return 'Check --base-url and --model.';
}

function describeNetwork(error: unknown, context: ModelErrorContext, apiError: APICallError | undefined): ModelErrorDescription {
  const code = findErrorCode(error);
  const target = where(context, apiError);
  const hint = code !== undefined ? NETWORK_HINTS[code] : undefined;
  if (hint !== undefined) return { message: `Could not reach ${target} (${code}): ${hint} ${urlFix(context)}`, retryable: false };
  const meaning = code !== undefined ? TRANSIENT_MEANING[code] : undefined;
  const detail = code !== undefined ? (meaning !== undefined ? `${code}: ${meaning}` : code) : oneLine(innermostMessage(error) ?? String(error));
  return {
    message: `The connection to ${target} failed (${detail}). ${urlFix(context)}`,
    retryable: code !== undefined && TRANSIENT_NETWORK_CODES.has(code),
  };
}

/** undici's bare `TypeError: fetch failed`, whatever its cause says. */
function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
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
  if (isFetchFailure(unwrapped) || (code !== undefined && (TRANSIENT_NETWORK_CODES.has(code) || Object.hasOwn(NETWORK_HINTS, code)))) {
    return describeNetwork(unwrapped, context, undefined);
  }
  if (unwrapped instanceof Error) return { message: oneLine(unwrapped.message || unwrapped.name), retryable: false };
  return { message: oneLine(String(unwrapped)), retryable: false };
}
