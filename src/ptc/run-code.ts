// The run_code transport and its dispatch bridge: a program's `await tools.x(args)` becomes a real
// call through the registry pipeline (parent = the run_code call, id `<parent>:ptc:<n>`), scheduled
// by the run's dispatch pool, observable as tool/ptc-dispatch events, and stopped completely when the
// program settles.

import { contractSchemas, withProperty, type ArgsOf, type ContractSchemas, type ValueOf } from '../builtin-tools/builtin-contract.js';
import { runCodeTimeoutText } from '../builtin-tools/contracts/run-code-text.js';
import { RUN_CODE_DESCRIPTION } from '../languages/typescript/prompt.js';
import type { Context } from '../context/context.js';
import { capErrorMessage } from '../error-text.js';
import { AbortedError, HarnessError, PermissionDeniedError, SandboxUnavailableError, type ErrorCode, type ErrorInfo } from '../errors.js';
import { planModeUnconfinedMessage, readOnlyWorkspaceOf } from '../builtin-tools/read-only-workspace.js';
import { checkJson, renderJson, type JsonValue } from '../json.js';
import type { BindingFunction, PolicyWidening, PtcRuntime, RunResult, TimeoutDescriptor } from '../ptc-runtime/types.js';
import { RUN_CODE_TOOL_NAME, type ToolRuntime } from '../tools/tool-runtime.js';
import { selectBackend } from '../sandbox/index.js';
import type { SpillStore } from '../tools/spill.js';
import { defineTool, type DeferredContext, type ToolCallRef, type ToolDefinition, type ToolExecContext } from '../tools/types.js';
import { DEFAULT_MAX_PARALLEL_SUB_CALLS, DispatchPool } from './dispatch-pool.js';
import { createSdkBinding } from './sdk-binding.js';
import { withUnknownMemberHint } from './unknown-member-hint.js';

/** Fields shared by both dispatch events. */
export interface PtcDispatchStart {
  readonly parentId: string;
  readonly id: string;
  readonly tool: string;
  readonly args: JsonValue;
}

export interface PtcDispatchSettle extends PtcDispatchStart {
  readonly content: string;
  readonly isError: boolean;
}

/** The raw outcome of one program, for log-only consumers (`ptc exec --json`, session logs). */
export interface PtcRunEvent {
  /** The run_code call id. */
  readonly id: string;
  readonly result: RunResult;
}

declare module '../context/context.js' {
  interface Services {
    /** The code runtime PTC mode runs programs in (the seam of src/ptc-runtime). */
    ptcRuntime: PtcRuntime;
  }
  interface Events {
    /** A program finished (value or failure) and every sub-call has settled. Log-only. */
    'tool/ptc-run'(event: PtcRunEvent): void;
    /** A program wrote a log line (it is also in the result's logs). Log-only, for streaming front-ends. */
    'tool/ptc-log'(event: { readonly id: string; readonly line: string }): void;
    /** A program's sub-call entered the dispatch pool. Log-only: never model history. */
    'tool/ptc-dispatch-start'(event: PtcDispatchStart): void;
    /** A program's sub-call settled (or was abandoned), with its full rendered content. Log-only. */
    'tool/ptc-dispatch'(event: PtcDispatchSettle): void;
  }
}

type Contract = typeof import('../builtin-tools/contracts/run-code.js');
/** The canonical value of a successful run_code call. */
export type RunCodeValue = ValueOf<Contract>;
export type RunCodeArgs = ArgsOf<Contract>;

export interface RunCodeToolOptions {
  readonly runtime: PtcRuntime;
  /** The workspace programs run in. */
  readonly cwd: string;
  /** Widening of the runtime's default policy for every program. */
  readonly policy?: PolicyWidening;
  /** Overlap bound for concurrency-safe sub-calls (default 10; 1 = serial). */
  readonly maxParallelSubCalls?: number;
}

export { RUN_CODE_DESCRIPTION };

/**
 * The contract's schemas for a runtime's deadline bounds: the generated schema with the runtime's
 * bounds and default put into `timeoutMs`, and a parser built by the contract for the same bounds.
 */
function runCodeSchemas(timeout: TimeoutDescriptor): ContractSchemas {
  const schemas = contractSchemas('run-code', async () => {
    const contract = await import('../builtin-tools/contracts/run-code.js');
    return { input: contract.inputFor(timeout), output: contract.output };
  });
  const bounds = { minimum: timeout.minMs, maximum: timeout.maxMs, description: runCodeTimeoutText(timeout.defaultMs) };
  return { ...schemas, inputSchema: withProperty(schemas.inputSchema, 'timeoutMs', bounds) };
}

