// The agent loop against a real HTTP model server on loopback (OpenAI chat-completions wire format,
// SSE), through the real provider client, real tools, the real runtime and the real session log.
// Only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { streamText, jsonSchema, tool, type ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, type AgentRunResult } from '../../src/agent/loop.js';
import { buildRequest } from '../../src/agent/request.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel, SDK_CALL_SETTINGS } from '../../src/llm/index.js';
import type { SessionEvent } from '../../src/session/events.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { waitUntil } from '../helpers/wait-until.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let server: ScriptedServer | undefined;
let harness: Harness | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-agent-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-agent-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function run(
  preset: 'ptc' | 'standard',
  script: ScriptedReply[],
  options: { maxSteps?: number; signal?: AbortSignal; onText?: (t: string) => void } = {},
): Promise<{ result: AgentRunResult; events: SessionEvent[]; file: string; warnings: string[] }> {
  server = await startScriptedOpenAIServer(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto' });
  const model = resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} });
  const writer = createSessionWriter({ dir: sessionDir });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model,
    task: 'Do the thing.',
    sink: writer,
    sessionId: writer.sessionId,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onText ? { onText: options.onText } : {}),
  });
  writer.close();
  const { events, warnings } = readSession(writer.file);
  return { result, events, file: writer.file, warnings };
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

describe('native turns (standard preset)', () => {
  it('runs two parallel read calls and sends both results in call order', async () => {
    const { result, events } = await run('standard', [
      reply.toolCalls([
        { id: 'r1', name: 'read', args: { path: 'a.txt' } },
        { id: 'r2', name: 'read', args: { path: 'b.txt' } },
      ]),
      reply.text('Both read.'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Both read.', steps: 2 });
    const first = server!.requests[0]!.json as { tools: { function: { name: string } }[] };
    expect(first.tools.map((t) => t.function.name)).toEqual(['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todo', 'web_fetch', 'web_search', 'write']);
    const second = server!.requests[1]!.json as { messages: { role: string; tool_call_id?: string; content: unknown }[] };
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['r1', 'r2']);
    expect(JSON.stringify(toolMessages[0]!.content)).toContain('alpha');
    expect(JSON.stringify(toolMessages[1]!.content)).toContain('beta');
    expect(ofType(events, 'tool/result').map((e) => e.isError)).toEqual([false, false]);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'completed' });
  });
});

