// One turn of `ptc chat` (docs/chat.md): a message through the harness's `loop` service, or a `/goal`
// worked in rounds, with the model's text to the answer printer and progress to stderr. A request
// that cannot fit the window ends the turn, not the conversation (docs/compaction.md).

import { runGoal, type GoalRunResult } from '../agent/goal.js';
import type { AgentRunOptions, AgentRunResult } from '../agent/loop.js';
import type { AgentLoop } from '../agent/loop-service.js';
import { progressLine } from '../agent/progress-text.js';
import { goalProgressLine } from '../agent/goal-progress.js';
import { HarnessError } from '../errors.js';

export interface ChatTurn {
  /** Everything of the run but the task, the text and progress hooks. */
  readonly options: Omit<AgentRunOptions, 'task' | 'onText' | 'onProgress' | 'onRetry'>;
  readonly loop: AgentLoop;
  /** The message, or undefined for a goal turn. */
  readonly task: string;
  /** Set by `/goal`: the turn works it in rounds instead. */
  readonly goal?: string;
  readonly printer: { text(delta: string): void; end(): void };
  readonly err: (text: string) => void;
  /** Prints the diffs of call `id` under its progress line. */
  readonly printDiffs: (id?: string) => void;
}

export async function runChatTurn(turn: ChatTurn): Promise<{ result: AgentRunResult; goalResult?: GoalRunResult }> {
  const { printer, err } = turn;
  const options: Omit<AgentRunOptions, 'task'> = {
    ...turn.options,
    onText: (delta) => printer.text(delta),
    onProgress: (event) => {
      const text = progressLine(event);
      if (text === undefined) return;
      printer.end();
      err(`${text}\n`);
      if (event.kind === 'sub-call-end' || event.kind === 'tool-end') turn.printDiffs(event.id);
    },
    onRetry: (r) => err(`retrying in ${r.delayMs} ms: ${r.message}\n`),
  };
  try {
    if (turn.goal !== undefined) {
      const goalResult = await runGoal({
        ...options,
        loop: turn.loop,
        goal: { objective: turn.goal },
        onGoalEvent: (event) => {
          printer.end();
          err(`${goalProgressLine(event)}\n`);
        },
      });
      // No round ran (stopped before the first): an aborted turn with nothing in it.
      return { result: goalResult.last ?? { reason: 'aborted', text: '', steps: 0, usage: goalResult.usage }, goalResult };
    }
    return { result: await turn.loop.run({ ...options, task: turn.task }) };
  } catch (error) {
    // The person can /compact, /clear or switch to a model with a larger window (docs/compaction.md).
    if (!(error instanceof HarnessError) || error.code !== 'CONTEXT') throw error;
    return { result: { reason: 'error', text: '', steps: 0, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, error: `${error.message} In this chat: /compact, or /clear for a new session.` } };
  }
}
