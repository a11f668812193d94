// `ptc acp --watch` (docs/plugin-reload.md): before each prompt turn an edited plugin file is
// reloaded, the editor hears it as a thought, and the turn's tool call reaches the new version. The
// editor side is the protocol SDK's client; only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createAcpAgent } from '../../src/acp/acp-agent.js';
import { lastToolResult, reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

const plugin = (version: string) =>
  `export const name = 'greeter';\nexport function apply(ctx: any): void {\n  ctx.tools.register({ name: 'greet', description: 'Greets (version ${version}).', inputSchema: { type: 'object', properties: {} }, execute: async () => ({ greeting: 'hello from ${version}' }) });\n}\n`;

let server: ScriptedServer | undefined;
let agent: ReturnType<typeof createAcpAgent> | undefined;
let tmp: string | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  agent = undefined;
  server = undefined;
  tmp = undefined;
});

describe('ptc acp --watch', () => {
  it('reloads an edited plugin file before the next prompt turn and says so as a thought', async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-reload-acp-')));
    const workspace = path.join(tmp, 'ws');
    const plugins = path.join(tmp, 'plugins');
    fs.mkdirSync(workspace);
    fs.mkdirSync(plugins);
    const file = path.join(plugins, 'greeter.ts');
    fs.writeFileSync(file, plugin('v1'));
    server = await startScriptedOpenAIServer([reply.toolCall('greet', {}, 'g1'), reply.text('one'), reply.toolCall('greet', {}, 'g2'), reply.text('two')]);
    agent = createAcpAgent({
      harness: { preset: 'minimal', plugins: [file], watchPlugins: true, env: { PTC_HOME: path.join(tmp, 'home') } },
      baseUrl: server.baseUrl,
      model: 'scripted',
      env: { PTC_HOME: path.join(tmp, 'home') },
      approve: 'never',
      sessionDir: path.join(tmp, 'sessions'),
      version: '0.0.0-test',
    });
    const updates: acp.SessionUpdate[] = [];
    const app = acp.client({ name: 'test-editor' }).onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params.update));
    const thoughts = () => updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk').map((u) => (u.content.type === 'text' ? u.content.text : ''));
    const seen = await app.connectWith(agent.app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Greet me.' }] });
      const before = thoughts();
      fs.writeFileSync(file, plugin('v2'));
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Again.' }] });
      return { before, after: thoughts() };
    });
    expect(seen.before).toEqual([]);
    expect(seen.after).toEqual([`ptc: reloaded plugin "greeter" from ${file}\n`]);
    expect(lastToolResult(server.requests[1])).toContain('hello from v1');
    expect(lastToolResult(server.requests[3])).toContain('hello from v2');
  });
});
