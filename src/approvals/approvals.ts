// Approvals: one path for every tool call (docs/approvals.md). A `tools/pre-execute` listener on the
// harness scope decides by policy whether a call needs a person's yes; if so it emits a
// `tool/approval` request, waits for the front-end's answer (or the call's abort), emits the answer,
// and blocks the call on a deny with the reason the model sees. Native calls and a program's
// sub-calls pass the same pipeline, so both are asked the same way; a sub-call's request names its
// run_code call and carries the program.

import type { Context, Disposer } from '../context/context.js';
import type { JsonValue } from '../json.js';
import type { SessionEvent } from '../session/events.js';
import type { BlockDecision, ToolCall } from '../tools/tool-runtime.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';

/**
 * `never`: nothing asks (the calls run as the policy of the sandbox and tools allows).
 * `writes`: calls that may change something ask: tools that are not concurrency-safe (the exclusive
 * built-ins such as write, edit, bash; MCP tools unless their server is `readOnlyHintTrusted` and they
 * claim `readOnlyHint`, docs/mcp.md), plus any tool named in `ask`.
 * `all`: every call asks. `run_code` itself never asks: its sub-calls do.
 */
export type ApprovalPolicy = 'never' | 'writes' | 'all';
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ['never', 'writes', 'all'];

export interface ApprovalRequest {
  /** The call id (a sub-call's is `<run_code id>:ptc:<n>`). */
  readonly id: string;
  readonly tool: string;
  readonly args: JsonValue;
  /** Set for a program's sub-call: the run_code call, its program and description. */
  readonly parent?: { readonly id: string; readonly tool: string; readonly program?: string; readonly description?: string };
}

export type ApprovalAnswer =
  /** This call only. */
  | { readonly decision: 'allow' }
  /** This call and every later call of the same tool while the approvals stay installed (one session). */
  | { readonly decision: 'allow-tool' }
  /** The model sees the reason. */
  | { readonly decision: 'deny'; readonly reason?: string };

/** Asks a person. Must settle; `signal` aborts when the call is aborted (the wait then ends as a deny). */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** The scope event of a request and of its answer (the loop logs both as `tool/approval`). */
export type ApprovalEvent =
  | ({ readonly stage: 'request' } & ApprovalRequest)
  | {
      readonly stage: 'answer';
      readonly id: string;
      readonly tool: string;
      readonly parentId?: string;
      readonly decision: ApprovalAnswer['decision'];
      /** `person`: a front-end's answer; `session`: allowed earlier for the session; `policy`: no one could be asked, or the wait was aborted. */
      readonly by: 'person' | 'session' | 'policy';
      readonly reason?: string;
    };

declare module '../context/context.js' {
  interface Events {
    'tool/approval'(event: ApprovalEvent): void;
  }
}

export interface ApprovalOptions {
  readonly policy: ApprovalPolicy;
  /** Tool names that ask under `writes` besides the exclusive ones. */
  readonly ask?: readonly string[];
  /** The front-end that asks; without one, calls that need approval are denied naming the flag. */
  readonly approver?: Approver;
  /** How the user changes the policy, named in a policy deny (default `--approve never`). */
  readonly flagHint?: string;
  /** Tools already allowed for the session (a later turn: `allowedToolsOf(history)`). */
  readonly allowedTools?: readonly string[];
}

/** The tools a person allowed for the whole session in a log so far (`allow-tool` answers). */
export function allowedToolsOf(events: readonly SessionEvent[]): string[] {
  const tools = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool/approval' && event.stage === 'answer' && event.decision === 'allow-tool') tools.add(event.tool);
  }
  return [...tools];
}

