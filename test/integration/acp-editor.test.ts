// `ptc acp` as an editor keeps it open all day: session/load replays a logged session and continues
// it, the editor's own MCP servers join the session's tools, file changes arrive as diffs, the todo
// list as a plan, and the Zed snippet of docs/acp.md starts the agent. The ACP SDK's client side, a
// real harness, runtime, MCP server and child process; only the model's choices are scripted.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { AcpAgentOptions } from '../../src/acp/acp-agent.js';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, type ScriptedReply } from '../fixtures/scripted-openai-server.js';
import { acpFixture, allowOnce, recordingEditor } from '../helpers/acp-session.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const memoryServerJs = path.join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

const at = acpFixture('ptc-acp-ed', (workspace) => fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n'));
const editor = () => recordingEditor(allowOnce);

function agentOn(baseUrl: string, extra: Partial<AcpAgentOptions> = {}) {
  return at.agent({ harness: { preset: 'ptc', sandbox: 'auto' }, baseUrl, approve: 'never', ...extra });
}

async function scripted(script: ScriptedReply[]): Promise<string> {
  return (await at.serve(script)).baseUrl;
}

const textOf = (updates: acp.SessionUpdate[], kind: 'agent_message_chunk' | 'user_message_chunk') =>
  updates.flatMap((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? [u.content.text] : []));

describe('ptc acp: session/load', () => {
  it('advertises loadSession, replays the logged turn before answering, and continues the same log', async () => {
    const program = "await tools.todo({ todos: [{ content: 'Read a.txt', status: 'in_progress' }] });\nreturn (await tools.read({ path: 'a.txt' })).content;";
    const baseUrl = await scripted([
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'read a' } }]),
      reply.text('It says alpha.'),
      reply.text('Still alpha.'),
    ]);
    const first = editor();
    const { sessionId, init } = await first.app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'What is in a.txt?' }] });
      return { sessionId, init };
    });
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, mcpCapabilities: { http: true } });
    await at.closeAgents();

    // A new process, as after an editor restart: the same session directory, a fresh agent.
    const second = editor();
    const { seenAtLoad, stop } = await second.app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: at.workspace, mcpServers: [] });
      const seenAtLoad = second.updates.length;
      const { stopReason } = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
      return { seenAtLoad, stop: stopReason };
    });
    const replayed = second.updates.slice(0, seenAtLoad);
    expect(textOf(replayed, 'user_message_chunk')).toEqual(['What is in a.txt?']);
    expect(textOf(replayed, 'agent_message_chunk')).toEqual(['It says alpha.']);
    expect(replayed.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({ toolCallId: 'p1', title: 'read a', kind: 'execute' });
    expect(JSON.stringify(replayed)).toMatch(/✓ read/);
    expect(replayed.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'p1').at(-1)).toMatchObject({ status: 'completed' });
    expect(replayed.find((u) => u.sessionUpdate === 'plan')).toMatchObject({ entries: [{ content: 'Read a.txt', status: 'in_progress' }] });
    // The order a live turn has: the user's message first, the answer after the tool call.
    const kinds = replayed.map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe('user_message_chunk');
    expect(kinds.lastIndexOf('agent_message_chunk')).toBeGreaterThan(kinds.indexOf('tool_call'));

    expect(stop).toBe('end_turn');
    expect(textOf(second.updates.slice(seenAtLoad), 'agent_message_chunk').join('')).toBe('Still alpha.');
    // The continued turn's request holds the first turn, as `ptc run --resume` builds it.
    const third = at.server!.requests[2]!.json as { messages: { role: string }[] };
    expect(third.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    const files = listSessionFiles(at.sessionDir);
    expect(files.map((f) => f.id)).toEqual([sessionId]);
    const { events } = readSession(files[0]!.file);
    expect(events.filter((e) => e.type === 'session/resume')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'user/message').map((e) => (e.type === 'user/message' ? e.text : ''))).toEqual(['What is in a.txt?', 'And now?']);
  });

  it('an unknown session id is a resource-not-found error that names the id and the fix', async () => {
    const baseUrl = await scripted([]);
    const error = await editor().app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      return ctx.request(acp.methods.agent.session.load, { sessionId: 'no-such-session', cwd: at.workspace, mcpServers: [] }).catch((e: unknown) => e);
    });
    expect(error).toBeInstanceOf(acp.RequestError);
    expect(error).toMatchObject({ code: -32002, data: { sessionId: 'no-such-session', code: 'CONFIG' } });
    expect((error as Error).message).toContain('no-such-session');
    expect((error as Error).message).toContain('session/new');
  });

  it('a cwd other than the session\'s own is refused naming both; its own cwd loads (and keeps the session locked while open)', async () => {
    const baseUrl = await scripted([reply.text('Hi.')]);
    const sessionId = await editor().app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Hello.' }] });
      return sessionId;
    });
    await at.closeAgents();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-acp-ed-other-'));
    try {
      const { wrongCwd, loaded, busy } = await editor().app.connectWith(agentOn(baseUrl).app, async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
        const wrongCwd = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: elsewhere, mcpServers: [] }).catch((e: unknown) => e);
        const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: at.workspace, mcpServers: [] });
        // A second agent (another editor window, another process) cannot take the same session meanwhile.
        const busy = await editor().app.connectWith(agentOn(baseUrl).app, async (other) => {
          await other.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
          return other.request(acp.methods.agent.session.load, { sessionId, cwd: at.workspace, mcpServers: [] }).catch((e: unknown) => e);
        });
        return { wrongCwd, loaded, busy };
      });
      expect(wrongCwd).toMatchObject({ code: -32602, data: { code: 'CONFIG' } });
      expect((wrongCwd as Error).message).toContain(at.workspace);
      expect((wrongCwd as Error).message).toContain(elsewhere);
      // The load answer names the session's modes (docs/plan-mode.md).
      expect(loaded).toEqual({ modes: expect.objectContaining({ currentModeId: 'default' }) });
      expect(busy).toMatchObject({ code: -32600, data: { code: 'CONFIG' } });
      expect((busy as Error).message).toContain('in use');
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("ptc acp: the editor's MCP servers", () => {
  it('a stdio server from session/new is <server>__<tool> in the session and callable from a program, in an untrusted workspace', async () => {
    const program =
      "await tools.memory__create_entities({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] });\n" +
      'return await tools.memory__read_graph({});';
    const baseUrl = await scripted([reply.toolCalls([{ id: 'm1', name: 'run_code', args: { code: program, description: 'remember Ada' } }]), reply.text('Remembered.')]);
    const ed = editor();
    const stop = await ed.app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: at.workspace,
        mcpServers: [{ name: 'memory', command: process.execPath, args: [memoryServerJs], env: [{ name: 'MEMORY_FILE_PATH', value: path.join(at.workspace, 'memory.jsonl') }] }],
      });
      return (await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Remember Ada.' }] })).stopReason;
    });
    expect(stop).toBe('end_turn');
    // The model saw the server's tools in the SDK of its first request.
    expect(JSON.stringify(at.server!.requests[0]!.json)).toContain('memory__read_graph');
    const last = ed.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'm1').at(-1);
    expect(last).toMatchObject({ status: 'completed', rawOutput: { isError: false } });
    expect(JSON.stringify(last)).toContain('wrote the first program');
  });

  it('a server that fails to start fails session/new with CONFIG naming the server and its stderr', async () => {
    const baseUrl = await scripted([]);
    const error = await editor().app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      return ctx
        .request(acp.methods.agent.session.new, {
          cwd: at.workspace,
          mcpServers: [{ name: 'broken', command: process.execPath, args: ['-e', "process.stderr.write('cannot open the index\\n'); process.exit(3)"], env: [] }],
        })
        .catch((e: unknown) => e);
    });
    expect(error).toBeInstanceOf(acp.RequestError);
    expect(error).toMatchObject({ code: -32602, data: { code: 'CONFIG' } });
    expect((error as Error).message).toContain('`broken`');
    expect((error as Error).message).toContain('cannot open the index');
    expect((error as Error).message).toContain('mcpServers');
  });
});

