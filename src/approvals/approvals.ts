// Approvals: one path for every tool call (docs/approvals.md). A `tools/pre-execute` listener on the
// harness scope decides by policy whether a call needs a person's yes; if so it emits a
// `tool/approval` request, waits for the front-end's answer (or the call's abort), emits the answer,
// and blocks the call on a deny with the reason the model sees. Native calls and a program's
// sub-calls pass the same pipeline, so both are asked the same way; a sub-call's request names its
// run_code call and carries the program. The `approvals` service lets what the pipeline cannot see
// ask the same way: run_code (a program no sandbox holds read-only), the file tools (a protected
// path) and subagents (the same approvals on the child's harness).

import type { Context, Disposer } from '../context/context.js';
import type { JsonValue } from '../json.js';
import type { SessionEvent } from '../session/events.js';
import type { BlockDecision, ToolCall } from '../tools/tool-runtime.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import { describeRule, ApprovalRuleSet } from './approval-rule-set.js';
import { describeRuleFor } from './approval-rules.js';

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
  /**
   * Why this call asks beyond the policy, for the person: a write to a protected path (asked every
   * time), or a program that no sandbox can keep from writing the workspace.
   */
  readonly why?: string;
  /**
   * What an `allow-always` answer would save (docs/config.md, "Approval rules"): the rule as written
   * in the file (`bash: npm test`) and the file, when one is configured. Absent where such an answer
   * counts for this call only (a protected path): front-ends then offer no "always".
   */
  readonly alwaysAllow?: { readonly rule: string; readonly file?: string };
}

export type ApprovalAnswer =
  /** This call only. */
  | { readonly decision: 'allow' }
  /** This call and every later call of the same tool while the approvals stay installed (one session). */
  | { readonly decision: 'allow-tool' }
  /**
   * This call, and a rule for calls like it (request.alwaysAllow) from now on: in force at once and
   * appended to the user's config file, so later sessions do not ask either.
   */
  | { readonly decision: 'allow-always' }
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
      /**
       * `person`: a front-end's answer; `session`: allowed earlier for the session; `policy`: no one
       * could be asked, or the wait was aborted; `rule`: an approval rule of a config file (the reason names it).
       */
      readonly by: 'person' | 'session' | 'policy' | 'rule';
      readonly reason?: string;
    };

/** What tools and run_code ask through, while approvals are installed (docs/approvals.md). */
export interface ApprovalsService {
  readonly policy: ApprovalPolicy;
  /**
   * Asks a person for one call outside the pipeline's pre-execute step. Resolves undefined for a yes
   * and with the reason (what the model reads) for a no. `always`: a session's allow-tool does not
   * answer it and the answer is never remembered (a protected path).
   */
  confirm(request: ApprovalRequest, signal: AbortSignal, options?: { readonly always?: boolean }): Promise<string | undefined>;
  /** The same approvals on another scope (a subagent's harness), sharing the approver and the session's allowances. */
  installOn(scope: Context): Disposer;
}

