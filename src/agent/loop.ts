// The agent loop: assemble the prompt, rebuild the request from the log, stream the model, run the
// step's tool calls (native: a rolling pool on the registry's classifier; ptc: run_code through the
// bridge), append results in call order and deferred contexts after them, until a final answer,
// --max-steps, an error or an abort. Every event is logged as it happens.

import os from 'node:os';
import path from 'node:path';
import type { ApprovalEvent } from '../approvals/approvals.js';
import type { Context } from '../context/context.js';
import { ContextError, HarnessError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { modelClientOf, type AiSdkModel } from '../llm/ai-sdk-client.js';
import type { ModelClient } from '../llm/llm-service.js';
import { describeModelError } from '../llm/model-error.js';
import type { RetryPolicy } from '../llm/retry.js';
import type { SessionEndReason, SessionEvent, SessionEventInput, Usage } from '../session/events.js';
import { spillDirPath } from '../session/paths.js';
import type { SessionStore } from '../session/session-store.js';
import { createSpillStore, createTempSpillStore, type SpillStore } from '../tools/spill.js';
import type { ToolSchema } from '../tools/types.js';
import { assemblePrompt, renderSystemPrompt } from './prompt.js';
import { buildMessages, buildRequest } from './request.js';
import { compactContext, modelSummariser } from './compaction.js';
import { calibratedEstimate, contextWindowOf, estimateRequestTokens } from './context-meter.js';
import { DEFAULT_COMPACT_THRESHOLD } from '../limits.js';
import { provideAgentService, type SubagentParent } from './subagent.js';
import { loadWorkspaceInstructions } from './workspace-instructions.js';
import { planModeOf } from '../plan-mode/plan-mode.js';
import { callModel } from './model-call.js';
import { runToolCalls } from './tool-step.js';
import { DEFAULT_MAX_STEPS } from './limits.js';
export { DEFAULT_MAX_STEPS };

/** Where the loop writes its events (the session writer, or anything with the same shape). */
export interface EventSink {
  /** Writes one event and returns it as written (with `ts`). */
  append(event: SessionEventInput): SessionEvent;
  /** Makes everything appended so far durable; called at the end of each step and of the session. */
  flush(): void | Promise<void>;
}

export type AgentProgress =
  | { kind: 'step'; step: number }
  | { kind: 'tool-start'; id: string; name: string; args: JsonValue }
  | { kind: 'tool-end'; id: string; name: string; ms: number; isError: boolean; subCalls: number; content: string }
  /** A program's sub-call (run_code), as it starts and as it settles. */
  | { kind: 'sub-call-start'; parentId: string; id: string; tool: string; args: JsonValue }
  | { kind: 'sub-call-end'; parentId: string; id: string; tool: string; args?: JsonValue; isError: boolean; content: string }
  /** The meter of a request about to be sent (docs/compaction.md). */
  | { kind: 'context'; step: number; estimatedTokens: number; window?: number }
  /** A compaction was logged (or failed: `failed` says why and nothing of the summary applied). */
  | { kind: 'compaction'; step: number; pruned: number; summarised: boolean; tokensBefore: number; tokensAfter: number; failed?: string };

export interface AgentRunOptions {
  /** The scope whose tools, presentation and hooks apply (a harness's root context). */
  readonly scope: Context;
  readonly cwd: string;
  readonly preset: string;
  /**
   * The model: a client (the `llm` service's `open`, src/llm/llm-service.ts), or an AI SDK language
   * model with its `provider:id` label and what error messages should name (a `ResolvedModel`).
   */
  readonly model: ModelClient | AiSdkModel;
  readonly task: string;
  readonly sink: EventSink;
  readonly sessionId: string;
  readonly maxSteps?: number;
  /** Wire tools to put first, in order; names outside the mode's wire tools fail with CONFIG. */
  readonly toolOrder?: readonly string[];
  /** Overlap bound of concurrency-safe native calls in one step (default 10). */
  readonly maxParallelToolCalls?: number;
  readonly signal?: AbortSignal;
  /** Retry policy of one model request (429/5xx, before any output streamed). */
  readonly retry?: Partial<RetryPolicy>;
  /** Told before each retry (for progress on stderr). */
  readonly onRetry?: (info: { attempt: number; delayMs: number; message: string }) => void;
  readonly onText?: (delta: string) => void;
  readonly onProgress?: (event: AgentProgress) => void;
  /** Approval requests and answers of this session's calls (approvals are installed on the scope: docs/approvals.md). */
  readonly onApproval?: (event: ApprovalEvent) => void;
  /** The session directory: subagents started by `task` log there (docs/subagents.md); without it `task` fails. */
  readonly sessionDir?: string;
  /**
   * The session store the run's log came from (the `sessions` service's `open`): subagents log into
   * it and over-long results spill where it says. Default: the JSONL files of `sessionDir`.
   */
  readonly sessions?: SessionStore;
  /**
   * Where results over MAX_TOOL_RESULT_CHARS are written whole (docs/sessions.md, "Spill"); default
   * `<sessionDir>/<sessionId>.spill`, or a temp directory removed when the run ends.
   */
  readonly spill?: SpillStore;
  /** Step bound of each subagent this run starts; default SUBAGENT_MAX_STEPS. */
  readonly subagentMaxSteps?: number;
  /** Set for a subagent: the session and `task` call that started it, named in its `session/start`. */
  readonly parent?: SubagentParent;
  /** Nesting depth: 0 for a top-level agent (the default), 1 for a subagent. */
  readonly depth?: number;
  /**
   * A later turn of an existing session (`continueSession`): every event of its log so far. The loop
   * logs `session/resume` instead of `session/start`, the history enters the requests as if the run
   * had never stopped, and step numbers continue; `maxSteps` bounds this turn (docs/sessions.md).
   */
  readonly history?: readonly SessionEvent[];
  /**
   * The model's context window in tokens (`--context-window`, `contextWindow`); default the model
   * catalog's. Without one nothing is compacted automatically (docs/compaction.md).
   */
  readonly contextWindow?: number;
  /** Compact when the next request's estimate passes this fraction of the window (default DEFAULT_COMPACT_THRESHOLD). */
  readonly compactThreshold?: number;
  /** Lines to log after `session/start` or `session/resume` and before the task's `user/message` (a goal's round: docs/goals.md). */
  readonly beforeMessage?: readonly SessionEventInput[];
}

export interface AgentRunResult {
  readonly reason: SessionEndReason;
  /** The text of the last model response. */
  readonly text: string;
  readonly steps: number;
  readonly usage: Required<Usage>;
  readonly error?: string;
  /** The meter of the last request sent and the compactions of this turn (docs/compaction.md). */
  readonly context?: TurnContext;
}

export interface TurnContext {
  /** Estimated tokens of the last request sent this turn. */
  readonly lastRequestTokens: number;
  /** The provider's count of that request's prompt, when it reported one. */
  readonly lastInputTokens?: number;
  readonly window?: number;
  /** Compactions logged this turn: prune-only, with a summary, and failed ones. */
  readonly compactions: { readonly pruned: number; readonly summarised: number; readonly failed: number };
}

export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  const { scope, sink } = options;
  const tools = scope.tools;
  const client = modelClientOf(options.model);
  // Results over the limit are written whole here; without a session directory, to a temp directory
  // removed when the run ends (docs/sessions.md, "Spill").
  const spill = openSpill(options);
  const events: SessionEvent[] = [...(options.history ?? [])];
  const record = (event: SessionEventInput): void => void events.push(sink.append(event));
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let steps = lastStepOf(events);
  const lastStep = steps + (options.maxSteps ?? DEFAULT_MAX_STEPS);
  let text = '';

  // Dispatch events are heard on the shared scope: keep only those of this session's own calls.
  const ownCalls = new Set<string>();
  const subCalls = new Map<string, number>();
  const offStart = scope.on('tool/ptc-dispatch-start', (e) => {
    if (!ownCalls.has(e.parentId)) return;
    // A sub-call may make sub-calls of its own (a workflow called from a program): those are this session's too.
    ownCalls.add(e.id);
    subCalls.set(e.parentId, (subCalls.get(e.parentId) ?? 0) + 1);
    record({ type: 'tool/ptc-dispatch-start', parentId: e.parentId, id: e.id, tool: e.tool, args: e.args });
    options.onProgress?.({ kind: 'sub-call-start', parentId: e.parentId, id: e.id, tool: e.tool, args: e.args });
  });
  const offSettle = scope.on('tool/ptc-dispatch', (e) => {
    if (!ownCalls.has(e.parentId)) return;
    record({ type: 'tool/ptc-dispatch', parentId: e.parentId, id: e.id, tool: e.tool, args: e.args, content: e.content, isError: e.isError });
    options.onProgress?.({ kind: 'sub-call-end', parentId: e.parentId, id: e.id, tool: e.tool, args: e.args, isError: e.isError, content: e.content });
  });

  const offApproval = scope.on('tool/approval', (e) => {
    const parentId = e.stage === 'request' ? e.parent?.id : e.parentId;
    if (!ownCalls.has(e.id) && (parentId === undefined || !ownCalls.has(parentId))) return;
    if (e.stage === 'request') {
      record({
        type: 'tool/approval',
        stage: 'request',
        id: e.id,
        tool: e.tool,
        ...(parentId !== undefined ? { parentId } : {}),
        args: e.args,
        ...(e.why !== undefined ? { why: e.why } : {}),
        ...(e.alwaysAllow !== undefined ? { alwaysAllow: e.alwaysAllow.rule } : {}),
      });
    } else {
      record({
        type: 'tool/approval',
        stage: 'answer',
        id: e.id,
        tool: e.tool,
        ...(parentId !== undefined ? { parentId } : {}),
        decision: e.decision,
        by: e.by,
        ...(e.reason !== undefined ? { reason: e.reason } : {}),
      });
    }
    options.onApproval?.(e);
  });

  // Plan mode (docs/plan-mode.md): its switches and the reviews of this session's proposals.
  const offPlanMode = scope.on('plan/mode', (e) => record({ type: 'plan/mode', active: e.active, by: e.by }));
  const offPlanReview = scope.on('plan/review', (e) => {
    if (!ownCalls.has(e.id)) return;
    record({
      type: 'plan/review',
      id: e.id,
      decision: e.decision,
      ...(e.steps !== undefined ? { steps: [...e.steps] } : {}),
      ...(e.comment !== undefined ? { comment: e.comment } : {}),
    });
  });

  const meterState: MeterState = { compactions: { pruned: 0, summarised: 0, failed: 0 } };
  const finish = async (reason: SessionEndReason, error?: string): Promise<AgentRunResult> => {
    record({ type: 'session/end', reason, steps, ...(error !== undefined ? { error } : {}) });
    await sink.flush();
    await withdrawAgent();
    await offStart();
    await offSettle();
    await offApproval();
    await offPlanMode();
    await offPlanReview();
    spill.remove?.();
    return { reason, text, steps, usage, ...(error !== undefined ? { error } : {}), ...(meterState.last !== undefined ? { context: contextOf(meterState) } : {}) };
  };

  const turn = { preset: options.preset, model: options.model.label, mode: tools.modeFor(scope), pid: process.pid, host: os.hostname() };
  if (options.history === undefined) {
    record({
      type: 'session/start',
      sessionId: options.sessionId,
      cwd: options.cwd,
      ...turn,
      ...(options.parent ? { parent: { sessionId: options.parent.sessionId, toolCallId: options.parent.toolCallId } } : {}),
    });
  } else {
    record({ type: 'session/resume', ...turn });
  }
  // A switch made between turns (/plan, a UI toggle, --plan on a new session) is logged as the turn starts.
  const planMode = scope.get('planMode');
  if (planMode !== undefined && planMode.active !== planModeOf(events)) record({ type: 'plan/mode', active: planMode.active, by: planMode.by });
  for (const event of options.beforeMessage ?? []) record(event);
  record({ type: 'user/message', text: options.task });
  // The `task` tool reaches this run (its model, log directory, depth) through the `agent` service.
  const withdrawAgent = await provideAgentService(options, (id) => ownCalls.has(id), runAgent);

  try {
    // Read once, so the system prompt stays the same for the whole session even if the agent edits the file.
    const instructions = loadWorkspaceInstructions(options.cwd) ?? false;
    const window = contextWindowOf(modelIdOf(options.model.label), options.contextWindow);
    const threshold = options.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD;
    // The provider's count of the previous request, to raise the next estimate to (context-meter.ts).
    let reported: { estimate: number; reportedInputTokens: number } | undefined;
    while (steps < lastStep) {
      if (options.signal?.aborted) return await finish('aborted');
      const step = ++steps;
      options.onProgress?.({ kind: 'step', step });
      const assembly = await assemblePrompt({ scope, step, cwd: options.cwd, instructions, ...(options.toolOrder ? { toolOrder: options.toolOrder } : {}) });
      const system = renderSystemPrompt(assembly);
      const toolSchemas = assembly.tools.map(wireSchema);
      const measure = (): { raw: number; tokens: number } => {
        const raw = estimateRequestTokens({ system, toolSchemas, messages: buildMessages(events) });
        return { raw, tokens: calibratedEstimate(raw, reported) };
      };
      let meter = measure();
      if (window !== undefined && meter.tokens > threshold * window) {
        const outcome = await compactContext({
          events,
          step,
          system,
          toolSchemas,
          window,
          threshold,
          trigger: 'auto',
          spill: spill.store,
          summarise: modelSummariser(client, options.signal),
        });
        for (const event of outcome.events) {
          record(event);
          if (event.type === 'context/compaction-failed') meterState.compactions.failed++;
          else if (event.summary !== undefined) meterState.compactions.summarised++;
          else meterState.compactions.pruned++;
        }
        const applied = outcome.events.find((e) => e.type === 'context/compaction');
        meter = measure();
        options.onProgress?.({
          kind: 'compaction',
          step,
          pruned: applied?.type === 'context/compaction' ? applied.pruned.length : 0,
          summarised: applied?.type === 'context/compaction' && applied.summary !== undefined,
          tokensBefore: applied?.type === 'context/compaction' ? applied.tokensBefore : meter.tokens,
          tokensAfter: meter.tokens,
          ...(outcome.failure !== undefined ? { failed: outcome.failure } : {}),
        });
        if (meter.tokens > window) {
          await sink.flush();
          throw new ContextError(
            `The next request (about ${meter.tokens} tokens) does not fit the model's context window of ${window} tokens, and compaction could not make it fit` +
              `${outcome.failure !== undefined ? ` (${outcome.failure})` : ''}. Continue the session with a model of a larger window (--model, --context-window if the window is really larger), ` +
              `or start a new session (the log keeps everything: ptc sessions show ${options.sessionId}).`,
          );
        }
      }
      record({
        type: 'llm/request',
        step,
        tools: assembly.tools.map((t) => t.name),
        system,
        toolSchemas,
        context: { estimatedTokens: meter.tokens, ...(window !== undefined ? { window } : {}) },
      });
      meterState.last = { tokens: meter.tokens, ...(window !== undefined ? { window } : {}) };
      options.onProgress?.({ kind: 'context', step, estimatedTokens: meter.tokens, ...(window !== undefined ? { window } : {}) });
      const request = buildRequest(events, step);

      const response = await callModel(options, client, request.system, request.messages, assembly.tools);
      if (options.signal?.aborted) return await finish('aborted');
      text = response.text;
      usage.inputTokens += response.usage.inputTokens ?? 0;
      usage.outputTokens += response.usage.outputTokens ?? 0;
      usage.totalTokens += response.usage.totalTokens ?? 0;
      if (response.usage.inputTokens !== undefined) {
        reported = { estimate: meter.raw, reportedInputTokens: response.usage.inputTokens };
        meterState.last = { ...meterState.last!, inputTokens: response.usage.inputTokens };
      }
      record({ type: 'llm/response', step, text: response.text, toolCalls: response.toolCalls, usage: response.usage, finishReason: response.finishReason });
      if (response.toolCalls.length === 0) return await finish('completed');

      for (const call of response.toolCalls) ownCalls.add(call.id);
      const results = await runToolCalls(options, response.toolCalls, record, subCalls, spill.store);
      results.forEach((result) => {
        for (const entry of result.deferredContexts ?? []) record({ type: 'context/deferred', step, source: entry.source, text: entry.text });
      });
      await sink.flush();
      if (options.signal?.aborted) return await finish('aborted');
    }
    return await finish('max-steps');
  } catch (error) {
    if (options.signal?.aborted) return await finish('aborted');
    if (error instanceof HarnessError && (error.code === 'CONFIG' || error.code === 'RUNTIME_UNAVAILABLE' || error.code === 'CONTEXT')) {
      // A deployment problem, not a model failure: close the log, then let the caller report it.
      await finish('error', error.message);
      throw error;
    }
    const described = client.describeError?.(error) ?? describeModelError(error, client);
    record({ type: 'llm/error', step: steps, message: described.message, ...(described.status !== undefined ? { status: described.status } : {}) });
    return await finish('error', described.message);
  }
}

