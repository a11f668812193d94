// The `plan_propose` tool (docs/plan-mode.md): visible only in plan mode, it hands the model's plan to
// the scope's reviewer and returns the answer. Approved: plan mode ends, the steps become the todo
// list (the result carries it as `todos`, which is how front-ends and `todosFromSession` read a list)
// and the model goes on with the work. Sent back: the comment is the result and plan mode stays.

import { InvalidArgsError, ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { MAX_PLAN_COMMENT_CHARS, MAX_PLAN_MARKDOWN_CHARS, MAX_TODO_CONTENT_CHARS, MAX_TODO_ITEMS } from '../limits.js';
import { renderTodos, type TodoItem } from '../builtin-tools/todo.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import type { PlanReviewEvent } from './plan-mode.js';

export const PLAN_PROPOSE_TOOL_NAME = 'plan_propose';

export type PlanProposeArgs = { markdown: string; steps: string[] };
export type PlanProposeOutput = {
  decision: 'approved' | 'sent-back' | 'unreviewed';
  message: string;
  /** Approved: the todo list the steps became. */
  todos?: TodoItem[];
  /** Sent back: the person's comment. */
  comment?: string;
};

export const PLAN_PROPOSE_DESCRIPTION =
  'End plan mode with a plan for the user to review: `markdown` explains it (what you found, what you ' +
  'will change and why, risks), `steps` lists the work as short imperative sentences in order. The user ' +
  'approves it (plan mode ends, the steps become your todo list and you start the work at once) or sends ' +
  'it back with a comment (plan mode stays: revise and propose again).';

export const PLAN_PROPOSE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    markdown: { type: 'string', minLength: 1, maxLength: MAX_PLAN_MARKDOWN_CHARS, description: 'The plan, as markdown.' },
    steps: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: MAX_TODO_CONTENT_CHARS },
      maxItems: MAX_TODO_ITEMS,
      description: 'The steps of the work, in order (at least one); they become the todo list when approved.',
    },
  },
  required: ['markdown', 'steps'],
  additionalProperties: false,
} as const satisfies JsonSchema;

const TODO_ITEM_SCHEMA = {
  type: 'object',
  properties: { content: { type: 'string' }, status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] } },
  required: ['content', 'status'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const PLAN_PROPOSE_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    decision: { type: 'string', enum: ['approved', 'sent-back', 'unreviewed'] },
    message: { type: 'string' },
    todos: { type: 'array', items: TODO_ITEM_SCHEMA },
    comment: { type: 'string' },
  },
  required: ['decision', 'message'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export function createPlanProposeTool(): ToolDefinition<PlanProposeArgs, PlanProposeOutput> {
  return defineTool<PlanProposeArgs, PlanProposeOutput>({
    name: PLAN_PROPOSE_TOOL_NAME,
    description: PLAN_PROPOSE_DESCRIPTION,
    inputSchema: PLAN_PROPOSE_INPUT_SCHEMA,
    outputSchema: PLAN_PROPOSE_OUTPUT_SCHEMA,
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
