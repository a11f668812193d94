// `ptc run` and `ptc sessions`: the agent against a real model provider, and reading its logs.

import { ConfigError, HarnessError } from '../errors.js';
import type { AgentProgress, AgentRunResult } from '../agent/loop.js';
import { loopOf } from '../agent/loop-service.js';
import type { ModelClient } from '../llm/llm-service.js';
import type { SessionStore } from '../session/session-store.js';
import type { ContinuedSession } from '../session/continue-session.js';
import { buildRequest } from '../agent/request.js';
import { progressLine } from '../agent/progress-text.js';
import { createHarness } from '../harness.js';
import { todoProgressText } from '../builtin-tools/todo.js';
import { installApprovals, type ApprovalPolicy } from '../approvals/approvals.js';
import { installPlanMode, planModeOf } from '../plan-mode/plan-mode.js';
import {
  findSession,
  formatSession,
  formatSessionList,
  listSessions,
  readSession,
  resolveSessionDir,
} from '../session/index.js';
import { checkWorkspace, harnessOptionsOf, type CommandOutput, type PolicyOptions } from './commands.js';
import { goalStateOf } from '../agent/goal-state.js';
import { runGoal, type GoalOptions } from '../agent/goal.js';
import type { SessionEvent } from '../session/events.js';
import { goalOutput, goalProgressLine } from './goal-output.js';

export interface RunOptions extends PolicyOptions {
  readonly task: string;
  readonly model?: string;
  readonly baseUrl?: string;
  /** The variable holding the key instead of the provider's (a config file's `apiKeyEnv`). */
  readonly apiKeyEnv?: string;
  readonly maxSteps?: number;
  /** The model's context window in tokens and the compaction threshold (docs/compaction.md). */
  readonly contextWindow?: number;
  readonly compactThreshold?: number;
  readonly sessionDir?: string;
  readonly json?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
  /** Where the model's text streams (stdout unless --json). */
  readonly writeText: (text: string) => void;
  /** Progress lines (stderr on a TTY); undefined to stay quiet. */
  readonly writeProgress?: (line: string) => void;
  /** Continue this session (id, prefix or path) with `task` as its next message (docs/sessions.md). */
  readonly resume?: string;
  /** Continue the latest session of this workspace. */
  readonly continueLatest?: boolean;
  /** Which calls need a yes (docs/approvals.md); `ptc run` has no one to ask, so they are denied. Default never. */
  readonly approve?: ApprovalPolicy;
  /** Work a goal in rounds (docs/goals.md); `task`, when given, is added to its first round. */
  readonly goal?: GoalOptions;
  /** Start in plan mode (docs/plan-mode.md); a continued session otherwise keeps the mode it ended in. */
  readonly plan?: boolean;
}

