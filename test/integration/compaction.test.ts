// Compaction (docs/compaction.md): a long scripted session under a small window never sends a request
// over it, its compactions are logged so a rebuild from the log (what `--continue` does) yields the
// post-compaction request byte for byte, and a failed summary changes nothing and ends with CONTEXT.
// Real HTTP model server on loopback; only the model's choices are scripted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jsonSchema, streamText, tool, type ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTextTokens } from '../../src/agent/context-meter.js';
import { runAgent, type AgentProgress } from '../../src/agent/loop.js';
import { buildRequest } from '../../src/agent/request.js';
import { HarnessError } from '../../src/errors.js';
import { createHarness, type Harness } from '../../src/harness.js';
import { resolveModel, SDK_CALL_SETTINGS } from '../../src/llm/index.js';
import { continueSession, createSessionWriter, readSession, type SessionEvent } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

let workspace: string;
let sessionDir: string;
let harness: Harness | undefined;
const servers: ScriptedServer[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compact-ws-')));
  sessionDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-compact-log-')));
});
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

const WINDOW = 32_768;
const FILES = 20;

/** Files of 5 to 50 KB of distinct numbered lines. */
function writeFiles(): void {
  for (let i = 0; i < FILES; i++) {
    const bytes = 5_000 + Math.floor((45_000 * i) / (FILES - 1));
    const lines: string[] = [];
    for (let n = 0, size = 0; size < bytes; n++) {
      const line = `file ${i} line ${n}: ${'abcdefghij'.repeat(6)}`;
      lines.push(line);
      size += line.length + 1;
    }
    fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${lines.join('\n')}\n`);
  }
}

const isSummaryCall = (body: Record<string, unknown>): boolean => body.tools === undefined;
/** Requests of the agent itself (summary calls have no tools), in step order. */
const agentRequests = (server: ScriptedServer) => server.requests.filter((r) => !isSummaryCall(r.json as Record<string, unknown>));

async function runTurn(options: {
  sessionId: string;
  task: string;
  script: ScriptedReply[];
  summary: (body: Record<string, unknown>) => ScriptedReply;
  window: number;
  history?: readonly SessionEvent[];
  preset?: string;
  maxSteps?: number;
}) {
  const server = await startScriptedOpenAIServer(options.script, { respond: (body) => (isSummaryCall(body) ? options.summary(body) : undefined) });
  servers.push(server);
  harness ??= await createHarness({ cwd: workspace, preset: options.preset ?? 'standard', sandbox: 'auto' });
  const writer = options.history ? continueSession(sessionDir, options.sessionId).writer : createSessionWriter({ dir: sessionDir, sessionId: options.sessionId });
  const progress: AgentProgress[] = [];
  try {
    const result = await runAgent({
      scope: harness.ctx,
      cwd: workspace,
      preset: options.preset ?? 'standard',
      model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
      task: options.task,
      sink: writer,
      sessionId: options.sessionId,
      sessionDir,
      contextWindow: options.window,
      maxSteps: options.maxSteps ?? 250,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      onProgress: (e) => progress.push(e),
      ...(options.history ? { history: options.history } : {}),
    }).catch((error: unknown) => ({ thrown: error }));
    return { result, server, file: writer.file, progress };
  } finally {
    writer.close();
  }
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

describe('automatic compaction', () => {
  it('keeps 200 steps of 5-50 KB results under a 32k window, and a rebuild from the log yields each post-compaction request byte for byte', async () => {
    writeFiles();
    const steps = 200;
    const script: ScriptedReply[] = [];
    for (let i = 0; i < steps; i++) script.push(reply.toolCall('read', { path: `f${(i * 7) % FILES}.txt` }));
    script.push(reply.text('All files read.'));
    let summaries = 0;
    const turn = await runTurn({
      sessionId: 'long-session',
      task: 'Read the files one by one.',
      script,
      window: WINDOW,
      summary: () => reply.text(`Summary ${++summaries}: the files f0.txt to f19.txt were read in turn; their contents are in the spill files the stubs name.`),
    });
    expect('thrown' in turn.result ? turn.result.thrown : undefined).toBeUndefined();
    expect(turn.result).toMatchObject({ reason: 'completed', steps: steps + 1 });

    // Never over the window, by the meter's own rule applied to the bytes the server received.
    const requests = agentRequests(turn.server);
    expect(requests).toHaveLength(steps + 1);
    const sizes = requests.map((r) => estimateTextTokens(r.body));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    // Without compaction the history would have passed the window many times over.
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(WINDOW * 10);

    const { events } = readSession(turn.file);
    const compactions = events.filter((e): e is Extract<SessionEvent, { type: 'context/compaction' }> => e.type === 'context/compaction');
    const pruneOnly = compactions.filter((c) => c.summary === undefined);
    const summarised = compactions.filter((c) => c.summary !== undefined);
    expect(pruneOnly.length).toBeGreaterThan(0);
    expect(summarised.length).toBeGreaterThan(0);
    expect(summaries).toBe(summarised.length);
    expect(events.some((e) => e.type === 'context/compaction-failed')).toBe(false);
    // Every request carries the meter; the window is the one given.
    const metered = events.filter((e) => e.type === 'llm/request');
    expect(metered.every((e) => e.type === 'llm/request' && e.context?.window === WINDOW && e.context.estimatedTokens > 0)).toBe(true);
    expect(turn.progress.some((p) => p.kind === 'compaction')).toBe(true);

    // A stub names a spill file that holds the whole result.
    const firstStub = compactions[0]!.pruned[0]!;
    const stubPath = /the full text is in (\S+):/.exec(firstStub.stub)?.[1];
    expect(stubPath).toBeDefined();
    const original = events.find((e) => e.type === 'tool/result' && e.id === firstStub.id);
    expect(original?.type === 'tool/result' ? fs.readFileSync(stubPath!, 'utf8') : '').toBe(original?.type === 'tool/result' ? original.content : 'missing');

    // The requests right after each compaction, and the last one, rebuilt from the log on disk.
    const checkSteps = [...new Set([...compactions.map((c) => c.step), steps + 1])];
    for (const step of checkSteps) {
      expect(await rebuiltBody(events, step), `step ${step}`).toBe(requests[step - 1]!.body);
    }
    // The summary enters the request after it as the first message, verbatim.
    const lastSummary = summarised.at(-1)!;
    const afterSummary = requests[lastSummary.step - 1]!.json as { messages: { role: string; content: unknown }[] };
    expect(afterSummary.messages[1]).toEqual({ role: 'user', content: lastSummary.summary });
    expect(lastSummary.summary).toContain('[The latest user message before the cut, verbatim]\nRead the files one by one.');

    // --continue: the next turn's request starts with exactly the messages the last request of the first turn had.
    const next = await runTurn({ sessionId: 'long-session', task: 'Thanks.', script: [reply.text('Welcome.')], window: WINDOW, summary: () => reply.text('unused'), history: events });
    expect(next.result).toMatchObject({ reason: 'completed' });
    const before = (requests.at(-1)!.json as { messages: unknown[] }).messages;
    const resumed = (agentRequests(next.server)[0]!.json as { messages: unknown[] }).messages;
    expect(resumed.slice(0, before.length).map((m) => JSON.stringify(m))).toEqual(before.map((m) => JSON.stringify(m)));
    expect(resumed.slice(before.length)).toEqual([
      { role: 'assistant', content: 'All files read.' },
      { role: 'user', content: 'Thanks.' },
    ]);
  }, 240_000);
});

describe('a compaction that fails', () => {
  /** Steps whose long assistant texts no pruning can shrink. */
  function chattyScript(steps: number): ScriptedReply[] {
    const script: ScriptedReply[] = [];
    for (let i = 0; i < steps; i++) script.push(reply.toolCalls([{ name: 'glob', args: { pattern: '*.none' } }], { text: `thinking ${i} ${'z'.repeat(3_000)}` }));
    script.push(reply.text('done'));
    return script;
  }

  it('leaves the log as it was, says so, and refuses the request that does not fit with CONTEXT naming what to do', async () => {
    const turn = await runTurn({ sessionId: 'failing', task: 'Think aloud.', script: chattyScript(60), window: 12_000, summary: () => reply.error(500) });
    const thrown = 'thrown' in turn.result ? turn.result.thrown : undefined;
    expect(thrown).toBeInstanceOf(HarnessError);
    expect((thrown as HarnessError).code).toBe('CONTEXT');
    expect((thrown as HarnessError).message).toMatch(/context window of 12000 tokens/);
    expect((thrown as HarnessError).message).toMatch(/summary call failed/);
    expect((thrown as HarnessError).message).toMatch(/larger window|new session/);

    const { events } = readSession(turn.file);
    expect(events.some((e) => e.type === 'context/compaction' && e.summary !== undefined)).toBe(false);
    expect(events.filter((e) => e.type === 'context/compaction-failed').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'session/end', reason: 'error' });
    // Requests over the threshold but within the window were still sent; none over it.
    const sizes = agentRequests(turn.server).map((r) => estimateTextTokens(r.body));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(12_000);
    // Every response is still in the log whole, and rebuilding the last request sent gives its bytes.
    const responses = events.filter((e) => e.type === 'llm/response');
    expect(responses.every((e) => e.type === 'llm/response' && (e.text === '' || e.text.length > 3_000))).toBe(true);
    const lastStep = agentRequests(turn.server).length;
    expect(await rebuiltBody(events, lastStep)).toBe(agentRequests(turn.server).at(-1)!.body);
  }, 120_000);

  it('counts an empty summary as a failure', async () => {
    const turn = await runTurn({ sessionId: 'empty', task: 'Think aloud.', script: chattyScript(60), window: 12_000, summary: () => reply.text('   ') });
    const thrown = 'thrown' in turn.result ? turn.result.thrown : undefined;
    expect((thrown as HarnessError).code).toBe('CONTEXT');
    expect((thrown as HarnessError).message).toMatch(/empty summary/);
  }, 120_000);
});