describe('ptc turns', () => {
  const program = [
    "const [a, b] = await Promise.all([tools.read({ path: 'a.txt' }), tools.read({ path: 'b.txt' })]);",
    'return a.content.trim() + "+" + b.content.trim();',
  ].join('\n');

  it('run_code composes two tools; the wire has only run_code; the SDK is in the system prompt', async () => {
    const { result, events } = await run('ptc', [
      reply.toolCalls([{ id: 'rc1', name: 'run_code', args: { code: program, description: 'read both' } }]),
      reply.text('alpha+beta it is.'),
    ]);
    expect(result.reason).toBe('completed');
    const first = server!.requests[0]!.json as { tools: { function: { name: string } }[]; messages: { role: string; content: string }[] };
    expect(first.tools.map((t) => t.function.name)).toEqual(['run_code']);
    const system = first.messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain('declare const tools');
    expect(system).toContain('"read"(args: ToolArgsMap["read"])');
    expect(ofType(events, 'llm/request')[0]!.tools).toEqual(['run_code']);

    const starts = ofType(events, 'tool/ptc-dispatch-start');
    expect(starts.map((e) => e.id)).toEqual(['rc1:ptc:1', 'rc1:ptc:2']);
    expect(ofType(events, 'tool/ptc-dispatch').map((e) => e.parentId)).toEqual(['rc1', 'rc1']);
    const second = server!.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages.filter((m) => m.role === 'tool'))).toContain('alpha+beta');
    // Dispatch events are log-only: no sub-call appears in what the model was sent.
    expect(server!.requests[1]!.body).not.toContain('rc1:ptc:1');
  });

  it('logs only its own sub-calls, not those of another run_code on the same scope', async () => {
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 'mine', name: 'run_code', args: { code: program, description: 'mine' } }]),
      reply.text('Done.'),
    ]);
    harness = await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto' });
    const h = harness;
    // While the session's own run_code is about to start, someone else runs a program on the same scope.
    h.ctx.on('tools/pre-execute', async (call) => {
      if (call.id === 'mine') await h.tools.execute('run_code', { code: "await tools.read({ path: 'b.txt' });", description: 'other' }, { id: 'foreign' });
      return undefined;
    });
    const writer = createSessionWriter({ dir: sessionDir });
    await runAgent({
      scope: h.ctx,
      cwd: workspace,
      preset: 'ptc',
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      task: 'Do the thing.',
      sink: writer,
      sessionId: writer.sessionId,
    });
    writer.close();
    const { events } = readSession(writer.file);
    expect(ofType(events, 'tool/ptc-dispatch-start').map((e) => e.parentId)).toEqual(['mine', 'mine']);
    expect(ofType(events, 'tool/ptc-dispatch').map((e) => e.parentId)).toEqual(['mine', 'mine']);
  });

  it('a direct read in ptc mode is UNKNOWN_TOOL pointing to run_code, then the model recovers', async () => {
    const { result, events } = await run('ptc', [
      reply.toolCalls([{ id: 'd1', name: 'read', args: { path: 'a.txt' } }]),
      reply.toolCalls([{ id: 'rc2', name: 'run_code', args: { code: program, description: 'recover' } }]),
      reply.text('Recovered.'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', steps: 3 });
    const results = ofType(events, 'tool/result');
    expect(results[0]).toMatchObject({ id: 'd1', isError: true, error: { code: 'UNKNOWN_TOOL' } });
    expect(results[0]!.content).toContain('run_code');
    expect(results[1]).toMatchObject({ id: 'rc2', isError: false });
    expect(JSON.stringify(server!.requests[1]!.json)).toContain('UNKNOWN_TOOL');
  });
});

describe('a program that attacks the host channel (issue 8)', () => {
  // The program writes to fd 3 itself; fd 3 is non-blocking in the child, so it loops over partial writes.
  const send = (line: string) =>
    [
      'const fs = require("node:fs");',
      `const bytes = Buffer.from(${line} + "\\n");`,
      'for (let at = 0; at < bytes.length; ) {',
      '  try { at += fs.writeSync(3, bytes, at); } catch (e) { if (e.code !== "EAGAIN") throw e; }',
      '}',
      'await new Promise(() => {});',
    ].join('\n');

  it.each([
    ['a done frame nested 100,000 deep', send(`'{"type":"done","ok":true,"value":' + "[".repeat(1e5) + "]".repeat(1e5) + '}'`), 'PROTOCOL'],
    ['closing the channel', 'require("node:fs").closeSync(3);\nawait new Promise(() => {});', 'PROTOCOL'],
  ])('%s: run_code ends as an error result, the agent goes on, the log ends with session/end', async (_name, code, errorCode) => {
    const { result, events } = await run('ptc', [
      reply.toolCalls([{ id: 'evil', name: 'run_code', args: { code, description: 'attack the channel' } }]),
      reply.text('That failed.'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'That failed.' });
    const results = ofType(events, 'tool/result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: 'evil', isError: true, error: { code: errorCode } });
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'completed' });
  });
});

describe('ending a session', () => {
  it('stops at --max-steps', async () => {
    const call = (id: string) => reply.toolCalls([{ id, name: 'read', args: { path: 'a.txt' } }]);
    const { result, events } = await run('standard', [call('m1'), call('m2'), call('m3')], { maxSteps: 2 });
    expect(result).toMatchObject({ reason: 'max-steps', steps: 2 });
    expect(server!.requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'max-steps' });
  });

  it('retries a 500 and succeeds', async () => {
    const { result } = await run('standard', [reply.error(500), reply.text('After a retry.')]);
    expect(result).toMatchObject({ reason: 'completed', text: 'After a retry.' });
    expect(server!.requests).toHaveLength(2);
  });

  it('a 401 ends the run with a clear message, not retried, and the log is closed', async () => {
    const { result, events } = await run('standard', [reply.error(401)]);
    expect(result.reason).toBe('error');
    expect(result.error).toMatch(/API key.*401|401.*API key/);
    expect(server!.requests).toHaveLength(1);
    expect(ofType(events, 'llm/error')[0]).toMatchObject({ status: 401 });
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'error' });
  });

  it('abort mid-step stops the program, leaves no process behind, and closes the log', async () => {
    const controller = new AbortController();
    const marker = path.join(workspace, 'started');
    const code = [
      `await tools.bash({ command: 'touch started; sleep 1000' });`,
      `return 'unreachable';`,
    ].join('\n');
    const before = listPids();
    const running = run('ptc', [reply.toolCalls([{ id: 'long', name: 'run_code', args: { code, description: 'hang' } }])], {
      signal: controller.signal,
    });
    await waitUntil('the program to start its bash command', () => fs.existsSync(marker));
    controller.abort();
    const { result, events } = await running;
    expect(result.reason).toBe('aborted');
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'aborted' });
    const results = ofType(events, 'tool/result');
    expect(results[0]).toMatchObject({ id: 'long', isError: true, error: { code: 'ABORTED' } });
    await waitUntil('the sleep process to be gone', () => sleepers(before).length === 0);
    expect(sleepers(before)).toEqual([]);
  });
});

