// Subagents (docs/subagents.md): the agent loop provides the `agent` service for the length of its
// run, and the `task` tool asks it for a subagent. A subagent is a harness of its own (its preset,
// scope and presentation) on the parent's workspace, policy and sandbox mode, run by the same loop
// with the parent's model, logging to its own file beside the parent's log, under the parent's approvals.

import type { Disposer } from '../context/context.js';
import { ConfigError, InvalidArgsError, ToolFailedError } from '../errors.js';
import { createHarness, type Harness } from '../harness.js';
import type { RowKinds } from '../row-kind.js';
import { SUBAGENT_MAX_STEPS } from '../limits.js';
import type { HarnessSettings } from '../harness-settings.js';
import { DEFAULT_PRESET } from '../presets/presets.js';
import { jsonlSessionStore } from '../session/jsonl-store.js';
import type { AgentService, SubagentOutcome, SubagentRequest } from '../builtin-tools/task.js';
import type { AgentRunOptions, AgentRunResult } from './loop.js';

/** The session and the `task` call that started a subagent; its `session/start` names both. */
export interface SubagentParent {
  readonly sessionId: string;
  readonly toolCallId: string;
}

type RunAgent = (options: AgentRunOptions) => Promise<AgentRunResult>;

/**
 * Provides the `agent` service on the run's container until the returned disposer runs. A container
 * already running another agent keeps that agent's service; `task` then refuses this run's calls
 * (their ids are not the other run's), so a subagent is never linked to the wrong session.
 */
export async function provideAgentService(options: AgentRunOptions, ownsCall: (id: string) => boolean, run: RunAgent): Promise<Disposer> {
  const { scope } = options;
  if (scope.get('agent') !== undefined) return () => {};
  const service: AgentService = {
    sessionId: options.sessionId,
    depth: options.depth ?? 0,
    ownsCall,
    runSubagent: (request) => runSubagent(options, request, run),
  };
  const handle = scope.plugin({ name: 'agent-run', apply: (ctx) => ctx.provide('agent', service) });
  await handle.settled();
  return () => handle.dispose();
}

async function runSubagent(parent: AgentRunOptions, request: SubagentRequest, run: RunAgent): Promise<SubagentOutcome> {
  const settings = parent.scope.get('harness');
  const store = parent.sessions ?? (parent.sessionDir !== undefined ? jsonlSessionStore(parent.sessionDir) : undefined);
  if (store === undefined || settings === undefined) {
    throw new ToolFailedError(
      'task needs the running agent to be built by createHarness and to know its session directory: pass sessionDir to runAgent (ptc run does).',
    );
  }
  const harness = await openChildHarness(settings, request.preset, parent.scope.get('rowKinds'));
  // The parent's approvals hold in the child (docs/approvals.md, "Subagents"): approving a task call
  // approves starting the subagent, not what it then writes.
  const removeApprovals = parent.scope.get('approvals')?.installOn(harness.ctx);
  try {
    const writer = store.start();
    try {
      let result: AgentRunResult;
      try {
        // The child's own `loop` service runs it (its preset may replace the loop); else the parent's.
        const childLoop = harness.ctx.get('loop');
        const runChild: RunAgent = childLoop !== undefined ? (o) => childLoop.run(o) : run;
        result = await runChild({
          scope: harness.ctx,
          cwd: parent.cwd,
          preset: harness.preset.name,
          model: parent.model,
          task: request.prompt,
          sink: writer,
          sessionId: writer.sessionId,
          ...(parent.sessionDir !== undefined ? { sessionDir: parent.sessionDir } : {}),
          sessions: store,
          parent: { sessionId: parent.sessionId, toolCallId: request.toolCallId },
          depth: (parent.depth ?? 0) + 1,
          maxSteps: parent.subagentMaxSteps ?? SUBAGENT_MAX_STEPS,
          signal: request.signal,
          ...(parent.subagentMaxSteps !== undefined ? { subagentMaxSteps: parent.subagentMaxSteps } : {}),
          ...(parent.retry ? { retry: parent.retry } : {}),
          ...(parent.maxParallelToolCalls !== undefined ? { maxParallelToolCalls: parent.maxParallelToolCalls } : {}),
          // A subagent meters and compacts against the same window as its parent (docs/compaction.md).
          ...(parent.contextWindow !== undefined ? { contextWindow: parent.contextWindow } : {}),
          ...(parent.compactThreshold !== undefined ? { compactThreshold: parent.compactThreshold } : {}),
        });
      } catch (error) {
        // The loop throws only for a deployment problem (CONFIG, RUNTIME_UNAVAILABLE) or a request that
        // cannot fit the window (CONTEXT), after closing
        // the child's log; the parent hears of it as this subagent's failure.
        const message = error instanceof Error ? error.message : String(error);
        return { sessionId: writer.sessionId, sessionFile: writer.file, reason: 'error', text: '', steps: 0, error: message };
      }
      return {
        sessionId: writer.sessionId,
        sessionFile: writer.file,
        reason: result.reason,
        text: result.text,
        steps: result.steps,
        ...(result.error !== undefined ? { error: result.error } : {}),
      };
    } finally {
      writer.close();
    }
  } finally {
    await removeApprovals?.();
    await harness.dispose();
  }
}

/** The child's harness: its own preset, on the parent's workspace, policy, sandbox mode and limits. */
async function openChildHarness(settings: HarnessSettings, preset: string | undefined, rowKinds: RowKinds | undefined): Promise<Harness> {
  const { policy } = settings;
  try {
    return await createHarness({
      // The parent's row kinds (the agent's `loop` among them), so the child's preset names the same rows.
      ...(rowKinds !== undefined ? { rowKinds } : {}),
      cwd: settings.cwd,
      preset: preset ?? DEFAULT_PRESET,
      sandbox: settings.sandbox,
      allowRead: policy.read,
      allowWrite: policy.write,
      allowNet: policy.network,
      ...(policy.protect === undefined ? {} : { protect: policy.protect }),
      ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      ...(settings.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: settings.maxParallelSubCalls } : {}),
      // A runtime the library user supplied is shared (and closed by them); otherwise the child's
      // node-runtime row starts its own and closes it with the child.
      ...(settings.runtime !== undefined ? { runtime: settings.runtime } : {}),
      // The library caller's trust of this workspace holds for its subagents too (docs/presets.md, "Trust").
      ...(settings.trustWorkspace === true ? { trustWorkspace: true } : {}),
      ...(settings.approvalRules !== undefined ? { approvalRules: settings.approvalRules } : {}),
      ...(settings.webSearch !== undefined ? { webSearch: settings.webSearch } : {}),
    });
  } catch (error) {
    // A preset the model named that does not resolve or assemble: the model can pick another one.
    if (preset !== undefined && error instanceof ConfigError) throw new InvalidArgsError(`preset ${JSON.stringify(preset)}: ${error.message}`);
    throw error;
  }
}
