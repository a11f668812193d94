// `ptc acp`: the agent over the Agent Client Protocol (docs/acp.md). An editor (Zed, ...) opens
// sessions (new, or loaded from the session log with its history replayed), sends prompt turns and
// cancels them; the agent streams message chunks, reports tool calls as ACP tool calls (a run_code
// call carries its program as content, its sub-calls arrive as updates of that call, a file tool's
// change as a diff), the todo list as a plan, and asks the editor for permission through the
// approvals path (docs/approvals.md). Each ACP session is one ptc session log; later prompts are
// later turns of it. The editor's MCP servers join that session's harness as an `mcp` row.

import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';

import { AGENT_ROWS } from '../agent/agent-rows.js';
import { loopOf } from '../agent/loop-service.js';
import { ApprovalRuleSet } from '../approvals/approval-rule-set.js';
import { installApprovals, type ApprovalAnswer, type ApprovalPolicy, type ApprovalRequest } from '../approvals/approvals.js';
import { projectLayer } from './project-layer.js';
import '../builtin-tools/file-change.js';
import { todosOf } from '../builtin-tools/todo.js';
import type { Disposer } from '../context/context.js';
import { codeFence } from '../code-fence.js';
import { HarnessError } from '../errors.js';
import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { describeReload } from '../presets/plugin-reload.js';
import { renderJson } from '../json.js';
import type { ModelClient, ModelSettings } from '../llm/llm-service.js';
import type { ContinuedSession } from '../session/continue-session.js';
import type { SessionEvent } from '../session/events.js';
import type { SessionStore } from '../session/session-store.js';
import type { SessionWriter } from '../session/writer.js';
import { installPlanMode, planModeOf } from '../plan-mode/plan-mode.js';
import { PLAN_PROPOSE_TOOL_NAME } from '../plan-mode/plan-propose-tool.js';
import { editorMcpRow } from './editor-mcp-servers.js';
import { askEditorAboutPlan, DEFAULT_MODE_ID, PLAN_MODE_ID, planningOfMode, sessionModes } from './session-modes.js';
import { replaySession } from './session-replay.js';
import { fence, kindOf, text, ToolCallReporter } from './tool-call-reporter.js';

export interface AcpAgentOptions {
  /** Harness options of every session except `cwd`, which each `session/new` gives. */
  readonly harness: Omit<HarnessOptions, 'cwd'>;
  readonly model?: string;
  readonly baseUrl?: string;
  /** The variable holding the key instead of the provider's (a config file's `apiKeyEnv`). */
  readonly apiKeyEnv?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly approve: ApprovalPolicy;
  /** Sessions start in plan mode (`ptc acp --plan`; docs/plan-mode.md); a loaded one keeps the mode it ended in. */
  readonly plan?: boolean;
  readonly sessionDir: string;
  readonly maxSteps?: number;
  /** The model's context window in tokens and the compaction threshold (docs/compaction.md). */
  readonly contextWindow?: number;
  readonly compactThreshold?: number;
  readonly version: string;
  /**
   * Read each session's `<cwd>/.ptc/config.yaml` when that workspace is trusted (docs/config.md):
   * its approval rules, MCP servers and protected paths join that session's harness. `ptc acp` sets it.
   */
  readonly projectConfig?: boolean;
  /** Where the note about an ignored project file goes; default stderr (stdout is the protocol). */
  readonly onNote?: (line: string) => void;
}

interface AcpSession {
  readonly harness: Harness;
  /** The model client and the session store of the session's harness (docs/architecture.md, "Services"). */
  readonly model: ModelClient;
  readonly store: SessionStore;
  readonly writer: SessionWriter;
  readonly removeApprovals: Disposer;
  readonly removePlanMode: Disposer;
  history?: readonly SessionEvent[];
  turn?: AbortController;
  /** The running turn's (or a replay's) reporter: file changes and plans of its calls go there. */
  reporter?: ToolCallReporter;
}

