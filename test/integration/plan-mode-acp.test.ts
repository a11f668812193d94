// Plan mode over ACP, driven by the ACP SDK's own client side (docs/plan-mode.md, docs/acp.md): a
// session advertises the `default` and `plan` modes, session/set_mode switches, a proposed plan is a
// session/request_permission the editor approves (the mode update and the todo list as a `plan`
// update follow, and the work starts) or sends back with a comment, and session/load comes back in the
// mode the log ended in, replaying the todo list. Real harness, tools and files, a real model server
// on loopback; only the model's choices and the editor's answers are scripted.

import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { AcpAgentOptions } from '../../src/acp/acp-agent.js';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, type ScriptedReply } from '../fixtures/scripted-openai-server.js';
import { acpFixture, recordingEditor } from '../helpers/acp-session.js';

const at = acpFixture('ptc-plan-acp', (workspace) => fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n'));
const editor = recordingEditor;

async function agentOn(script: ScriptedReply[], extra: Partial<AcpAgentOptions> = {}) {
  const server = await at.serve(script);
  return at.agent({ harness: { preset: 'standard', sandbox: 'auto' }, baseUrl: server.baseUrl, approve: 'never', ...extra });
}

type Sent = { tools?: { function: { name: string } }[]; messages: unknown[] };
const toolsOf = (i: number): string[] => ((at.server!.requests[i]!.json as Sent).tools ?? []).map((t) => t.function.name);

describe('plan mode over ACP', () => {
  it('set_mode plan, the plan approved through request_permission: mode update, the steps as a plan update, the work done', async () => {
    const { app } = await agentOn([
      reply.toolCall('plan_propose', { markdown: '## Plan\nCopy a to b.', steps: ['Read a.txt', 'Write b.txt'] }, 'pp1'),
      reply.toolCall('write', { path: 'b.txt', content: 'alpha\n' }, 'w1'),
      reply.text('Copied.'),
    ]);
    const ed = editor(() => ({ outcome: { outcome: 'selected', optionId: 'approve' } }));
    const { created, stop, sessionId } = await ed.app.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const created = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.setMode, { sessionId: created.sessionId, modeId: 'plan' });
      const { stopReason } = await ctx.request(acp.methods.agent.session.prompt, { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Copy a.txt to b.txt.' }] });
      return { created, stop: stopReason, sessionId: created.sessionId };
    });
    expect(created.modes).toMatchObject({ currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'plan' }] });
    expect(stop).toBe('end_turn');
    expect(toolsOf(0)).toContain('plan_propose');
    expect(toolsOf(0)).not.toContain('write');
    expect(toolsOf(1)).toContain('write');
    expect(fs.readFileSync(path.join(at.workspace, 'b.txt'), 'utf8')).toBe('alpha\n');

    expect(ed.permissions).toHaveLength(1);
    expect(ed.permissions[0]).toMatchObject({
      sessionId,
      toolCall: { toolCallId: 'pp1', kind: 'switch_mode', rawInput: { steps: ['Read a.txt', 'Write b.txt'] } },
      options: [{ optionId: 'approve', kind: 'allow_once' }, { optionId: 'send-back', kind: 'reject_once' }],
    });
    expect(JSON.stringify(ed.permissions[0]!.toolCall.content)).toContain('Copy a to b.');
    const modeUpdates = ed.updates.filter((u) => u.sessionUpdate === 'current_mode_update');
    expect(modeUpdates.map((u) => (u.sessionUpdate === 'current_mode_update' ? u.currentModeId : ''))).toEqual(['plan', 'default']);
    const plans = ed.updates.filter((u) => u.sessionUpdate === 'plan');
    expect(plans.at(-1)).toMatchObject({
      entries: [
        { content: 'Read a.txt', status: 'pending' },
        { content: 'Write b.txt', status: 'pending' },
      ],
    });

    // A later connection loads it in the default mode, with the todo list replayed.
    // The first agent lets go of the session (its turn lock) when it closes.
    await at.closeAgents();
    const again = editor(() => ({ outcome: { outcome: 'cancelled' } }));
    const loaded = await again.app.connectWith((await agentOn([])).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      return ctx.request(acp.methods.agent.session.load, { sessionId, cwd: at.workspace, mcpServers: [] });
    });
    expect(loaded.modes).toMatchObject({ currentModeId: 'default' });
    expect(again.updates.filter((u) => u.sessionUpdate === 'plan').at(-1)).toMatchObject({ entries: [{ content: 'Read a.txt' }, { content: 'Write b.txt' }] });
  });

  it('sent back with a comment: the model reads it, plan mode stays; session/load comes back planning', async () => {
    const { app } = await agentOn(
      [reply.toolCall('plan_propose', { markdown: 'Delete a.txt.', steps: ['Delete a.txt'] }, 'pp1'), reply.text('Revising.'), reply.text('Planning still.')],
      { plan: true },
    );
    const ed = editor(() => ({ outcome: { outcome: 'selected', optionId: 'send-back' }, _meta: { comment: 'never delete a.txt' } }));
    const { created, sessionId } = await ed.app.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const created = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Clean up.' }] });
      return { created, sessionId: created.sessionId };
    });
    expect(created.modes).toMatchObject({ currentModeId: 'plan' });
    expect(JSON.stringify(at.server!.requests[1]!.json)).toContain('never delete a.txt');
    expect(toolsOf(1)).not.toContain('write');
    expect(ed.updates.filter((u) => u.sessionUpdate === 'current_mode_update')).toEqual([]);
    expect(fs.readFileSync(path.join(at.workspace, 'a.txt'), 'utf8')).toBe('alpha\n');

    // Loaded without --plan: the log says plan mode, and the next turn plans.
    // The first agent lets go of the session (its turn lock) when it closes.
    await at.closeAgents();
    const again = editor(() => ({ outcome: { outcome: 'cancelled' } }));
    const loaded = await again.app.connectWith((await agentOn([])).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Go on.' }] });
      return loaded;
    });
    expect(loaded.modes).toMatchObject({ currentModeId: 'plan' });
    expect(toolsOf(2)).toContain('plan_propose');
    expect(toolsOf(2)).not.toContain('write');
    const { events } = readSession(listSessionFiles(at.sessionDir)[0]!.file);
    expect(events.filter((e) => e.type === 'plan/review')).toMatchObject([{ id: 'pp1', decision: 'sent-back', comment: 'never delete a.txt' }]);
  });

  it('session/set_mode with an unknown mode is invalid params naming the modes', async () => {
    const { app } = await agentOn([]);
    const ed = editor(() => ({ outcome: { outcome: 'cancelled' } }));
    const error = await ed.app.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      return ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' }).then(
        () => undefined,
        (e: unknown) => e as acp.RequestError,
      );
    });
    expect(error).toBeDefined();
    expect(error!.code).toBe(-32602);
    expect(error!.message).toMatch(/Unknown session mode "yolo"; use one of default, plan/);
  });
});