/** Builds the run_code definition for a runtime; install it with `ctx.tools.provideTransport(...)`. */
export function createRunCodeTool(options: RunCodeToolOptions): ToolDefinition<RunCodeArgs, RunCodeValue> {
  const { runtime } = options;
  const maxParallel = options.maxParallelSubCalls ?? DEFAULT_MAX_PARALLEL_SUB_CALLS;
  return defineTool<RunCodeArgs, RunCodeValue>({
    name: RUN_CODE_TOOL_NAME,
    description: RUN_CODE_DESCRIPTION,
    ...runCodeSchemas(runtime.timeout),
    async execute(args, exec) {
      const scope = exec.scope;
      const tools = scope?.get('tools');
      if (!scope || !tools) throw new HarnessError('RUNTIME_UNAVAILABLE', 'run_code must be executed through the tool registry.');
      const policy = await programPolicy(runtime, options.policy, args, exec);
      const bridge = new Bridge(tools, scope, { id: exec.callId, name: RUN_CODE_TOOL_NAME }, maxParallel, exec.signal, exec.spill);
      let result: RunResult;
      try {
        const spec = await runtime.resolve({
          program: args.code,
          bindings: [
            { global: 'tools', functions: bridge.functions(), errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } },
            // Not tools: answered here from the visible catalog, never dispatched (docs/large-catalogs.md).
            createSdkBinding(tools.schemas(scope), runtime.language),
          ],
          cwd: options.cwd,
          ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
          signal: bridge.signal,
          onLog: (line) => scope.emit('tool/ptc-log', { id: exec.callId, line }),
          ...(policy ? { policy } : {}),
        });
        result = await runtime.run(spec);
      } finally {
        await bridge.settle();
        for (const entry of bridge.deferredContexts()) exec.deferContext(entry);
      }
      scope.emit('tool/ptc-run', Object.freeze({ id: exec.callId, result }));
      if (result.error) {
        const visible = tools.schemas(scope).map((t) => t.name);
        throw new ProgramFailedError(withUnknownMemberHint(result.error, visible, ['describe', 'search']), result.logs);
      }
      return { logs: [...result.logs], ...(result.value !== undefined ? { result: result.value } : {}) };
    },
    renderContent: (value) => renderRunCodeValue(value),
  });
}

/**
 * The policy of one program (docs/approvals.md, "Programs"). Under `--approve writes|all` a program
 * must not change the workspace behind the approvals: where the runtime's sandbox can hold the
 * workspace read-only it runs so (its changes go through tools.write/edit/bash, which ask); where
 * none can (sandbox off, no backend for the runtime), the run itself asks once, showing the program.
 */
async function programPolicy(runtime: PtcRuntime, base: PolicyWidening | undefined, args: RunCodeArgs, exec: ToolExecContext): Promise<PolicyWidening | undefined> {
  // Plan mode (docs/plan-mode.md): read-only where a sandbox holds it, else the program does not run.
  if (readOnlyWorkspaceOf(exec.scope)) {
    if (await holdsWorkspaceReadOnly(runtime)) return { ...base, readOnlyWorkspace: true };
    throw new SandboxUnavailableError(planModeUnconfinedMessage('a program'));
  }
  const approvals = exec.scope?.get('approvals');
  if (approvals === undefined || approvals.policy === 'never') return base;
  if (await holdsWorkspaceReadOnly(runtime)) return { ...base, readOnlyWorkspace: true };
  const reason = await approvals.confirm(
    {
      id: exec.callId,
      tool: RUN_CODE_TOOL_NAME,
      args: { code: args.code, description: args.description },
      why: 'no sandbox here can keep this program from changing the workspace, so the whole program asks before it runs',
    },
    exec.signal,
  );
  if (reason !== undefined) throw new PermissionDeniedError(`The program did not run: ${reason}.`);
  return base;
}

/**
 * Whether the runtime's sandbox keeps a read-only workspace: bwrap for any language (its children
 * too), Node's permission model for a Node runtime (it refuses child processes outright). A runtime
 * other than the shipped process runtimes must honour `readOnlyWorkspace` itself.
 */
export async function holdsWorkspaceReadOnly(runtime: PtcRuntime): Promise<boolean> {
  try {
    return (await selectBackend(runtime.sandboxMode, runtime.language === 'typescript' ? 'node' : 'exec')) !== 'none';
  } catch {
    // `required` without bwrap: the run fails SANDBOX_UNAVAILABLE anyway; asking first would be noise.
    return true;
  }
}

/** Logs first, then the result: strings raw, anything else pretty JSON. */
export function renderRunCodeValue(value: RunCodeValue): string {
  const parts = [...value.logs];
  if (value.result !== undefined) parts.push(renderJson(value.result));
  return parts.length > 0 ? parts.join('\n') : '(the program returned nothing and logged nothing)';
}

