// web_fetch against a real HTTP server on 127.0.0.1 started by the test.

import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { waitUntil } from '../../test/helpers/wait-until.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';
import type { ToolExecContext } from '../tools/types.js';
import { createWebFetchTool, type WebFetchArgs, type WebFetchToolOptions } from './web-fetch.js';

let server: Server;
let base: string;
let workspace: string;
const arrived: string[] = [];

const PAGE = `<!doctype html><html><head><title>T</title><script>var x = "<p>no</p>";</script></head>
<body><h1>Hello</h1><p>See <a href="/data.json">the data</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`;

beforeAll(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-web-fetch-'));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    arrived.push(url.pathname);
    const redirect = /^\/r\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      const n = Number(redirect[1]);
      res.writeHead(302, { location: n === 0 ? '/plain.txt' : `/r/${n - 1}` }).end();
      return;
    }
    switch (url.pathname) {
      case '/page.html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        return;
      case '/data.json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"a": [1, 2], "b": "x"}');
        return;
      case '/plain.txt':
        res.writeHead(200, { 'content-type': 'text/plain' }).end('just text\n');
        return;
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1><p>Try /page.html</p>');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        // Far more than the test's byte cap, in chunks: the tool must stop reading, not buffer it all.
        for (let i = 0; i < 64; i++) res.write('x'.repeat(4096));
        res.end();
        return;
      case '/binary':
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
        return;
      case '/to-file':
        res.writeHead(301, { location: 'file:///etc/passwd' }).end();
        return;
      case '/hang':
        return; // never answers
      default:
        res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(workspace, { recursive: true, force: true });
});

function tool(network: boolean, options: Omit<WebFetchToolOptions, 'policy'> = {}) {
  return createWebFetchTool({ policy: resolveWorkspacePolicy({ cwd: workspace, network }), ...options });
}

function exec(signal: AbortSignal = new AbortController().signal): ToolExecContext {
  return { signal, callId: 'w1', deferContext() {} };
}

async function fetchOk(args: WebFetchArgs, options: Omit<WebFetchToolOptions, 'policy'> = {}) {
  const t = tool(true, options);
  const value = await t.execute(args, exec());
  return { value, content: t.renderContent!(value) };
}

async function fetchError(args: WebFetchArgs, options: Omit<WebFetchToolOptions, 'policy'> & { network?: boolean; signal?: AbortSignal } = {}) {
  const { network = true, signal, ...rest } = options;
  return Promise.resolve(tool(network, rest).execute(args, exec(signal))).then(
    () => expect.fail('web_fetch should have failed'),
    (error: { code: string; message: string }) => error,
  );
}

describe('web_fetch', () => {
  it('is denied without network, naming --allow-net, before any request is made', async () => {
    const before = arrived.length;
    const error = await fetchError({ url: `${base}/page.html` }, { network: false });
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('--allow-net');
    expect(arrived.length).toBe(before);
  });

  it('converts HTML to markdown with absolute links; scripts dropped', async () => {
    const { value, content } = await fetchOk({ url: `${base}/page.html` });
    expect(value).toEqual({
      url: `${base}/page.html`,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      content: `# Hello\n\nSee [the data](${base}/data.json).\n\n- one\n- two`,
      truncated: false,
    });
    expect(content).toBe(`${base}/page.html (HTTP 200, text/html; charset=utf-8)\n\n${value.content}`);
  });

  it('returns the HTML source with raw: true', async () => {
    const { value } = await fetchOk({ url: `${base}/page.html`, raw: true });
    expect(value.content).toBe(PAGE);
  });

  it('returns JSON and plain text as they are; decodes the declared charset', async () => {
    expect((await fetchOk({ url: `${base}/data.json` })).value).toMatchObject({ content: '{"a": [1, 2], "b": "x"}', contentType: 'application/json' });
    expect((await fetchOk({ url: `${base}/latin1` })).value.content).toBe('café');
  });

  it('reports a non-2xx answer as TOOL_FAILED with its status and the start of the page', async () => {
    const error = await fetchError({ url: `${base}/missing` });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('HTTP 404');
    expect(error.message).toContain('Not here');
  });

  it('stops reading at the byte cap and marks the result truncated, with a note', async () => {
    const { value, content } = await fetchOk({ url: `${base}/big` }, { maxBytes: 10_000 });
    expect(value.truncated).toBe(true);
    expect(value.content).toBe('x'.repeat(10_000));
    expect(content).toMatch(/\[Truncated: web_fetch reads at most 10000 bytes/);
  });

  it('cuts the text at the character cap', async () => {
    const { value } = await fetchOk({ url: `${base}/big` }, { maxChars: 100 });
    expect(value).toMatchObject({ truncated: true, content: 'x'.repeat(100) });
  });

  it('follows redirects up to the limit and fails beyond it', async () => {
    const { value } = await fetchOk({ url: `${base}/r/2` }, { maxRedirects: 3 });
    expect(value).toMatchObject({ url: `${base}/plain.txt`, content: 'just text\n' });
    const error = await fetchError({ url: `${base}/r/5` }, { maxRedirects: 3 });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toMatch(/redirected more than 3 times/);
  });

  it('refuses a redirect to a non-http URL', async () => {
    const error = await fetchError({ url: `${base}/to-file` });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('file:///etc/passwd');
  });

  it('refuses binary content', async () => {
    expect((await fetchError({ url: `${base}/binary` })).code).toBe('TOOL_FAILED');
  });

  it('ends with TIMEOUT when the server does not answer within the deadline', async () => {
    const error = await fetchError({ url: `${base}/hang` }, { timeoutMs: 200 });
    expect(error.code).toBe('TIMEOUT');
  });

  it('ends with ABORTED when the caller aborts', async () => {
    const controller = new AbortController();
    const before = arrived.filter((p) => p === '/hang').length;
    const pending = fetchError({ url: `${base}/hang` }, { signal: controller.signal });
    await waitUntil('the request reached the server', () => arrived.filter((p) => p === '/hang').length > before);
    controller.abort();
    expect((await pending).code).toBe('ABORTED');
  });

  it('rejects URLs that are not http(s) or not absolute with INVALID_ARGS', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'example.com/page', 'javascript:alert(1)']) {
      expect((await fetchError({ url })).code).toBe('INVALID_ARGS');
    }
  });

  it('fails with TOOL_FAILED naming the cause when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await fetchError({ url: `http://127.0.0.1:${port}/` });
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('runs calls concurrently, each with its own result', async () => {
    const t = tool(true);
    const urls = ['/page.html', '/data.json', '/plain.txt', '/r/1', '/latin1'].map((p) => `${base}${p}`);
    const values = await Promise.all(urls.map((url) => t.execute({ url }, exec())));
    expect(values.map((v) => v.content.slice(0, 7))).toEqual(['# Hello', '{"a": [', 'just te', 'just te', 'café']);
    expect(t.isConcurrencySafe).toBe(true);
  });
});
