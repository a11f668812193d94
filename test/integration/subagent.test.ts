// The `task` tool (docs/subagents.md) against a real HTTP model server on loopback: parent and
// subagent share one scripted server (the parent waits while its subagent runs, so the script is
// one sequence), real harnesses, the real Node runtime and real session logs. Only the model's
// choices are scripted.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runAgent, type AgentRunResult } from '../../src/agent/loop.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { recordTrust } from '../../src/trust/trust-store.js';
import { collectWorkspaceConfig } from '../../src/trust/workspace-config.js';
import { resolveModel } from '../../src/llm/index.js';
import type { SessionEvent } from '../../src/session/events.js';
import { createSessionWriter, listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let server: ScriptedServer | undefined;
let harness: Harness | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-subagent-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-subagent-log-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

interface ParentRun {
  result: AgentRunResult;
  parentId: string;
  events: SessionEvent[];
  /** Every other session in the directory: the subagents' logs, by id. */
  children: { id: string; events: SessionEvent[] }[];
}

/** A parent of `preset` (both shipped presets have the `task` tool). */
async function runParent(
  preset: 'standard' | 'ptc',
  script: ScriptedReply[],
  options: { signal?: AbortSignal; subagentMaxSteps?: number; onServer?: (server: ScriptedServer) => void } = {},
): Promise<ParentRun> {
  server = await startScriptedOpenAIServer(script);
  options.onServer?.(server);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto' });
  const writer = createSessionWriter({ dir: sessionDir });
  const result = await runAgent({
    scope: harness.ctx,
    cwd: workspace,
    preset,
    model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
    task: 'Delegate the thing.',
    sink: writer,
    sessionId: writer.sessionId,
    sessionDir,
    retry: { maxRetries: 0 },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.subagentMaxSteps !== undefined ? { subagentMaxSteps: options.subagentMaxSteps } : {}),
  });
  writer.close();
  const children = listSessionFiles(sessionDir)
    .filter((s) => s.id !== writer.sessionId)
    .map((s) => ({ id: s.id, events: readSession(s.file).events }));
  return { result, parentId: writer.sessionId, events: readSession(writer.file).events, children };
}

/** The tool names of a recorded request, as sent on the wire. */
function wireTools(request: { json: unknown } | undefined): string[] {
  const body = request?.json as { tools?: { function: { name: string } }[] } | undefined;
  return (body?.tools ?? []).map((t) => t.function.name);
}

const CHILD_PROGRAM = "const file = await tools.read({ path: 'a.txt' });\nreturn file.content.trim().toUpperCase() + '!';";