describe('ptc acp: diffs and plans', () => {
  it("a program's write and edit sub-calls add diff content to its run_code call: absolute path, old text (null for a new file), new text", async () => {
    const program =
      "await tools.write({ path: 'new.txt', content: 'fresh\\n' });\n" +
      "await tools.write({ path: 'a.txt', content: 'beta\\n' });\n" +
      "await tools.edit({ path: 'a.txt', old_string: 'beta', new_string: 'gamma' });\nreturn 'ok';";
    const baseUrl = await scripted([reply.toolCalls([{ id: 'w1', name: 'run_code', args: { code: program, description: 'write' } }]), reply.text('Done.')]);
    const ed = editor();
    await ed.app.connectWith(agentOn(baseUrl).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Write.' }] });
    });
    const last = ed.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'w1').at(-1);
    expect(last).toMatchObject({ status: 'completed' });
    const diffs = (last as { content: acp.ToolCallContent[] }).content.filter((c) => c.type === 'diff');
    expect(diffs).toEqual([
      { type: 'diff', path: path.join(at.workspace, 'new.txt'), oldText: null, newText: 'fresh\n' },
      { type: 'diff', path: path.join(at.workspace, 'a.txt'), oldText: 'alpha\n', newText: 'beta\n' },
      { type: 'diff', path: path.join(at.workspace, 'a.txt'), oldText: 'beta\n', newText: 'gamma\n' },
    ]);
  });

  it('native write, a refused write and todo calls: a diff on the write that changed a file, none on the refused one, the todo list as a plan', async () => {
    const baseUrl = await scripted([
      reply.toolCalls([
        { id: 't1', name: 'todo', args: { todos: [{ content: 'Write c.txt', status: 'in_progress' }, { content: 'Check it', status: 'pending' }] } },
        { id: 'n1', name: 'write', args: { path: 'c.txt', content: 'see\n' } },
        { id: 'n2', name: 'edit', args: { path: 'a.txt', old_string: 'not there', new_string: 'x' } },
      ]),
      reply.text('Done.'),
    ]);
    const ed = editor();
    await ed.app.connectWith(agentOn(baseUrl, { harness: { preset: 'standard', sandbox: 'auto' } }).app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Write c.' }] });
    });
    const end = (id: string) => ed.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id).at(-1) as { status: string; content: acp.ToolCallContent[] };
    expect(end('n1').status).toBe('completed');
    expect(end('n1').content.filter((c) => c.type === 'diff')).toEqual([{ type: 'diff', path: path.join(at.workspace, 'c.txt'), oldText: null, newText: 'see\n' }]);
    expect(end('n2').status).toBe('failed');
    expect(end('n2').content.filter((c) => c.type === 'diff')).toEqual([]);
    expect(ed.updates.filter((u) => u.sessionUpdate === 'plan')).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Write c.txt', status: 'in_progress', priority: 'medium' },
          { content: 'Check it', status: 'pending', priority: 'medium' },
        ],
      },
    ]);
  });
});

