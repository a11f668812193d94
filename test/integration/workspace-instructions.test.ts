// AGENTS.md through the real agent loop: the scripted model server (loopback, OpenAI wire format)
// receives it in the system prompt, and the request rebuilt from the session log holds the same text.
// Also the todo tool through the loop: its plan is rebuilt from the real log.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAgent } from '../../src/agent/loop.js';
import { buildRequest } from '../../src/agent/request.js';
import { todosFromSession } from '../../src/builtin-tools/todo.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let server: ScriptedServer | undefined;
let harness: Harness | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-instr-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-instr-log-'));
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function run(preset: 'ptc' | 'standard', script: ScriptedReply[], setup: (h: Harness) => void = () => {}) {
  server = await startScriptedOpenAIServer(script);
  // `await` keeps this working whether createHarness returns the harness or a promise of it.
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto' });
  setup(harness);
  const writer = createSessionWriter({ dir: sessionDir });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    task: 'Do the thing.',
    sink: writer,
    sessionId: writer.sessionId,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  writer.close();
  return { result, events: readSession(writer.file).events };
}

function systemSent(index: number): string {
  const body = server!.requests[index]!.json as { messages: { role: string; content: string }[] };
  return body.messages.find((m) => m.role === 'system')!.content;
}

describe('workspace instructions in the agent', () => {
  it.each(['standard', 'ptc'] as const)('%s: AGENTS.md is in the request sent and in the request rebuilt from the log', async (preset) => {
    fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'Use tabs, never spaces. Marker: 7f3a-instructions.\n');
    fs.writeFileSync(path.join(workspace, 'CLAUDE.md'), 'Not this one.\n');
    const { result, events } = await run(preset, [reply.text('Noted.')]);
    expect(result.reason).toBe('completed');
    const sent = systemSent(0);
    expect(sent).toContain('### Instructions from AGENTS.md');
    expect(sent).toContain('Marker: 7f3a-instructions.');
    expect(sent).not.toContain('Not this one.');
    const rebuilt = buildRequest(events, 1);
    expect(rebuilt.system).toBe(sent);
  });

  it('reads the file once per session: an edit during the session does not change later requests', async () => {
    fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'First version.\n');
    const { events } = await run('standard', [reply.toolCall('todo', { todos: [{ content: 'Edit rules', status: 'in_progress' }] }, 't1'), reply.text('Done.')], (h) => {
      // Whoever edits the file mid-session (here: a listener when the first call runs).
      h.ctx.on('tools/result', () => fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'Second version.\n'));
    });
    expect(systemSent(0)).toContain('First version.');
    expect(systemSent(1)).toContain('First version.');
    expect(buildRequest(events, 2).system).toBe(systemSent(1));
  });

  it('without AGENTS.md or CLAUDE.md the workspace section has no instructions', async () => {
    await run('standard', [reply.text('Ok.')]);
    expect(systemSent(0)).toContain('## Workspace');
    expect(systemSent(0)).not.toContain('### Instructions from');
  });
});

describe('todo in the agent', () => {
  it('the plan sent by the model comes back as a checklist and is rebuilt from the session log', async () => {
    const todos = [
      { content: 'Read the code', status: 'completed' },
      { content: 'Write the fix', status: 'in_progress' },
    ];
    // The standard preset ships the todo tool.
    const { events } = await run('standard', [reply.toolCall('todo', { todos }, 'p1'), reply.text('Planned.')]);
    const second = server!.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages.filter((m) => m.role === 'tool'))).toContain('[~] Write the fix');
    expect(todosFromSession(events)).toEqual(todos);
  });
});