/** Installs approvals on `scope`; the returned disposer removes them. */
export function installApprovals(scope: Context, options: ApprovalOptions): Disposer {
  const allowedTools = new Set<string>(options.allowedTools ?? []);
  const ask = new Set(options.ask ?? []);
  // Programs of run_code calls in flight, so a sub-call's request can show the program it came from.
  const programs = new Map<string, { program?: string; description?: string }>();

  const needsApproval = (call: ToolCall): boolean => {
    if (call.name === RUN_CODE_TOOL_NAME || options.policy === 'never') return false;
    if (options.policy === 'all' || ask.has(call.name)) return true;
    return scope.tools.executionMode(call.name, { scope: call.scope, ...(call.parent ? { parent: call.parent } : {}) }) === 'exclusive';
  };

  const offPre = scope.on('tools/pre-execute', async (call): Promise<BlockDecision | undefined> => {
    if (call.name === RUN_CODE_TOOL_NAME) {
      programs.set(call.id, programOf(call.args));
      return undefined;
    }
    if (!needsApproval(call)) return undefined;
    const parentId = call.parent?.id;
    const answered = (decision: ApprovalAnswer['decision'], by: 'person' | 'session' | 'policy', reason?: string) =>
      scope.emit('tool/approval', {
        stage: 'answer',
        id: call.id,
        tool: call.name,
        ...(parentId !== undefined ? { parentId } : {}),
        decision,
        by,
        ...(reason !== undefined ? { reason } : {}),
      });
    if (allowedTools.has(call.name)) {
      answered('allow', 'session');
      return undefined;
    }
    const request: ApprovalRequest = {
      id: call.id,
      tool: call.name,
      args: call.args,
      ...(call.parent ? { parent: { id: call.parent.id, tool: call.parent.name, ...programs.get(call.parent.id) } } : {}),
    };
    scope.emit('tool/approval', { stage: 'request', ...request });
    if (options.approver === undefined) {
      const reason =
        `the call to "${call.name}" needs approval (policy "${options.policy}") and no one can be asked here; ` +
        `rerun with ${options.flagHint ?? '--approve never'} to let such calls run without asking, or use an interactive front-end`;
      answered('deny', 'policy', reason);
      return { block: reason };
    }
    const signal = call.signal ?? new AbortController().signal;
    // The person's time is not the program's: a sub-call's wait does not count against its deadline.
    const release = call.holdDeadline?.();
    let answer: ApprovalAnswer;
    try {
      answer = await waitForAnswer(options.approver, request, signal);
    } catch (error) {
      const reason = signal.aborted ? 'the call was aborted while it waited for approval' : `asking for approval failed: ${error instanceof Error ? error.message : String(error)}`;
      answered('deny', 'policy', reason);
      return { block: reason };
    } finally {
      release?.();
    }
    if (answer.decision === 'deny') {
      const reason = answer.reason !== undefined && answer.reason.trim() !== '' ? `denied by the user: ${answer.reason}` : 'denied by the user';
      answered('deny', 'person', reason);
      return { block: reason };
    }
    if (answer.decision === 'allow-tool') allowedTools.add(call.name);
    answered(answer.decision, 'person');
    return undefined;
  });
  const offResult = scope.on('tools/result', (event) => {
    if (event.call.name === RUN_CODE_TOOL_NAME) programs.delete(event.call.id);
  });
  return async () => {
    await offPre();
    await offResult();
  };
}

/** Resolves with the approver's answer, or rejects as soon as `signal` aborts. */
function waitForAnswer(approver: Approver, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    approver(request, signal).then(
      (answer) => {
        signal.removeEventListener('abort', onAbort);
        if (!isAnswer(answer)) reject(new Error('the front-end gave no valid answer'));
        else resolve(answer);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function isAnswer(value: unknown): value is ApprovalAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const decision = (value as { decision?: unknown }).decision;
  return decision === 'allow' || decision === 'allow-tool' || decision === 'deny';
}

function programOf(args: JsonValue): { program?: string; description?: string } {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {};
  const { code, description } = args;
  return { ...(typeof code === 'string' ? { program: code } : {}), ...(typeof description === 'string' ? { description } : {}) };
}