describe('ptc acp: the Zed snippet of docs/acp.md', () => {
  /** The `agent_servers.ptc` entry of the page's JSON block, as the page shows it. */
  function zedEntry(): { command: string; args: string[]; env: Record<string, string> } {
    const page = fs.readFileSync(path.join(root, 'docs/acp.md'), 'utf8');
    const block = /```json\n([\s\S]*?)\n```/.exec(page.slice(page.indexOf('A Zed `settings.json` entry')));
    expect(block, 'docs/acp.md has the Zed settings.json block').not.toBeNull();
    const settings = JSON.parse(block![1]!) as { agent_servers: { ptc: { command: string; args: string[]; env: Record<string, string> } } };
    return settings.agent_servers.ptc;
  }

  it('the command it shows starts the ACP agent, which answers initialize and session/new over stdio', async () => {
    const entry = zedEntry();
    expect(entry.command).toBe('ptc');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-acp-zed-home-'));
    // `ptc` is the package's bin; the env is the snippet's, plus a home of its own for the session log.
    const child = spawn(process.execPath, [path.join(root, 'dist/cli/ptc.cjs'), ...entry.args], {
      cwd: at.workspace,
      env: { PATH: process.env.PATH ?? '', HOME: home, PTC_HOME: home, ...entry.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
      const answered = editor().app.connectWith(stream, async (ctx) => {
        const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
        const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: at.workspace, mcpServers: [] });
        return { init, sessionId };
      });
      const outcome = await Promise.race([answered, exited.then((code) => ({ exitedEarly: code }))]);
      expect(outcome, `ptc ${entry.args.join(' ')} exited before answering; stderr: ${stderr}`).not.toHaveProperty('exitedEarly');
      const { init, sessionId } = outcome as Awaited<typeof answered>;
      expect(init).toMatchObject({ protocolVersion: acp.PROTOCOL_VERSION, agentInfo: { name: 'ptc-harness' } });
      expect(listSessionFiles(path.join(home, 'sessions')).map((f) => f.id)).toEqual([sessionId]);
    } finally {
      child.stdin.end();
      const code = await exited;
      fs.rmSync(home, { recursive: true, force: true });
      expect(code, stderr).toBe(0);
    }
  });
});
