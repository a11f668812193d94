// The `web_fetch` tool: one http(s) URL -> its text, HTML converted to markdown-ish text
// (docs/web-tools.md). Runs on the host, so it is gated by the harness's policy: without network
// (`--allow-net`) it refuses before any connection is made. Bounded in time, bytes, characters and
// redirects; holds no state between calls, so calls may overlap.

import { AbortedError, ConfigError, HarnessError, InvalidArgsError, ToolFailedError } from '../errors.js';
import { networkCall } from './network-call.js';
import { BINARY_SNIFF_BYTES, MAX_WEB_FETCH_BYTES, MAX_WEB_FETCH_CHARS, MAX_WEB_FETCH_REDIRECTS, WEB_FETCH_ERROR_EXCERPT_CHARS, WEB_FETCH_TIMEOUT_MS, WEB_FETCH_CHARSET_SNIFF_BYTES } from './limits.js';
import type { WorkspacePolicy } from '../sandbox/index.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { looksBinary } from './fs-errors.js';
import { htmlToText } from './html-to-text.js';

type Contract = typeof import('./contracts/web-fetch.js');
export type WebFetchArgs = ArgsOf<Contract>;
export type WebFetchOutput = ValueOf<Contract>;

export interface WebFetchToolOptions {
  /** The harness's one policy; `network: false` denies every call. */
  readonly policy: WorkspacePolicy;
  /** Deadline of one call, redirects and body included (default WEB_FETCH_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Body bytes read at most (default MAX_WEB_FETCH_BYTES). */
  readonly maxBytes?: number;
  /** Characters of text returned at most (default MAX_WEB_FETCH_CHARS). */
  readonly maxChars?: number;
  /** Redirects followed at most (default MAX_WEB_FETCH_REDIRECTS). */
  readonly maxRedirects?: number;
}

export const WEB_FETCH_DESCRIPTION =
  'Fetch an http or https URL and return its content as text. HTML pages are converted to readable ' +
  'markdown (headings, paragraphs, [links](url), lists, code blocks, tables; scripts and styles dropped) ' +
  'unless `raw` is true; JSON and plain text come back as they are. Redirects are followed. A long ' +
  'page is cut and marked truncated. An answer other than HTTP 2xx is an error. Needs network access ' +
  '(the user passes --allow-net).';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'ptc-harness-web-fetch';
const ACCEPT = 'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5';

export function createWebFetchTool(options: WebFetchToolOptions): ToolDefinition<WebFetchArgs, WebFetchOutput> {
  const limits = {
    timeoutMs: positiveInteger('timeoutMs', options.timeoutMs, WEB_FETCH_TIMEOUT_MS),
    maxBytes: positiveInteger('maxBytes', options.maxBytes, MAX_WEB_FETCH_BYTES),
    maxChars: positiveInteger('maxChars', options.maxChars, MAX_WEB_FETCH_CHARS),
    maxRedirects: positiveInteger('maxRedirects', options.maxRedirects, MAX_WEB_FETCH_REDIRECTS, 0),
  };
  const { policy } = options;
  return defineTool<WebFetchArgs, WebFetchOutput>({
    name: 'web_fetch',
    description: WEB_FETCH_DESCRIPTION,
    ...contractSchemas('web-fetch', () => import('./contracts/web-fetch.js')),
    isConcurrencySafe: true,
    async execute(args, exec) {
      const start = parseHttpUrl(args.url);
      return networkCall(
        'web_fetch',
        policy.network,
        exec,
        limits.timeoutMs,
        (signal) => fetchText(start, args.raw === true, signal, limits),
        (error, end) => {
          if (end.aborted) return new AbortedError(`web_fetch of ${start.href} was aborted.`);
          if (end.timedOut) {
            return new HarnessError('TIMEOUT', `web_fetch of ${start.href} did not finish within ${limits.timeoutMs} ms; try again later or fetch a smaller page.`);
          }
          if (error instanceof HarnessError) return error;
          return new ToolFailedError(`web_fetch could not fetch ${start.href}: ${describeNetworkError(error)}.`);
        },
      );
    },
    renderContent(value) {
      const header = `${value.url} (HTTP ${value.status}${value.contentType ? `, ${value.contentType}` : ''})`;
      const body = value.content === '' ? '(empty)' : value.content;
      const note = value.truncated
        ? `\n\n[Truncated: web_fetch reads at most ${limits.maxBytes} bytes of a page and returns at most ` +
          `${limits.maxChars} characters of text; fetch a more specific URL for the rest.]`
        : '';
      return `${header}\n\n${body}${note}`;
    },
  });
}

