// `ptc acp`: the agent over the Agent Client Protocol (docs/acp.md). An editor (Zed, ...) opens
// sessions, sends prompt turns and cancels them; the agent streams message chunks, reports tool
// calls as ACP tool calls (a run_code call carries its program as content, its sub-calls arrive as
// updates of that call), and asks the editor for permission through the approvals path
// (docs/approvals.md). Each ACP session is one ptc session log; later prompts are later turns of it.

import * as acp from '@agentclientprotocol/sdk';

import { runAgent, type AgentProgress } from '../agent/loop.js';
import { installApprovals, type ApprovalAnswer, type ApprovalPolicy, type ApprovalRequest } from '../approvals/approvals.js';
import type { Disposer } from '../context/context.js';
import { codeFence } from '../code-fence.js';
import { HarnessError } from '../errors.js';
import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { renderJson, type JsonValue } from '../json.js';
import { resolveModel } from '../llm/index.js';
import { createSessionWriter, ensureSessionDir, readSession, type SessionEvent, type SessionWriter } from '../session/index.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';

export interface AcpAgentOptions {
  /** Harness options of every session except `cwd`, which each `session/new` gives. */
  readonly harness: Omit<HarnessOptions, 'cwd'>;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly approve: ApprovalPolicy;
  readonly sessionDir: string;
  readonly maxSteps?: number;
  readonly version: string;
}

interface AcpSession {
  readonly harness: Harness;
  readonly writer: SessionWriter;
  readonly removeApprovals: Disposer;
  history?: readonly SessionEvent[];
  turn?: AbortController;
}

/** The agent side of ACP; `connect` it to a stream (stdio in `ptc acp`) or, in tests, to a client app. */
export function createAcpAgent(options: AcpAgentOptions): { app: acp.AgentApp; close(): Promise<void> } {
  const model = resolveModel({
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    env: options.env,
  });
  ensureSessionDir(options.sessionDir);
  const sessions = new Map<string, AcpSession>();

  const sessionOf = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (session === undefined) throw acp.RequestError.invalidParams({ sessionId: id }, `No session ${id} in this connection; create one with session/new.`);
    return session;
  };

  const app = acp
    .agent({ name: 'ptc-harness' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
      agentInfo: { name: 'ptc-harness', version: options.version },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      let harness: Harness;
      try {
        harness = await createHarness({ ...options.harness, cwd: params.cwd });
      } catch (error) {
        if (error instanceof HarnessError) throw acp.RequestError.invalidParams({ code: error.code }, error.message);
        throw error;
      }
      const writer = createSessionWriter({ dir: options.sessionDir });
      const sessionId = writer.sessionId;
      const removeApprovals = installApprovals(harness.ctx, {
        policy: options.approve,
        approver: (request, signal) => askEditor(client, sessionId, request, signal),
        flagHint: '--approve never',
      });
      sessions.set(sessionId, { harness, writer, removeApprovals });
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessionOf(params.sessionId);
      if (session.turn !== undefined) throw acp.RequestError.invalidRequest(undefined, 'A prompt turn is already running in this session; cancel it or wait.');
      const task = params.prompt
        .map((block) => (block.type === 'text' ? block.text : block.type === 'resource_link' ? `[${block.name}](${block.uri})` : ''))
        .filter((text) => text !== '')
        .join('\n');
      const turn = new AbortController();
      session.turn = turn;
      const onRequestAbort = () => turn.abort();
      signal.addEventListener('abort', onRequestAbort, { once: true });
      const update = (u: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
      const calls = new ToolCallReporter(update);
      try {
        const result = await runAgent({
          scope: session.harness.ctx,
          cwd: session.harness.cwd,
          preset: session.harness.preset.name,
          model,
          task,
          sink: session.writer,
          sessionId: session.writer.sessionId,
          sessionDir: options.sessionDir,
          signal: turn.signal,
          ...(session.history !== undefined ? { history: session.history } : {}),
          ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
          onText: (delta) => void update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta } }),
          onProgress: (event) => calls.report(event),
        });
        await calls.flushed();
        session.history = readSession(session.writer.file).events;
        switch (result.reason) {
          case 'completed':
            return { stopReason: 'end_turn' };
          case 'aborted':
            return { stopReason: 'cancelled' };
          case 'max-steps':
            return { stopReason: 'max_turn_requests' };
          case 'error':
            throw acp.RequestError.internalError(undefined, result.error ?? 'the model request failed');
        }
      } finally {
        signal.removeEventListener('abort', onRequestAbort);
        session.turn = undefined;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    });

  return {
    app,
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      for (const session of all) session.turn?.abort();
      await Promise.all(
        all.map(async (session) => {
          await session.removeApprovals();
          session.writer.close();
          await session.harness.dispose();
        }),
      );
    },
  };
}

