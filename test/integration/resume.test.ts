// Sessions that continue (docs/sessions.md): a later turn appends to the same log, its requests are
// rebuilt from the whole log exactly as `sessions show --request` would, step numbers continue, and
// only one process at a time may add a turn. Real HTTP model server on loopback; only the model's
// choices are scripted.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jsonSchema, streamText, tool, type ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { buildRequest } from '../../src/agent/request.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel, SDK_CALL_SETTINGS } from '../../src/llm/index.js';
import {
  continueSession,
  createSessionWriter,
  formatSession,
  latestSessionIn,
  readSession,
  type SessionEvent,
  type SessionWriter,
} from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let harness: Harness | undefined;
const servers: ScriptedServer[] = [];

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-resume-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-resume-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function turn(writer: SessionWriter, task: string, script: ScriptedReply[], history?: readonly SessionEvent[]) {
  const server = await startScriptedOpenAIServer(script);
  servers.push(server);
  harness ??= await createHarness({ cwd: workspace, preset: 'ptc', sandbox: 'auto' });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset: 'ptc',
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    task,
    sink: writer,
    sessionId: writer.sessionId,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...(history ? { history } : {}),
  });
  writer.close();
  return { result, server };
}

/** The exact request body the provider client sends for step `step` rebuilt from `events`. */
async function rebuiltBody(events: readonly SessionEvent[], step: number): Promise<string> {
  const replay = await startScriptedOpenAIServer([reply.text('x')]);
  try {
    const request = buildRequest(events, step);
    const tools: ToolSet = {};
    for (const schema of request.toolSchemas as { name: string; description: string; inputSchema: object }[]) {
      tools[schema.name] = tool({ description: schema.description, inputSchema: jsonSchema(schema.inputSchema) });
    }
    const model = resolveModel({ baseUrl: replay.baseUrl, model: 'scripted', env: {} });
    await streamText({ model: model.model, system: request.system, messages: request.messages, tools, ...SDK_CALL_SETTINGS }).consumeStream();
    return replay.requests[0]!.body;
  } finally {
    await replay.close();
  }
}

