// Goals worked in rounds (docs/goals.md): each round is a turn of its own (runAgent with the log so
// far as history); after it the loop decides. The model claims the goal with `goal_done`; when a check
// command is given it runs like `bash` (same sandbox and policy) and must exit 0, else its output opens
// the next round. Rounds go on until the goal is met or a budget (rounds, tokens, wall time) runs out.
// Everything is logged as it happens, so a session killed mid-goal resumes in the round it was in.

import path from 'node:path';

import { createBashTool, renderBash } from '../builtin-tools/bash.js';
import { createGoalDoneTool } from '../builtin-tools/goal-done.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_GOAL_MAX_ROUNDS, GOAL_CHECK_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS, MIN_BASH_TIMEOUT_MS } from '../limits.js';
import type { HarnessSettings } from '../harness-settings.js';
import type { GoalAbandonReason, GoalBudget, SessionEvent, SessionEventInput, Usage } from '../session/events.js';
import { spillDirPath } from '../session/paths.js';
import { createSpillStore, createTempSpillStore, type SpillStore } from '../tools/spill.js';
import { budgetLeft, describeBudgetLeft, goalStateOf, type GoalSpec } from './goal-state.js';
import { runAgent, type AgentRunOptions, type AgentRunResult, type EventSink } from './loop.js';
import type { AgentLoop } from './loop-service.js';

/** A new goal (`ptc run --goal`, the library option). */
export interface GoalOptions {
  readonly objective: string;
  /** A shell command that must exit 0 for the goal to count as met (run like `bash`). */
  readonly check?: string;
  /** Default DEFAULT_GOAL_MAX_ROUNDS. */
  readonly maxRounds?: number;
  /** Tokens of all model responses of the goal together; checked between rounds. */
  readonly maxTokens?: number;
  /** Wall time of all rounds (and checks) together, in ms; a round is stopped when it runs out. */
  readonly maxTimeMs?: number;
}

export interface GoalRunOptions extends Omit<AgentRunOptions, 'task' | 'beforeMessage'> {
  /** The goal to set; omit to go on with the open goal of `history` (`ptc run --continue`). */
  readonly goal?: GoalOptions;
  /** Words of the user added to the first round's message. */
  readonly note?: string;
  /** Told as each round starts and as the goal ends. */
  readonly onGoalEvent?: (event: SessionEvent) => void;
  /** Runs each round's turn: the harness's `loop` service (src/agent/loop-service.ts); default `runAgent`. */
  readonly loop?: AgentLoop;
}

export type GoalOutcome = 'met' | 'abandoned' | 'aborted';

export interface GoalRunResult {
  readonly outcome: GoalOutcome;
  /** Set when abandoned. */
  readonly reason?: GoalAbandonReason;
  readonly message?: string;
  /** The last round started. */
  readonly rounds: number;
  /** The model's evidence when met. */
  readonly evidence?: string;
  /** The last round's turn. */
  readonly last: AgentRunResult | undefined;
  readonly usage: Required<Usage>;
}

