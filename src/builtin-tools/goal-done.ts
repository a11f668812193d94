// The `goal_done` tool (docs/goals.md): while a goal runs, the model calls it with its evidence when it
// believes the goal is met. The goal loop installs it for the length of the run and decides after the
// turn (running the check command, when there is one); the tool itself only records the claim.

import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf } from './builtin-contract.js';

export const GOAL_DONE_TOOL_NAME = 'goal_done';

type Contract = typeof import('./contracts/goal-done.js');
export type GoalDoneArgs = ArgsOf<Contract>;

export function goalDoneDescription(check: string | undefined): string {
  const after =
    check === undefined
      ? 'The goal then counts as met and the session ends.'
      : `The harness then runs the check command \`${check}\` in the sandbox; the goal counts as met only if it exits 0, else you get its output in the next round.`;
  return (
    'Call this when you believe the goal of this session is met, with your evidence: what you changed and how you ' +
    `verified it. ${after} After calling it, end your turn with a short summary.`
  );
}

/** A `goal_done` tool that hands each accepted claim to `onDone` (the goal loop). */
export function createGoalDoneTool(check: string | undefined, onDone: (evidence: string) => void): ToolDefinition<GoalDoneArgs, string> {
  return defineTool<GoalDoneArgs, string>({
    name: GOAL_DONE_TOOL_NAME,
    description: goalDoneDescription(check),
    ...contractSchemas('goal-done', () => import('./contracts/goal-done.js')),
    examples: [{ evidence: 'Fixed the off-by-one in parse(); the new test passes.' }],
    execute(args) {
      onDone(args.evidence);
      return check === undefined
        ? 'Recorded: the goal is met. End your turn with a short summary.'
        : `Recorded. When this turn ends the check \`${check}\` runs; end your turn now with a short summary.`;
    },
  });
}