/** A failed program: its stable code, message, and the logs captured before the failure. */
export class ProgramFailedError extends HarnessError {
  readonly logs: readonly string[];

  constructor(error: ErrorInfo, logs: readonly string[]) {
    const tail = logs.length > 0 ? `\nLogs before the failure:\n${logs.join('\n')}` : '';
    // Any runtime's message is capped here too (the Node runtime already did); the logs are bounded
    // by the run's output limit (docs/control-channel.md, "Error text").
    super(error.code, `${capErrorMessage(error.message)}${tail}`);
    this.name = 'ProgramFailedError';
    this.logs = logs;
  }
}

/** The host side of one program run (also a workflow's run, src/workflows/workflow-tool.ts). */
export class Bridge {
  private readonly controller = new AbortController();
  private readonly pool: DispatchPool;
  private readonly contexts: (readonly DeferredContext[] | undefined)[] = [];
  private readonly pending = new Map<string, PtcDispatchStart>();
  private submitted = 0;
  private settled = false;

  private readonly tools: ToolRuntime;
  private readonly scope: Context;
  private readonly parent: ToolCallRef;
  /** The session's spill store: sub-calls inherit it (a program's tools.read reads spill files). */
  private readonly spill: SpillStore | undefined;

  constructor(tools: ToolRuntime, scope: Context, parent: ToolCallRef, maxParallel: number, outer: AbortSignal, spill: SpillStore | undefined) {
    this.tools = tools;
    this.scope = scope;
    this.parent = parent;
    this.spill = spill;
    // Every sub-call follows the run's signals and stops when it settles: one signal for all of them.
    this.pool = new DispatchPool(maxParallel, { shareSignals: true });
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
  }

  /** Follows the outer signal; aborted when the run settles. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** One binding per visible tool of the scope (never run_code: schemas() excludes the transport). */
  functions(): Record<string, BindingFunction> {
    const out: Record<string, BindingFunction> = Object.create(null) as Record<string, BindingFunction>;
    for (const schema of this.tools.schemas(this.scope)) out[schema.name] = (args, ctx) => this.call(schema.name, args, ctx.signal);
    return out;
  }

  /** Stops everything: no call starts, running calls are aborted and awaited, every pair is closed. */
  async settle(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    this.controller.abort(new AbortedError('The program run settled.'));
    await this.pool.settle();
    for (const start of [...this.pending.values()]) {
      this.finish(start, 'Error [ABORTED]: Abandoned: the program run settled before this call started.', true);
    }
  }

  /** Deferred contexts of every sub-call, in dispatch (submission) order. */
  deferredContexts(): DeferredContext[] {
    return this.contexts.flatMap((entries) => entries ?? []);
  }

  private async call(tool: string, args: JsonValue, bindingSignal: AbortSignal): Promise<JsonValue | undefined> {
    if (this.settled) throw new AbortedError('The program run has settled; no new calls start.');
    const index = this.submitted++;
    const id = `${this.parent.id}:ptc:${index + 1}`;
    const json = checkJson(args);
    if (!json.ok) {
      throw new HarnessError('INVALID_ARGS', `Invalid arguments for tool "${tool}": ${json.path || '(root)'} holds a ${json.reason}. Pass plain JSON values.`);
    }
    const start: PtcDispatchStart = Object.freeze({ parentId: this.parent.id, id, tool, args });
    this.pending.set(id, start);
    this.scope.emit('tool/ptc-dispatch-start', start);
    const mode = this.tools.executionMode(tool, { scope: this.scope, parent: this.parent });
    try {
      const result = await this.pool.submit(
        mode,
        (signal) => this.tools.execute(tool, args, { signal, parent: this.parent, scope: this.scope, id, ...(this.spill ? { spill: this.spill } : {}) }),
        [bindingSignal, this.controller.signal],
      );
      this.contexts[index] = result.deferredContexts;
      this.finish(start, result.content, result.isError);
      if (result.isError) {
        const error = result.error ?? { code: 'TOOL_FAILED' as ErrorCode, message: result.content };
        throw new HarnessError(error.code, error.message);
      }
      return result.value;
    } catch (error) {
      if (this.pending.has(id)) {
        // Abandoned before it started: the settle event still closes the pair.
        const info = error instanceof HarnessError ? error.toInfo() : { code: 'ABORTED' as const, message: String(error) };
        this.finish(start, `Error [${info.code}]: ${info.message}`, true);
      }
      throw error;
    }
  }

  private finish(start: PtcDispatchStart, content: string, isError: boolean): void {
    if (!this.pending.delete(start.id)) return;
    this.scope.emit('tool/ptc-dispatch', Object.freeze({ ...start, content, isError }));
  }
}
