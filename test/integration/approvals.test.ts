// Approvals (docs/approvals.md): one path for native calls and a program's sub-calls. Real model
// server on loopback, real harness, tools and sandboxed runtime; the person answering is scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { allowedToolsOf, installApprovals, type ApprovalAnswer, type ApprovalOptions, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, readSession, type SessionEvent } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let harness: Harness | undefined;
let server: ScriptedServer | undefined;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-approve-ws-'));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-approve-log-'));
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function run(preset: 'ptc' | 'standard', script: ScriptedReply[], approvals: ApprovalOptions, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  server = await startScriptedOpenAIServer(script);
  harness = await createHarness({ cwd: workspace, preset, sandbox: 'auto', ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  const remove = installApprovals(harness.ctx, approvals);
  const writer = createSessionWriter({ dir: sessionDir });
  try {
    const result = await runAgent({
      scope: harness.ctx,
      cwd: workspace,
      preset,
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      task: 'Write the file.',
      sink: writer,
      sessionId: writer.sessionId,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    writer.close();
    return { result, events: readSession(writer.file).events };
  } finally {
    await remove();
  }
}

/** A person who answers each request with the next answer after `delayMs`, and remembers what was asked. */
function person(answers: ApprovalAnswer[], delayMs = 0) {
  const asked: ApprovalRequest[] = [];
  const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return answers.shift() ?? { decision: 'deny', reason: 'no more answers scripted' };
  };
  return { asked, approver };
}

const approvalsOf = (events: SessionEvent[]) => events.filter((e) => e.type === 'tool/approval');
const toolResults = (events: SessionEvent[]) => events.filter((e): e is Extract<SessionEvent, { type: 'tool/result' }> => e.type === 'tool/result');

describe('approvals', () => {
  it('a native write waits for the answer, then runs; reads never ask', async () => {
    const { asked, approver } = person([{ decision: 'allow' }], 200);
    const { events } = await run(
      'standard',
      [
        reply.toolCalls([
          { id: 'w1', name: 'write', args: { path: 'out.txt', content: 'yes\n' } },
          { id: 'r1', name: 'glob', args: { pattern: '*' } },
        ]),
        reply.text('Written.'),
      ],
      { policy: 'writes', approver },
    );
    expect(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8')).toBe('yes\n');
    // alwaysAllow: what an "always allow" answer would save (no config file here, so no file).
    expect(asked).toEqual([{ id: 'w1', tool: 'write', args: { path: 'out.txt', content: 'yes\n' }, alwaysAllow: { rule: 'write: out.txt' } }]);
    expect(approvalsOf(events)).toMatchObject([
      { stage: 'request', id: 'w1', tool: 'write', args: { path: 'out.txt', content: 'yes\n' } },
      { stage: 'answer', id: 'w1', tool: 'write', decision: 'allow', by: 'person' },
    ]);
    expect(toolResults(events).map((r) => [r.id, r.isError])).toEqual([['w1', false], ['r1', false]]);
  });

  it('under writes, a todo call does not ask (it changes only the checklist) while a write beside it does', async () => {
    const { asked, approver } = person([{ decision: 'allow' }]);
    const { events } = await run(
      'standard',
      [
        reply.toolCalls([
          { id: 't1', name: 'todo', args: { todos: [{ content: 'write out.txt', status: 'in_progress' }] } },
          { id: 'w1', name: 'write', args: { path: 'out.txt', content: 'yes\n' } },
        ]),
        reply.text('Written.'),
      ],
      { policy: 'writes', approver },
    );
    expect(asked.map((r) => r.tool)).toEqual(['write']);
    expect(approvalsOf(events).map((e) => e.id)).toEqual(['w1', 'w1']);
    expect(toolResults(events).map((r) => [r.id, r.isError])).toEqual([['t1', false], ['w1', false]]);
  });

  it('a deny reaches the model as the tool result, with the reason, and nothing is written', async () => {
    const { approver } = person([{ decision: 'deny', reason: 'not in this folder' }]);
    const { events } = await run(
      'standard',
      [reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'out.txt', content: 'no' } }]), reply.text('Understood.')],
      { policy: 'writes', approver },
    );
    expect(fs.existsSync(path.join(workspace, 'out.txt'))).toBe(false);
    const [result] = toolResults(events);
    expect(result).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
    expect(result!.content).toMatch(/denied by the user: not in this folder/);
    const second = server!.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages.filter((m) => m.role === 'tool'))).toContain('not in this folder');
  });

  it('a program sub-call asks on the same path, naming its run_code call and showing the program', async () => {
    const { asked, approver } = person([{ decision: 'allow-tool' }]);
    const program = "await tools.write({ path: 'a.txt', content: 'A' });\nawait tools.write({ path: 'b.txt', content: 'B' });\nreturn 'ok';";
    const { events } = await run(
      'ptc',
      [reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'write two files' } }]), reply.text('Done.')],
      { policy: 'writes', approver },
    );
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('A');
    expect(fs.readFileSync(path.join(workspace, 'b.txt'), 'utf8')).toBe('B');
    // allow-tool: the second write of the session is not asked again.
    expect(asked).toEqual([
      {
        id: 'p1:ptc:1',
        tool: 'write',
        args: { path: 'a.txt', content: 'A' },
        parent: { id: 'p1', tool: 'run_code', program, description: 'write two files' },
        alwaysAllow: { rule: 'write: a.txt' },
      },
    ]);
    expect(approvalsOf(events)).toMatchObject([
      { stage: 'request', id: 'p1:ptc:1', parentId: 'p1', tool: 'write' },
      { stage: 'answer', id: 'p1:ptc:1', parentId: 'p1', decision: 'allow-tool', by: 'person' },
      { stage: 'answer', id: 'p1:ptc:2', parentId: 'p1', decision: 'allow', by: 'session' },
    ]);
  });

  it('without anyone to ask, the policy denies and names the flag', async () => {
    const { events } = await run(
      'standard',
      [reply.toolCalls([{ id: 'b1', name: 'bash', args: { command: 'touch x' } }]), reply.text('Ok.')],
      { policy: 'writes', flagHint: '--approve never' },
    );
    expect(fs.existsSync(path.join(workspace, 'x'))).toBe(false);
    expect(toolResults(events)[0]!.content).toMatch(/needs approval \(policy "writes"\).*--approve never/);
    expect(approvalsOf(events)).toMatchObject([{ stage: 'request' }, { stage: 'answer', decision: 'deny', by: 'policy' }]);
  });

  it('policy all asks for reads too; never asks for nothing', async () => {
    const asking = person([{ decision: 'allow' }]);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha');
    await run('standard', [reply.toolCalls([{ id: 'r1', name: 'read', args: { path: 'a.txt' } }]), reply.text('Read.')], { policy: 'all', approver: asking.approver });
    expect(asking.asked.map((r) => r.tool)).toEqual(['read']);
    await harness?.dispose();
    harness = undefined;
    await server?.close();
    const silent = person([]);
    await run('standard', [reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'n.txt', content: 'n' } }]), reply.text('Ok.')], { policy: 'never', approver: silent.approver });
    expect(silent.asked).toEqual([]);
    expect(fs.readFileSync(path.join(workspace, 'n.txt'), 'utf8')).toBe('n');
  });

  it('a wait for approval counts against the deadline: a 1 s program whose write waits 3 s ends TIMEOUT and writes nothing', async () => {
    const { approver } = person([{ decision: 'allow' }], 3_000);
    const program = "await tools.write({ path: 'slow.txt', content: 's' });\nreturn 'written';";
    const { events } = await run(
      'ptc',
      [reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'slow approval', timeoutMs: 1_000 } }]), reply.text('Done.')],
      { policy: 'writes', approver },
    );
    expect(toolResults(events)[0]).toMatchObject({ id: 'p1', isError: true, error: { code: 'TIMEOUT' } });
    expect(approvalsOf(events).at(-1)).toMatchObject({ stage: 'answer', id: 'p1:ptc:1', decision: 'deny', by: 'policy' });
    expect(fs.existsSync(path.join(workspace, 'slow.txt'))).toBe(false);
  });

  it('the program deadline still runs outside the wait', async () => {
    const { approver } = person([{ decision: 'allow' }], 100);
    const program = "await tools.write({ path: 'w.txt', content: 'w' });\nawait new Promise((r) => setTimeout(r, 3_000));\nreturn 'late';";
    const { events } = await run(
      'ptc',
      [reply.toolCalls([{ id: 'p1', name: 'run_code', args: { code: program, description: 'too slow', timeoutMs: 1_000 } }]), reply.text('Done.')],
      { policy: 'writes', approver },
    );
    expect(toolResults(events)[0]).toMatchObject({ isError: true, error: { code: 'TIMEOUT' } });
  });

  it('aborting the run ends a wait for approval', async () => {
    const controller = new AbortController();
    const asked: ApprovalRequest[] = [];
    // A person who never answers.
    const approver = (request: ApprovalRequest) => {
      asked.push(request);
      setTimeout(() => controller.abort(), 200);
      return new Promise<ApprovalAnswer>(() => {});
    };
    const { result, events } = await run(
      'standard',
      [reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'never.txt', content: 'n' } }]), reply.text('unreached')],
      { policy: 'writes', approver },
      { signal: controller.signal },
    );
    expect(asked).toHaveLength(1);
    expect(result.reason).toBe('aborted');
    expect(fs.existsSync(path.join(workspace, 'never.txt'))).toBe(false);
    expect(approvalsOf(events).at(-1)).toMatchObject({ stage: 'answer', decision: 'deny', by: 'policy', reason: 'the call was aborted while it waited for approval' });
  });

  it('an allow-tool answer of an earlier turn still holds in a later one (allowedToolsOf the log)', async () => {
    const first = person([{ decision: 'allow-tool' }]);
    const { events } = await run('standard', [reply.toolCalls([{ id: 'w1', name: 'write', args: { path: 'one.txt', content: '1' } }]), reply.text('Ok.')], {
      policy: 'writes',
      approver: first.approver,
    });
    expect(allowedToolsOf(events)).toEqual(['write']);
    await harness?.dispose();
    harness = undefined;
    await server?.close();
    const later = person([]);
    const { events: laterEvents } = await run('standard', [reply.toolCalls([{ id: 'w2', name: 'write', args: { path: 'two.txt', content: '2' } }]), reply.text('Ok.')], {
      policy: 'writes',
      approver: later.approver,
      allowedTools: allowedToolsOf(events),
    });
    expect(later.asked).toEqual([]);
    expect(fs.readFileSync(path.join(workspace, 'two.txt'), 'utf8')).toBe('2');
    expect(approvalsOf(laterEvents)).toMatchObject([{ stage: 'answer', id: 'w2', decision: 'allow', by: 'session' }]);
  });
});