declare module '../context/context.js' {
  interface Events {
    'tool/approval'(event: ApprovalEvent): void;
  }
  interface Services {
    approvals: ApprovalsService;
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

/** Installs approvals on `scope` (and the `approvals` service); the returned disposer removes them. */
export function installApprovals(scope: Context, options: ApprovalOptions): Disposer {
  return attach(scope, options, new Set<string>(options.allowedTools ?? []));
}

function attach(scope: Context, options: ApprovalOptions, allowedTools: Set<string>, shared?: ApprovalRuleSet): Disposer {
  const ask = new Set(options.ask ?? []);
  // The harness's rules (its config files); without any, "always allow" answers hold for this process only.
  const rules = shared ?? scope.get('approvalRules') ?? new ApprovalRuleSet();
  const workspace = scope.get('harness')?.cwd ?? process.cwd();
  // Programs of run_code calls in flight, so a sub-call's request can show the program it came from.
  const programs = new Map<string, { program?: string; description?: string }>();

  const needsApproval = (call: ToolCall): boolean => {
    if (call.name === RUN_CODE_TOOL_NAME || options.policy === 'never') return false;
    if (options.policy === 'all' || ask.has(call.name)) return true;
    return scope.tools.executionMode(call.name, { scope: call.scope, ...(call.parent ? { parent: call.parent } : {}) }) === 'exclusive';
  };

  /** An allow rule that spares this ordinary ask (never a protected path's: `confirm` with `always`). */
  const allowedByRule = (request: ApprovalRequest): boolean => {
    const rule = rules.allowing({ tool: request.tool, args: request.args }, workspace);
    if (rule === undefined) return false;
    scope.emit('tool/approval', {
      stage: 'answer',
      id: request.id,
      tool: request.tool,
      ...(request.parent !== undefined ? { parentId: request.parent.id } : {}),
      decision: 'allow',
      by: 'rule',
      reason: `allowed by the ${describeRule(rule)}`,
    });
    return true;
  };

  /** One request and its answer; undefined for a yes, else the reason of the no. */
  const decide = async (request: ApprovalRequest, signal: AbortSignal, always: boolean): Promise<string | undefined> => {
    const answered = (decision: ApprovalAnswer['decision'], by: 'person' | 'session' | 'policy', reason?: string) =>
      scope.emit('tool/approval', {
        stage: 'answer',
        id: request.id,
        tool: request.tool,
        ...(request.parent !== undefined ? { parentId: request.parent.id } : {}),
        decision,
        by,
        ...(reason !== undefined ? { reason } : {}),
      });
    if (!always && allowedTools.has(request.tool)) {
      answered('allow', 'session');
      return undefined;
    }
    if (!always && allowedByRule(request)) return undefined;
    const asked: ApprovalRequest = always
      ? request
      : { ...request, alwaysAllow: { rule: describeRuleFor(request, workspace), ...(rules.saveTo !== undefined ? { file: rules.saveTo } : {}) } };
    scope.emit('tool/approval', { stage: 'request', ...asked });
    if (options.approver === undefined) {
      const reason = always
        ? `${request.why ?? `the call to "${request.tool}" needs a person's yes`}; no one can be asked here, so it is refused. ` +
          'Run it in an interactive front-end (ptc chat, ptc ui, ptc acp) and approve that call, or make the change yourself'
        : `the call to "${request.tool}" needs approval (policy "${options.policy}") and no one can be asked here; ` +
          `rerun with ${options.flagHint ?? '--approve never'} to let such calls run without asking, or use an interactive front-end`;
      answered('deny', 'policy', reason);
      return reason;
    }
    // The wait counts against a program's deadline (docs/approvals.md, "Waits and deadlines"): a
    // program is never left running past its deadline while one of its calls waits.
    let answer: ApprovalAnswer;
    try {
      answer = await waitForAnswer(options.approver, asked, signal);
    } catch (error) {
      const reason = signal.aborted ? 'the call was aborted while it waited for approval' : `asking for approval failed: ${error instanceof Error ? error.message : String(error)}`;
      answered('deny', 'policy', reason);
      return reason;
    }
    if (answer.decision === 'deny') {
      const reason = answer.reason !== undefined && answer.reason.trim() !== '' ? `denied by the user: ${answer.reason}` : 'denied by the user';
      answered('deny', 'person', reason);
      return reason;
    }
    // A protected path is asked every time: "allow for the session" or "always" answers only this call there.
    if (always) {
      answered('allow', 'person');
      return undefined;
    }
    if (answer.decision === 'allow-tool') allowedTools.add(request.tool);
    if (answer.decision === 'allow-always') {
      const { rule, error } = rules.remember(request, workspace);
      answered('allow-always', 'person', error === undefined ? `saved the ${describeRule(rule)}` : `the ${describeRule(rule)} holds for this process only: ${error}`);
      return undefined;
    }
    answered(answer.decision, 'person');
    return undefined;
  };

  const offPre = scope.on('tools/pre-execute', async (call): Promise<BlockDecision | undefined> => {
    if (call.name === RUN_CODE_TOOL_NAME) {
      programs.set(call.id, programOf(call.args));
      return undefined;
    }
    if (!needsApproval(call)) return undefined;
    const request: ApprovalRequest = {
      id: call.id,
      tool: call.name,
      args: call.args,
      ...(call.parent ? { parent: { id: call.parent.id, tool: call.parent.name, ...programs.get(call.parent.id) } } : {}),
    };
    const reason = await decide(request, call.signal ?? new AbortController().signal, false);
    return reason === undefined ? undefined : { block: reason };
  });
  const offResult = scope.on('tools/result', (event) => {
    if (event.call.name === RUN_CODE_TOOL_NAME) programs.delete(event.call.id);
  });
  const service: ApprovalsService = {
    policy: options.policy,
    confirm: (request, signal, confirmOptions) => {
      const parent = request.parent;
      const program = parent === undefined ? undefined : programs.get(parent.id);
      const shown = parent !== undefined && program !== undefined ? { ...request, parent: { ...program, ...parent } } : request;
      return decide(shown, signal, confirmOptions?.always === true);
    },
    installOn: (other) => attach(other, options, allowedTools, rules),
  };
  // The first installation on a registry provides the service; a second one (not done by the
  // front-ends) only adds its listener.
  const provided = scope.get('approvals') === undefined ? scope.plugin({ name: 'approvals', apply: (ctx) => ctx.provide('approvals', service) }) : undefined;
  return async () => {
    await offPre();
    await offResult();
    await provided?.dispose();
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
  return decision === 'allow' || decision === 'allow-tool' || decision === 'allow-always' || decision === 'deny';
}

function programOf(args: JsonValue): { program?: string; description?: string } {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {};
  const { code, description } = args;
  return { ...(typeof code === 'string' ? { program: code } : {}), ...(typeof description === 'string' ? { description } : {}) };
}