/** The agent side of ACP; `connect` it to a stream (stdio in `ptc acp`) or, in tests, to a client app. */
export function createAcpAgent(options: AcpAgentOptions): { app: acp.AgentApp; close(): Promise<void> } {
  const modelSettings: ModelSettings = {
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.apiKeyEnv !== undefined ? { apiKeyVar: options.apiKeyEnv } : {}),
    env: options.env,
  };
  const sessions = new Map<string, AcpSession>();

  const sessionOf = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (session === undefined) throw acp.RequestError.invalidParams({ sessionId: id }, `No session ${id} in this connection; create one with session/new.`);
    return session;
  };

  /** A harness for the workspace `cwd` with the editor's MCP servers; a failure is invalidParams with the harness's message. */
  const openHarness = async (cwd: string, mcpServers: readonly acp.McpServer[]): Promise<{ harness: Harness; model: ModelClient; store: SessionStore }> => {
    let harness: Harness | undefined;
    try {
      const row = editorMcpRow(mcpServers);
      const project = options.projectConfig === true ? await projectLayer(cwd, options.env, options.onNote) : undefined;
      const plugins = [...(options.harness.plugins ?? []), ...(project?.rows ?? []), ...(row !== undefined ? [row] : [])];
      const protect = [...(options.harness.protect ?? []), ...(project?.protect ?? [])];
      const rules = project === undefined ? options.harness.approvalRules : (options.harness.approvalRules ?? new ApprovalRuleSet()).withRules(project.rules);
      harness = await createHarness({
        ...options.harness,
        // The agent's row kinds: a preset's `loop` row is the real loop (src/agent/agent-rows.ts).
        rowKinds: options.harness.rowKinds ?? AGENT_ROWS,
        ...(plugins.length > 0 ? { plugins } : {}),
        ...(protect.length > 0 ? { protect } : {}),
        ...(rules !== undefined ? { approvalRules: rules } : {}),
        cwd,
      });
      return { harness, model: await harness.ctx.llm.open(modelSettings), store: await harness.ctx.sessions.open(options.sessionDir) };
    } catch (error) {
      await harness?.dispose();
      if (error instanceof HarnessError) throw acp.RequestError.invalidParams({ code: error.code }, error.message);
      throw error;
    }
  };

  /** The session's approvals (asking this editor), file changes and plans, routed to its running turn. */
  const attach = ({ harness, model, store }: { harness: Harness; model: ModelClient; store: SessionStore }, writer: SessionWriter, client: acp.AgentContext, planning: boolean): AcpSession => {
    const sessionId = writer.sessionId;
    const removeApprovals = installApprovals(harness.ctx, {
      policy: options.approve,
      approver: (request, signal) => askEditor(client, sessionId, request, signal),
      flagHint: '--approve never',
    });
    const planMode = installPlanMode(harness.ctx, {
      active: planning,
      by: options.plan === true ? 'flag' : 'user',
      reviewer: (proposal, signal) => askEditorAboutPlan(client, sessionId, proposal, signal),
    });
    // An approved plan turns plan mode off: the editor hears the new mode.
    harness.ctx.on('plan/mode', (change) => {
      void client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: 'current_mode_update', currentModeId: change.active ? PLAN_MODE_ID : DEFAULT_MODE_ID },
      });
    });
    const session: AcpSession = { harness, model, store, writer, removeApprovals, removePlanMode: planMode.dispose };
    harness.ctx.on('tools/file-change', (event) => {
      const reporter = session.reporter;
      if (reporter !== undefined && reporter.owns(event.parentId ?? event.callId)) reporter.fileChange(event);
    });
    harness.ctx.on('tools/result', ({ call, result }) => {
      const reporter = session.reporter;
      // A todo list, or the one an approved plan became (docs/plan-mode.md).
      if ((call.name !== 'todo' && call.name !== PLAN_PROPOSE_TOOL_NAME) || result.isError || reporter === undefined || !reporter.owns(call.parent?.id ?? call.id)) return;
      const todos = todosOf(result.value);
      if (todos !== undefined) reporter.plan(todos);
    });
    return session;
  };

  const app = acp
    .agent({ name: 'ptc-harness' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: true, sse: false },
      },
      agentInfo: { name: 'ptc-harness', version: options.version },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const opened = await openHarness(params.cwd, params.mcpServers);
      // Held, like a loaded session, until the connection closes: no other process appends meanwhile.
      let writer: SessionWriter;
      try {
        writer = opened.store.start({ lock: true });
      } catch (error) {
        await opened.harness.dispose();
        throw error;
      }
      const planning = options.plan === true;
      sessions.set(writer.sessionId, attach(opened, writer, client, planning));
      return { sessionId: writer.sessionId, modes: sessionModes(planning) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const { sessionId } = params;
      if (sessions.has(sessionId)) throw acp.RequestError.invalidRequest({ sessionId }, `Session ${sessionId} is already open in this connection; send prompts to it.`);
      const opened = await openHarness(params.cwd, params.mcpServers);
      let continued: ContinuedSession;
      try {
        continued = continueExact(opened.store, sessionId, options.sessionDir);
      } catch (error) {
        await opened.harness.dispose();
        throw error;
      }
      try {
        const start = continued.events.find((e) => e.type === 'session/start');
        if (start !== undefined && path.resolve(start.cwd) !== path.resolve(params.cwd)) {
          throw acp.RequestError.invalidParams(
            { sessionId, code: 'CONFIG' },
            `Session ${sessionId} works in ${start.cwd}, not ${params.cwd}; load it with that cwd, or start a new session here with session/new.`,
          );
        }
      } catch (error) {
        continued.writer.close();
        await opened.harness.dispose();
        throw error;
      }
      const planning = options.plan === true || planModeOf(continued.events);
      const session = attach(opened, continued.writer, client, planning);
      session.history = continued.events;
      sessions.set(sessionId, session);
      // The whole history before the answer (the protocol's order), each update after the one before.
      const reporter = new ToolCallReporter((u) => client.notify(acp.methods.client.session.update, { sessionId, update: u }));
      replaySession(continued.events, reporter);
      await reporter.flushed();
      return { modes: sessionModes(planning) };
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      const session = sessionOf(params.sessionId);
      session.harness.ctx.get('planMode')?.set(planningOfMode(params.modeId), 'user');
      return {};
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
      session.reporter = calls;
      try {
        // Edited plugin files are reloaded before the turn (docs/plugin-reload.md); the editor shows what happened as a thought.
        if (options.harness.watchPlugins === true) {
          for (const line of describeReload(await session.harness.reloadPlugins())) void update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `ptc: ${line}\n` } });
        }
        const result = await loopOf(session.harness.ctx).run({
          scope: session.harness.ctx,
          cwd: session.harness.cwd,
          preset: session.harness.preset.name,
          model: session.model,
          task,
          sink: session.writer,
          sessionId: session.writer.sessionId,
          sessionDir: options.sessionDir,
          sessions: session.store,
          signal: turn.signal,
          ...(session.history !== undefined ? { history: session.history } : {}),
          ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
          ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
          ...(options.compactThreshold !== undefined ? { compactThreshold: options.compactThreshold } : {}),
          onText: (delta) => void update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta } }),
          onProgress: (event) => calls.report(event),
        });
        await calls.flushed();
        session.history = session.store.read(session.writer.sessionId).events;
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
        session.reporter = undefined;
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
          await session.removePlanMode();
          session.writer.close();
          await session.harness.dispose();
        }),
      );
    },
  };
}

