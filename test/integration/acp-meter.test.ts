// The meter and compaction over ACP (docs/compaction.md, "Where it shows"): the agent sends ACP v1's
// `usage_update` (tokens in context against the window) before each request and `compaction_update`
// after a compaction. In-process agent and editor over the SDK's own connection; a real HTTP model
// server on loopback, only the model's choices scripted.

import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../fixtures/scripted-openai-server.js';
import { acpFixture, recordingEditor } from '../helpers/acp-session.js';

const at = acpFixture('ptc-acp-meter', (workspace) => {
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${`file ${i}: ${'0123456789'.repeat(9)}\n`.repeat(60)}`);
});

describe('ptc acp and the meter', () => {
  it('sends usage_update with the window before each request and compaction_update after a compaction', async () => {
    const server = await at.serve([...Array.from({ length: 10 }, (_, i) => reply.toolCall('read', { path: `f${i % 6}.txt` })), reply.text('Read.')], {
      respond: (body) => (body.tools === undefined ? reply.text('Summary: files read.') : undefined),
    });
    const agent = at.agent({ harness: { preset: 'standard', sandbox: 'auto' }, baseUrl: server.baseUrl, approve: 'never', contextWindow: 6_000 });
    const { updates, app } = recordingEditor();
    const response = await app.connectWith(agent.app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
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
