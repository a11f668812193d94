// The meter and compaction over ACP (docs/compaction.md, "Where it shows"): the agent sends ACP v1's
// `usage_update` (tokens in context against the window) before each request and `compaction_update`
// after a compaction. In-process agent and editor over the SDK's own connection; a real HTTP model
// server on loopback, only the model's choices scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAcpAgent } from '../../src/acp/acp-agent.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let server: ScriptedServer | undefined;
let agent: ReturnType<typeof createAcpAgent> | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-acp-meter-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-acp-meter-log-'));
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${`file ${i}: ${'0123456789'.repeat(9)}\n`.repeat(60)}`);
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

describe('ptc acp and the meter', () => {
  it('sends usage_update with the window before each request and compaction_update after a compaction', async () => {
    server = await startScriptedOpenAIServer([...Array.from({ length: 10 }, (_, i) => reply.toolCall('read', { path: `f${i % 6}.txt` })), reply.text('Read.')], {
      respond: (body) => (body.tools === undefined ? reply.text('Summary: files read.') : undefined),
    });
    agent = createAcpAgent({
      harness: { preset: 'standard', sandbox: 'auto' },
      baseUrl: server.baseUrl,
      model: 'scripted',
      env: {},
      approve: 'never',
      sessionDir,
      version: '0.0.0-test',
      contextWindow: 6_000,
    });
    const updates: acp.SessionUpdate[] = [];
    const editor = acp.client({ name: 'test-editor' }).onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params.update));
    const response = await editor.connectWith(agent.app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      return ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Read the files.' }] });
    });
    expect(response).toEqual({ stopReason: 'end_turn' });
    const usage = updates.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'usage_update' }> => u.sessionUpdate === 'usage_update');
    expect(usage).toHaveLength(11);
    expect(usage.every((u) => u.size === 6_000 && u.used > 0 && u.used <= 6_000)).toBe(true);
    const compactions = updates.filter((u) => u.sessionUpdate === 'compaction_update');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.every((u) => u.sessionUpdate === 'compaction_update' && u.status === 'completed')).toBe(true);
  }, 60_000);
});