describe('task: a ptc subagent under a standard parent', () => {
  it('presents tools per agent, links the logs, runs a real program and returns the answer', async () => {
    const { result, parentId, events, children } = await runParent('standard', [
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'shout a.txt', prompt: 'Read a.txt and shout it.' } }]),
      reply.toolCalls([{ id: 'c1', name: 'run_code', args: { code: CHILD_PROGRAM, description: 'shout' } }]),
      reply.text('The file says ALPHA!'),
      reply.text('Done: the file says ALPHA!'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Done: the file says ALPHA!', steps: 2 });
    const requests = server!.requests;
    expect(requests).toHaveLength(4);

    // The parent's requests carry native tools, `task` among them; the child's only run_code.
    expect(wireTools(requests[0])).toEqual(expect.arrayContaining(['bash', 'read', 'task', 'write']));
    expect(wireTools(requests[0])).not.toContain('run_code');
    expect(wireTools(requests[1])).toEqual(['run_code']);
    expect(wireTools(requests[2])).toEqual(['run_code']);
    expect(wireTools(requests[3])).toEqual(wireTools(requests[0]));
    // The child starts fresh with the prompt; its program ran in the real runtime and its value reached the child model.
    expect(requests[1]!.body).toContain('Read a.txt and shout it.');
    expect(requests[1]!.body).not.toContain('Delegate the thing.');
    expect(requests[2]!.body).toContain('ALPHA!');
    // The child's answer reached the parent model as the task result.
    expect(requests[3]!.body).toContain('The file says ALPHA!');

    // The child's own log, beside the parent's, names the parent session and the task call.
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.events[0]).toMatchObject({
      type: 'session/start',
      sessionId: child.id,
      preset: 'ptc',
      mode: 'ptc',
      parent: { sessionId: parentId, toolCallId: 't1' },
    });
    expect(ofType(child.events, 'tool/ptc-dispatch')).toMatchObject([{ parentId: 'c1', tool: 'read', isError: false }]);
    expect(child.events.at(-1)).toMatchObject({ type: 'session/end', reason: 'completed' });

    // The parent's log has the task call and its result: the child's final text.
    expect(events[0]).toMatchObject({ type: 'session/start', mode: 'native' });
    expect(events[0]).not.toHaveProperty('parent');
    expect(ofType(events, 'tool/call')).toMatchObject([{ id: 't1', name: 'task' }]);
    expect(ofType(events, 'tool/result')).toMatchObject([{ id: 't1', name: 'task', isError: false, content: 'The file says ALPHA!' }]);
  });

  it('a program of a ptc parent can start a subagent; the child names the sub-call', async () => {
    const parentProgram = "return await tools.task({ description: 'shout', prompt: 'Shout a.txt.' });";
    const { result, children, events } = await runParent('ptc', [
      reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: parentProgram, description: 'delegate' } }]),
      reply.text('ALPHA!'),
      reply.text('Parent done.'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Parent done.' });
    expect(children).toHaveLength(1);
    expect(children[0]!.events[0]).toMatchObject({ type: 'session/start', parent: { toolCallId: 'p1:ptc:1' } });
    expect(ofType(events, 'tool/ptc-dispatch')).toMatchObject([{ parentId: 'p1', tool: 'task', isError: false, content: 'ALPHA!' }]);
    expect(server!.requests[2]!.body).toContain('ALPHA!');
  });
});

describe('task: how a subagent ends', () => {
  it('an aborted parent aborts the child: its model request is dropped and both logs end aborted', async () => {
    const controller = new AbortController();
    const { result, events, children } = await runParent(
      'standard',
      [reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'wait', prompt: 'Think forever.' } }]), reply.hang()],
      {
        signal: controller.signal,
        onServer: (s) => void s.waitForRequests(2).then(() => controller.abort()),
      },
    );
    expect(result.reason).toBe('aborted');
    await server!.waitForClose(2);
    expect(server!.requests[1]!.closedEarly).toBe(true);
    expect(ofType(events, 'tool/result')).toMatchObject([{ id: 't1', isError: true, error: { code: 'ABORTED' } }]);
    expect(children[0]!.events.at(-1)).toMatchObject({ type: 'session/end', reason: 'aborted' });
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'aborted' });
  });

  it.each([
    ['stops at its step bound', [reply.toolCalls([{ id: 'c1', name: 'run_code', args: { code: 'return 1;', description: 'one' } }])], 'max-steps', /stopped after 1 steps/],
    ['meets a provider error', [reply.error(401)], 'error', /failed: .*401/],
  ])('a child that %s is TOOL_FAILED naming its session, and the parent goes on', async (_name, childScript, reason, message) => {
    const { result, events, children } = await runParent(
      'standard',
      [reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'fail', prompt: 'Fail.' } }]), ...childScript, reply.text('It failed.')],
      { subagentMaxSteps: 1 },
    );
    expect(result).toMatchObject({ reason: 'completed', text: 'It failed.' });
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.events.at(-1)).toMatchObject({ type: 'session/end', reason });
    const [taskResult] = ofType(events, 'tool/result');
    expect(taskResult).toMatchObject({ id: 't1', isError: true, error: { code: 'TOOL_FAILED' } });
    expect(taskResult!.content).toContain(`subagent session ${child.id}`);
    expect(taskResult!.content).toMatch(message);
  });
});