/** The run's spill store: the session's directory, or a temp one the run removes (library use without a session directory). */
function openSpill(options: AgentRunOptions): { store: SpillStore; remove?: () => void } {
  if (options.spill) return { store: options.spill };
  if (options.sessions !== undefined) {
    const dir = options.sessions.spillDir?.(options.sessionId);
    return dir !== undefined ? { store: createSpillStore({ dir }) } : createTempSpillStore();
  }
  if (options.sessionDir !== undefined) return { store: createSpillStore({ dir: spillDirPath(path.resolve(options.sessionDir), options.sessionId) }) };
  return createTempSpillStore();
}

interface MeterState {
  last?: { tokens: number; window?: number; inputTokens?: number };
  compactions: { pruned: number; summarised: number; failed: number };
}

function contextOf(state: MeterState): TurnContext {
  const last = state.last!;
  return {
    lastRequestTokens: last.tokens,
    ...(last.inputTokens !== undefined ? { lastInputTokens: last.inputTokens } : {}),
    ...(last.window !== undefined ? { window: last.window } : {}),
    compactions: { ...state.compactions },
  };
}

/** The model id of a `provider:id` label (the catalog's key). */
function modelIdOf(label: string): string {
  return label.slice(label.indexOf(':') + 1);
}

/** The highest step number a log names (0 for none): a resumed turn's steps continue after it. */
function lastStepOf(events: readonly SessionEvent[]): number {
  let last = 0;
  for (const event of events) {
    // A compaction names the step that comes next, not one that ran.
    if (event.type === 'context/compaction' || event.type === 'context/compaction-failed') continue;
    if ('step' in event) last = Math.max(last, event.step);
    else if (event.type === 'session/end') last = Math.max(last, event.steps);
  }
  return last;
}

/** The tool definition as it goes on the wire, for the log. */
function wireSchema(t: ToolSchema): JsonValue {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema as JsonValue };
}
