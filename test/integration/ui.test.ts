// `ptc ui` (docs/ui.md) in a real browser: Debian's chromium driven by playwright-core, the real
// server, harness, sandboxed runtime and session logs, and a real HTTP model server on loopback of
// which only the choices are scripted. Skips without chromium unless PTC_REQUIRE_BROWSER=1.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { ApprovalRuleSet } from '../../src/approvals/approval-rule-set.js';
import { buildUiCommand } from '../../src/cli/ui-command.js';
import { saveAllowRule } from '../../src/config/save-rule.js';
import { readSession, type SessionEvent } from '../../src/session/index.js';
import { startUiServer, type UiServer, type UiServerOptions } from '../../src/ui/server.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { chromiumPath, skipWithoutBrowser } from '../helpers/browser.js';

let workspace: string;
let sessionDir: string;
let model: ScriptedServer | undefined;
let ui: UiServer | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
});
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  await model?.close();
  model = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function start(script: ScriptedReply[], options: Partial<UiServerOptions> = {}): Promise<UiServer> {
  model = await startScriptedOpenAIServer(script);
  ui = await startUiServer({
    harness: { cwd: workspace, sandbox: 'auto' },
    defaultPreset: 'standard',
    model: 'scripted',
    baseUrl: model.baseUrl,
    env: {},
    sessionDir,
    approve: 'writes',
    ...options,
  });
  return ui;
}

/** One HTTP request with exactly the given headers (fetch would add its own Origin and Sec-Fetch-*). */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const sessionFiles = () => fs.readdirSync(sessionDir).filter((f) => f.endsWith('.jsonl'));
const eventsOf = (id: string): SessionEvent[] => readSession(path.join(sessionDir, `${id}.jsonl`)).events;
const sessionIdOf = (page: Page) => new URL(page.url()).hash.replace('#/s/', '');