/** `ptc run "<task>"`: one agent session; the log goes to the session directory as it happens. */
export async function runRunCommand(options: RunOptions): Promise<CommandOutput> {
  const resuming = options.resume !== undefined || options.continueLatest === true;
  if (options.task.trim() === '' && options.goal === undefined && !resuming) throw new ConfigError('ptc run needs a task: ptc run "what to do" (or a goal: --goal "<objective>").');
  const cwd = checkWorkspace(options.cwd);
  if (options.resume !== undefined && options.continueLatest === true) throw new ConfigError('Give either --resume <id> or --continue, not both.');
  // The model client, the session store and the loop are the harness's services (docs/architecture.md, "Services").
  const harness = await createHarness(harnessOptionsOf({ ...options, cwd }));
  let model: ModelClient;
  let store: SessionStore;
  let continued: ContinuedSession | undefined;
  let goalMode: boolean;
  try {
    model = await harness.ctx.llm.open({
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      ...(options.apiKeyEnv !== undefined ? { apiKeyVar: options.apiKeyEnv } : {}),
      env: options.env,
    });
    store = await harness.ctx.sessions.open(sessionDirOf(options));
    continued = resuming ? store.continue(options.resume ?? store.latest(cwd)) : undefined;
    // A continued session with an open goal goes on with it (docs/goals.md, "Resuming").
    goalMode = options.goal !== undefined || (continued !== undefined && goalStateOf(continued.events)?.open === true);
    if (!goalMode && options.task.trim() === '') throw new ConfigError('ptc run --continue needs a task (the session has no open goal): ptc run --continue "what to do next".');
  } catch (error) {
    continued?.writer.close();
    await harness.dispose();
    throw error;
  }
  const dir = store.location;
  const writer = continued?.writer ?? store.start();
  const removeApprovals =
    options.approve !== undefined && options.approve !== 'never' ? installApprovals(harness.ctx, { policy: options.approve, flagHint: '--approve never' }) : undefined;
  // Plan mode (docs/plan-mode.md): no one can review a plan here, so a proposal is recorded and the turn ends.
  const planMode = installPlanMode(harness.ctx, { active: options.plan === true || (continued !== undefined && planModeOf(continued.events)) });
  const progress = options.writeProgress;
  const loop = loopOf(harness.ctx);
  // The agent's plan, shown whenever a todo call (native or from a program) is accepted.
  if (progress) {
    harness.ctx.on('tools/result', (event) => {
      const plan = todoProgressText(event);
      if (plan !== undefined) progress(plan);
    });
  }
  try {
    const agentOptions = {
      scope: harness.ctx,
      cwd,
      preset: harness.preset.name,
      model,
      task: options.task,
      sink: writer,
      sessionId: writer.sessionId,
      sessionDir: dir,
      sessions: store,
      ...(continued !== undefined ? { history: continued.events } : {}),
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      ...(options.compactThreshold !== undefined ? { compactThreshold: options.compactThreshold } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onText: options.json ? undefined : options.writeText,
      ...(progress
        ? {
            onProgress: (e: AgentProgress) => {
              const line = progressLine(e);
              if (line !== undefined) progress(line);
            },
            onRetry: (r: { delayMs: number; message: string }) => progress(`retrying in ${r.delayMs} ms: ${r.message}`),
          }
        : {}),
    };
    if (goalMode) {
      const outcome = await runGoal({
        ...agentOptions,
        loop,
        ...(options.goal !== undefined ? { goal: options.goal } : {}),
        note: options.task,
        ...(progress ? { onGoalEvent: (e: SessionEvent) => progress(goalProgressLine(e)) } : {}),
      });
      return goalOutput(outcome, writer, options.json === true);
    }
    let result: AgentRunResult;
    try {
      result = await loop.run(agentOptions);
    } catch (error) {
      // The request would not fit the window (docs/compaction.md, "When it fails"): the log is closed;
      // --json still gets its summary, with the code.
      if (!(error instanceof HarnessError) || error.code !== 'CONTEXT' || options.json !== true) throw error;
      const summary = { sessionId: writer.sessionId, sessionFile: writer.file, reason: 'error', error: error.message, code: error.code };
      return { stdout: `${JSON.stringify(summary, null, 2)}\n`, stderr: `ptc: ${error.message}\n`, exitCode: 1 };
    }
    const summary = {
      sessionId: writer.sessionId,
      sessionFile: writer.file,
      text: result.text,
      steps: result.steps,
      usage: result.usage,
      reason: result.reason,
      ...(result.context !== undefined ? { context: result.context } : {}),
    };
    const exitCode = result.reason === 'completed' ? 0 : 1;
    const why =
      result.reason === 'max-steps'
        ? `ptc: stopped after ${result.steps} steps without a final answer (raise --max-steps).\n`
        : result.reason === 'aborted'
          ? 'ptc: aborted.\n'
          : result.reason === 'error'
            ? `ptc: ${result.error ?? 'the model request failed'}\n`
            : '';
    if (options.json) return { stdout: `${JSON.stringify({ ...summary, ...(result.error ? { error: result.error } : {}) }, null, 2)}\n`, stderr: why, exitCode };
    const tail = result.text.endsWith('\n') || result.text === '' ? '' : '\n';
    return { stdout: tail, stderr: `${why}session ${writer.sessionId} (${writer.file})\n`, exitCode };
  } finally {
    writer.close();
    await removeApprovals?.();
    await planMode.dispose();
    await harness.dispose();
  }
}

/** `--session-dir`, else $PTC_HOME/sessions, else ~/.ptc/sessions. */
function sessionDirOf(options: { sessionDir?: string; env: Readonly<Record<string, string | undefined>> }): string {
  return resolveSessionDir({ ...(options.sessionDir !== undefined ? { sessionDir: options.sessionDir } : {}), env: options.env });
}

export interface SessionsOptions {
  readonly sessionDir?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** `ptc sessions list`. */
export function runSessionsList(options: SessionsOptions): CommandOutput {
  const dir = sessionDirOf(options);
  const sessions = listSessions(dir);
  if (sessions.length === 0) return { stdout: '', stderr: `ptc: no sessions in ${dir}\n`, exitCode: 0 };
  return { stdout: formatSessionList(sessions), exitCode: 0 };
}

/** `ptc sessions show <id> [--request <step>]`. */
export function runSessionsShow(options: SessionsOptions & { id: string; request?: number }): CommandOutput {
  const dir = sessionDirOf(options);
  const { events, warnings } = readSession(findSession(dir, options.id));
  const stderr = warnings.map((w) => `ptc: warning: ${w}\n`).join('');
  if (options.request === undefined) return { stdout: formatSession(events, { warnings }), stderr, exitCode: 0 };
  const request = buildRequest(events, options.request);
  return { stdout: `${JSON.stringify(request, null, 2)}\n`, stderr, exitCode: 0 };
}
