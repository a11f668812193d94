// `ptc acp` driven by the ACP SDK's own client side: a prompt turn with a run_code tool call (its
// program as content, sub-calls as updates), a permission request answered by the editor, and a
// cancel. Real harness, runtime and tools, a real model server on loopback; only the model's
// choices and the editor's answers are scripted.

import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, type ScriptedReply } from '../fixtures/scripted-openai-server.js';
import { acpFixture, recordingEditor } from '../helpers/acp-session.js';
import { waitUntil } from '../helpers/wait-until.js';

const at = acpFixture('ptc-acp', (workspace) => fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n'));
const editor = recordingEditor;

async function start(script: ScriptedReply[]) {
  const server = await at.serve(script);
  return at.agent({ harness: { preset: 'ptc', sandbox: 'auto' }, baseUrl: server.baseUrl, approve: 'writes' });
}

describe('ptc acp', () => {
  it('runs a prompt turn: message chunks, a run_code tool call with its program and sub-calls, a permission request', async () => {
    const program = "const a = await tools.read({ path: 'a.txt' });\nawait tools.write({ path: 'b.txt', content: a.content.toUpperCase() });\nreturn 'copied';";
    const { app } = await start([
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'copy a to b' } }]),
      reply.text('Copied a.txt to b.txt.'),
    ]);
    const ed = editor((request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_once')!.optionId } }));
    const { response, sessionId, init } = await ed.app.connectWith(app, async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      const response = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Copy a.txt to b.txt in upper case.' }] });
      return { response, sessionId, init };
    });
    expect(init).toMatchObject({ protocolVersion: acp.PROTOCOL_VERSION, agentInfo: { name: 'ptc-harness' } });
    expect(response).toEqual({ stopReason: 'end_turn' });
    expect(fs.readFileSync(path.join(at.workspace, 'b.txt'), 'utf8')).toBe('ALPHA');

    const text = ed.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');
    expect(text).toBe('Copied a.txt to b.txt.');
    const call = ed.updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({ toolCallId: 'p1', title: 'copy a to b', kind: 'execute', status: 'in_progress' });
    expect(JSON.stringify(call)).toContain('tools.write');
    const callUpdates = ed.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'p1');
    expect(JSON.stringify(callUpdates)).toMatch(/✓ read/);
    expect(JSON.stringify(callUpdates)).toMatch(/✓ write/);
    expect(callUpdates.at(-1)).toMatchObject({ status: 'completed', rawOutput: { isError: false } });

    expect(ed.permissions).toHaveLength(1);
    expect(ed.permissions[0]).toMatchObject({ sessionId, toolCall: { toolCallId: 'p1', kind: 'edit', rawInput: { path: 'b.txt', content: 'ALPHA' } } });
    expect(JSON.stringify(ed.permissions[0]!.toolCall.content)).toContain('tools.write');

    // The ACP session is one ptc session log, with the approval logged.
    const [file] = listSessionFiles(at.sessionDir);
    expect(file!.id).toBe(sessionId);
    const { events } = readSession(file!.file);
    expect(events.filter((e) => e.type === 'tool/approval')).toMatchObject([{ stage: 'request' }, { stage: 'answer', decision: 'allow', by: 'person' }]);
  });

  it('a denied write reaches the model; a second prompt is a later turn of the same session', async () => {
    const { app } = await start([
      reply.toolCalls([{ id: 'w1', name: 'run_code', args: { code: "return await tools.write({ path: 'x.txt', content: 'x' });", description: 'write x' } }]),
      reply.text('I could not write.'),
      reply.text('Second turn.'),
    ]);
    const ed = editor(() => ({ outcome: { outcome: 'selected', optionId: 'deny' } }));
    const stops = await ed.app.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      const first = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Write x.' }] });
      const second = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
      return [first.stopReason, second.stopReason];
    });
    expect(stops).toEqual(['end_turn', 'end_turn']);
    expect(fs.existsSync(path.join(at.workspace, 'x.txt'))).toBe(false);
    expect(ed.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'w1').at(-1)).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(at.server!.requests[1]!.json)).toContain('denied by the user');
    const third = at.server!.requests[2]!.json as { messages: { role: string }[] };
    expect(third.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    const { events } = readSession(listSessionFiles(at.sessionDir)[0]!.file);
    expect(events.filter((e) => e.type === 'session/resume')).toHaveLength(1);
  });

  it('session/cancel stops a running turn with stopReason cancelled', async () => {
    const { app } = await start([
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: 'await new Promise((r) => setTimeout(r, 60_000));', description: 'wait' } }]),
    ]);
    const ed = editor(() => ({ outcome: { outcome: 'cancelled' } }));
    const stop = await ed.app.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      const prompt = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Wait.' }] });
      await waitUntil('the run_code tool call', () => ed.updates.some((u) => u.sessionUpdate === 'tool_call'));
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      // Only an abort ends the 60 s program as a cancelled turn.
      const { stopReason } = await prompt;
      return { stopReason };
    });
    expect(stop.stopReason).toBe('cancelled');
  });
});