describe('ptc ui: token and origin', () => {
  it('refuses a request without the token or with a wrong one, the page and its modules included', async () => {
    const server = await start([]);
    for (const route of ['/', '/app/main.js', '/vendor/preact.mjs', '/api/sessions', '/api/config']) {
      expect((await raw(`${server.origin}${route}`)).status, route).toBe(401);
      expect((await raw(`${server.origin}${route}?token=${server.token.slice(0, -1)}x`)).status, route).toBe(401);
      expect((await raw(`${server.origin}${route}`, { headers: { 'x-ptc-token': `${server.token}x` } })).status, route).toBe(401);
    }
    const post = await raw(`${server.origin}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    expect(post.status).toBe(401);
    expect(sessionFiles()).toEqual([]);
    // With the token the same requests are served.
    expect((await raw(server.url)).status).toBe(200);
    expect((await raw(`${server.origin}/app/main.js?token=${server.token}`)).status).toBe(200);
    expect((await raw(`${server.origin}/api/config`, { headers: { 'x-ptc-token': server.token } })).status).toBe(200);
  });

  it('refuses a foreign Origin, a cross-site or same-site fetch and another Host even with the token', async () => {
    const server = await start([reply.text('never sent')]);
    const withToken = { 'x-ptc-token': server.token, 'content-type': 'application/json' };
    const start1 = (headers: Record<string, string>) => raw(`${server.origin}/api/sessions`, { method: 'POST', headers: { ...withToken, ...headers }, body: '{"text":"hi"}' });
    expect((await start1({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await start1({ origin: `http://127.0.0.1:${server.port + 1}` })).status).toBe(403);
    expect((await start1({ origin: 'null' })).status).toBe(403);
    expect((await start1({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await start1({ 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await start1({ host: 'evil.example' })).status).toBe(403);
    expect((await raw(server.url, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect(sessionFiles()).toEqual([]);
    expect(model!.requests).toHaveLength(0);
    // A form post (no JSON body) from anywhere is refused too.
    expect((await raw(`${server.origin}/api/sessions`, { method: 'POST', headers: { 'x-ptc-token': server.token, 'content-type': 'application/x-www-form-urlencoded' }, body: 'text=hi' })).status).toBe(400);
  });
});

describe('ptc ui: API errors say how to fix them', () => {
  it('a model without its API key, an unknown preset and an unknown session are 400 with the fix; nothing is logged', async () => {
    const server = await start([], { baseUrl: undefined, model: undefined, env: {} });
    const post = (route: string, body: unknown) =>
      raw(`${server.origin}${route}`, { method: 'POST', headers: { 'x-ptc-token': server.token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const noKey = await post('/api/sessions', { text: 'hi' });
    expect(noKey.status).toBe(400);
    expect(JSON.parse(noKey.body).error).toMatch(/DEEPSEEK_API_KEY/);
    const config = JSON.parse((await raw(`${server.origin}/api/config`, { headers: { 'x-ptc-token': server.token } })).body) as { model: { error?: string } };
    expect(config.model.error).toMatch(/DEEPSEEK_API_KEY/);
    expect((await raw(`${server.origin}/api/sessions/nope/events?token=${server.token}`)).status).toBe(400);
    expect((await post('/api/sessions/nope/messages', { text: 'hi' })).status).toBe(400);
    expect((await post('/api/sessions/nope/stop', {})).status).toBe(409);
    expect(sessionFiles()).toEqual([]);
  });

  it('an unknown preset is 400 naming it', async () => {
    const server = await start([reply.text('never sent')]);
    const response = await raw(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: { 'x-ptc-token': server.token, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', preset: 'no-such-preset' }),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toMatch(/no-such-preset/);
    expect(sessionFiles()).toEqual([]);
    expect(model!.requests).toHaveLength(0);
  });
});

describe('ptc ui: the command', () => {
  it('takes the run flags, prints the URL with the token, serves it until its signal, then closes', async () => {
    model = await startScriptedOpenAIServer([]);
    const out: string[] = [];
    const controller = new AbortController();
    const command = buildUiCommand({ stdout: (t) => out.push(t), stderr: () => {}, env: { PTC_HOME: sessionDir }, signal: controller.signal });
    command.exitOverride();
    const running = command.parseAsync(['--cwd', workspace, '--preset', 'minimal', '--base-url', model.baseUrl, '--model', 'scripted', '--approve', 'all', '--sandbox', 'off'], { from: 'user' });
    while (out.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const url = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})\n/.exec(out.join(''))?.[1];
    expect(url).toBeDefined();
    const config = JSON.parse((await raw(url!.replace('/?', '/api/config?'))).body) as { defaultPreset: string; approve: string; model: { label: string }; cwd: string };
    expect(config).toMatchObject({ defaultPreset: 'minimal', approve: 'all', model: { label: 'openai-compatible:scripted' }, cwd: workspace });
    controller.abort();
    await running;
    await expect(raw(url!)).rejects.toThrow();
  });

  it('a port in use is a CONFIG error that says what to pass', async () => {
    const first = await start([]);
    await expect(startUiServer({ harness: { cwd: workspace }, defaultPreset: 'ptc', env: {}, sessionDir, approve: 'writes', port: first.port })).rejects.toMatchObject({
      code: 'CONFIG',
      message: expect.stringMatching(/is in use; pass another --port/),
    });
  });

  it('refuses an unknown --approve policy', async () => {
    const command = buildUiCommand({ stdout: () => {}, stderr: () => {}, env: {}, signal: AbortSignal.abort() });
    command.exitOverride().configureOutput({ writeErr: () => {} });
    await expect(command.parseAsync(['--approve', 'sometimes'], { from: 'user' })).rejects.toThrow(/sometimes/);
  });
});

describe.skipIf(skipWithoutBrowser)('ptc ui in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  let consoleErrors: string[] = [];
  beforeEach(() => {
    consoleErrors = [];
  });

  async function open(server: UiServer): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (error) => {
      throw error;
    });
    // A refused module or a blocked script (CSP) shows up here; the page must load cleanly.
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(server.url);
    await page.locator('[data-preset="ptc"]').waitFor();
    return page;
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.locator('textarea[name="message"]').fill(text);
    await page.locator('button.send').click();
  }

  it('chooses a preset, runs a task, shows the run_code card; reload replays the same cards; a follow-up continues the session', async () => {
    const program = "const a = await tools.read({ path: 'a.txt' });\nconst b = await tools.read({ path: 'b.txt' });\nconsole.log('read two');\nreturn [a.content, b.content].join('');";
    const server = await start([
      reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: 'Read both files' } }]),
      reply.text('Both files read.'),
      reply.text('Still the same session.'),
    ]);
    const page = await open(server);
    // The four shipped presets, each with its one-line description; default from --preset.
    for (const name of ['standard', 'ptc', 'minimal', 'creator']) {
      expect((await page.locator(`[data-preset="${name}"] .preset-description`).innerText()).length).toBeGreaterThan(10);
    }
    expect(await page.locator('[data-preset="standard"] input').isChecked()).toBe(true);
    await page.locator('[data-preset="ptc"] input').check();
    await send(page, 'Read a.txt and b.txt.');

    const card = page.locator('[data-card="run_code"][data-status="ok"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('header .title').innerText()).toBe('Read both files');
    expect(await card.locator('.program').innerText()).toContain("const b = await tools.read({ path: 'b.txt' });");
    expect(await card.locator('.program .hljs-keyword').count()).toBeGreaterThan(0);
    const rows = card.locator('tr.subcall');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain('a.txt');
    expect(await rows.nth(1).innerText()).toContain('b.txt');
    expect(await card.locator('.bar').count()).toBe(2);
    const output = await card.locator('.output pre').innerText();
    expect(output).toContain('read two');
    expect(output).toContain('alpha');
    expect(output).toContain('beta');
    await page.locator('.message.assistant', { hasText: 'Both files read.' }).waitFor();
    await page.locator('.turn-end[data-reason="completed"]').waitFor();
    await page.locator('button.send').waitFor(); // the server's turn is over, not only its log

    // The model got the ptc presentation chosen in the page, and the log says so.
    const id = sessionIdOf(page);
    expect((model!.requests[0]!.json as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name)).toEqual(['run_code']);
    expect(eventsOf(id)[0]).toMatchObject({ type: 'session/start', preset: 'ptc' });

    // Reload: the page replays the log through the same reducer and shows the same cards.
    const live = await page.locator('.timeline').innerText();
    await page.reload();
    await page.locator('[data-card="run_code"][data-status="ok"]').waitFor();
    await page.locator('.turn-end[data-reason="completed"]').waitFor();
    await page.locator('button.send').waitFor();
    expect(await page.locator('.timeline').innerText()).toBe(live);
    expect(await page.locator('[data-card="run_code"] tr.subcall').count()).toBe(2);
    expect(await page.locator(`[data-session="${id}"]`).count()).toBe(1);

    // A follow-up continues the same session: same log, a session/resume, the history sent again.
    await send(page, 'Anything else?');
    await page.locator('.message.assistant', { hasText: 'Still the same session.' }).waitFor({ timeout: 30_000 });
    await page.locator('.turn-end[data-reason="completed"]').nth(1).waitFor();
    expect(sessionIdOf(page)).toBe(id);
    expect(sessionFiles()).toEqual([`${id}.jsonl`]);
    expect(eventsOf(id).filter((e) => e.type === 'session/resume')).toHaveLength(1);
    const third = JSON.stringify((model!.requests[2]!.json as { messages: unknown[] }).messages);
    expect(third).toContain('Read a.txt and b.txt.');
    expect(third).toContain('Both files read.');
    expect(third).toContain('Anything else?');
    expect(consoleErrors).toEqual([]);
  }, 90_000);

  it('asks before writes: allow a native write, deny a program sub-call write with a reason the model sees', async () => {
    const program = "try {\n  await tools.write({ path: 'denied.txt', content: 'no' });\n  return 'written';\n} catch (e) {\n  return String(e);\n}";
    const server = await start(
      [
        reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'allowed.txt', content: 'yes\n' } }]),
        reply.text('Written.'),
        reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: 'Try a write' } }]),
        reply.text('Understood.'),
      ],
      { defaultPreset: 'ptc', harness: { cwd: workspace, sandbox: 'auto', timeoutMs: 120_000 } },
    );
    const page = await open(server);
    // ptc presents write only inside programs; the native write needs standard. Pick it in the page.
    await page.locator('[data-preset="standard"] input').check();
    await send(page, 'Write allowed.txt.');
    const ask = page.locator('[data-card="approval"][data-decision="waiting"][data-tool="write"]');
    await ask.waitFor({ timeout: 30_000 });
    expect(await ask.locator('.args').innerText()).toContain('allowed.txt');
    expect(fs.existsSync(path.join(workspace, 'allowed.txt'))).toBe(false);
    await ask.locator('button.allow').click();
    await page.locator('[data-card="tool"][data-tool="write"][data-status="ok"]').waitFor({ timeout: 30_000 });
    expect(fs.readFileSync(path.join(workspace, 'allowed.txt'), 'utf8')).toBe('yes\n');
    expect(await page.locator('[data-card="approval"][data-decision="allow"]').count()).toBe(1);

    // The next turn of the same session runs under ptc (chosen in the page), and the model writes a
    // program. Its sub-call asks on the same path; the card names the program.
    await page.locator('.turn-end[data-reason="completed"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-preset="ptc"] input').check();
    await send(page, 'Now try denied.txt.');
    const subAsk = page.locator('[data-card="approval"][data-decision="waiting"]');
    await subAsk.waitFor({ timeout: 30_000 });
    expect(await subAsk.locator('.parent').innerText()).toContain('Try a write');
    await subAsk.locator('input.deny-reason').fill('not this file');
    await subAsk.locator('button.deny').click();
    await page.locator('[data-card="run_code"][data-status="ok"]').waitFor({ timeout: 30_000 });
    await page.locator('.message.assistant', { hasText: 'Understood.' }).waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(workspace, 'denied.txt'))).toBe(false);
    // The program saw the deny as a ToolCallError; the model got it in the run_code result.
    const last = JSON.stringify((model!.requests[3]!.json as { messages: unknown[] }).messages);
    expect(last).toContain('denied by the user: not this file');
    const approvals = eventsOf(sessionIdOf(page)).filter((e) => e.type === 'tool/approval');
    expect(approvals).toMatchObject([
      { stage: 'request', id: 'w1', tool: 'write' },
      { stage: 'answer', id: 'w1', decision: 'allow', by: 'person' },
      { stage: 'request', id: 'rc1:ptc:1', parentId: 'rc1', tool: 'write' },
      { stage: 'answer', id: 'rc1:ptc:1', decision: 'deny', by: 'person', reason: 'denied by the user: not this file' },
    ]);
  }, 120_000);

  it('shows the diff of an edit in its approval card and its tool card, live and after a reload', async () => {
    const server = await start([
      reply.toolCalls([{ id: 'e1', name: 'edit', args: { path: 'a.txt', old_string: 'alpha', new_string: 'omega' } }]),
      reply.text('Edited.'),
    ]);
    const page = await open(server);
    await send(page, 'Edit a.txt.');
    const ask = page.locator('[data-card="approval"][data-decision="waiting"][data-tool="edit"]');
    await ask.waitFor({ timeout: 30_000 });
    expect(await ask.locator('.diff .diff-del').innerText()).toBe('-alpha');
    expect(await ask.locator('.diff .diff-add').innerText()).toBe('+omega');
    await ask.locator('button.allow').click();
    const card = page.locator('[data-card="tool"][data-tool="edit"][data-status="ok"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('.diff-head').innerText()).toBe('a.txt');
    expect(await card.locator('.diff pre').innerText()).toBe('-alpha\n+omega');
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('omega\n');
    await page.locator('.turn-end[data-reason="completed"]').waitFor({ timeout: 30_000 });
    await page.reload();
    await page.locator('[data-card="tool"][data-tool="edit"][data-status="ok"] .diff').waitFor();
    expect(await page.locator('[data-card="tool"][data-tool="edit"] .diff pre').innerText()).toBe('-alpha\n+omega');
  }, 90_000);
  it('"Always allow" on an approval card saves the rule to the config file; the next matching call does not ask (docs/config.md)', async () => {
    const configFile = path.join(workspace, '..', `${path.basename(workspace)}-config.yaml`);
    fs.writeFileSync(configFile, '# mine\n');
    const rules = new ApprovalRuleSet([], (rule) => saveAllowRule(configFile, rule), configFile);
    try {
      const server = await start(
        [
          reply.toolCalls([{ id: 'b1', name: 'bash', args: { command: 'echo from-ui' } }]),
          reply.text('Ran it.'),
          reply.toolCalls([{ id: 'b2', name: 'bash', args: { command: 'echo from-ui' } }]),
          reply.text('Ran it again.'),
        ],
        { harness: { cwd: workspace, sandbox: 'auto', approvalRules: rules } },
      );
      const page = await open(server);
      await page.locator('[data-preset="standard"] input').check();
      await send(page, 'Run it.');
      const ask = page.locator('[data-card="approval"][data-decision="waiting"][data-tool="bash"]');
      await ask.waitFor({ timeout: 30_000 });
      expect(await ask.locator('button.allow-always').innerText()).toContain('bash: echo from-ui');
      await ask.locator('button.allow-always').click();
      await page.locator('.message.assistant', { hasText: 'Ran it.' }).waitFor({ timeout: 30_000 });
      expect(fs.readFileSync(configFile, 'utf8')).toMatch(/^# mine\n[\s\S]*- "bash: echo from-ui"/);
      await page.locator('.turn-end[data-reason="completed"]').waitFor({ timeout: 30_000 });
      await send(page, 'Again.');
      await page.locator('.message.assistant', { hasText: 'Ran it again.' }).waitFor({ timeout: 30_000 });
      const approvals = eventsOf(sessionIdOf(page)).filter((e) => e.type === 'tool/approval');
      expect(approvals).toMatchObject([
        { stage: 'request', id: 'b1', alwaysAllow: 'bash: echo from-ui' },
        { stage: 'answer', id: 'b1', decision: 'allow-always', by: 'person' },
        { stage: 'answer', id: 'b2', decision: 'allow', by: 'rule' },
      ]);
    } finally {
      fs.rmSync(configFile, { force: true });
    }
  }, 120_000);

  it('a program cannot add elements of its own to its approval card (docs/security.md, "Approval edges")', async () => {
    const program = "/*\n</span></code></pre><h1 id=\"pwned\">Read-only. Safe to allow.</h1>\n*/\nawait tools.write({ path: 'x.txt', content: '<b id=\"pwned2\">x</b>' });\nreturn 'w';";
    const server = await start(
      [reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: '<i id="pwned3">label</i>' } }]), reply.text('ok')],
      { defaultPreset: 'ptc', harness: { cwd: workspace, sandbox: 'auto', timeoutMs: 120_000 } },
    );
    const page = await open(server);
    await send(page, 'Write x.');
    const ask = page.locator('[data-card="approval"][data-decision="waiting"]');
    await ask.waitFor({ timeout: 30_000 });
    await ask.locator('details summary').click();
    expect(await ask.locator('pre.program').innerText()).toContain('<h1 id="pwned">Read-only. Safe to allow.</h1>');
    expect(await page.locator('#pwned, #pwned2, #pwned3').count()).toBe(0);
    // Control: the same markup inserted as HTML does make an element, so the count above can see one.
    await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<h1 id="pwned">x</h1>')`);
    expect(await page.locator('#pwned').count()).toBe(1);
    await ask.locator('button.deny').click();
    await page.locator('.turn-end[data-reason="completed"]').waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(workspace, 'x.txt'))).toBe(false);
  }, 60_000);

  it('a failed program shows its error code and line:column, and marks the line', async () => {
    const program = "const a = await tools.read({ path: 'a.txt' });\nconst n = (a as any).nothing.length;\nreturn n;";
    const server = await start([reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: 'Fail on line 2' } }]), reply.text('It failed.')], {
      defaultPreset: 'ptc',
    });
    const page = await open(server);
    await send(page, 'Fail.');
    const card = page.locator('[data-card="run_code"][data-status="error"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('.failure').innerText()).toMatch(/^EXCEPTION at line 2:\d+$/);
    expect(await card.locator('.line-failed').getAttribute('data-line')).toBe('2');
    expect(await card.locator('tr.subcall').count()).toBe(1);
    expect(await card.locator('.output pre').innerText()).toContain('(program.ts:2:30)');
    expect(await card.locator('.failure').innerText()).toBe('EXCEPTION at line 2:30');
  }, 60_000);

  it('the stop button aborts a turn in flight', async () => {
    const server = await start([reply.hang('Thinking about')]);
    const page = await open(server);
    await send(page, 'Take your time.');
    await page.locator('.message.streaming', { hasText: 'Thinking about' }).waitFor({ timeout: 30_000 });
    await page.locator('button.stop').click();
    await page.locator('.turn-end[data-reason="aborted"]').waitFor({ timeout: 30_000 });
    expect(eventsOf(sessionIdOf(page)).at(-1)).toMatchObject({ type: 'session/end', reason: 'aborted' });
    await page.locator('button.send').waitFor();
  }, 60_000);

  it('stopping a turn ends a wait for approval: nothing is written, the log ends aborted', async () => {
    const server = await start([reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'never.txt', content: 'x' } }]), reply.text('unused')]);
    const page = await open(server);
    await send(page, 'Write never.txt.');
    await page.locator('[data-card="approval"][data-decision="waiting"]').waitFor({ timeout: 30_000 });
    await page.locator('button.stop').click();
    await page.locator('.turn-end[data-reason="aborted"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-card="approval"]').getAttribute('data-decision')).toBe('deny');
    expect(fs.existsSync(path.join(workspace, 'never.txt'))).toBe(false);
    const events = eventsOf(sessionIdOf(page));
    expect(events.filter((e) => e.type === 'tool/approval')).toMatchObject([{ stage: 'request' }, { stage: 'answer', decision: 'deny', by: 'policy' }]);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'aborted' });
    expect(model!.requests).toHaveLength(1);
  }, 60_000);

  it('follows a session that `ptc run` is writing in another process, line by line, until its turn ends', async () => {
    const program = "const a = await tools.read({ path: 'a.txt' });\nconst b = await tools.read({ path: 'b.txt' });\nreturn a.content + b.content;";
    const server = await start([reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: 'Read in a terminal' } }]), reply.hang('Still thinking')]);
    const cli = path.resolve(import.meta.dirname, '../../dist/cli/ptc.cjs');
    const run = spawn(process.execPath, [cli, 'run', 'Read both.', '--base-url', model!.baseUrl, '--model', 'scripted', '--session-dir', sessionDir, '--cwd', workspace], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '' },
    });
    const exited = new Promise<number | null>((resolve) => run.on('exit', (code) => resolve(code)));
    try {
      // The page opens the session while the terminal's turn runs (its model answer hangs after some text).
      await model!.waitForRequests(2);
      const [file] = sessionFiles();
      const page = await open(server);
      await page.goto(`${server.url}#/s/${file!.replace(/\.jsonl$/, '')}`);
      const card = page.locator('[data-card="run_code"][data-status="ok"]');
      await card.waitFor({ timeout: 30_000 });
      expect(await card.locator('tr.subcall').count()).toBe(2);
      expect(await page.locator('.turn-end').count()).toBe(0);
      // Lines appended now reach the page: the terminal's Ctrl-C ends its turn.
      run.kill('SIGINT');
      await page.locator('.turn-end[data-reason="aborted"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('button.stop').count()).toBe(0);
    } finally {
      run.kill('SIGKILL');
      await exited;
    }
  }, 90_000);

  it('a page of another origin that knows the token still cannot drive the UI', async () => {
    const server = await start([reply.text('never sent')]);
    // A hostile page served from another port of this host, scripted to call the UI's API with the token.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>evil</title>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', () => resolve()));
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const outcome = await page.evaluate(
        async ({ origin, token }) => {
          const results: string[] = [];
          for (const mode of ['cors', 'no-cors'] as const) {
            try {
              const r = await fetch(`${origin}/api/sessions?token=${token}`, { method: 'POST', mode, headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
              results.push(`${mode}:${r.status}`);
            } catch (error) {
              results.push(`${mode}:threw`);
            }
          }
          return results;
        },
        { origin: server.origin, token: server.token },
      );
      expect(outcome[0]).toBe('cors:threw');
      expect(sessionFiles()).toEqual([]);
      expect(model!.requests).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
  }, 60_000);
});
