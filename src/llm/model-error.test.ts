import { APICallError, JSONParseError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { AbortedError } from '../errors.js';
import { describeModelError } from './model-error.js';

const URL_ = 'https://api.deepseek.com/chat/completions';

function httpError(statusCode: number, responseBody?: string): APICallError {
  return new APICallError({
    message: 'Request failed',
    url: URL_,
    requestBodyValues: {},
    statusCode,
    ...(responseBody !== undefined ? { responseBody } : {}),
  });
}

function networkError(code: string): APICallError {
  const cause = Object.assign(new Error('socket trouble'), { code });
  return new APICallError({
    message: `Cannot connect to API: ${cause.message}`,
    url: URL_,
    requestBodyValues: {},
    cause,
    isRetryable: true,
  });
}

const deepseek = { apiKeyVar: 'DEEPSEEK_API_KEY', hasApiKey: true, baseUrl: 'https://api.deepseek.com' };

describe('describeModelError', () => {
  it('names the key variable for a rejected key', () => {
    expect(describeModelError(httpError(401), deepseek)).toEqual({
      status: 401,
      retryable: false,
      message: 'The model server rejected the API key (HTTP 401) — check DEEPSEEK_API_KEY.',
    });
    expect(describeModelError(httpError(401), { apiKeyVar: 'PTC_API_KEY', hasApiKey: false }).message).toBe(
      'The model server rejected the API key (HTTP 401) — the server wants a key: set PTC_API_KEY.',
    );
  });

  it.each([
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [529, true],
    [400, false],
    [402, false],
    [403, false],
    [404, false],
    [409, false],
    [422, false],
  ])('HTTP %i is retryable: %s', (status, retryable) => {
    const described = describeModelError(httpError(status), deepseek);
    expect(described).toMatchObject({ status, retryable });
    expect(described.message).toContain(`HTTP ${status}`);
    expect(described.message).not.toContain('\n');
  });

  it('quotes the server\'s own message, flattened and shortened', () => {
    const body = JSON.stringify({ error: { message: `Model\n"nope" does not exist${' !'.repeat(400)}`, type: 'invalid_request_error' } });
    const { message } = describeModelError(httpError(404, body), deepseek);
    expect(message).toMatch(/^The model server answered HTTP 404: Model "nope" does not exist/);
    expect(message).toContain('check the model id and the base URL');
    expect(message.length).toBeLessThan(500);
    expect(describeModelError(httpError(500, 'upstream exploded'), deepseek).message).toBe('The model server failed (HTTP 500): upstream exploded.');
  });

  it('does not retry an exhausted quota reported as 429', () => {
    const body = JSON.stringify({ error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } });
    expect(describeModelError(httpError(429, body), deepseek)).toMatchObject({ status: 429, retryable: false });
  });

  it('retries dropped connections but not refused ones', () => {
    expect(describeModelError(networkError('ECONNRESET'), deepseek)).toMatchObject({ retryable: true });
    expect(describeModelError(networkError('UND_ERR_SOCKET'), deepseek)).toMatchObject({ retryable: true });
    const refused = describeModelError(networkError('ECONNREFUSED'), { baseUrl: 'http://127.0.0.1:11434/v1', provider: 'openai-compatible' });
    expect(refused.retryable).toBe(false);
    expect(refused.message).toBe(
      'Could not reach the model server at http://127.0.0.1:11434 (ECONNREFUSED): nothing is listening there — is the server running and the port right? Change the URL with --base-url <url>.',
    );
    expect(describeModelError(networkError('ENOTFOUND'), deepseek).message).toMatch(/does not resolve/);
  });

  it('names host and port (the default one too), the cause and the flag to change', () => {
    const deepseekModel = { ...deepseek, provider: 'deepseek' };
    const dns = describeModelError(networkError('ENOTFOUND'), deepseekModel).message;
    expect(dns).toContain('https://api.deepseek.com:443');
    expect(dns).toContain('ENOTFOUND');
    expect(dns).toContain('--model <provider>:<id>');
    const tls = describeModelError(networkError('DEPTH_ZERO_SELF_SIGNED_CERT'), { baseUrl: 'https://10.0.0.9:8443/v1', provider: 'openai-compatible' });
    expect(tls).toMatchObject({ retryable: false });
    expect(tls.message).toContain('10.0.0.9:8443');
    expect(tls.message).toContain('TLS certificate');
    expect(tls.message).toContain('--base-url');
    const slow = describeModelError(networkError('UND_ERR_CONNECT_TIMEOUT'), { baseUrl: 'http://10.0.0.9/v1', provider: 'openai-compatible' });
    expect(slow).toMatchObject({ retryable: true });
    expect(slow.message).toContain('10.0.0.9:80 failed (UND_ERR_CONNECT_TIMEOUT: connect timed out)');
  });

  it('reads the cause chain of a bare fetch failure that has no code', () => {
    const error = new TypeError('fetch failed', { cause: new Error('getaddrinfo went wrong somehow') });
    const { message } = describeModelError(error, { baseUrl: 'http://example.invalid/v1', provider: 'openai-compatible' });
    expect(message).toContain('example.invalid:80');
    expect(message).toContain('getaddrinfo went wrong somehow');
    expect(message).toContain('--base-url');
    expect(message).not.toMatch(/\(fetch failed\)/);
  });

  it('recognises a bare fetch failure with a network cause', () => {
    const error = new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    expect(describeModelError(error, deepseek)).toMatchObject({ retryable: true });
  });

  it('unwraps the SDK RetryError to its last error', () => {
    const error = new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [httpError(500), httpError(503)] });
    expect(describeModelError(error, deepseek)).toMatchObject({ status: 503 });
  });

  it('describes aborts and unreadable answers as not retryable', () => {
    expect(describeModelError(new AbortedError(), deepseek)).toEqual({ message: 'The model call was aborted.', retryable: false });
    expect(describeModelError(new DOMException('stop', 'AbortError'))).toMatchObject({ retryable: false });
    const parse = new JSONParseError({ text: '{', cause: new SyntaxError('Unexpected end') });
    expect(describeModelError(parse)).toMatchObject({ retryable: false });
    expect(describeModelError(parse).message).toMatch(/^The model server sent a response that could not be used/);
  });

  it('never throws on odd values', () => {
    expect(describeModelError(undefined)).toEqual({ message: 'undefined', retryable: false });
    expect(describeModelError({ weird: true })).toMatchObject({ retryable: false });
  });
});