/** Runs (or resumes) a goal; CONFIG when there is nothing to run or the options are invalid. */
export async function runGoal(options: GoalRunOptions): Promise<GoalRunResult> {
  const events: SessionEvent[] = [...(options.history ?? [])];
  const sink: EventSink = {
    append(event) {
      const written = options.sink.append(event);
      events.push(written);
      if (written.type.startsWith('goal/')) options.onGoalEvent?.(written);
      return written;
    },
    flush: () => options.sink.flush(),
  };
  const start = startOf(options, events);
  const spec = start.spec;
  const settings = options.scope.get('harness');
  if (spec.check !== undefined && settings === undefined) {
    throw new ConfigError('A goal check command runs like bash and needs the harness settings: build the scope with createHarness.');
  }
  // One spill store for every round (runAgent's own temp store would go with each round's turn).
  const storeSpill = options.spill === undefined && options.sessions !== undefined ? options.sessions.spillDir?.(options.sessionId) : undefined;
  const temp = options.spill === undefined && storeSpill === undefined && (options.sessions !== undefined || options.sessionDir === undefined) ? createTempSpillStore() : undefined;
  const spill: SpillStore =
    options.spill ??
    temp?.store ??
    createSpillStore({ dir: storeSpill ?? spillDirPath(path.resolve(options.sessionDir!), options.sessionId) });
  const runTurn = options.loop !== undefined ? (o: AgentRunOptions) => options.loop!.run(o) : runAgent;

  let evidence: string | undefined;
  const unregister = options.scope.tools.register(createGoalDoneTool(spec.check, (claim) => void (evidence = claim)));
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let round = start.round;
  let message = start.message;
  let resumed = start.resumed;
  let pendingSet: SessionEventInput | undefined = start.set;
  let last: AgentRunResult | undefined;

  const end = async (outcome: GoalOutcome, extra: { reason?: GoalAbandonReason; message?: string; evidence?: string } = {}): Promise<GoalRunResult> => {
    if (outcome === 'abandoned') sink.append({ type: 'goal/abandoned', round, reason: extra.reason!, message: extra.message! });
    if (outcome === 'met') sink.append({ type: 'goal/met', round, evidence: extra.evidence! });
    await sink.flush();
    return { outcome, rounds: round, last, usage, ...extra };
  };

  try {
    for (;;) {
      const state = goalStateOf(events);
      const tokensUsed = state?.tokensUsed ?? 0;
      const timeUsedMs = state?.timeUsedMs ?? 0;
      const budget = spec.budget;
      const lastRound = Math.max(round - 1, 0);
      if (round > budget.maxRounds) {
        round = lastRound;
        return await end('abandoned', { reason: 'max-rounds', message: `the goal was not met in ${budget.maxRounds} round${budget.maxRounds === 1 ? '' : 's'} (raise --max-rounds)` });
      }
      if (budget.maxTokens !== undefined && tokensUsed >= budget.maxTokens) {
        round = lastRound;
        return await end('abandoned', { reason: 'max-tokens', message: `the goal used ${tokensUsed} of its ${budget.maxTokens} tokens (raise --max-tokens)` });
      }
      if (budget.maxTimeMs !== undefined && timeUsedMs >= budget.maxTimeMs) {
        round = lastRound;
        return await end('abandoned', { reason: 'max-time', message: `the goal used its ${budget.maxTimeMs} ms of time (raise --max-time)` });
      }
      const left = budgetLeft(budget, round, tokensUsed, timeUsedMs);
      const before: SessionEventInput[] = [...(pendingSet ? [pendingSet] : []), { type: 'goal/round', round, left, ...(resumed ? { resumed: true } : {}) }];
      pendingSet = undefined;
      evidence = undefined;

      // The time budget also stops a round that runs long; the caller's abort stops it as before.
      const controller = new AbortController();
      let outOfTime = false;
      const onAbort = (): void => controller.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const roundStarted = Date.now();
      const timer =
        left.timeMs !== undefined
          ? setTimeout(() => {
              outOfTime = true;
              controller.abort();
            }, left.timeMs)
          : undefined;
      try {
        last = await runTurn({
          ...options,
          task: `${message}\n\nBudget left: ${describeBudgetLeft(left)}.`,
          sink,
          ...(events.length > 0 ? { history: [...events] } : { history: undefined }),
          beforeMessage: before,
          signal: controller.signal,
          spill,
        });
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }
      usage.inputTokens += last.usage.inputTokens;
      usage.outputTokens += last.usage.outputTokens;
      usage.totalTokens += last.usage.totalTokens;
      if (outOfTime) return await end('abandoned', { reason: 'max-time', message: `the goal ran out of its ${spec.budget.maxTimeMs} ms in round ${round} (raise --max-time)` });
      // Stopped by the caller: the goal stays open, and --continue goes on in this round.
      if (options.signal?.aborted || last.reason === 'aborted') return await end('aborted');
      if (last.reason === 'error') return await end('abandoned', { reason: 'error', message: last.error ?? 'the model request failed' });

      if (evidence !== undefined) {
        if (spec.check === undefined) return await end('met', { evidence });
        const timeLeft = left.timeMs !== undefined ? left.timeMs - (Date.now() - roundStarted) : GOAL_CHECK_TIMEOUT_MS;
        const check = await runCheck(spec.check, settings!, spill, round, options.signal, timeLeft);
        sink.append({ type: 'goal/check', round, command: spec.check, ...check });
        await sink.flush();
        if (check.passed) return await end('met', { evidence });
        if (options.signal?.aborted) return await end('aborted');
        message = checkFailedMessage(spec, round, check.output);
      } else {
        message = noClaimMessage(spec, round, last.reason === 'max-steps');
      }
      round++;
      resumed = false;
    }
  } finally {
    await unregister();
    temp?.remove();
  }
}

interface Start {
  readonly spec: GoalSpec;
  readonly round: number;
  readonly message: string;
  readonly resumed: boolean;
  /** The goal/set line a new goal writes in its first round. */
  readonly set?: SessionEventInput;
}

