// `ptc ui` and compaction (docs/compaction.md): every request of a turn started from the page
// carries the meter in its `llm/request` line (what the header shows), and the page's Compact button
// (POST /api/sessions/<id>/compact) compacts a session between turns and logs it. Real HTTP servers
// on loopback (the UI's and the model's); only the model's choices are scripted.

import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/index.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { waitUntil } from '../helpers/wait-until.js';

let workspace: string;
let sessionDir: string;
let model: ScriptedServer | undefined;
let ui: UiServer | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-compact-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-compact-log-'));
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${`file ${i}: ${'0123456789'.repeat(9)}\n`.repeat(40)}`);
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

function get(route: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${ui!.origin}${route}`, { headers: { 'x-ptc-token': ui!.token } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ptc ui: the meter and the Compact button', () => {
  it('logs the meter of every request of a page turn, and compacts the session on demand between turns', async () => {
    let summaryRequest = '';
    model = await startScriptedOpenAIServer([...Array.from({ length: 6 }, (_, i) => reply.toolCall('read', { path: `f${i}.txt` })), reply.text('Read.')], {
      respond: (body) => {
        if (body.tools !== undefined) return undefined;
        summaryRequest = JSON.stringify(body.messages);
        return reply.text('Six files read.');
      },
    });
    ui = await startUiServer({
      harness: { cwd: workspace, sandbox: 'auto' },
      defaultPreset: 'standard',
      model: 'scripted',
      baseUrl: model.baseUrl,
      env: {},
      sessionDir,
      approve: 'never',
      contextWindow: 50_000,
    });
    const started = await post('/api/sessions', { text: 'Read the files.' });
    expect(started.status).toBe(201);
    const { sessionId } = JSON.parse(started.body) as { sessionId: string };
    const file = path.join(sessionDir, `${sessionId}.jsonl`);
    await waitUntil('the turn to end', () => fs.existsSync(file) && readSession(file).events.some((e) => e.type === 'session/end'), 60_000);
    // The page enables the button once the server no longer runs the turn (the sessions list says so).
    for (const deadline = Date.now() + 60_000; ; ) {
      const { sessions: list } = JSON.parse((await get('/api/sessions')).body) as { sessions: { id: string; active: boolean }[] };
      if (list.find((s) => s.id === sessionId)?.active === false) break;
      if (Date.now() > deadline) throw new Error('the turn never closed');
    }

    const requests = readSession(file).events.filter((e) => e.type === 'llm/request');
    expect(requests).toHaveLength(7);
    expect(requests.every((e) => e.type === 'llm/request' && e.context?.window === 50_000 && e.context.estimatedTokens > 0)).toBe(true);

    const compacted = await post(`/api/sessions/${sessionId}/compact`, { focus: 'which files' });
    expect(compacted.status).toBe(200);
    expect(JSON.parse(compacted.body)).toEqual({ logged: ['context/compaction'] });
    expect(summaryRequest).toContain('Give most room to: which files');
    expect(readSession(file).events.at(-1)).toMatchObject({ type: 'context/compaction', trigger: 'manual', focus: 'which files' });

    const unknown = await post('/api/sessions/nope/compact', {});
    expect(unknown.status).toBe(400);
  }, 120_000);
});
