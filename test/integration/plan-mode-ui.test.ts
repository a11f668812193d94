// Plan mode from the `ptc ui` page (docs/plan-mode.md, docs/ui.md): a message sent with the toggle on
// runs in plan mode, the proposed plan waits for POST /api/sessions/<id>/plan (send back with a
// comment, then approve), the approved steps become the todo list in the log and the work starts;
// the same through the page in chromium (the toggle, the plan card's buttons, the todo panel). Real
// HTTP servers on loopback (the UI's and the model's), real tools and files; only the model's
// choices and the person's clicks are scripted.

import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { todosFromSession } from '../../src/builtin-tools/todo.js';
import { readSession } from '../../src/session/index.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { chromiumPath, skipWithoutBrowser } from '../helpers/browser.js';
import { waitUntil } from '../helpers/wait-until.js';

let workspace: string;
let sessionDir: string;
let model: ScriptedServer | undefined;
let ui: UiServer | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-plan-ui-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-plan-ui-log-'));
});
afterEach(async () => {
  await ui?.close();
  await model?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

function post(route: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${ui!.origin}${route}`, { method: 'POST', headers: { 'x-ptc-token': ui!.token, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Posts a review once the plan waits for one (409 until its call reaches the reviewer), like waitUntil. */
async function reviewWhenWaiting(sessionId: string, body: { id: string; decision: string; comment?: string }): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status } = await post(`/api/sessions/${sessionId}/plan`, body);
    if (status !== 409 || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Sent = { tools?: { function: { name: string } }[] };
const toolsOf = (i: number): string[] => ((model!.requests[i]!.json as Sent).tools ?? []).map((t) => t.function.name);

describe('plan mode from the ptc ui page', () => {
  it('the toggle starts plan mode; send back with a comment, then approve: the steps become the todo list and the work is done', async () => {
    model = await startScriptedOpenAIServer([
      reply.toolCall('plan_propose', { markdown: 'Write hello.txt.', steps: ['Write hello.txt'] }, 'pp1'),
      reply.toolCall('plan_propose', { markdown: 'Write hello.txt with a greeting.', steps: ['Write hello.txt', 'Check it'] }, 'pp2'),
      reply.toolCall('write', { path: 'hello.txt', content: 'hello\n' }, 'w1'),
      reply.text('Done.'),
    ]);
    ui = await startUiServer({ harness: { cwd: workspace, sandbox: 'auto' }, defaultPreset: 'standard', model: 'scripted', baseUrl: model.baseUrl, env: {}, sessionDir, approve: 'never' });
    const bad = await post('/api/sessions', { text: 'Say hello.', plan: 'yes' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/"plan".*true or false/);

    const started = await post('/api/sessions', { text: 'Say hello.', plan: true });
    expect(started.status).toBe(201);
    const { sessionId } = JSON.parse(started.body) as { sessionId: string };
    const file = path.join(sessionDir, `${sessionId}.jsonl`);
    const logged = (type: string, id: string) => () => readSession(file).events.some((e) => e.type === type && 'id' in e && e.id === id);

    // The plan card comes from the logged call; the page's answer goes to the waiting review.
    await waitUntil('the first proposal in the log', logged('tool/call', 'pp1'));
    expect(toolsOf(0)).not.toContain('write');
    const early = await post(`/api/sessions/${sessionId}/plan`, { id: 'nope', decision: 'approve' });
    expect(early.status).toBe(409);
    const wrong = await post(`/api/sessions/${sessionId}/plan`, { id: 'pp1', decision: 'maybe' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatch(/approve or send-back/);
    expect(await reviewWhenWaiting(sessionId, { id: 'pp1', decision: 'send-back', comment: 'add a check step' })).toBe(200);
    await waitUntil('the second proposal in the log', logged('tool/call', 'pp2'));
    expect(JSON.stringify(model.requests[1]!.json)).toContain('add a check step');
    expect(await reviewWhenWaiting(sessionId, { id: 'pp2', decision: 'approve' })).toBe(200);
    await waitUntil('the end of the turn', () => readSession(file).events.some((e) => e.type === 'session/end'));

    expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(toolsOf(2)).toContain('write');
    const events = readSession(file).events;
    expect(events.filter((e) => e.type === 'plan/mode' || e.type === 'plan/review')).toMatchObject([
      { type: 'plan/mode', active: true, by: 'user' },
      { type: 'plan/review', id: 'pp1', decision: 'sent-back', comment: 'add a check step' },
      { type: 'plan/review', id: 'pp2', decision: 'approved' },
      { type: 'plan/mode', active: false, by: 'approval' },
    ]);
    expect(todosFromSession(events)).toEqual([
      { content: 'Write hello.txt', status: 'pending' },
      { content: 'Check it', status: 'pending' },
    ]);
  });
});

describe.skipIf(skipWithoutBrowser)('plan mode in the page (chromium)', () => {
  it('the toggle, the plan card (send back with a comment, then approve), the todo panel and the work done', async () => {
    model = await startScriptedOpenAIServer([
      reply.toolCall('plan_propose', { markdown: 'Write hello.txt.', steps: ['Write hello.txt'] }, 'pp1'),
      reply.toolCall('plan_propose', { markdown: 'Write and check hello.txt.', steps: ['Write hello.txt', 'Check it'] }, 'pp2'),
      reply.toolCall('write', { path: 'hello.txt', content: 'hello\n' }, 'w1'),
      reply.text('Done.'),
    ]);
    ui = await startUiServer({ harness: { cwd: workspace, sandbox: 'auto' }, defaultPreset: 'standard', model: 'scripted', baseUrl: model.baseUrl, env: {}, sessionDir, approve: 'never' });
    const browser = await chromium.launch({ executablePath: chromiumPath });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.goto(ui.url);
      await page.locator('[data-preset="standard"]').waitFor();
      await page.locator('input[name="plan"]').check();
      await page.locator('textarea[name="message"]').fill('Say hello.');
      await page.locator('button.send').click();

      const first = page.locator('[data-card="plan"][data-decision="waiting"]');
      await first.waitFor();
      expect(await first.locator('.plan-steps li').allInnerTexts()).toEqual(['Write hello.txt']);
      await first.locator('input.plan-comment').fill('add a check step');
      await first.locator('button.send-back').click();
      await page.locator('[data-card="plan"][data-decision="sent-back"]').waitFor();
      const second = page.locator('[data-card="plan"][data-decision="waiting"]');
      await second.waitFor();
      await second.locator('button.approve-plan').click();
      await page.locator('[data-card="plan"][data-decision="approved"]').waitFor();
      await page.locator('.turn-end[data-reason="completed"]').waitFor();

      const panel = page.locator('[data-panel="todo"]');
      expect(await panel.locator('li').allInnerTexts()).toEqual(['○ Write hello.txt', '○ Check it']);
      // The approval turned plan mode off, and the toggle follows the log.
      expect(await page.locator('input[name="plan"]').isChecked()).toBe(false);
      expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
      expect(JSON.stringify(model.requests[1]!.json)).toContain('add a check step');
      expect(toolsOf(0)).not.toContain('write');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
