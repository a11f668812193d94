// The `plan_propose` tool (docs/plan-mode.md): visible only in plan mode, it hands the model's plan to
// the scope's reviewer and returns the answer. Approved: plan mode ends, the steps become the todo
// list (the result carries it as `todos`, which is how front-ends and `todosFromSession` read a list)
// and the model goes on with the work. Sent back: the comment is the result and plan mode stays.

import { InvalidArgsError, ToolFailedError } from '../errors.js';
import { MAX_PLAN_COMMENT_CHARS } from '../builtin-tools/limits.js';
import { renderTodos, type TodoItem } from '../builtin-tools/todo.js';
import { contractSchemas, type ArgsOf, type ValueOf } from '../builtin-tools/builtin-contract.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import type { PlanReviewEvent } from './plan-mode.js';

export const PLAN_PROPOSE_TOOL_NAME = 'plan_propose';

type Contract = typeof import('../builtin-tools/contracts/plan-propose.js');
export type PlanProposeArgs = ArgsOf<Contract>;
export type PlanProposeOutput = ValueOf<Contract>;

export const PLAN_PROPOSE_DESCRIPTION =
  'End plan mode with a plan for the user to review: `markdown` explains it (what you found, what you ' +
  'will change and why, risks), `steps` lists the work as short imperative sentences in order. The user ' +
  'approves it (plan mode ends, the steps become your todo list and you start the work at once) or sends ' +
  'it back with a comment (plan mode stays: revise and propose again).';

export function createPlanProposeTool(): ToolDefinition<PlanProposeArgs, PlanProposeOutput> {
  return defineTool<PlanProposeArgs, PlanProposeOutput>({
    name: PLAN_PROPOSE_TOOL_NAME,
    description: PLAN_PROPOSE_DESCRIPTION,
    ...contractSchemas('plan-propose', () => import('../builtin-tools/contracts/plan-propose.js')),
    examples: [{ markdown: '## Plan\nRename `parse` to `parseLine` and update its two callers.', steps: ['Rename parse in src/parse.ts', 'Update the callers', 'Run the tests'] }],
    async execute(args, exec) {
      const steps = args.steps.map((s) => s.trim());
      if (steps.length === 0 || steps.some((s) => s === '')) {
        throw new InvalidArgsError(
          steps.length === 0
            ? 'plan_propose: `steps` is empty; list the work as at least one step (a short imperative sentence each) and call it again.'
            : `plan_propose: step ${steps.findIndex((s) => s === '') + 1} is blank; give every step some text (or drop it) and call it again.`,
        );
      }
      if (args.markdown.trim() === '') throw new InvalidArgsError('plan_propose: `markdown` is blank; explain the plan in it and call it again.');
      const mode = exec.scope?.get('planMode');
      if (mode === undefined || !mode.active) {
        throw new ToolFailedError('plan_propose works only in plan mode, which is off now; go on with the task (use todo to keep a plan).');
      }
      const emit = (event: PlanReviewEvent): void => void exec.scope?.emit('plan/review', Object.freeze(event));
      const reviewer = mode.reviewer;
      if (reviewer === undefined) {
        emit({ id: exec.callId, decision: 'unreviewed' });
        return {
          decision: 'unreviewed',
          message:
            'No one can review the plan in this run, so it is recorded in the session log and plan mode stays on. ' +
            'End your turn now with the plan as your answer; the user can approve it by resuming the session in ptc chat (ptc chat --resume).',
        };
      }
      const review = await reviewer({ id: exec.callId, markdown: args.markdown, steps }, exec.signal);
      if (review.decision === 'send-back') {
        const comment = review.comment.trim().slice(0, MAX_PLAN_COMMENT_CHARS) || '(no comment)';
        emit({ id: exec.callId, decision: 'sent-back', comment });
        return {
          decision: 'sent-back',
          comment,
          message: `The user sent the plan back. Their comment: ${comment}\nPlan mode stays on: revise the plan and propose it again with plan_propose.`,
        };
      }
      const todos: TodoItem[] = steps.map((content) => ({ content, status: 'pending' }));
      // Logged before the mode change, so a log reads: the answer, then plan mode off.
      emit({ id: exec.callId, decision: 'approved', steps });
      mode.set(false, 'approval');
      return {
        decision: 'approved',
        todos,
        message:
          'The user approved the plan. Plan mode is off: the tools that write are available again. Start the work now; ' +
          'the steps are your todo list (keep it current with the todo tool as you go).',
      };
    },
    renderContent(value) {
      return value.todos === undefined ? value.message : `${value.message}\n${renderTodos(value.todos)}`;
    },
  });
}
