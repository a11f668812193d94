// The `task` tool: hands a self-contained piece of work to a subagent with its own preset, scope,
// presentation and session log, and returns the subagent's final answer (docs/subagents.md). The
// tool itself knows nothing about models or logs: at call time it asks the running agent (the
// `agent` service the agent loop provides for the length of its run) to start the subagent.

import { AbortedError, PermissionDeniedError, ToolFailedError } from '../errors.js';
import { MAX_SUBAGENT_DEPTH } from '../limits.js';
import { defineTool } from '../tools/define-tool.js';
import type { ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type InputOf } from './builtin-contract.js';

/** What the tool asks the running agent for. */
export interface SubagentRequest {
  /** A short label (for logs and progress). */
  readonly description: string;
  /** The subagent's task: its first and only user message. */
  readonly prompt: string;
  /** The subagent's preset, by name (the task tool refuses paths); default `ptc`. */
  readonly preset?: string;
  /** The `task` call that starts it; the subagent's `session/start` names it. */
  readonly toolCallId: string;
  /** Aborts the subagent (its model request and its tools) when the call is given up. */
  readonly signal: AbortSignal;
}

/** How a subagent ended. */
export interface SubagentOutcome {
  readonly sessionId: string;
  /** The subagent's log file. */
  readonly sessionFile: string;
  readonly reason: 'completed' | 'max-steps' | 'aborted' | 'error';
  /** Its final text (the last model response). */
  readonly text: string;
  readonly steps: number;
  readonly error?: string;
}

/** The running agent as tools see it: provided by the agent loop for the length of one run. */
export interface AgentService {
  /** The running session. */
  readonly sessionId: string;
  /** 0 for a top-level agent, 1 for a subagent, and so on. */
  readonly depth: number;
  /** Whether a call id (a native call, or the run_code call around a program's sub-call) is this run's. */
  ownsCall(callId: string): boolean;
  /** Runs a subagent to its end; rejects only for a preset that cannot assemble or a log that cannot be created. */
  runSubagent(request: SubagentRequest): Promise<SubagentOutcome>;
}

declare module '../context/context.js' {
  interface Services {
    agent: AgentService;
  }
}

export const TASK_DESCRIPTION =
  'Hand a self-contained task to a subagent and get its final answer back as text. The subagent ' +
  'starts fresh: it sees only `prompt`, not this conversation, so say everything it needs (files, ' +
  'goal, what to report). It works in the same workspace under the same sandbox policy, with its ' +
  'own tools (`preset`, default ptc: it writes TypeScript programs) and its own session log. Use it ' +
  'for searches or investigations whose details you do not need in your own context. `description` ' +
  'is a short label (3-6 words). Subagents cannot start subagents.';

type Contract = typeof import('./contracts/task.js');
export type TaskArgs = ArgsOf<Contract>;

/** The `task` tool. Exclusive: a subagent writes to the workspace like any agent. */
export function createTaskTool(): ToolDefinition<TaskArgs, string, InputOf<Contract>> {
  return defineTool<TaskArgs, string, InputOf<Contract>>({
    name: 'task',
    description: TASK_DESCRIPTION,
    ...contractSchemas('task', () => import('./contracts/task.js')),
    async execute(args, exec) {
      const agent = exec.scope?.get('agent');
      const ownCall = exec.parent?.id ?? exec.callId;
      if (!agent || !agent.ownsCall(ownCall)) {
        throw new ToolFailedError(
          'task starts a subagent of the running agent, and no agent run owns this call: call it from an agent (`ptc run`, or runAgent with sessionDir), not from `ptc exec`.',
        );
      }
      if (agent.depth >= MAX_SUBAGENT_DEPTH) {
        throw new PermissionDeniedError(
          `task is not available inside a subagent (at most ${MAX_SUBAGENT_DEPTH} level${MAX_SUBAGENT_DEPTH === 1 ? '' : 's'} of subagents): do this work yourself with your other tools.`,
        );
      }
      const outcome = await agent.runSubagent({
        description: args.description,
        prompt: args.prompt,
        ...(args.preset !== undefined ? { preset: args.preset } : {}),
        toolCallId: exec.callId,
        signal: exec.signal,
      });
      return answerOf(outcome);
    },
  });
}

/** The answer of a subagent that completed; otherwise the error the parent model sees, naming the child's session. */
function answerOf(outcome: SubagentOutcome): string {
  const session = `subagent session ${outcome.sessionId}`;
  switch (outcome.reason) {
    case 'completed':
      return outcome.text;
    case 'aborted':
      throw new AbortedError(`The ${session} was aborted.`);
    case 'max-steps':
      throw new ToolFailedError(
        `The ${session} stopped after ${outcome.steps} steps without a final answer; give it a smaller task. Its last text: ${JSON.stringify(outcome.text)}`,
      );
    case 'error':
      throw new ToolFailedError(`The ${session} failed: ${outcome.error ?? 'unknown error'}`);
  }
}
