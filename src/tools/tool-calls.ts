// The shapes of the tool pipeline (docs/ptc-mode.md): a call as hooks see it, the hooks' decisions,
// visibility filters and guards, the presentation modes, and the pipeline's events on the context.

import type { Context } from '../context/context.js';
import type { JsonValue } from '../json.js';
import type { SpillStore } from './spill.js';
import type { ToolCallRef, ToolCallResult, ToolSchema } from './types.js';

/** The transport tool of PTC mode; never registrable, whatever the mode (any agent may pick PTC later). */
export const RUN_CODE_TOOL_NAME = 'run_code';
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([RUN_CODE_TOOL_NAME]);

/**
 * How a scope's tools reach the model: `native` sends each visible tool as a JSON-schema function;
 * `ptc` sends only the run_code transport, and the tools become an SDK inside programs.
 */
export type PresentationMode = 'native' | 'ptc';

export interface ToolRuntimeConfig {
  /** The mode of every scope that does not declare its own with `presentAs` (default `native`). */
  readonly mode?: PresentationMode;
}

/** One call as every hook sees it. Frozen; `args` is a private JSON snapshot. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
  /** Set for nested calls (a program's sub-call carries its run_code call). */
  readonly parent?: ToolCallRef;
  /** The scope whose visibility, guards and hooks apply. */
  readonly scope: Context;
  /** Aborted when the call is (a hook that waits, e.g. for an approval, stops waiting then). */
  readonly signal?: AbortSignal;
}

/** A `tools/pre-execute` listener returns this to stop the call before the body runs. */
export interface BlockDecision {
  readonly block: string;
}

/** A `tools/post-execute` listener may block the result or replace its content. */
export type PostExecuteDecision = BlockDecision | { readonly content: string };

/** A guard returns a reason to deny; guards can only narrow what is allowed (monotonic). */
export type ToolGuard = (call: ToolCall) => string | undefined | Promise<string | undefined>;

/** Restricts visibility within a scope: an allowlist of names or a predicate. */
export type ToolFilter = readonly string[] | ((tool: ToolSchema) => boolean);

export type ExecutionMode = 'parallel' | 'exclusive';

export interface ToolResultEvent {
  readonly call: ToolCall;
  readonly result: ToolCallResult;
}

export interface ExecuteOptions {
  readonly signal?: AbortSignal;
  readonly parent?: ToolCallRef;
  /** Whose visibility applies; default: the context this view of the service belongs to. */
  readonly scope?: Context;
  /** The call id; default: a fresh `call_<n>`. */
  readonly id?: string;
  /** The session's spill store, handed to the body as `exec.spill` (docs/sessions.md, "Spill"). */
  readonly spill?: SpillStore;
}

declare module '../context/context.js' {
  interface Events {
    /** Serial: the first listener that returns a BlockDecision stops the call. */
    'tools/pre-execute'(call: ToolCall): BlockDecision | undefined | Promise<BlockDecision | undefined>;
    /** Middleware around the tool body: call `next()` to run the rest of the chain and the body. */
    'tools/execute'(call: ToolCall, next: () => Promise<JsonValue | undefined>): Promise<JsonValue | undefined>;
    /** Serial: may block the result or replace its content. */
    'tools/post-execute'(
      call: ToolCall,
      result: ToolCallResult,
    ): PostExecuteDecision | undefined | Promise<PostExecuteDecision | undefined>;
    /** Notification of the final, immutable outcome of every call. */
    'tools/result'(event: ToolResultEvent): void;
  }
}