describe('reconstruction', () => {
  it('every request rebuilt from the log produces the exact bytes the server received', async () => {
    const { events } = await run('ptc', [
      reply.toolCalls([{ id: 'x1', name: 'read', args: { path: 'a.txt' } }], { text: 'Trying read.' }),
      reply.toolCalls([
        { id: 'x2', name: 'run_code', args: { code: "return (await tools.read({ path: 'b.txt' })).content;", description: 'b' } },
      ]),
      reply.text('Done.'),
    ]);
    const original = server!.requests.map((r) => r.body);
    expect(original).toHaveLength(3);
    const replay = await startScriptedOpenAIServer([reply.text('1'), reply.text('2'), reply.text('3')]);
    try {
      const model = resolveModel({ baseUrl: replay.baseUrl, model: 'scripted', env: {} });
      for (let step = 1; step <= 3; step++) {
        const request = buildRequest(events, step);
        const tools: ToolSet = {};
        for (const schema of request.toolSchemas as { name: string; description: string; inputSchema: object }[]) {
          tools[schema.name] = tool({ description: schema.description, inputSchema: jsonSchema(schema.inputSchema) });
        }
        const result = streamText({ model: model.model, system: request.system, messages: request.messages, tools, ...SDK_CALL_SETTINGS });
        await result.consumeStream();
        expect(replay.requests[step - 1]!.body).toBe(original[step - 1]);
      }
    } finally {
      await replay.close();
    }
  });

  it('a log with a torn last line still reads, with a warning', async () => {
    const { file } = await run('standard', [reply.text('Short.')]);
    fs.appendFileSync(file, '{"type":"tool/result","ts":"2026-');
    const { events, warnings } = readSession(file);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'completed' });
    expect(warnings.join('\n')).toMatch(/torn/);
    expect(buildRequest(events, 1).messages).toEqual([{ role: 'user', content: 'Do the thing.' }]);
  });
});

function listPids(): Set<number> {
  return new Set(fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number));
}

/** `sleep 1000` processes that did not exist before the test. */
function sleepers(before: Set<number>): number[] {
  return [...listPids()].filter((pid) => {
    if (before.has(pid)) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === 'sleep 1000';
    } catch {
      return false;
    }
  });
}
