// One HTTP exchange with a search service, shared by the backends: the answer read with a byte cap,
// JSON parsed with an error that names the backend and the URL, network failures and rate limits
// turned into messages that say what to do. Deadlines and aborts belong to the caller's signal
// (web-search-tool.ts), so an aborted request is rethrown untouched for the tool to name.

import { ToolFailedError } from '../../errors.js';
import { MAX_WEB_SEARCH_RESPONSE_BYTES, WEB_SEARCH_BODY_EXCERPT_CHARS, WEB_SEARCH_ERROR_DETAIL_CHARS } from './limits.js';
import type { WebSearchBackendName } from './backend.js';

export interface BackendAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: string;
}

const USER_AGENT = 'ptc-harness-web-search';

/** Sends the request and reads the whole answer (up to MAX_WEB_SEARCH_RESPONSE_BYTES). */
export async function exchange(backend: WebSearchBackendName, url: URL, init: RequestInit, signal: AbortSignal): Promise<BackendAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal, redirect: 'follow', headers: { 'user-agent': USER_AGENT, accept: 'application/json', ...init.headers } });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ToolFailedError(
      `web_search could not reach the ${backend} backend at ${redactedHref(url)}: ${networkCause(error)}. ` +
        `Check that the service is running and that webSearch.url in the ptc config file (ptc config) points at it.`,
    );
  }
  const body = await readCapped(backend, url, response, signal);
  return { status: response.status, statusText: response.statusText, headers: response.headers, body };
}

/** The answer's JSON; TOOL_FAILED naming the backend and URL when it is not JSON. */
export function parseJson(backend: WebSearchBackendName, url: URL, answer: BackendAnswer): unknown {
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    const excerpt = answer.body.slice(0, WEB_SEARCH_BODY_EXCERPT_CHARS).replace(/\s+/g, ' ').trim();
    throw new ToolFailedError(
      `The ${backend} backend at ${redactedHref(url)} answered HTTP ${answer.status} with a body that is not JSON` +
        `${excerpt ? ` (it begins: ${excerpt})` : ' (it was empty)'}. Check that webSearch.url points at a ${backend} ` +
        `search API and not at a web page or a proxy's error page.`,
    );
  }
}

/** The rate-limit error: names the wait the service asked for (Retry-After, else X-RateLimit-Reset). */
export function rateLimited(backend: WebSearchBackendName, url: URL, answer: BackendAnswer, detail = ''): ToolFailedError {
  const wait = retryAfterSeconds(answer.headers);
  const when = wait === undefined ? 'wait a little before searching again' : `retry after ${wait} s (the service's retry-after)`;
  return new ToolFailedError(
    `The ${backend} backend at ${redactedHref(url)} is rate limiting this client (HTTP 429${detail ? `: ${detail}` : ''}); ${when}, ` +
      `make fewer searches at once, or raise the plan's limit with the service.`,
  );
}

/** Seconds to wait: `Retry-After` (seconds or an HTTP date), else the first window of `X-RateLimit-Reset`. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  // Brave sends one value per window ("1, 1419704": per second, per month); the shortest comes first.
  const reset = headers.get('x-ratelimit-reset')?.split(',')[0]?.trim();
  return reset !== undefined && /^\d+$/.test(reset) ? Number(reset) : undefined;
}

/** The URL without its query (which holds the search and could hold a key). */
export function redactedHref(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** A short quote of an error answer: its JSON's message fields, else its first characters. */
export function errorDetail(answer: BackendAnswer): string {
  try {
    const value = JSON.parse(answer.body) as { error?: { detail?: unknown; code?: unknown } | unknown; message?: unknown; detail?: unknown };
    const inner = typeof value.error === 'object' && value.error !== null ? (value.error as { detail?: unknown; code?: unknown }) : undefined;
    const parts = [inner?.code, inner?.detail, typeof value.error === 'string' ? value.error : undefined, value.message, value.detail].filter(
      (p): p is string => typeof p === 'string' && p.trim() !== '',
    );
    if (parts.length > 0) return parts.join(': ').slice(0, WEB_SEARCH_ERROR_DETAIL_CHARS);
  } catch {
    // Not JSON: quote the text.
  }
  return answer.body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, WEB_SEARCH_ERROR_DETAIL_CHARS);
}

async function readCapped(backend: WebSearchBackendName, url: URL, response: Response, signal: AbortSignal): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_WEB_SEARCH_RESPONSE_BYTES) {
        await reader.cancel();
        throw new ToolFailedError(
          `The ${backend} backend at ${redactedHref(url)} sent more than ${MAX_WEB_SEARCH_RESPONSE_BYTES} bytes; ` +
            `a search answer is far smaller, so webSearch.url probably points at something other than its search API.`,
        );
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ToolFailedError || signal.aborted) throw error;
    throw new ToolFailedError(`The ${backend} backend at ${redactedHref(url)} broke off its answer: ${networkCause(error)}. Try again.`);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

function networkCause(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