describe('a session that continues', () => {
  it('appends a turn to the same log, continues the step numbers and sends the rebuilt request', async () => {
    const first = createSessionWriter({ dir: sessionDir });
    await turn(first, 'Read a.txt.', [
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: "return (await tools.read({ path: 'a.txt' })).content;", description: 'read a' } }]),
      reply.text('It says alpha.'),
    ]);

    const continued = continueSession(sessionDir, first.sessionId.slice(0, 12));
    expect(continued.sessionId).toBe(first.sessionId);
    expect(continued.file).toBe(first.file);
    expect(fs.existsSync(`${first.file}.lock`)).toBe(true);
    const { result, server } = await turn(continued.writer, 'And in upper case?', [reply.text('ALPHA.')], continued.events);
    expect(fs.existsSync(`${first.file}.lock`)).toBe(false);
    expect(result).toMatchObject({ reason: 'completed', text: 'ALPHA.', steps: 3 });

    const { events, warnings } = readSession(first.file);
    expect(warnings).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'session/start', 'user/message', 'llm/request', 'llm/response', 'tool/call',
      'tool/ptc-dispatch-start', 'tool/ptc-dispatch', 'tool/result', 'llm/request', 'llm/response', 'session/end',
      'session/resume', 'user/message', 'llm/request', 'llm/response', 'session/end',
    ]);
    expect(events.filter((e) => e.type === 'llm/request').map((e) => (e as { step: number }).step)).toEqual([1, 2, 3]);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'completed', steps: 3 });
    expect(events.find((e) => e.type === 'session/resume')).toMatchObject({ preset: 'ptc', mode: 'ptc', pid: process.pid });

    // The second turn's request holds the whole first turn, then the new message, byte for byte as rebuilt.
    const sent = server.requests[0]!;
    expect(sent.body).toBe(await rebuiltBody(events, 3));
    const messages = (sent.json as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'And in upper case?' });
    expect(JSON.stringify(messages)).toContain('alpha');

    const shown = formatSession(events);
    expect(shown).toMatch(/Turn ended: completed after 2 steps/);
    expect(shown).toMatch(/Resumed .*: preset ptc \(ptc mode\), model/);
    expect(shown).toMatch(/Step 3/);
    expect(shown).toMatch(/End: completed after 3 steps\n/);
  });

  it('continues a log whose last line was torn by a crash, keeping the fragment on its own line', async () => {
    const first = createSessionWriter({ dir: sessionDir });
    await turn(first, 'Hello.', [reply.text('Hi.')]);
    fs.appendFileSync(first.file, '{"type":"tool/result","ts":"2026-');
    const continued = continueSession(sessionDir, first.sessionId);
    await turn(continued.writer, 'Again.', [reply.text('Hi again.')], continued.events);
    const { events, warnings } = readSession(first.file);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/invalid JSON/);
    expect(events.map((e) => e.type).slice(-5)).toEqual(['session/resume', 'user/message', 'llm/request', 'llm/response', 'session/end']);
  });

  it('refuses a session whose turn is running, or that another process holds, and takes over a stale lock', () => {
    const running = createSessionWriter({ dir: sessionDir });
    running.append({ type: 'session/start', sessionId: running.sessionId, preset: 'ptc', cwd: workspace, model: 'm', mode: 'ptc', pid: process.pid, host: os.hostname() });
    running.close();
    expect(() => continueSession(sessionDir, running.sessionId)).toThrow(/still running in another process/);
    expect(fs.existsSync(`${running.file}.lock`)).toBe(false);

    const ended = createSessionWriter({ dir: sessionDir });
    ended.append({ type: 'session/start', sessionId: ended.sessionId, preset: 'ptc', cwd: workspace, model: 'm', mode: 'ptc', pid: 1, host: 'elsewhere' });
    ended.append({ type: 'session/end', reason: 'completed', steps: 0 });
    ended.close();
    const held = continueSession(sessionDir, ended.sessionId);
    expect(() => continueSession(sessionDir, ended.sessionId)).toThrow(new RegExp(`in use by process ${process.pid}`));
    held.writer.close();

    // A lock left by a process that died is taken over.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(`${ended.file}.lock`, JSON.stringify({ pid: Number(dead.stdout), host: os.hostname() }));
    const again = continueSession(sessionDir, ended.sessionId);
    again.writer.close();
    expect(fs.existsSync(`${ended.file}.lock`)).toBe(false);

    expect(() => continueSession(sessionDir, 'nope')).toThrow(/No session "nope"/);
  });

  it('finds the latest top-level session of a workspace for --continue', () => {
    const at = (iso: string) => () => new Date(iso);
    const log = (cwd: string, iso: string, parent?: string) => {
      const w = createSessionWriter({ dir: sessionDir, now: at(iso) });
      w.append({ type: 'session/start', sessionId: w.sessionId, preset: 'ptc', cwd, model: 'm', mode: 'ptc', ...(parent ? { parent: { sessionId: parent, toolCallId: 't' } } : {}) });
      w.append({ type: 'session/end', reason: 'completed', steps: 1 });
      w.close();
      return w.sessionId;
    };
    const older = log(workspace, '2026-11-01T00:00:00Z');
    const newest = log(workspace, '2026-11-03T00:00:00Z');
    log(workspace, '2026-11-04T00:00:00Z', newest);
    log('/elsewhere', '2026-11-05T00:00:00Z');
    expect(latestSessionIn(sessionDir, workspace)).toBe(newest);
    expect(older).not.toBe(newest);
    expect(() => latestSessionIn(sessionDir, '/nowhere')).toThrow(/No session .* was started in \/nowhere/);
  });
});