/** Where the run begins: a new goal's round 1, or the open goal's round (re-entered, or the next after a failed check). */
function startOf(options: GoalRunOptions, events: readonly SessionEvent[]): Start {
  const note = options.note !== undefined && options.note.trim() !== '' ? `\n\nFrom the user: ${options.note.trim()}` : '';
  if (options.goal !== undefined) {
    const spec = specOf(options.goal);
    const set: SessionEventInput = { type: 'goal/set', objective: spec.objective, ...(spec.check !== undefined ? { check: spec.check } : {}), budget: spec.budget };
    return { spec, round: 1, message: firstMessage(spec) + note, resumed: false, set };
  }
  const state = goalStateOf(events);
  if (state === undefined || !state.open) {
    throw new ConfigError('This session has no open goal to go on with; set one with --goal "<objective>" (or give a task).');
  }
  if (state.lastRound === 0) return { spec: state.spec, round: 1, message: firstMessage(state.spec) + note, resumed: false };
  if (state.lastCheck !== undefined && !state.lastCheck.passed) {
    return { spec: state.spec, round: state.lastRound + 1, message: checkFailedMessage(state.spec, state.lastRound, state.lastCheck.output) + note, resumed: false };
  }
  const again =
    `Goal round ${state.lastRound} again: the session was interrupted in this round. Check what is already done, then ` +
    `go on towards the goal: ${state.spec.objective}\n\n${claimHint(state.spec)}`;
  return { spec: state.spec, round: state.lastRound, message: again + note, resumed: true };
}

function specOf(goal: GoalOptions): GoalSpec {
  const objective = goal.objective.trim();
  if (objective === '') throw new ConfigError('A goal needs an objective: --goal "what must be true when done".');
  const check = goal.check?.trim();
  if (check === '') throw new ConfigError('--goal-check needs a command, e.g. --goal-check "npm test".');
  const positive = (value: number | undefined, flag: string): void => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) throw new ConfigError(`${flag} must be a positive integer, got ${String(value)}.`);
  };
  positive(goal.maxRounds, '--max-rounds');
  positive(goal.maxTokens, '--max-tokens');
  positive(goal.maxTimeMs, '--max-time (in ms)');
  const budget: GoalBudget = {
    maxRounds: goal.maxRounds ?? DEFAULT_GOAL_MAX_ROUNDS,
    ...(goal.maxTokens !== undefined ? { maxTokens: goal.maxTokens } : {}),
    ...(goal.maxTimeMs !== undefined ? { maxTimeMs: goal.maxTimeMs } : {}),
  };
  return { objective, ...(check !== undefined ? { check } : {}), budget };
}

function claimHint(spec: GoalSpec): string {
  const check = spec.check !== undefined ? ` The check command \`${spec.check}\` then runs in the sandbox and must exit 0.` : '';
  return `When the goal is met, call goal_done with your evidence.${check}`;
}

function firstMessage(spec: GoalSpec): string {
  return `Goal: ${spec.objective}\n\nWork towards this goal over one or more rounds. ${claimHint(spec)}`;
}

function checkFailedMessage(spec: GoalSpec, round: number, output: string): string {
  return (
    `Goal round ${round + 1}: the goal is not met yet. You called goal_done, but the check \`${spec.check}\` failed:\n\n${output}\n\n` +
    `Fix what it reports and go on towards the goal: ${spec.objective}\n\n${claimHint(spec)}`
  );
}

function noClaimMessage(spec: GoalSpec, round: number, maxSteps: boolean): string {
  const why = maxSteps ? 'the last round stopped at its step limit' : 'you ended the last round without calling goal_done';
  return `Goal round ${round + 1}: the goal is not met yet (${why}). Go on towards the goal: ${spec.objective}\n\n${claimHint(spec)}`;
}

/** The check command, run like `bash`: the harness's sandbox and policy, output bounded (and spilled in a session). */
async function runCheck(
  command: string,
  settings: HarnessSettings,
  spill: SpillStore | undefined,
  round: number,
  signal: AbortSignal | undefined,
  timeLeftMs: number,
): Promise<{ exitCode: number | null; passed: boolean; output: string }> {
  const bash = createBashTool({ policy: settings.policy, sandbox: settings.sandbox });
  const timeoutMs = Math.max(MIN_BASH_TIMEOUT_MS, Math.min(MAX_BASH_TIMEOUT_MS, GOAL_CHECK_TIMEOUT_MS, Math.floor(timeLeftMs)));
  try {
    const value = await bash.execute(
      { command, timeout_ms: timeoutMs },
      { signal: signal ?? new AbortController().signal, callId: `goal-check-${round}`, deferContext: () => {}, ...(spill ? { spill } : {}) },
    );
    return { exitCode: value.exitCode, passed: value.exitCode === 0 && !value.timedOut, output: renderBash(value) };
  } catch (error) {
    return { exitCode: null, passed: false, output: `The check could not run: ${error instanceof Error ? error.message : String(error)}` };
  }
}