/** Turns the loop's progress into ACP tool calls; a run_code call's sub-calls update it. */
class ToolCallReporter {
  readonly #update: (u: acp.SessionUpdate) => Promise<void>;
  readonly #programs = new Map<string, { program: string; lines: string[] }>();
  #pending: Promise<unknown> = Promise.resolve();

  constructor(update: (u: acp.SessionUpdate) => Promise<void>) {
    this.#update = update;
  }

  report(event: AgentProgress): void {
    const u = this.#toUpdate(event);
    // In order: each notification after the one before (the SDK does not wait on its own).
    if (u !== undefined) this.#pending = this.#pending.then(() => this.#update(u)).catch(() => undefined);
  }

  flushed(): Promise<unknown> {
    return this.#pending;
  }

  #toUpdate(event: AgentProgress): acp.SessionUpdate | undefined {
    switch (event.kind) {
      case 'step':
        return undefined;
      case 'tool-start': {
        if (event.name === RUN_CODE_TOOL_NAME) {
          const program = stringField(event.args, 'code') ?? '';
          this.#programs.set(event.id, { program, lines: [] });
          return {
            sessionUpdate: 'tool_call',
            toolCallId: event.id,
            title: stringField(event.args, 'description') ?? 'run_code',
            kind: 'execute',
            status: 'in_progress',
            rawInput: event.args,
            content: [text(fence(program))],
          };
        }
        return { sessionUpdate: 'tool_call', toolCallId: event.id, title: event.name, kind: kindOf(event.name), status: 'in_progress', rawInput: event.args };
      }
      case 'sub-call-start':
      case 'sub-call-end': {
        const program = this.#programs.get(event.parentId);
        if (program === undefined) return undefined;
        if (event.kind === 'sub-call-start') program.lines.push(`→ ${event.tool} ${preview(renderJson(event.args))}`);
        else program.lines.push(`${event.isError ? '✗' : '✓'} ${event.tool} ${preview(event.content)}`);
        return { sessionUpdate: 'tool_call_update', toolCallId: event.parentId, content: [text(fence(program.program)), text(program.lines.join('\n'))] };
      }
      case 'tool-end': {
        const program = this.#programs.get(event.id);
        this.#programs.delete(event.id);
        const content = program !== undefined ? [text(fence(program.program)), ...(program.lines.length > 0 ? [text(program.lines.join('\n'))] : []), text(event.content)] : [text(event.content)];
        return { sessionUpdate: 'tool_call_update', toolCallId: event.id, status: event.isError ? 'failed' : 'completed', content, rawOutput: { content: event.content, isError: event.isError } };
      }
    }
  }
}

/** session/request_permission for one approval request; a cancelled or failed ask is a deny. */
async function askEditor(client: acp.AgentContext, sessionId: string, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const parent = request.parent;
  // The label is the model's: one line, so it cannot add lines to the title.
  const label = (parent?.description ?? parent?.id ?? '').replace(/\s+/g, ' ').trim();
  const title = parent === undefined ? `${request.tool}` : `${request.tool} (from the program of ${parent.tool} "${label}")`;
  // Arguments and program are the model's text: each in a fence it cannot close (code-fence.ts).
  const content = [text(`${request.tool}\n${codeFence(renderJson(request.args), 'json')}`), ...(parent?.program !== undefined ? [text(fence(parent.program))] : [])];
  const response = await client.request(
    acp.methods.client.session.requestPermission,
    {
      sessionId,
      // A sub-call has no tool call of its own in the editor: it is asked about under its run_code call.
      toolCall: { toolCallId: parent?.id ?? request.id, title, kind: kindOf(request.tool), rawInput: request.args, content },
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'allow-tool', name: `Always allow ${request.tool} in this session`, kind: 'allow_always' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    },
    { cancellationSignal: signal, stopWaitingOnCancel: true },
  );
  const outcome = response.outcome;
  if (outcome.outcome === 'cancelled') return { decision: 'deny', reason: 'the editor cancelled the request' };
  if (outcome.optionId === 'allow') return { decision: 'allow' };
  if (outcome.optionId === 'allow-tool') return { decision: 'allow-tool' };
  return { decision: 'deny' };
}

function kindOf(tool: string): acp.ToolKind {
  switch (tool) {
    case 'read':
    case 'str_replace_editor':
      return tool === 'read' ? 'read' : 'edit';
    case 'write':
    case 'edit':
      return 'edit';
    case 'glob':
    case 'grep':
      return 'search';
    case 'bash':
      return 'execute';
    case 'web_fetch':
      return 'fetch';
    case 'todo':
      return 'think';
    default:
      return 'other';
  }
}

function text(value: string): acp.ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}

function fence(program: string): string {
  return codeFence(program, 'ts');
}

function stringField(args: JsonValue, key: string): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

function preview(value: string): string {
  const line = value.trimStart().split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