/**
 * Session `sessionId` of the store opened for a turn: an exact id (no prefix, no path: the editor names
 * what it listed); a missing one is -32002, one that cannot be continued (in use, a subagent's) invalidRequest.
 */
function continueExact(store: SessionStore, sessionId: string, dir: string): ContinuedSession {
  const missing = () =>
    new acp.RequestError(
      -32002,
      `No session ${JSON.stringify(sessionId)} in ${dir}: start one with session/new, or pick an id from \`ptc sessions list --session-dir ${dir}\`.`,
      { sessionId, code: 'CONFIG' },
    );
  if (sessionId.includes('/') || sessionId.includes(path.sep)) throw missing();
  let found: string;
  try {
    found = store.read(sessionId).sessionId;
  } catch {
    throw missing();
  }
  if (found !== sessionId) throw missing();
  try {
    return store.continue(sessionId);
  } catch (error) {
    if (error instanceof HarnessError) throw acp.RequestError.invalidRequest({ sessionId, code: error.code }, error.message);
    throw error;
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
        // Saved to the user's config file, so later sessions do not ask either (docs/config.md).
        ...(request.alwaysAllow !== undefined
          ? [{ optionId: 'allow-always', name: `Always allow \`${request.alwaysAllow.rule}\`${request.alwaysAllow.file !== undefined ? ' (saved to your config)' : ''}`, kind: 'allow_always' as const }]
          : []),
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    },
    { cancellationSignal: signal, stopWaitingOnCancel: true },
  );
  const outcome = response.outcome;
  if (outcome.outcome === 'cancelled') return { decision: 'deny', reason: 'the editor cancelled the request' };
  if (outcome.optionId === 'allow') return { decision: 'allow' };
  if (outcome.optionId === 'allow-tool') return { decision: 'allow-tool' };
  if (outcome.optionId === 'allow-always' && request.alwaysAllow !== undefined) return { decision: 'allow-always' };
  return { decision: 'deny' };
}