type Limits = { timeoutMs: number; maxBytes: number; maxChars: number; maxRedirects: number };

function positiveInteger(name: string, given: number | undefined, fallback: number, min = 1): number {
  if (given === undefined) return fallback;
  if (!Number.isSafeInteger(given) || given < min) {
    throw new ConfigError(`createWebFetchTool: ${name} must be an integer of at least ${min}, got ${String(given)}.`);
  }
  return given;
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidArgsError(`web_fetch: "${text}" is not an absolute URL. Pass a full URL such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgsError(`web_fetch fetches only http and https URLs, not ${url.protocol.slice(0, -1)}. Use read for local files.`);
  }
  return url;
}

async function fetchText(start: URL, raw: boolean, signal: AbortSignal, limits: Limits): Promise<WebFetchOutput> {
  const { response, url } = await followRedirects(start, signal, limits.maxRedirects);
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status < 200 || response.status > 299) {
    const { bytes } = await readCapped(response, limits.maxBytes);
    const excerpt = toText(bytes, contentType, url.href, false).slice(0, WEB_FETCH_ERROR_EXCERPT_CHARS).trim();
    throw new ToolFailedError(
      `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${url.href}.` +
        (excerpt ? ` The page begins: ${excerpt.replace(/\s+/g, ' ')}` : ''),
    );
  }
  const body = await readCapped(response, limits.maxBytes);
  const content = toText(body.bytes, contentType, url.href, raw);
  const cut = cutText(content, limits.maxChars);
  return { url: url.href, status: response.status, contentType, content: cut, truncated: body.truncated || cut.length < content.length };
}

async function followRedirects(start: URL, signal: AbortSignal, maxRedirects: number): Promise<{ response: Response; url: URL }> {
  let url = start;
  for (let hops = 0; ; hops++) {
    const response = await fetch(url, { redirect: 'manual', signal, headers: { 'user-agent': USER_AGENT, accept: ACCEPT } });
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (location === null) return { response, url };
    await response.body?.cancel();
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolFailedError(`${url.href} redirected to "${location}", which is not a valid URL.`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new ToolFailedError(`${url.href} redirected to ${next.href}; web_fetch follows only http and https redirects.`);
    }
    if (hops >= maxRedirects) {
      throw new ToolFailedError(
        `${start.href} redirected more than ${maxRedirects} times (the last hop was to ${next.href}); ` +
          `fetch the final URL directly if you know it.`,
      );
    }
    url = next;
  }
}

/** Reads the body up to `maxBytes`, then stops reading (the connection is cancelled). */
async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - total));
      total = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.length;
  }
  return { bytes: Buffer.concat(chunks, total), truncated };
}

/** Decodes the body by its charset and converts HTML; refuses bodies that are not text. */
function toText(bytes: Uint8Array, contentType: string, url: string, raw: boolean): string {
  const mime = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const textual = mime.startsWith('text/') || /[/+](json|xml|javascript|ecmascript|yaml|x-yaml|csv|x-www-form-urlencoded)$/.test(mime);
  if (!textual && looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) {
    throw new ToolFailedError(`${url} is ${mime || 'binary content'}, not text; web_fetch returns only text, HTML and JSON.`);
  }
  const text = decode(bytes, charsetOf(contentType) ?? (mime === 'text/html' || mime === '' ? metaCharset(bytes) : undefined));
  const html = mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && /^\s*<(!doctype html|html)/i.test(text));
  return html && !raw ? htmlToText(text, url) : text;
}

function charsetOf(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1];
}

/** A `<meta charset>` (or http-equiv content type) declared near the top of an HTML body. */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, WEB_FETCH_CHARSET_SNIFF_BYTES)).toString('latin1');
  return /<meta[^>]{0,200}?charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  // `stream: true` leaves a character cut by the byte cap out instead of decoding it as U+FFFD.
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes, { stream: true });
  } catch {
    // An unknown charset label: UTF-8 is the best guess on today's web.
    return new TextDecoder('utf-8').decode(bytes, { stream: true });
  }
}

/** At most `maxChars` UTF-16 units, never splitting a surrogate pair. */
function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = /[\ud800-\udbff]/.test(text[maxChars - 1] ?? '') ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/** The useful part of a fetch failure: undici puts the system error (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return `${cause.code}${typeof cause.message === 'string' ? ` (${cause.message})` : ''}`;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