describe('task: refusals', () => {
  it('a subagent cannot start a subagent (depth limit): PERMISSION_DENIED in the child, which still answers', async () => {
    // A workspace preset that gives the child `task` too.
    fs.mkdirSync(path.join(workspace, '.ptc', 'presets'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.ptc', 'presets', 'nested.yml'),
      'description: ptc with task.\nplugins:\n  - name: builtin-tools\n    config: { tools: [read, task] }\n  - name: node-runtime\n  - name: tool-presentation\n    config: { mode: ptc }\n',
    );
    // The child loads it by name, so the workspace must be trusted (docs/presets.md, "Trust"), in a PTC_HOME of this test's own.
    vi.stubEnv('PTC_HOME', path.join(workspace, 'ptc-home'));
    recordTrust(path.join(workspace, 'ptc-home'), fs.realpathSync(workspace), collectWorkspaceConfig(workspace).digest);
    const program = "try { return await tools.task({ description: 'deeper', prompt: 'Go deeper.' }); } catch (e) { return `${e.code}: ${e.message}`; }";
    const { result, children, events } = await runParent('standard', [
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'nest', prompt: 'Nest.', preset: 'nested' } }]),
      reply.toolCalls([{ id: 'c1', name: 'run_code', args: { code: program, description: 'nest' } }]),
      reply.text('Refused, as expected.'),
      reply.text('Done.'),
    ]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Done.' });
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.events[0]).toMatchObject({ type: 'session/start', preset: 'nested' });
    expect(ofType(child.events, 'tool/ptc-dispatch')).toMatchObject([{ tool: 'task', isError: true }]);
    expect(ofType(child.events, 'tool/ptc-dispatch')[0]!.content).toContain('PERMISSION_DENIED');
    expect(server!.requests[2]!.body).toContain('PERMISSION_DENIED: task is not available inside a subagent');
    expect(ofType(events, 'tool/result')).toMatchObject([{ id: 't1', isError: false, content: 'Refused, as expected.' }]);
  });

  it('an unknown preset is INVALID_ARGS listing the presets, and no child log is left', async () => {
    const { events, children } = await runParent('standard', [
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'x', prompt: 'x', preset: 'turbo' } }]),
      reply.text('Ok.'),
    ]);
    expect(children).toEqual([]);
    const [taskResult] = ofType(events, 'tool/result');
    expect(taskResult).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(taskResult!.content).toContain('preset "turbo"');
    expect(taskResult!.content).toContain('ptc');
  });

  it('outside an agent run (ptc exec) task is TOOL_FAILED saying where it works', async () => {
    harness = await createHarness({ cwd: workspace, preset: 'standard' });
    const result = await harness.tools.execute('task', { description: 'x', prompt: 'x' }, { id: 'direct' });
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_FAILED' } });
    expect(result.error!.message).toContain('ptc run');
  });
});

describe('task from the CLI', () => {
  const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/ptc.cjs');

  /** Runs the built `ptc` without blocking this process's event loop (the model server lives here). */
  function ptcAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { cwd: workspace, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workspace } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('ptc run with a preset that has task logs the child beside the parent, linked', async () => {
    fs.mkdirSync(path.join(workspace, '.ptc', 'presets'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.ptc', 'presets', 'delegating.yml'),
      'description: read and task, native.\nplugins:\n  - name: builtin-tools\n    config: { tools: [read, task] }\n  - name: tool-presentation\n    config: { mode: native }\n',
    );
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'shout', prompt: 'Shout a.txt.' } }]),
      reply.toolCalls([{ id: 'c1', name: 'run_code', args: { code: CHILD_PROGRAM, description: 'shout' } }]),
      reply.text('ALPHA!'),
      reply.text('It says ALPHA!'),
    ]);
    const run = await ptcAsync(['run', 'Delegate.', '--preset', 'delegating', '--json', '--base-url', server.baseUrl, '--model', 'scripted', '--session-dir', sessionDir]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { sessionId: string; text: string };
    expect(summary.text).toBe('It says ALPHA!');
    expect(wireTools(server.requests[0])).toEqual(['read', 'task']);
    expect(wireTools(server.requests[1])).toEqual(['run_code']);
    const child = listSessionFiles(sessionDir).filter((s) => s.id !== summary.sessionId);
    expect(child).toHaveLength(1);
    expect(readSession(child[0]!.file).events[0]).toMatchObject({ type: 'session/start', preset: 'ptc', parent: { sessionId: summary.sessionId, toolCallId: 't1' } });
  });
});
